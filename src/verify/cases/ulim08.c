/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

static const struct ucb_rlops *const sigs = &ucb_rlops[UCB_RL_SIGPENDING];

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

/* Release our SIGRTMIN fill, then take whatever else is pending. */
static void
drain_all (struct ucb_rlheld *rt, const sigset_t *set)
{
  struct timespec zero = { 0, 0 };

  ucb_rlops_release (sigs, rt, -1);
  while (sigtimedwait (set, NULL, &zero) >= 0)
    ;
}

/* 0 for a 0 return, else errno. */
static int
rc (long ret)
{
  return ret == 0 ? 0 : errno;
}

enum
{
  QUEUED,
  REFUSED,
  R_KILL,
  Q_KILL,
  R_SQ,
  SQ_CODE,
  SQ_VALUE,
  R_RAISE,
  RAISE_CODE,
  R_KILLRT,
  Q_AFTER,
  R_TG,
  R_TGSQ,
  PIDFD, /* 0: pidfd_open is ENOSYS, 1: PIDFD_RC is the send's, 2: it is pidfd_open's errno */
  PIDFD_RC,
  USR1_INFO,
  KILLRT_PID,
  Q_DRAINED,
};

static void
pidfd_send (struct ucb_probe_out *o, pid_t self)
{
  o->v[PIDFD] = 0;
#ifdef SYS_pidfd_open
  {
    int fd = (int) syscall (SYS_pidfd_open, self, 0);
    if (fd >= 0)
      {
        o->v[PIDFD] = 1;
        o->v[PIDFD_RC] = rc (syscall (SYS_pidfd_send_signal, fd, SIGRTMIN + 3, NULL, 0));
        close (fd);
      }
    else if (errno != ENOSYS)
      {
        o->v[PIDFD] = 2;
        o->v[PIDFD_RC] = errno;
      }
  }
#else
  (void) self;
#endif
}

static int
matrix (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t self = getpid (), tid = (pid_t) syscall (SYS_gettid);
  union sigval v = { .sival_int = 42 };
  siginfo_t s_usr1, s_sq, s_raise, s_killrt, info;
  struct ucb_rlheld rt = { .n = 0 };
  sigset_t set;
  int refused;

  (void) arg, (void) err;
  block_all (&set);
  o->v[QUEUED] = ucb_rlops_fill (sigs, &rt, UCB_VTRIES (5), false, &refused);
  o->v[REFUSED] = refused;
  o->v[R_KILL] = rc (kill (self, SIGUSR1));
  o->v[Q_KILL] = ucb_vsigq (self);
  o->v[R_SQ] = rc (sigqueue (self, SIGUSR2, v));
  s_sq = take (SIGUSR2);
  o->v[SQ_CODE] = s_sq.si_signo ? s_sq.si_code : -100;
  o->v[SQ_VALUE] = s_sq.si_signo ? s_sq.si_value.sival_int : -100;
  o->v[R_RAISE] = rc (raise (SIGUSR2));
  s_raise = take (SIGUSR2);
  o->v[RAISE_CODE] = s_raise.si_signo ? s_raise.si_code : -100;
  o->v[R_KILLRT] = rc (kill (self, SIGRTMIN + 1));
  o->v[Q_AFTER] = ucb_vsigq (self);
  o->v[R_TG] = rc (syscall (SYS_tgkill, self, tid, SIGRTMIN + 2));
  memset (&info, 0, sizeof info);
  info.si_signo = SIGRTMIN + 2;
  info.si_code = SI_QUEUE;
  info.si_pid = self;
  info.si_uid = getuid ();
  o->v[R_TGSQ] = rc (syscall (SYS_rt_tgsigqueueinfo, self, tid, SIGRTMIN + 2, &info));
  pidfd_send (o, self);
  s_usr1 = take (SIGUSR1);
  s_killrt = take (SIGRTMIN + 1);
  o->v[USR1_INFO]
      = s_usr1.si_signo == SIGUSR1 && s_usr1.si_code == SI_USER && s_usr1.si_pid == self;
  o->v[KILLRT_PID] = s_killrt.si_signo ? s_killrt.si_pid : -1;
  drain_all (&rt, &set);
  o->v[Q_DRAINED] = ucb_vsigq (self);
  return 0;
}

