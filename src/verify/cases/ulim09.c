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
#include "verify/vprobe.h"

#define MAX_TIMERS 32

/* The receiver: blocks SIGRTMIN, says so; on each `go` drains, records, and says so. */
static void
receiver (struct ucb_vresult *r, uid_t uid, struct ucb_vgate *ready, struct ucb_vgate *go)
{
  static const char *const names[2][2]
      = { { "R drained after root's sends", "R SigQ after that drain" },
          { "R drained after U2's sends", "R SigQ after the last drain" } };
  ucb_error_t e = NULL;
  sigset_t rt;

  sigemptyset (&rt);
  sigaddset (&rt, SIGRTMIN);
  if (sigprocmask (SIG_BLOCK, &rt, NULL) < 0 || ucb_vbecome (uid, &e) < 0
      || ucb_vsoft (RLIMIT_SIGPENDING, 3, &e) < 0)
    _exit (1);
  ucb_vgate_post (ready);
  for (int i = 0; i < 2; i++)
    {
      long drained;

      if (!ucb_vgate_wait (go))
        _exit (1);
      drained = ucb_vdrain_rt ();
      ucb_vobserve (r, names[i][0], UCB_VITEM_EXACT, 3, drained);
      ucb_vobserve (r, names[i][1], UCB_VITEM_COUNTER, 0, ucb_vsigq (getpid ()));
      ucb_vgate_post (ready);
    }
  _exit (0);
}

/* Queue SIGRTMIN to `pid` until refused. */
static long
send_until_refused (pid_t pid, int *errnum)
{
  union sigval v = { .sival_int = 0 };
  long n = 0;

  *errnum = 0;
  for (; n < 100; n++)
    if (sigqueue (pid, SIGRTMIN, v) < 0)
      {
        *errnum = errno;
        break;
      }
  return n;
}

