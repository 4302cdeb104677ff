/* SPDX-License-Identifier: GPL-2.0-or-later */
/* signal.c - raise(SIGUSR1) into a no-op handler: will-it-scale's signal1.
 *
 * One op = tgkill() queues a sigqueue, charged to RLIMIT_SIGPENDING at every user-namespace
 * level (inc_rlimit_get_ucounts), and delivery frees it (dec_rlimit_put_ucounts): exactly one
 * charge and one uncharge.  SIGUSR1 sent with SI_TKILL is not an override signal, so every
 * level's limit is checked.  Also takes the task's own sighand->siglock (not global).
 *
 * At the limit tgkill() still succeeds: the kernel delivers a legacy signal without its
 * siginfo ("lose info" in __send_signal_locked), so si_code arrives as SI_USER instead of
 * SI_TKILL.  The handler looks at si_code, and such an op counts as failed (EAGAIN, the
 * refusal an RT signal would get): the charge was refused even though the signal arrived. */
#include "config.h"

#include <errno.h>
#include <signal.h>

#include "engine/workload.h"

/* Per thread: tasks may be threads, each raising to itself. */
static __thread volatile sig_atomic_t charged;

static void
on_sigusr1 (int sig, siginfo_t *info, void *uc)
{
  (void) sig;
  (void) uc;
  charged = info->si_code == SI_TKILL;
}

static int
signal_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  (void) ctx;
  return ucb_op_handler (SIGUSR1, "SIGUSR1", on_sigusr1, err);
}

static enum ucb_result
signal_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  for (uint64_t i = 0; i < iters; i++)
    {
      /* The handler has run when raise() returns: delivery happens on the way out. */
      charged = 0;
      ucb_op_count (ctx, raise (SIGUSR1) != 0 ? errno : charged ? 0 : EAGAIN);
    }
  return UCB_OK;
}

static void
signal_teardown (struct ucb_wctx *ctx)
{
  /* The disposition is per process: sibling threads may still be raising. */
  if (!ctx->threads)
    signal (SIGUSR1, SIG_DFL);
}

const struct ucb_workload ucb_workload_signal = {
  .name = "signal",
  .summary = "raise(SIGUSR1) into a no-op handler (will-it-scale signal1)",
  .op = "raise(SIGUSR1) + SA_SIGINFO handler: tgkill, sigqueue alloc/free, rt_sigreturn",
  .locks = "per-process sighand->siglock only",
  .rlimits = UCB_RLIM_SIGPENDING,
  .peak = 1, /* one queued signal between raise() and its delivery */
  .batch = 1000,
  .setup = signal_setup,
  .loop = signal_loop,
  .teardown = signal_teardown,
};