static void
observe_matrix (struct ucb_vresult *r, const struct ucb_probe_out *o)
{
  const int64_t *v = o->v;

  ucb_vobserve_fill (r, "RT signals queued at soft 5", UCB_VITEM_ADMITTED, 5, v[QUEUED],
                     UCB_VTRIES (5), "errno of the 6th sigqueue(RT)", EAGAIN, v[REFUSED]);
  ucb_vobserve (r, "kill(SIGUSR1) at the limit", UCB_VITEM_ERRNO, 0, v[R_KILL]);
  /* SigQ counts what the sends were charged: the admissions, over the fill's tries and a send
   * each (a fill to the cap makes them "> cap"). */
  ucb_vobserve_count (r, "SigQ after kill(SIGUSR1): override", UCB_VITEM_ADMITTED, 6, v[Q_KILL],
                      UCB_VTRIES (5) + 1);
  ucb_vobserve (r, "sigqueue(SIGUSR2) at the limit", UCB_VITEM_ERRNO, 0, v[R_SQ]);
  ucb_vobserve (r, "sigqueue(SIGUSR2): si_code taken", UCB_VITEM_EXACT, SI_USER, v[SQ_CODE]);
  ucb_vobserve (r, "sigqueue(SIGUSR2): si_value taken", UCB_VITEM_EXACT, 0, v[SQ_VALUE]);
  ucb_vobserve (r, "raise(SIGUSR2) at the limit", UCB_VITEM_ERRNO, 0, v[R_RAISE]);
  ucb_vobserve (r, "raise(SIGUSR2): si_code taken", UCB_VITEM_EXACT, SI_USER, v[RAISE_CODE]);
  ucb_vobserve (r, "kill(RT) at the limit", UCB_VITEM_ERRNO, 0, v[R_KILLRT]);
  /* 7: kill(RT) was queued past the limit (over-admission); SIGUSR2's sends are taken. */
  ucb_vobserve_count (r, "SigQ after legacy sends and kill(RT)", UCB_VITEM_ADMITTED, 6, v[Q_AFTER],
                      UCB_VTRIES (5) + 2);
  ucb_vobserve (r, "tgkill(RT) at the limit", UCB_VITEM_ERRNO, EAGAIN, v[R_TG]);
  ucb_vobserve (r, "rt_tgsigqueueinfo(RT) at the limit", UCB_VITEM_ERRNO, EAGAIN, v[R_TGSQ]);
  if (v[PIDFD] == 1)
    ucb_vobserve (r, "pidfd_send_signal(RT, NULL) at the limit", UCB_VITEM_ERRNO, 0, v[PIDFD_RC]);
  else if (v[PIDFD] == 2)
    ucb_vobserve (r, "pidfd_open", UCB_VITEM_EXACT, 0, v[PIDFD_RC]); /* no charge: no class */
  ucb_vobserve (r, "kill(SIGUSR1) queued with its siginfo", UCB_VITEM_ADMITTED, 1, v[USR1_INFO]);
  ucb_vobserve (r, "kill(RT): si_pid taken (info lost)", UCB_VITEM_EXACT, 0, v[KILLRT_PID]);
  ucb_vobserve (r, "SigQ after draining everything", UCB_VITEM_COUNTER, 0, v[Q_DRAINED]);
}

enum
{
  C_QUEUED,
  C_R_KILL,
  C_Q_OBSERVER,
  C_Q_INSIDE,
  C_Q_OBSERVER_DRAINED,
};

