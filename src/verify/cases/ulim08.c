/* ulim08.c - ULIM-08: what each sender API gets at the SIGPENDING limit (the override matrix).
 *
 * As a fresh uid U with soft SIGPENDING 5 and five SIGRTMIN queued (the 6th sigqueue: EAGAIN),
 * everything blocked and sent to itself.  __send_signal_locked -> sig_get_ucounts with
 * override_rlimit for a legacy signal with si_code >= 0: kill(SIGUSR1) returns 0, is queued with
 * its siginfo and charged past the limit (SigQ 6/5).  Without the override the allocation fails
 * and the result depends on the signal: a legacy one is delivered without siginfo
 * (TRACE_SIGNAL_LOSE_INFO: sigqueue(SIGUSR2) and raise(SIGUSR2) return 0, sigwaitinfo gives
 * si_code SI_USER, si_value 0), an RT one sent with SI_USER too (kill(SIGRTMIN+1) returns 0,
 * not charged, taken with si_pid 0), an RT one with any other si_code fails
 * (TRACE_SIGNAL_OVERFLOW_FAIL: tgkill and rt_tgsigqueueinfo get EAGAIN); pidfd_send_signal with a
 * NULL info is SI_USER (0; skipped where pidfd_open is ENOSYS).  Everything drained: SigQ 0.
 * Then in a container of U2 created with soft 5 and raised inside, filled up to the parent bound
 * (5 RT, no refusal): kill(SIGUSR1) is charged at every level, the observer (U2 in the initial
 * namespace) and the container's own SigQ read 6, since 9e05e5c7ee87 (v6.12-rc7, CVE-2024-50271)
 * makes the override skip the parent levels; 0 after the drain.  Before it the charge fails at
 * level 1 and SIGUSR1 loses its siginfo: 5 and 5, and where 432dc0654c61 is missing as well the
 * failed level-1 increment leaks (observer 6, and 1 after the drain).  9e05e5c7ee87 went to 6.1.y
 * and later stable trees (432dc0654c61 to some): from 6.12 on, and on 6.1.y from 6.1.117 (both
 * commits are in that stable update: Debian's linux 6.1 changelog lists them under
 * ChangeLog-6.1.117), only 6, 6, 0 pass; on older kernels, where uname cannot tell whether a
 * stable tree carries the backport, those values are reported as the known bug.  The 6.1.y
 * sublevel comes from uname -r, or on Debian kernels (uname -r 6.1.0-NN-...) from the upstream
 * version Debian puts in uname -v ("... Debian 6.1.192-3 ..."). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

static void
block_all (sigset_t *set)
{
  sigemptyset (set);
  sigaddset (set, SIGUSR1);
  sigaddset (set, SIGUSR2);
  for (int i = 0; i < 4; i++)
    sigaddset (set, SIGRTMIN + i);
  sigprocmask (SIG_BLOCK, set, NULL);
}

/* Take one pending `sig`; its siginfo, or si_signo 0 when none was pending. */
static siginfo_t
take (int sig)
{
  struct timespec zero = { 0, 0 };
  siginfo_t si;
  sigset_t one;

  memset (&si, 0, sizeof si);
  sigemptyset (&one);
  sigaddset (&one, sig);
  if (sigtimedwait (&one, &si, &zero) < 0)
    memset (&si, 0, sizeof si);
  return si;
}

static void
drain_all (const sigset_t *set)
{
  struct timespec zero = { 0, 0 };

  while (sigtimedwait (set, NULL, &zero) >= 0)
    ;
}

/* 0 for a 0 return, else errno. */
static int
rc (long ret)
{
  return ret == 0 ? 0 : errno;
}

