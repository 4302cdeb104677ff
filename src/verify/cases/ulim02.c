/* ulim02.c - ULIM-02: the parent level bounds a container by its creator's snapshot.
 *
 * U with soft SIGPENDING 5 creates a user namespace (create_user_ns stores rlimit_max = 5),
 * then raises its soft limit inside to the hard limit.  Still only five RT signals queue: the
 * level-1 counter (init_user_ns, U) is checked against the namespace's rlimit_max (9e05e5c7ee87
 * semantics; 59ec71575ab4 fixed the max used).  SigQ inside reads 5 (level 0), and an observer
 * sleeping as U in the initial namespace reads 5 too (level 1).  After the drain both read 0. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

static int
ulim02_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vresult *r = ctx->res;
  pid_t obs = ucb_vobserver (ctx->uid_base);
  pid_t pid;
  int status;

  if (obs < 0)
    return ucb_make_error (err, errno, "fork observer");
  pid = ucb_vfork ();
  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      int refused;
      long n, q, qo, q0, qo0;

      if (ucb_vbecome (ctx->uid_base, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0
          || ucb_vuserns (0, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, RLIM_INFINITY, &e) < 0)
        _exit (1);
      n = ucb_vfill_rt (1000, &refused);
      q = ucb_vsigq (getpid ());
      qo = ucb_vsigq (obs);
      ucb_vdrain_rt ();
      q0 = ucb_vsigq (getpid ());
      qo0 = ucb_vsigq (obs);
      ucb_vobserve (r, "queued in the container", UCB_VITEM_ADMITTED, 5, n);
      ucb_vobserve (r, "errno at the parent bound", UCB_VITEM_ERRNO, EAGAIN, refused);
      ucb_vobserve (r, "SigQ inside (level 0)", UCB_VITEM_COUNTER, 5, q);
      ucb_vobserve (r, "observer SigQ (level 1)", UCB_VITEM_COUNTER, 5, qo);
      ucb_vobserve (r, "SigQ inside after the drain", UCB_VITEM_COUNTER, 0, q0);
      ucb_vobserve (r, "observer SigQ after the drain", UCB_VITEM_COUNTER, 0, qo0);
      _exit (0);
    }
  status = ucb_vwait (pid);
  kill (obs, SIGKILL);
  ucb_vwait (obs);
  if (status != 0)
    return ucb_make_error (err, 0, "the probe as uid %u failed", (unsigned) ctx->uid_base);
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
  .run = ulim02_run,
};
