/* ulim05.c - ULIM-05: containers of distinct owners do not share a counter.
 *
 * Container A (owner U1) and container B (owner U2), each created with soft SIGPENDING 10 and
 * raised inside: while A holds 10 queued signals, B still queues 10.  Their level-1 objects are
 * (init_user_ns, U1) and (init_user_ns, U2): nothing in common (the isolation Jann Horn
 * suggested runtimes use; contrast ULIM-04, same owner). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

/* Fill the container; with `hold`, report and keep the signals until ordered. */
static int
fill (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  bool hold = arg != NULL;
  int refused;

  o->v[0] = ucb_vfill_rt (1000, &refused);
  if (hold && (ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0))
    return -1;
  ucb_vdrain_rt ();
  return 0;
}

static int
ulim05_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "container A",
                                 .uid = ctx->uid_base,
                                 .resource = RLIMIT_SIGPENDING,
                                 .soft = 10,
                                 .userns = CLONE_NEWUSER,
                                 .soft_inside = RLIM_INFINITY };
  struct ucb_probe a = UCB_PROBE_NONE;
  struct ucb_probe_out full, ob;
  static bool hold = true;

  if (ucb_probe_start (&a, &spec, fill, &hold, err) < 0)
    return -1;
  spec.what = "container B";
  spec.uid = ctx->uid_base + 1;
  if (ucb_probe_next (&a, &full, err) < 0 || ucb_probe_run (&spec, fill, NULL, &ob, err) < 0
      || ucb_probe_order (&a, &full, err) < 0 || ucb_probe_finish (&a, NULL, err) < 0)
    {
      ucb_probe_kill (&a);
      return -1;
    }
  ucb_vobserve (ctx->res, "queued in A (owner U1)", UCB_VITEM_ADMITTED, 10, full.v[0]);
  ucb_vobserve (ctx->res, "queued in B (owner U2) while A is full", UCB_VITEM_ADMITTED, 10,
                ob.v[0]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim05 = {
  .id = "ULIM-05",
  .name = "sigpending-distinct-owners",
  .title = "SIGPENDING: containers of distinct owners each get their full limit",
  .rlimit = "SIGPENDING",
  .depends = "ucounts (5.14+)",
  .checks = "ns->ucounts = (parent ns, creator euid): distinct owners, distinct level-1 counters",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim05_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 } },
};
