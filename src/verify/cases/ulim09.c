/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim09.c - ULIM-09: the receiver is charged, not the sender; a POSIX timer holds one unit.
 *
 * sig_get_ucounts charges task_ucounts(t) of the target and compares it with task_rlimit(t).
 * A receiver R of uid U with soft SIGPENDING 3 blocks SIGRTMIN; root (the case process) sigqueues
 * to it: 3 then EAGAIN, R's SigQ 3; R drains 3, SigQ 0.  Root's own counter (init_user_ns, 0) is
 * shared with every root task (noise), so the sender side is checked with a second sender: ruid
 * U2 / euid 0 (root's capabilities, but its counter is (init_user_ns, U2)) with soft SIGPENDING 1
 * also gets 3 then EAGAIN, and its own SigQ stays 0.  Timers: U3 with soft 5; timer_create
 * (SIGEV_SIGNAL) charges one unit per timer for its lifetime (posixtimer_init_sigqueue since the
 * 6.13/6.14 rework, a SIGQUEUE_PREALLOC entry before): 5 succeed, the 6th gets EAGAIN, SigQ 5
 * with nothing pending; an expiry queues the preallocated entry and charges nothing (SigQ still
 * 5); timer_delete x2 -> SigQ 3, all deleted -> 0.  Raw syscalls: no librt on older glibc. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

static const struct ucb_rlops *const sigs = &ucb_rlops[UCB_RL_SIGPENDING];

#define MAX_TIMERS UCB_VTRIES (5) /* the timers count, up to the safety cap */

/* The receiver (SIGRTMIN blocked): reports ready; on each order drains (what the senders
 * queued to it: at most their tries), reads its SigQ and reports again.  Its values: drained and
 * SigQ after each of the two orders. */
static int
receiver (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) arg;
  if (ucb_probe_report (o, err) < 0)
    return -1;
  for (int i = 0; i < 2; i++)
    {
      if (ucb_probe_await (NULL, err) < 0)
        return -1;
      o->v[2 * i] = ucb_rlops_take (sigs, UCB_VTRIES (3));
      o->v[2 * i + 1] = ucb_vsigq (getpid ());
      if (ucb_probe_report (o, err) < 0)
        return -1;
    }
  return 0;
}

/* The second sender (the spec: ruid U2, euid 0, soft 1) sends to *arg. */
static int
sender_u2 (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) err;
  o->v[0] = ucb_rlops_send (sigs, *(const pid_t *) arg, UCB_VTRIES (3), &o->errnum);
  o->v[1] = ucb_vsigq (getpid ());
  return 0;
}

/* Root, then U2 sends to R (ready); R drains after each. */
static int
sends (struct ucb_vctx *ctx, struct ucb_probe *rcv, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the ruid U2 sender",
                                 .ruid = ctx->uid_base + 1,
                                 .resource = RLIMIT_SIGPENDING,
                                 .soft = 1 };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o = { 0 }, u2;
  int refused;
  long n = ucb_rlops_send (sigs, rcv->pid, UCB_VTRIES (3), &refused);

  ucb_vobserve_fill (r, "queued by root to R (soft 3)", UCB_VITEM_ADMITTED, 3, n, UCB_VTRIES (3),
                     "errno of root's 4th sigqueue", EAGAIN, refused);
  ucb_vobserve (r, "R SigQ after root's sends", UCB_VITEM_COUNTER, 3, ucb_vsigq (rcv->pid));
  if (ucb_probe_order (rcv, &o, err) < 0 || ucb_probe_next (rcv, &o, err) < 0
      || ucb_probe_run (&spec, sender_u2, &rcv->pid, &u2, err) < 0)
    return -1;
  ucb_vobserve (r, "R drained after root's sends", UCB_VITEM_EXACT, 3, o.v[0]);
  ucb_vobserve (r, "R SigQ after that drain", UCB_VITEM_COUNTER, 0, o.v[1]);
  ucb_vobserve_fill (r, "queued to R by ruid U2/euid 0, soft 1", UCB_VITEM_ADMITTED, 3, u2.v[0],
                     UCB_VTRIES (3), "errno of its 4th sigqueue", EAGAIN, u2.errnum);
  ucb_vobserve (r, "SigQ of that sender (U2's counter)", UCB_VITEM_COUNTER, 0, u2.v[1]);
  ucb_vobserve (r, "R SigQ after U2's sends", UCB_VITEM_COUNTER, 3, ucb_vsigq (rcv->pid));
  if (ucb_probe_order (rcv, &o, err) < 0 || ucb_probe_finish (rcv, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "R drained after U2's sends", UCB_VITEM_EXACT, 3, o.v[2]);
  ucb_vobserve (r, "R SigQ after the last drain", UCB_VITEM_COUNTER, 0, o.v[3]);
  return 0;
}