static int
in_container (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t obs = *(const pid_t *) arg;
  struct ucb_rlheld rt = { .n = 0 };
  sigset_t set;
  int refused;

  (void) err;
  block_all (&set);
  /* Exactly up to the bound, no refusal: without 432dc0654c61 a refusal would leak a unit. */
  o->v[C_QUEUED] = ucb_rlops_fill (sigs, &rt, 5, false, &refused);
  o->v[C_R_KILL] = rc (kill (getpid (), SIGUSR1));
  o->v[C_Q_OBSERVER] = ucb_vsigq (obs);
  o->v[C_Q_INSIDE] = ucb_vsigq (getpid ());
  drain_all (&rt, &set);
  o->v[C_Q_OBSERVER_DRAINED] = ucb_vsigq (obs);
  return 0;
}

static void
observe_container (struct ucb_vresult *r, const struct ucb_probe_out *o, bool fixed)
{
  const int64_t *v = o->v;

  ucb_vobserve (r, "container: RT queued up to the bound (5)", UCB_VITEM_ADMITTED, 5, v[C_QUEUED]);
  ucb_vobserve (r, "container: kill(SIGUSR1) at the bound", UCB_VITEM_ERRNO, 0, v[C_R_KILL]);
  if (fixed)
    {
      ucb_vobserve (r, "container: observer SigQ after kill", UCB_VITEM_ADMITTED, 6,
                    v[C_Q_OBSERVER]);
      ucb_vobserve (r, "container: SigQ inside after kill", UCB_VITEM_ADMITTED, 6, v[C_Q_INSIDE]);
      ucb_vobserve (r, "container: observer SigQ after the drain", UCB_VITEM_COUNTER, 0,
                    v[C_Q_OBSERVER_DRAINED]);
    }
  else
    {
      /* Without 9e05e5c7ee87 the override stops at the parent bound: 5 and 5 (and, without
       * 432dc0654c61 too, the failed level-1 charge leaks: observer 6 and 1 after the drain). */
      ucb_vobserve_bug (r, UCB_VBUG_SIGPENDING_OVERRIDE, "container: observer SigQ after kill",
                        UCB_VITEM_ADMITTED, 6, v[C_Q_OBSERVER], 5);
      ucb_vobserve_bug (r, UCB_VBUG_SIGPENDING_OVERRIDE, "container: SigQ inside after kill",
                        UCB_VITEM_ADMITTED, 6, v[C_Q_INSIDE], 5);
      ucb_vobserve_bug (r, UCB_VBUG_SIGPENDING_OVERRIDE, "container: observer SigQ after the drain",
                        UCB_VITEM_COUNTER, 0, v[C_Q_OBSERVER_DRAINED], 1);
    }
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
  struct ucb_probe_spec spec = { .uid = ctx->uid_base, .resource = RLIMIT_SIGPENDING, .soft = 5 };
  struct ucb_probe_out o;
  pid_t obs;

  if (ucb_probe_run (&spec, matrix, NULL, &o, err) < 0)
    return -1;
  observe_matrix (ctx->res, &o);
  spec.what = "the container probe";
  spec.uid = ctx->uid_base + 1;
  spec.userns = CLONE_NEWUSER;
  spec.soft_inside = RLIM_INFINITY;
  if (ucb_probe_run_observed (spec.uid, &obs, &spec, in_container, &obs, &o, err) < 0)
    return -1;
  observe_container (ctx->res, &o, fixed);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim08 = {
  .id = "ULIM-08",
  .name = "sigpending-sender-matrix",
  .title = "SIGPENDING: each sender API's result at the limit; the legacy override",
  .rlimit = UCB_RL_SIGPENDING,
  .depends
  = "parent levels skipped by override since 9e05e5c7ee87 (6.12-rc7; 6.1.117; other stable trees "
    "unknown: known-bug there)",
  .checks = "__send_signal_locked: override_rlimit (si_code >= 0, sig < SIGRTMIN), LOSE_INFO vs "
            "OVERFLOW_FAIL (EAGAIN); override skips parent levels (9e05e5c7ee87)",
  .run = ulim08_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P7 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P7 } },
};