static void
matrix (struct ucb_vresult *r, uid_t uid)
{
  ucb_error_t e = NULL;
  pid_t self = getpid (), tid = (pid_t) syscall (SYS_gettid);
  union sigval v = { .sival_int = 42 };
  int refused, r_kill, r_sq, r_raise, r_killrt, r_tg, r_tgsq;
  long n, q_kill, q_after, q0;
  siginfo_t s_usr1, s_sq, s_raise, s_killrt, info;
  sigset_t set;

  block_all (&set);
  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0)
    _exit (1);
  n = ucb_vfill_rt (100, &refused);
  r_kill = rc (kill (self, SIGUSR1));
  q_kill = ucb_vsigq (self);
  r_sq = rc (sigqueue (self, SIGUSR2, v));
  s_sq = take (SIGUSR2);
  r_raise = rc (raise (SIGUSR2));
  s_raise = take (SIGUSR2);
  r_killrt = rc (kill (self, SIGRTMIN + 1));
  q_after = ucb_vsigq (self);
  r_tg = rc (syscall (SYS_tgkill, self, tid, SIGRTMIN + 2));
  memset (&info, 0, sizeof info);
  info.si_signo = SIGRTMIN + 2;
  info.si_code = SI_QUEUE;
  info.si_pid = self;
  info.si_uid = getuid ();
  r_tgsq = rc (syscall (SYS_rt_tgsigqueueinfo, self, tid, SIGRTMIN + 2, &info));
  ucb_vobserve (r, "RT signals queued at soft 5", UCB_VITEM_ADMITTED, 5, n);
  ucb_vobserve (r, "errno of the 6th sigqueue(RT)", UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vobserve (r, "kill(SIGUSR1) at the limit", UCB_VITEM_ERRNO, 0, r_kill);
  ucb_vobserve (r, "SigQ after kill(SIGUSR1): override", UCB_VITEM_COUNTER, 6, q_kill);
  ucb_vobserve (r, "sigqueue(SIGUSR2) at the limit", UCB_VITEM_ERRNO, 0, r_sq);
  ucb_vobserve (r, "sigqueue(SIGUSR2): si_code taken", UCB_VITEM_EXACT, SI_USER,
                s_sq.si_signo ? s_sq.si_code : -100);
  ucb_vobserve (r, "sigqueue(SIGUSR2): si_value taken", UCB_VITEM_EXACT, 0,
                s_sq.si_signo ? s_sq.si_value.sival_int : -100);
  ucb_vobserve (r, "raise(SIGUSR2) at the limit", UCB_VITEM_ERRNO, 0, r_raise);
  ucb_vobserve (r, "raise(SIGUSR2): si_code taken", UCB_VITEM_EXACT, SI_USER,
                s_raise.si_signo ? s_raise.si_code : -100);
  ucb_vobserve (r, "kill(RT) at the limit", UCB_VITEM_ERRNO, 0, r_killrt);
  ucb_vobserve (r, "SigQ after legacy sends and kill(RT)", UCB_VITEM_COUNTER, 6, q_after);
  ucb_vobserve (r, "tgkill(RT) at the limit", UCB_VITEM_ERRNO, EAGAIN, r_tg);
  ucb_vobserve (r, "rt_tgsigqueueinfo(RT) at the limit", UCB_VITEM_ERRNO, EAGAIN, r_tgsq);
#ifdef SYS_pidfd_open
  {
    int fd = (int) syscall (SYS_pidfd_open, self, 0);
    if (fd >= 0)
      {
        ucb_vobserve (r, "pidfd_send_signal(RT, NULL) at the limit", UCB_VITEM_ERRNO, 0,
                      rc (syscall (SYS_pidfd_send_signal, fd, SIGRTMIN + 3, NULL, 0)));
        close (fd);
      }
    else if (errno != ENOSYS)
      ucb_vobserve (r, "pidfd_open", UCB_VITEM_ERRNO, 0, errno);
  }
#endif
  s_usr1 = take (SIGUSR1);
  s_killrt = take (SIGRTMIN + 1);
  ucb_vobserve (r, "kill(SIGUSR1) queued with its siginfo", UCB_VITEM_EXACT, 1,
                s_usr1.si_signo == SIGUSR1 && s_usr1.si_code == SI_USER && s_usr1.si_pid == self);
  ucb_vobserve (r, "kill(RT): si_pid taken (info lost)", UCB_VITEM_EXACT, 0,
                s_killrt.si_signo ? s_killrt.si_pid : -1);
  drain_all (&set);
  q0 = ucb_vsigq (self);
  ucb_vobserve (r, "SigQ after draining everything", UCB_VITEM_COUNTER, 0, q0);
  _exit (0);
}

