/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systrap.c - a system call trapped by seccomp and emulated in a SIGSYS handler: gVisor's systrap.
 *
 * One op = syscall (SYS_getpgid, MAGIC), which this thread's seccomp filter answers with
 * SECCOMP_RET_TRAP: the kernel skips the call and forces a SIGSYS (force_sig_seccomp), and the
 * handler writes the emulated result into the saved registers, as gVisor's systrap platform
 * does for every guest system call.  The forced SIGSYS queues one sigqueue charged to
 * RLIMIT_SIGPENDING at every user-namespace level, and delivery frees it: exactly one charge
 * and one uncharge.  It is a kernel signal below SIGRTMIN (si_code SYS_SECCOMP > 0), so it
 * takes the override path: since 6.12 no level's limit is checked, but every counter still
 * moves.  Also takes the task's own sighand->siglock (not global); the filter runs on every
 * trapped call and its cost is part of the op, as in gVisor. */
#include "config.h"

#ifdef HAVE_SECCOMP
#include <errno.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#endif

#include "engine/workload.h"

#ifdef HAVE_SECCOMP

/* A pid that cannot exist (pid_max is at most 2^22): only our op passes it, so the filter
 * traps nothing else the task does, and an untrapped call just fails with ESRCH. */
#define MAGIC 0x75636230 /* "ucb0" */
#define EMULATED 0       /* what the emulated getpgid (MAGIC) returns */

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a seccomp trap (asm-generic/siginfo.h); glibc lacks it */
#endif

/* Set by the handler when it emulated our call; per thread, like the filter. */
static __thread volatile sig_atomic_t trapped;

/* libseccomp caches its kernel probes in unlocked globals, and thread tasks run setup()
 * concurrently. */
static pthread_mutex_t seccomp_lock = PTHREAD_MUTEX_INITIALIZER;

static void
on_sigsys (int sig, siginfo_t *info, void *ucv)
{
  (void) sig;
  /* Anything else is not ours.  Before 6.12 an exhausted parent level lost the siginfo even
   * on the override path (si_code SI_USER): the loop counts that as a refused charge. */
  if (info->si_code != SYS_SECCOMP || info->si_syscall != SYS_getpgid)
    return;
#if defined(__x86_64__)
  ((ucontext_t *) ucv)->uc_mcontext.gregs[REG_RAX] = EMULATED;
#else
  (void) ucv; /* elsewhere the register stays as the kernel left it; the op still counts */
#endif
  trapped = 1;
}

static int
systrap_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  scmp_filter_ctx f;
  const char *what = "seccomp_init";
  int rc = -ENOMEM;

  (void) ctx;
  /* The handler first: a trap without one kills the task.  It is process-wide and the same
   * every time, so every thread task may install it. */
  if (ucb_op_handler (SIGSYS, "SIGSYS", on_sigsys, err) < 0)
    return -1;

  pthread_mutex_lock (&seccomp_lock);
  f = seccomp_init (SCMP_ACT_ALLOW);
  if (f != NULL)
    {
      /* Kernel errnos rather than -ECANCELED; other architectures' calls are not ours to
       * kill.  No TSYNC: the filter is for this thread only.  SCMP_FLTATR_CTL_NNP stays on,
       * so no CAP_SYS_ADMIN is needed (no_new_privs is per thread too). */
      what = "seccomp_attr_set";
      rc = seccomp_attr_set (f, SCMP_FLTATR_API_SYSRAWRC, 1);
      if (rc == 0)
        rc = seccomp_attr_set (f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
      if (rc == 0)
        {
          what = "seccomp_rule_add getpgid";
          rc = seccomp_rule_add (f, SCMP_ACT_TRAP, SCMP_SYS (getpgid), 1,
                                 SCMP_A0 (SCMP_CMP_EQ, MAGIC));
        }
      if (rc == 0)
        {
          what = "seccomp_load";
          rc = seccomp_load (f);
        }
      seccomp_release (f);
    }
  pthread_mutex_unlock (&seccomp_lock);
  if (rc < 0)
    return ucb_make_error (err, -rc, "%s", what);
  return 0;
}

static enum ucb_result
systrap_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  for (uint64_t i = 0; i < iters; i++)
    {
      long r;

      trapped = 0;
      r = syscall (SYS_getpgid, (long) MAGIC);
      /* Not trapped (ESRCH: no filter), or the siginfo was lost: no charge, as a refused
       * sigqueue() would report it. */
      ucb_op_count (ctx, trapped ? 0 : r < 0 ? errno : EAGAIN);
    }
  return UCB_OK;
}

/* No teardown: nothing removes a seccomp filter, and the handler must outlive it (in thread
 * mode other tasks may still be trapping).  Both end with the task's thread or process. */

#endif /* HAVE_SECCOMP */

const struct ucb_workload ucb_workload_systrap = {
  .name = "systrap",
  .summary = "a seccomp-trapped call emulated in a SIGSYS handler (gVisor systrap), override path",
  .op = "getpgid(magic) trapped by seccomp: forced SIGSYS, handler emulates, rt_sigreturn",
  .locks = "per-process sighand->siglock only; the seccomp filter runs per trapped call",
  .rlimits = UCB_RLIM_SIGPENDING,
  .peak = 1, /* one forced SIGSYS between the trap and its delivery */
  .batch = 1000,
#ifdef HAVE_SECCOMP
  .setup = systrap_setup,
  .loop = systrap_loop,
#else
  .unsupported_reason = "built without libseccomp (--without-seccomp)",
#endif
};