static int
receiver_part (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the receiver",
                                 .uid = ctx->uid_base,
                                 .block_rt = true,
                                 .resource = RLIMIT_SIGPENDING,
                                 .soft = 3 };
  struct ucb_probe rcv = UCB_PROBE_NONE;

  if (ucb_probe_start_report (&rcv, &spec, receiver, NULL, NULL, err) < 0)
    return -1;
  if (sends (ctx, &rcv, err) < 0)
    {
      ucb_probe_kill (&rcv);
      return -1;
    }
  return 0;
}

enum
{
  TIMERS,
  Q5,
  PENDING5,
  FIRED,
  QEXP,
  Q3,
  Q0,
};

/* Timers of U3 with soft 5 (SIGRTMIN blocked). */
static int
timers (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct sigevent sev;
  struct itimerspec soon = { .it_value = { 0, 1000000 } };
  struct timespec ms = { 0, 1000000 }, zero = { 0, 0 };
  int ids[MAX_TIMERS], fired = 0;
  long n = 0;
  sigset_t rt, pending;

  (void) arg, (void) err;
  sigemptyset (&rt);
  sigaddset (&rt, SIGRTMIN);
  memset (&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGRTMIN;
  for (; n < MAX_TIMERS; n++)
    if (syscall (SYS_timer_create, CLOCK_MONOTONIC, &sev, &ids[n]) < 0)
      {
        o->errnum = errno;
        break;
      }
  o->v[TIMERS] = n;
  o->v[Q5] = ucb_vsigq (getpid ());
  sigemptyset (&pending);
  sigpending (&pending);
  o->v[PENDING5] = sigismember (&pending, SIGRTMIN);
  /* One expiry, left pending while SigQ is read. */
  if (n > 0 && syscall (SYS_timer_settime, ids[0], 0, &soon, NULL) == 0)
    for (int i = 0; i < 2000 && !fired; i++)
      {
        nanosleep (&ms, NULL);
        sigpending (&pending);
        fired = sigismember (&pending, SIGRTMIN);
      }
  o->v[FIRED] = fired;
  o->v[QEXP] = ucb_vsigq (getpid ());
  sigtimedwait (&rt, NULL, &zero);
  for (long i = 0; i < n && i < 2; i++)
    syscall (SYS_timer_delete, ids[i]);
  o->v[Q3] = ucb_vsigq (getpid ());
  for (long i = 2; i < n; i++)
    syscall (SYS_timer_delete, ids[i]);
  o->v[Q0] = ucb_vsigq (getpid ());
  return 0;
}

static int
ulim09_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the timer probe",
                                 .uid = ctx->uid_base + 2,
                                 .block_rt = true,
                                 .resource = RLIMIT_SIGPENDING,
                                 .soft = 5 };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;

  if (receiver_part (ctx, err) < 0 || ucb_probe_run (&spec, timers, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (r, "timers created at soft 5", UCB_VITEM_ADMITTED, 5, o.v[TIMERS], MAX_TIMERS,
                     "errno of the 6th timer_create", EAGAIN, o.errnum);
  ucb_vobserve (r, "SigQ with 5 timers", UCB_VITEM_COUNTER, 5, o.v[Q5]);
  ucb_vobserve (r, "SIGRTMIN pending with 5 timers", UCB_VITEM_EXACT, 0, o.v[PENDING5]);
  ucb_vobserve (r, "an expiry pending within 2 s", UCB_VITEM_EXACT, 1, o.v[FIRED]);
  ucb_vobserve (r, "SigQ with the expiry pending", UCB_VITEM_COUNTER, 5, o.v[QEXP]);
  ucb_vobserve (r, "SigQ after 2 timer_delete", UCB_VITEM_COUNTER, 3, o.v[Q3]);
  ucb_vobserve (r, "SigQ after deleting every timer", UCB_VITEM_COUNTER, 0, o.v[Q0]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim09 = {
  .id = "ULIM-09",
  .name = "sigpending-receiver-timers",
  .title = "SIGPENDING: the receiver is charged, not the sender; a POSIX timer holds one unit",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "ucounts (5.14+); POSIX timers charge for their life",
  .checks = "sig_get_ucounts(t): task_ucounts/task_rlimit of the target; timer_create "
            "posixtimer_init_sigqueue charge for the timer's lifetime, timer_delete uncharge",
  .run = ulim09_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P7 }, { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};
