/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sigqueue.c - queue SIGRTMIN to the blocked calling thread and take it with sigtimedwait.
 *
 * One op = rt_tgsigqueueinfo() with SI_QUEUE queues a sigqueue, charged to RLIMIT_SIGPENDING
 * at every user-namespace level (inc_rlimit_get_ucounts), and sigtimedwait() dequeues and frees
 * it (dec_rlimit_put_ucounts): exactly one charge and one uncharge.  An RT signal with SI_QUEUE
 * is never an override signal, so every level's limit is checked and a refused charge is an
 * EAGAIN from the send.  Also takes the task's own sighand->siglock (not global). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/workload.h"

struct sigqueue_state
{
  siginfo_t info; /* built once: the kernel only reads it */
  sigset_t set;   /* just the signal */
  pid_t pid;
  pid_t tid;
  int sig;
  bool blocked; /* setup() added the signal to this thread's mask */
  bool unblock; /* ...and it was not blocked before */
};

static const struct timespec zero = { 0, 0 };

static int
sigqueue_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  struct sigqueue_state *s = xcalloc (1, sizeof *s);
  sigset_t old;
  int e;

  ctx->priv = s;
  /* Looked up once: SIGRTMIN, getpid() and gettid() are calls, and the op is only the two
   * system calls. */
  s->sig = SIGRTMIN;
  s->pid = getpid ();
  s->tid = gettid ();
  s->info.si_signo = s->sig;
  s->info.si_code = SI_QUEUE;
  s->info.si_pid = s->pid;
  s->info.si_uid = getuid ();
  sigemptyset (&s->set);
  sigaddset (&s->set, s->sig);
  /* Blocked in this thread only, so the signal stays queued until sigtimedwait() takes it;
   * an unblocked SIGRTMIN with SIG_DFL would kill the process. */
  e = pthread_sigmask (SIG_BLOCK, &s->set, &old);
  if (e != 0)
    return ucb_make_error (err, e, "pthread_sigmask SIG_BLOCK SIGRTMIN");
  s->blocked = true;
  s->unblock = !sigismember (&old, s->sig);
  return 0;
}

static enum ucb_result
sigqueue_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  const struct sigqueue_state *s = ctx->priv;

  for (uint64_t i = 0; i < iters; i++)
    {
      /* Thread-directed (tgid, tid) so that in thread mode each task takes its own signal. */
      if (syscall (SYS_rt_tgsigqueueinfo, s->pid, s->tid, s->sig, &s->info) < 0)
        {
          ucb_op_failed (ctx, errno); /* EAGAIN: the charge was refused */
          continue;
        }
      /* Already pending, so a zero timeout never sleeps; no siginfo copy-out is needed. */
      ucb_op_count (ctx, sigtimedwait (&s->set, NULL, &zero) == s->sig ? 0 : errno);
    }
  return UCB_OK;
}

static void
sigqueue_teardown (struct ucb_wctx *ctx)
{
  struct sigqueue_state *s = ctx->priv;

  if (s == NULL)
    return;
  if (s->blocked)
    {
      /* Drain before unblocking: a pending SIGRTMIN would be delivered with SIG_DFL. */
      for (;;)
        {
          int r = sigtimedwait (&s->set, NULL, &zero);
          if (r != s->sig && !(r < 0 && errno == EINTR))
            break;
        }
      /* Only our bit: the rest of the mask may have changed since setup(). */
      if (s->unblock)
        pthread_sigmask (SIG_UNBLOCK, &s->set, NULL);
    }
}

const struct ucb_workload ucb_workload_sigqueue = {
  .name = "sigqueue",
  .summary = "queue SIGRTMIN to the blocked calling thread, take it with sigtimedwait",
  .op = "rt_tgsigqueueinfo(SIGRTMIN, SI_QUEUE) to self + sigtimedwait (zero timeout)",
  .locks = "per-process sighand->siglock only",
  .rlimits = UCB_RLIM_SIGPENDING,
  .peak = 1, /* one queued signal between the send and sigtimedwait() */
  .batch = 1000,
  .setup = sigqueue_setup,
  .loop = sigqueue_loop,
  .teardown = sigqueue_teardown,
};
