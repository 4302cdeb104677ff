/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timer.c - create and delete a POSIX timer that is never armed.
 *
 * One op = timer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL) preallocates the timer's sigqueue and
 * charges it to RLIMIT_SIGPENDING at every user-namespace level for the timer's lifetime
 * (posixtimer_init_sigqueue; sigqueue_alloc in older kernels), and timer_delete() uncharges it
 * (dec_rlimit_put_ucounts): exactly one charge and one uncharge.  Never armed, so no signal is
 * ever sent.  Not an override: at the limit timer_create() fails with EAGAIN.  Also takes a
 * lock of the global posix-timers id hash (a per-bucket lock since 6.15, the single hash_lock
 * before), the timer's it_lock and the task's own sighand->siglock; the timer is freed after
 * an RCU grace period. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/workload.h"

/* Not every libc defines it: glibc 2.36 has only the union member. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static int
timer_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  struct sigevent *sev = xcalloc (1, sizeof *sev);

  (void) err;
  ctx->priv = sev;
  sev->sigev_signo = SIGRTMIN + 1;
  if (ctx->threads)
    {
      /* Aimed at this thread, as the other thread-mode workloads target their own thread. */
      sev->sigev_notify = SIGEV_THREAD_ID;
      sev->sigev_notify_thread_id = gettid ();
    }
  else
    sev->sigev_notify = SIGEV_SIGNAL;
  return 0;
}

/* Raw system calls: the op is exactly these two, without glibc's timer_t mapping (and without
 * -lrt on older glibc). */
static int
timer_take (struct ucb_wctx *ctx, uintptr_t *held)
{
  const struct sigevent *sev = ctx->priv;
  int id; /* the kernel's timer_t */

  if (syscall (SYS_timer_create, CLOCK_MONOTONIC, sev, &id) < 0)
    return errno; /* EAGAIN: the charge was refused */
  *held = (uintptr_t) id;
  return 0;
}

/* A timer that cannot be deleted keeps its charge: stop rather than leak. */
static int
timer_release (struct ucb_wctx *ctx, uintptr_t held)
{
  (void) ctx;
  return syscall (SYS_timer_delete, (int) held) < 0 ? errno : 0;
}

static enum ucb_result
timer_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  return ucb_charge_loop (ctx, iters, timer_take, timer_release);
}

const struct ucb_workload ucb_workload_timer = {
  .name = "timer",
  .summary = "timer_create + timer_delete of a POSIX timer that is never armed",
  .op = "timer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL SIGRTMIN+1) + timer_delete, never armed",
  .locks = "posix-timers id hash (per-bucket lock since 6.15, global hash_lock before); "
           "per-process sighand->siglock",
  .rlimits = UCB_RLIM_SIGPENDING,
  .peak = 1, /* one timer alive between create and delete */
  .batch = 1000,
  .setup = timer_setup,
  .loop = timer_loop,
};