static void
in_container (struct ucb_vresult *r, uid_t uid, pid_t obs, bool fixed)
{
  ucb_error_t e = NULL;
  int refused, r_kill;
  long n, qo, q, qo0;
  sigset_t set;

  block_all (&set);
  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0
      || ucb_vuserns (0, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, RLIM_INFINITY, &e) < 0)
    _exit (1);
  /* Exactly up to the bound, no refusal: without 432dc0654c61 a refusal would leak a unit. */
  n = ucb_vfill_rt (5, &refused);
  r_kill = rc (kill (getpid (), SIGUSR1));
  qo = ucb_vsigq (obs);
  q = ucb_vsigq (getpid ());
  drain_all (&set);
  qo0 = ucb_vsigq (obs);
  ucb_vobserve (r, "container: RT queued up to the bound (5)", UCB_VITEM_EXACT, 5, n);
  ucb_vobserve (r, "container: kill(SIGUSR1) at the bound", UCB_VITEM_ERRNO, 0, r_kill);
  if (fixed)
    {
      ucb_vobserve (r, "container: observer SigQ after kill", UCB_VITEM_COUNTER, 6, qo);
      ucb_vobserve (r, "container: SigQ inside after kill", UCB_VITEM_COUNTER, 6, q);
      ucb_vobserve (r, "container: observer SigQ after the drain", UCB_VITEM_COUNTER, 0, qo0);
    }
  else
    {
      /* Without 9e05e5c7ee87 the override stops at the parent bound: 5 and 5 (and, without
       * 432dc0654c61 too, the failed level-1 charge leaks: observer 6 and 1 after the drain). */
      ucb_vobserve_bug (r, "container: observer SigQ after kill", UCB_VITEM_COUNTER, 6, qo, 5);
      ucb_vobserve_bug (r, "container: SigQ inside after kill", UCB_VITEM_COUNTER, 6, q, 5);
      ucb_vobserve_bug (r, "container: observer SigQ after the drain", UCB_VITEM_COUNTER, 0, qo0,
                        1);
    }
  _exit (0);
}

/* The 6.1.y sublevel: uname -r, or the upstream version a Debian kernel (uname -r 6.1.0-NN-...)
 * names in uname -v ("#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (...)"); 0 when unknown. */
static unsigned
sublevel_61 (const struct ucb_kernel *k)
{
  struct utsname u;
  const char *p;
  unsigned maj, min, sub;

  if (k->patch > 0)
    return k->patch;
  if (uname (&u) < 0 || (p = strstr (u.version, "Debian ")) == NULL
      || sscanf (p + 7, "%u.%u.%u", &maj, &min, &sub) != 3 || maj != 6 || min != 1)
    return 0;
  return sub;
}

static int
ulim08_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  const struct ucb_kernel *k = ctx->kernel;
  /* 9e05e5c7ee87: mainline 6.12; 6.1.y since 6.1.117 (with 432dc0654c61, same stable update) */
  bool fixed = k->major > 6 || (k->major == 6 && k->minor >= 12)
               || (k->major == 6 && k->minor == 1 && sublevel_61 (k) >= 117);
  uid_t u2 = ctx->uid_base + 1;
  pid_t pid, obs;
  int status;

  pid = ucb_vfork ();
  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    matrix (ctx->res, ctx->uid_base);
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe as uid %u failed", (unsigned) ctx->uid_base);
  obs = ucb_vobserver (u2);
  if (obs < 0)
    return ucb_make_error (err, errno, "fork observer");
  pid = ucb_vfork ();
  if (pid == 0)
    in_container (ctx->res, u2, obs, fixed);
  status = pid > 0 ? ucb_vwait (pid) : -1;
  kill (obs, SIGKILL);
  ucb_vwait (obs);
  if (status != 0)
    return ucb_make_error (err, 0, "the container probe as uid %u failed", (unsigned) u2);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim08 = {
  .id = "ULIM-08",
  .name = "sigpending-sender-matrix",
  .title = "SIGPENDING: each sender API's result at the limit; the legacy override",
  .rlimit = "SIGPENDING",
  .depends
  = "parent levels skipped by override since 9e05e5c7ee87 (6.12-rc7; 6.1.117; other stable trees "
    "unknown: known-bug there)",
  .checks = "__send_signal_locked: override_rlimit (si_code >= 0, sig < SIGRTMIN), LOSE_INFO vs "
            "OVERFLOW_FAIL (EAGAIN); override skips parent levels (9e05e5c7ee87)",
  .run = ulim08_run,
};
