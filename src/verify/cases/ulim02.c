/* ulim02.c - ULIM-02: the parent level bounds a container by its creator's snapshot.
 *
 * U with soft SIGPENDING 5 creates a user namespace (create_user_ns stores rlimit_max = 5),
 * then raises its soft limit inside to the hard limit.  Still only five RT signals queue: the
 * level-1 counter (init_user_ns, U) is checked against the namespace's rlimit_max (9e05e5c7ee87
 * semantics; 59ec71575ab4 fixed the max used).  SigQ inside reads 5 (level 0), and an observer
 * sleeping as U in the initial namespace reads 5 too (level 1).  After the drain both read 0. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

enum
{
  QUEUED,
  REFUSED,
  SIGQ_INSIDE,
  SIGQ_OBSERVER,
  SIGQ_INSIDE_DRAINED,
  SIGQ_OBSERVER_DRAINED,
};

static int
fill_and_read (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t obs = *(const pid_t *) arg;
  int refused;

  (void) err;
  o->v[QUEUED] = ucb_vfill_rt (1000, &refused);
  o->v[REFUSED] = refused;
  o->v[SIGQ_INSIDE] = ucb_vsigq (getpid ());
  o->v[SIGQ_OBSERVER] = ucb_vsigq (obs);
  ucb_vdrain_rt ();
  o->v[SIGQ_INSIDE_DRAINED] = ucb_vsigq (getpid ());
  o->v[SIGQ_OBSERVER_DRAINED] = ucb_vsigq (obs);
  return 0;
}

static int
ulim02_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .uid = ctx->uid_base,
                                 .resource = RLIMIT_SIGPENDING,
                                 .soft = 5,
                                 .userns = CLONE_NEWUSER,
                                 .soft_inside = RLIM_INFINITY };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;
  pid_t obs;

  if (ucb_probe_run_observed (ctx->uid_base, &obs, &spec, fill_and_read, &obs, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "queued in the container", UCB_VITEM_ADMITTED, 5, o.v[QUEUED]);
  ucb_vobserve (r, "errno at the parent bound", UCB_VITEM_ERRNO, EAGAIN, o.v[REFUSED]);
  ucb_vobserve (r, "SigQ inside (level 0)", UCB_VITEM_COUNTER, 5, o.v[SIGQ_INSIDE]);
  ucb_vobserve (r, "observer SigQ (level 1)", UCB_VITEM_COUNTER, 5, o.v[SIGQ_OBSERVER]);
  ucb_vobserve (r, "SigQ inside after the drain", UCB_VITEM_COUNTER, 0, o.v[SIGQ_INSIDE_DRAINED]);
  ucb_vobserve (r, "observer SigQ after the drain", UCB_VITEM_COUNTER, 0,
                o.v[SIGQ_OBSERVER_DRAINED]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim02 = {
  .id = "ULIM-02",
  .name = "sigpending-parent-bound",
  .title = "SIGPENDING: a container is bound by its creator's soft limit at creation",
  .rlimit = "SIGPENDING",
  .depends = "5.16-rc7+ (59ec71575ab4 fixed the max used at parent levels; before it the leaf is "
             "still bound)",
  .checks = "create_user_ns set_userns_rlimit_max(SIGPENDING); inc_rlimit_get_ucounts level 1 "
            "vs get_userns_rlimit_max (59ec71575ab4)",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim02_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P1 } },
};
