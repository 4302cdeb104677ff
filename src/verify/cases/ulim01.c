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

static int
ulim01_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vresult *r = ctx->res;
  pid_t pid = ucb_vfork ();

  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      int refused;
      long n, q, drained, q0, again;

      if (ucb_vbecome (ctx->uid_base, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0)
        _exit (1);
      n = ucb_vfill_rt (100, &refused);
      q = ucb_vsigq (getpid ());
      drained = ucb_vdrain_rt ();
      q0 = ucb_vsigq (getpid ());
      again = ucb_vfill_rt (100, &refused);
      ucb_vdrain_rt ();
      ucb_vobserve (r, "queued before the refusal", UCB_VITEM_ADMITTED, 5, n);
      ucb_vobserve (r, "errno of the 6th sigqueue", UCB_VITEM_ERRNO, EAGAIN, refused);
      ucb_vobserve (r, "SigQ when full", UCB_VITEM_COUNTER, 5, q);
      ucb_vobserve (r, "signals drained", UCB_VITEM_EXACT, 5, drained);
      ucb_vobserve (r, "SigQ after the drain", UCB_VITEM_COUNTER, 0, q0);
      ucb_vobserve (r, "queued again after the drain", UCB_VITEM_ADMITTED, 5, again);
      _exit (0);
    }
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe as uid %u failed", (unsigned) ctx->uid_base);
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
  .run = ulim01_run,
};
