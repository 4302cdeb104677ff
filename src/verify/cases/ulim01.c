/* ulim01.c - ULIM-01: RLIMIT_SIGPENDING at the task's own level.
 *
 * As a fresh uid U in the initial namespace with soft SIGPENDING 5: five RT signals queue, the
 * sixth gets EAGAIN (sig_get_ucounts -> inc_rlimit_get_ucounts, level 0 against the task's own
 * soft limit, "new value > max" so exactly `limit` fit); SigQ reads 5; draining returns it to 0
 * and the same five fit again (no charge leaks on the refused sixth). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

enum
{
  QUEUED,
  REFUSED,
  SIGQ_FULL,
  DRAINED,
  SIGQ_DRAINED,
  AGAIN,
};

static int
fill_drain_fill (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  int refused, again;

  (void) arg, (void) err;
  o->v[QUEUED] = ucb_vfill_rt (100, &refused);
  o->v[REFUSED] = refused;
  o->v[SIGQ_FULL] = ucb_vsigq (getpid ());
  o->v[DRAINED] = ucb_vdrain_rt ();
  o->v[SIGQ_DRAINED] = ucb_vsigq (getpid ());
  o->v[AGAIN] = ucb_vfill_rt (100, &again);
  ucb_vdrain_rt ();
  return 0;
}

static int
ulim01_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .uid = ctx->uid_base, .resource = RLIMIT_SIGPENDING, .soft = 5 };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;

  if (ucb_probe_run (&spec, fill_drain_fill, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "queued before the refusal", UCB_VITEM_ADMITTED, 5, o.v[QUEUED]);
  ucb_vobserve (r, "errno of the 6th sigqueue", UCB_VITEM_ERRNO, EAGAIN, o.v[REFUSED]);
  ucb_vobserve (r, "SigQ when full", UCB_VITEM_COUNTER, 5, o.v[SIGQ_FULL]);
  ucb_vobserve (r, "signals drained", UCB_VITEM_EXACT, 5, o.v[DRAINED]);
  ucb_vobserve (r, "SigQ after the drain", UCB_VITEM_COUNTER, 0, o.v[SIGQ_DRAINED]);
  ucb_vobserve (r, "queued again after the drain", UCB_VITEM_ADMITTED, 5, o.v[AGAIN]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim01 = {
  .id = "ULIM-01",
  .name = "sigpending-own-level",
  .title = "SIGPENDING: exactly the own soft limit queues, then EAGAIN; SigQ back to 0",
  .rlimit = "SIGPENDING",
  .depends = "ucounts-based SIGPENDING (5.14+); same on every such kernel",
  .checks = "sig_get_ucounts/inc_rlimit_get_ucounts level 0 vs task_rlimit(SIGPENDING); "
            "dec_rlimit_put_ucounts on dequeue",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim01_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};
