/* signal.c - raise(SIGUSR1) into a no-op handler: will-it-scale's signal1.
 *
 * One op = tgkill() queues a sigqueue, charged to RLIMIT_SIGPENDING at every user-namespace
 * level (inc_rlimit_get_ucounts), and delivery frees it (dec_rlimit_put_ucounts): exactly one
 * charge and one uncharge.  SIGUSR1 sent with SI_TKILL is not an override signal, so every
 * level's limit is checked.  Also takes the task's own sighand->siglock (not global). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "../workload.h"

static void
on_sigusr1 (int sig)
{
  (void) sig;
}

static int
signal_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  struct sigaction sa;

  (void) ctx;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_sigusr1;
  sigemptyset (&sa.sa_mask);
  if (sigaction (SIGUSR1, &sa, NULL) < 0)
    return ucb_make_error (err, errno, "sigaction SIGUSR1");
  return 0;
}

static enum ucb_result
signal_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  for (uint64_t i = 0; i < iters; i++)
    {
      /* raise() cannot report a refused charge: at the limit the kernel still delivers a
       * legacy signal, only without its siginfo (__send_signal_locked "lose info"), so the
       * op succeeds uncharged.  Only RT signals from sigqueue() are refused with EAGAIN. */
      if (raise (SIGUSR1) == 0)
        ucb_op_done (ctx);
      else
        ucb_op_failed (ctx, errno);
    }
  return UCB_OK;
}

static void
signal_teardown (struct ucb_wctx *ctx)
{
  (void) ctx;
  signal (SIGUSR1, SIG_DFL);
}

const struct ucb_workload ucb_workload_signal = {
  .name = "signal",
  .summary = "raise(SIGUSR1) into a no-op handler (will-it-scale signal1)",
  .op = "raise(SIGUSR1) + handler: tgkill, sigqueue alloc/free, rt_sigreturn",
  .counter = "SIGPENDING",
  .locks = "per-process sighand->siglock only",
  .rlimits = UCB_RLIM_SIGPENDING,
  .batch = 1000,
  .setup = signal_setup,
  .loop = signal_loop,
  .teardown = signal_teardown,
};