/* The second sender: ruid U2, euid 0 (capabilities kept), soft 1. */
static void
sender_u2 (struct ucb_vresult *r, uid_t u2, pid_t to)
{
  ucb_error_t e = NULL;
  int refused;
  long n;

  if (ucb_vsoft (RLIMIT_SIGPENDING, 1, &e) < 0 || setresuid (u2, 0, 0) < 0)
    _exit (1);
  n = send_until_refused (to, &refused);
  ucb_vobserve (r, "queued to R by ruid U2/euid 0, soft 1", UCB_VITEM_ADMITTED, 3, n);
  ucb_vobserve (r, "errno of its 4th sigqueue", UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vobserve (r, "SigQ of that sender (U2's counter)", UCB_VITEM_COUNTER, 0,
                ucb_vsigq (getpid ()));
  _exit (0);
}

static int
receiver_part (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vresult *r = ctx->res;
  struct ucb_vgate ready, go;
  int refused = 0, ss = -1, sr;
  bool ok = false;
  pid_t rcv, snd;

  if (ucb_vgate_open (&ready, err) < 0)
    return -1;
  if (ucb_vgate_open (&go, err) < 0)
    {
      ucb_vgate_close (&ready);
      return -1;
    }
  rcv = ucb_vfork ();
  if (rcv == 0)
    {
      close (ready.fd[0]);
      receiver (r, ctx->uid_base, &ready, &go);
    }
  /* Only the receiver writes `ready`: if it dies, the wait sees EOF instead of hanging (and we
   * keep go's read end, so that posting to a dead receiver is no SIGPIPE). */
  close (ready.fd[1]);
  ready.fd[1] = -1;
  if (rcv > 0 && ucb_vgate_wait (&ready))
    {
      long n = send_until_refused (rcv, &refused);
      ucb_vobserve (r, "queued by root to R (soft 3)", UCB_VITEM_ADMITTED, 3, n);
      ucb_vobserve (r, "errno of root's 4th sigqueue", UCB_VITEM_ERRNO, EAGAIN, refused);
      ucb_vobserve (r, "R SigQ after root's sends", UCB_VITEM_COUNTER, 3, ucb_vsigq (rcv));
      ucb_vgate_post (&go);
      if (ucb_vgate_wait (&ready))
        {
          snd = ucb_vfork ();
          if (snd == 0)
            sender_u2 (r, ctx->uid_base + 1, rcv);
          ss = snd > 0 ? ucb_vwait (snd) : -1;
          ucb_vobserve (r, "R SigQ after U2's sends", UCB_VITEM_COUNTER, 3, ucb_vsigq (rcv));
          ucb_vgate_post (&go);
          ok = ss == 0 && ucb_vgate_wait (&ready);
        }
    }
  if (rcv > 0 && !ok)
    kill (rcv, SIGKILL);
  sr = rcv > 0 ? ucb_vwait (rcv) : -1;
  ucb_vgate_close (&ready);
  ucb_vgate_close (&go);
  if (rcv < 0)
    return ucb_make_error (err, errno, "fork");
  if (!ok || sr != 0)
    return ucb_make_error (err, 0, "the receiver (uid %u) or the U2 sender failed (%d, %d)",
                           (unsigned) ctx->uid_base, sr, ss);
  return 0;
}

/* Timers of U3 with soft 5. */
static void
timers (struct ucb_vresult *r, uid_t uid)
{
  struct sigevent sev;
  struct itimerspec soon = { .it_value = { 0, 1000000 } };
  struct timespec ms = { 0, 1000000 }, zero = { 0, 0 };
  ucb_error_t e = NULL;
  int ids[MAX_TIMERS], refused = 0, fired = 0;
  long n = 0, q5, qexp, q3, q0;
  sigset_t rt, pending;

  sigemptyset (&rt);
  sigaddset (&rt, SIGRTMIN);
  if (sigprocmask (SIG_BLOCK, &rt, NULL) < 0 || ucb_vbecome (uid, &e) < 0
      || ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0)
    _exit (1);
  memset (&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGRTMIN;
  for (; n < MAX_TIMERS; n++)
    if (syscall (SYS_timer_create, CLOCK_MONOTONIC, &sev, &ids[n]) < 0)
      {
        refused = errno;
        break;
      }
  q5 = ucb_vsigq (getpid ());
  sigemptyset (&pending);
  sigpending (&pending);
  ucb_vobserve (r, "timers created at soft 5", UCB_VITEM_ADMITTED, 5, n);
  ucb_vobserve (r, "errno of the 6th timer_create", UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vobserve (r, "SigQ with 5 timers", UCB_VITEM_COUNTER, 5, q5);
  ucb_vobserve (r, "SIGRTMIN pending with 5 timers", UCB_VITEM_EXACT, 0,
                sigismember (&pending, SIGRTMIN));
  /* One expiry, left pending while SigQ is read. */
  if (n > 0 && syscall (SYS_timer_settime, ids[0], 0, &soon, NULL) == 0)
    for (int i = 0; i < 2000 && !fired; i++)
      {
        nanosleep (&ms, NULL);
        sigpending (&pending);
        fired = sigismember (&pending, SIGRTMIN);
      }
  qexp = ucb_vsigq (getpid ());
  sigtimedwait (&rt, NULL, &zero);
  ucb_vobserve (r, "an expiry pending within 2 s", UCB_VITEM_EXACT, 1, fired);
  ucb_vobserve (r, "SigQ with the expiry pending", UCB_VITEM_COUNTER, 5, qexp);
  for (long i = 0; i < n && i < 2; i++)
    syscall (SYS_timer_delete, ids[i]);
  q3 = ucb_vsigq (getpid ());
  for (long i = 2; i < n; i++)
    syscall (SYS_timer_delete, ids[i]);
  q0 = ucb_vsigq (getpid ());
  ucb_vobserve (r, "SigQ after 2 timer_delete", UCB_VITEM_COUNTER, 3, q3);
  ucb_vobserve (r, "SigQ after deleting every timer", UCB_VITEM_COUNTER, 0, q0);
  _exit (0);
}

static int
ulim09_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  pid_t pid;

  if (receiver_part (ctx, err) < 0)
    return -1;
  pid = ucb_vfork ();
  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    timers (ctx->res, ctx->uid_base + 2);
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the timer probe as uid %u failed",
                           (unsigned) ctx->uid_base + 2);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim09 = {
  .id = "ULIM-09",
  .name = "sigpending-receiver-timers",
  .title = "SIGPENDING: the receiver is charged, not the sender; a POSIX timer holds one unit",
  .rlimit = "SIGPENDING",
  .depends = "ucounts (5.14+); POSIX timers charge for their life",
  .checks = "sig_get_ucounts(t): task_ucounts/task_rlimit of the target; timer_create "
            "posixtimer_init_sigqueue charge for the timer's lifetime, timer_delete uncharge",
  .run = ulim09_run,
};
