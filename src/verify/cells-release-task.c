/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells-release-task.c - P3 by other hands for SIGPENDING and NPROC (cells.h).  A queued
 * signal is charged to its receiver (sig_get_ucounts: q->ucounts) and uncharged by whoever
 * frees it (__sigqueue_free): a sibling thread that dequeues a process-wide signal, or
 * release_task() in the reaper of a receiver that died with signals pending.  A task is charged
 * to its real uid (copy_creds, commit_creds) and uncharged by release_task() in its reaper.  A
 * kernel that uncharges the releaser (current_ucounts()) leaves the charger's counter charged
 * for good and drives the releaser's down; the levels their chains share net out.
 *
 * So charger and releaser differ in uid.  The agent is made in a room R that maps two uids
 * (0 -> U, 1 -> U+1: the case process writes the maps) and builds the cell's place in it
 * (ucb_vcell_place; each namespace maps the same two uids, written by a helper left in the one
 * above), where it is uid 0 and a thread or a child of it becomes uid 1.  Afterwards both uids'
 * SigQ (their level-0 counters) and refills must be exact, and so must a fill at the level's
 * shared bound; once the agent is gone, R allows all its namespaces again (cells.h ucb_vroom). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "host/userns.h"
#include "verify/cells.h"
#include "verify/probe-work.h"

enum
{
  /* NPROC: uid 1's children the agent reaps.  A kernel that uncharges the reaper leaves its
   * count at 1 - KIDS: -1 lets it fork KIDS more than its bound; below that every fork is
   * refused (a negative count is over the limit), which hides the direction. */
  KIDS = 2,
};

/* What the agent reports (probe values). */
enum
{
  /* SIGPENDING: (a) uid 0's signals taken by uid 1's thread, */
  S_TAKEN,
  S_Q0_TAKEN,
  S_Q1_TAKEN,
  S_REFILL0,
  S_BESIDE1,
  /* (b) signals pending on uid 1's child when uid 0 reaps it. */
  S_QUEUED,
  S_Q0_REAPED,
  S_Q1_REAPED,
  S_REFILL0_REAPED,
  S_REFILL1_REAPED,
  /* NPROC: uid 1's children reaped by uid 0. */
  P_REAPER = 0,
  P_WITNESS,
  P_LEVEL,
};

struct other_arg
{
  const struct ucb_rlops *ops;
  ino_t outer; /* the case process's user namespace: R's sysctl is never written there */
  int depth;   /* the place's namespaces below R */
  rlim_t snap[2], own;
  bool level; /* NPROC: a fill at the level's shared bound too */
};

/* ---- the place ---- */

/* unshare(CLONE_NEWUSER) into a namespace that maps 0 and 1 to our 0 and 1: two uids need a
 * writer with CAP_SETUID in this namespace, a helper left here. */
static int
pair_enter (ucb_error_t *err)
{
  pid_t self = getpid (), h;
  int go[2], e = 0, st;
  char c = 'g';

  if (pipe2 (go, O_CLOEXEC) < 0)
    return ucb_make_error (err, errno, "pipe for the map writer");
  if ((h = ucb_vfork ()) == 0)
    {
      ucb_error_t we = NULL;

      close (go[1]);
      if (read (go[0], &c, 1) != 1)
        _exit (UCB_EXIT_FAILURE);
      _exit (ucb_userns_write_maps (self, 0, 0, 2, false, &we) < 0 ? UCB_EXIT_FAILURE : 0);
    }
  close (go[0]);
  if (h < 0 || unshare (CLONE_NEWUSER) < 0 || write (go[1], &c, 1) != 1)
    e = errno;
  close (go[1]); /* on an error the helper reads EOF and exits */
  st = h > 0 ? ucb_vwait (h) : -1;
  if (e)
    return ucb_make_error (err, e, "unshare(CLONE_NEWUSER) of a two-uid namespace");
  if (st != 0)
    return ucb_make_error (err, 0, "the map writer of a two-uid namespace failed (status %d)", st);
  return 0;
}

static int
take_place (const struct other_arg *a, struct ucb_probe_out *o, ucb_error_t *err)
{
  int res = ucb_rl_resource (a->ops->rl);

  if (ucb_vuserns_sysctl (a->outer, "max_user_namespaces", UCB_VROOM_ALLOWS, err) < 0)
    return ucb_error_wrap (err, "the room");
  /* In R: the case process opens it now, to count what it allows after us. */
  if (ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0)
    return -1;
  for (int i = 0; i < a->depth; i++)
    if (ucb_vsoft (res, a->snap[i], err) < 0 || pair_enter (err) < 0)
      return ucb_error_wrap (err, "namespace %d of %d of the place", i + 1, a->depth);
  if (ucb_vsoft (res, a->own, err) < 0)
    return ucb_error_wrap (err, "the own soft limit");
  return 0;
}

/* Fork a child that becomes uid 1 (commit_creds moves its NPROC charge to (ns, 1)), with
 * `below` then in a user namespace of its own under ours: released by us, a task of another
 * uid in another namespace.  In the child: 0, or it has exited. */
static pid_t
fork_uid1 (bool below)
{
  pid_t parent = getpid (), pid = ucb_vfork ();
  ucb_error_t err = NULL;

  if (pid != 0)
    return pid;
  if (ucb_userns_become (1, 1, &err) < 0
      || (below && ucb_vuserns_enter (0, UCB_VUSERNS_FREED_NS, &err) < 0)
      || ucb_arm_pdeathsig (parent, "the agent", &err) < 0)
    _exit (UCB_EXIT_FAILURE);
  return 0;
}

/* Charge until refused (at the cap at the latest), then release everything: how many. */
static long
fill_release (const struct ucb_rlops *ops)
{
  int refused;

  return ucb_rlops_count (ops, NULL, ops->cap + 1, &refused);
}

/* ---- SIGPENDING ---- */

/* Queue signals to `to` until refused, up to the cap (ucb_rlops_send): how many.  Signals
 * queued to our process are taken by ucb_rlops_take in the thread that calls it. */
static long
fill_to (const struct ucb_rlops *ops, pid_t to)
{
  int refused;

  return ucb_rlops_send (ops, to, ops->cap + 1, &refused);
}

/* uid 1's thread: a thread of the agent that made only itself uid 1 (the raw syscall: glibc's
 * setresuid switches every thread), serving the agent's orders one at a time. */
struct taker
{
  const struct ucb_rlops *ops;
  pthread_t th;
  bool started;
  int order[2], answer[2];
  pid_t tid;
};

enum
{
  TAKE = 't',     /* take arg signals queued to the process */
  FILL_OWN = 'f', /* queue signals to itself until refused */
};

struct taker_msg
{
  int op;
  long arg;
};

static void *
taker_main (void *arg)
{
  struct taker *t = arg;
  struct taker_msg m;
  long r = syscall (SYS_setresuid, 1, 1, 1) < 0 ? -errno : 0;

  t->tid = gettid ();
  if (write (t->answer[1], &r, sizeof r) != sizeof r || r < 0)
    return NULL;
  while (read (t->order[0], &m, sizeof m) == sizeof m)
    {
      r = m.op == TAKE ? ucb_rlops_take (t->ops, m.arg) : fill_to (t->ops, t->tid);
      if (write (t->answer[1], &r, sizeof r) != sizeof r)
        break;
    }
  return NULL;
}

static long
taker_call (struct taker *t, int op, long arg, ucb_error_t *err)
{
  struct taker_msg m = { op, arg };
  long r;

  if (*err)
    return -1;
  if (write (t->order[1], &m, sizeof m) != sizeof m
      || read (t->answer[0], &r, sizeof r) != sizeof r)
    return ucb_make_error (err, errno, "uid 1's thread does not answer");
  return r;
}

static int
taker_start (struct taker *t, ucb_error_t *err)
{
  long r;
  int e;

  if (pipe2 (t->order, O_CLOEXEC) < 0 || pipe2 (t->answer, O_CLOEXEC) < 0)
    return ucb_make_error (err, errno, "pipes for uid 1's thread");
  if ((e = pthread_create (&t->th, NULL, taker_main, t)) != 0)
    return ucb_make_error (err, e, "pthread_create for uid 1's thread");
  t->started = true;
  if (read (t->answer[0], &r, sizeof r) != sizeof r)
    return ucb_make_error (err, errno, "uid 1's thread does not answer");
  if (r < 0)
    return ucb_make_error (err, (int) -r, "setresuid(1, 1, 1) in uid 1's thread");
  return 0;
}

/* Its orders end (EOF), it returns, and is joined. */
static void
taker_stop (struct taker *t)
{
  int *fds[] = { &t->order[0], &t->answer[0], &t->answer[1] };

  if (t->order[1] >= 0)
    close (steal_fd (&t->order[1]));
  if (t->started)
    pthread_join (t->th, NULL);
  t->started = false;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (fds); i++)
    if (*fds[i] >= 0)
      close (steal_fd (fds[i]));
}

/* (a) Signals queued to uid 0 (the process, through its main thread) and taken by uid 1's
 * thread: __sigqueue_free in uid 1's task. */
static void
sig_taken (const struct ucb_rlops *ops, struct taker *t, int64_t *v, ucb_error_t *err)
{
  v[S_TAKEN] = taker_call (t, TAKE, fill_to (ops, 0), err);
  v[S_Q0_TAKEN] = ucb_vsigq (getpid ());
  v[S_Q1_TAKEN] = ucb_vsigq (t->tid);
  v[S_REFILL0] = fill_to (ops, 0);
  v[S_BESIDE1] = taker_call (t, FILL_OWN, 0, err);
  /* Each takes its own back: uid 0's were queued first, and a queue is taken in order. */
  ucb_rlops_take (ops, v[S_REFILL0]);
  taker_call (t, TAKE, v[S_BESIDE1], err);
}

/* (b) Signals queued to uid 1's child, in a namespace below ours, which dies holding them: we
 * reap it, and release_task frees them in our task. */
static void
sig_reaped (const struct ucb_rlops *ops, struct taker *t, int64_t *v, ucb_error_t *err)
{
  cleanup_pid pid_t child = -1;
  int ready[2];
  char c = 'r';

  if (*err)
    return;
  if (pipe2 (ready, O_CLOEXEC) < 0)
    {
      ucb_make_error (err, errno, "pipe for uid 1's child");
      return;
    }
  if ((child = fork_uid1 (true)) == 0)
    {
      if (write (ready[1], &c, 1) == 1)
        for (;;)
          pause ();
      _exit (UCB_EXIT_FAILURE);
    }
  close (ready[1]);
  if (child < 0 || read (ready[0], &c, 1) != 1)
    ucb_make_error (err, 0, "uid 1's child did not become uid 1 below the place");
  close (ready[0]);
  if (*err)
    return;
  v[S_QUEUED] = fill_to (ops, child);
  kill (child, SIGKILL);
  if (ucb_vwait (steal_pid (&child)) != 128 + SIGKILL)
    ucb_make_error (err, 0, "reaping uid 1's child failed");
  v[S_Q0_REAPED] = ucb_vsigq (getpid ());
  v[S_Q1_REAPED] = ucb_vsigq (t->tid);
  v[S_REFILL0_REAPED] = fill_to (ops, 0);
  ucb_rlops_take (ops, v[S_REFILL0_REAPED]);
  v[S_REFILL1_REAPED] = taker_call (t, FILL_OWN, 0, err);
  taker_call (t, TAKE, v[S_REFILL1_REAPED], err);
}

static int
sig_scenario (const struct ucb_rlops *ops, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct taker t = { .ops = ops, .order = { -1, -1 }, .answer = { -1, -1 } };

  if (taker_start (&t, err) == 0)
    {
      sig_taken (ops, &t, o->v, err);
      sig_reaped (ops, &t, o->v, err);
    }
  taker_stop (&t);
  return *err ? -1 : 0;
}

/* ---- NPROC ---- */

/* uid 1's witness: it lives through the scenario, and with it its (ns, 1) ucounts (one that no
 * task holds is freed, and a leak with it); told, it forks to its bound and answers how many. */
static void
witness_main (const struct ucb_rlops *ops, int order, int answer)
{
  long ready = 0;
  char c;

  /* Ready: uid 1 now, so that its fork charge has left uid 0's count. */
  if (write (answer, &ready, sizeof ready) != sizeof ready)
    _exit (UCB_EXIT_FAILURE);
  while (read (order, &c, 1) == 1)
    {
      long n = fill_release (ops);
      if (write (answer, &n, sizeof n) != sizeof n)
        break;
    }
  _exit (0);
}

/* KIDS children, each uid 1 in a namespace of its own below ours, exit; we reap them. */
static int
reap_uid1 (ucb_error_t *err)
{
  for (int i = 0; i < KIDS; i++)
    {
      pid_t k = fork_uid1 (true);

      if (k == 0)
        _exit (0);
      if (k < 0 || ucb_vwait (k) != 0)
        return ucb_make_error (err, k < 0 ? errno : 0, "uid 1's child %d failed", i + 1);
    }
  return 0;
}

static int
nproc_scenario (const struct other_arg *a, struct ucb_probe_out *o, ucb_error_t *err)
{
  cleanup_pid pid_t w = -1;
  cleanup_close int order_r = -1, order_w = -1, answer_r = -1, answer_w = -1;
  int p[2], q[2];
  long n = -1;
  char c = 'f';

  if (pipe2 (p, O_CLOEXEC) < 0 || pipe2 (q, O_CLOEXEC) < 0)
    return ucb_make_error (err, errno, "pipes for uid 1's witness");
  order_r = p[0], order_w = p[1], answer_r = q[0], answer_w = q[1];
  if ((w = fork_uid1 (false)) == 0)
    {
      close (order_w);
      close (answer_r);
      witness_main (a->ops, order_r, answer_w);
    }
  /* Our ends only: a witness that died is then an EOF. */
  close (steal_fd (&order_r));
  close (steal_fd (&answer_w));
  if (w < 0 || read (answer_r, &n, sizeof n) != sizeof n)
    return ucb_make_error (err, errno, "uid 1's witness did not become uid 1");
  if (reap_uid1 (err) < 0)
    return -1;
  o->v[P_REAPER] = fill_release (a->ops);
  if (write (order_w, &c, 1) != 1 || read (answer_r, &n, sizeof n) != sizeof n)
    return ucb_make_error (err, 0, "uid 1's witness does not answer");
  o->v[P_WITNESS] = n;
  if (a->level)
    {
      if (ucb_vsoft (ucb_rl_resource (a->ops->rl), UCB_RL_HARD, err) < 0)
        return -1;
      o->v[P_LEVEL] = fill_release (a->ops);
    }
  close (steal_fd (&order_w));
  if (ucb_vwait (steal_pid (&w)) != 0)
    return ucb_make_error (err, 0, "uid 1's witness failed");
  return 0;
}

static int
other_main (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  const struct other_arg *a = arg;
  sigset_t chld;

  /* A SIGCHLD blocked (a mask inherited through exec) would be queued, charged to uid 0, at
   * each reaping: unblocked, it is ignored (SIG_DFL) and never queued. */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  if (sigprocmask (SIG_UNBLOCK, &chld, NULL) < 0)
    return ucb_make_error (err, errno, "sigprocmask(SIGCHLD)");
  if (take_place (a, o, err) < 0)
    return -1;
  memset (o, 0, sizeof *o);
  if (a->ops->rl == UCB_RL_NPROC)
    return nproc_scenario (a, o, err);
  return sig_scenario (a->ops, o, err);
}

/* ---- the case process ---- */

/* The cell's place below the room and what each uid charges there. */
struct other_plan
{
  struct other_arg arg;
  long room;   /* one uid alone (NPROC: both are tasks at the shared levels: agent and witness) */
  long beside; /* SIGPENDING: uid 1 while uid 0 holds `room` */
  long level;  /* NPROC: uid 0 with its own limit raised, at the level's bound */
};

static long
min_of (long a, long b)
{
  return a < b ? a : b;
}

static struct other_plan
other_plan (const struct ucb_rlops *ops, enum ucb_vlevel level)
{
  struct ucb_rlplace pl = ucb_vcell_place (ops, level, CELL_N);
  bool own = level == UCB_VLEVEL_OWN;
  long s = ops->self;
  /* Above the own level the own limit is set below the level's bound: a count off at either
   * uid's own level (where their chains part) then shows, not hidden by the shared bound. */
  long units = own ? CELL_N : CELL_M - s;
  long bound = own ? ops->cap + 1 : ucb_vcell_bound (ops, level, CELL_N).want;
  struct other_plan p = {
    .arg = { .ops = ops,
             .depth = own ? 1 : pl.depth,
             .snap = { own ? UCB_RL_HARD : pl.snap[0], pl.snap[1] },
             .own = ops->soft (units),
             .level = !own },
  };

  p.room = min_of (units - s, bound - 2 * s);
  p.beside = min_of (units, bound - p.room);
  p.level = bound - 2 * s;
  return p;
}

/* SigQ is printed unsigned (task_sig): a count below 0 reads as 2^32 - n. */
static long
sigq_signed (int64_t q)
{
  return q > INT32_MAX && q <= (int64_t) UINT32_MAX ? (long) (q - ((int64_t) 1 << 32)) : (long) q;
}

static void
record_sig (struct ucb_vctx *ctx, const struct other_plan *p, const int64_t *v)
{
  struct ucb_vresult *r = ctx->res;
  long cap = p->arg.ops->cap + 1;

  ucb_vobserve (r, "uid 0's signals taken by uid 1's thread", UCB_VITEM_EXACT, p->room, v[S_TAKEN]);
  ucb_vobserve (r, "SigQ of uid 0 after uid 1's thread took them", UCB_VITEM_COUNTER, 0,
                sigq_signed (v[S_Q0_TAKEN]));
  ucb_vobserve (r, "SigQ of uid 1 after its thread took uid 0's", UCB_VITEM_COUNTER, 0,
                sigq_signed (v[S_Q1_TAKEN]));
  ucb_vobserve_count (r, "uid 0 refills after uid 1's thread took them", UCB_VITEM_READMITTED,
                      p->room, v[S_REFILL0], cap);
  ucb_vobserve_count (r, "uid 1 fills while uid 0 holds its refill", UCB_VITEM_READMITTED,
                      p->beside, v[S_BESIDE1], cap);
  ucb_vobserve_count (r, "queued to uid 1's child in a namespace below", UCB_VITEM_ADMITTED,
                      p->room, v[S_QUEUED], cap);
  ucb_vobserve (r, "SigQ of uid 0 after reaping uid 1's child", UCB_VITEM_COUNTER, 0,
                sigq_signed (v[S_Q0_REAPED]));
  ucb_vobserve (r, "SigQ of uid 1 after uid 0 reaped its child", UCB_VITEM_COUNTER, 0,
                sigq_signed (v[S_Q1_REAPED]));
  ucb_vobserve_count (r, "uid 0 refills after reaping uid 1's child", UCB_VITEM_READMITTED, p->room,
                      v[S_REFILL0_REAPED], cap);
  ucb_vobserve_count (r, "uid 1 refills after uid 0 reaped its child", UCB_VITEM_READMITTED,
                      p->room, v[S_REFILL1_REAPED], cap);
}

static void
record_nproc (struct ucb_vctx *ctx, const struct other_plan *p, const int64_t *v)
{
  struct ucb_vresult *r = ctx->res;
  long cap = p->arg.ops->cap + 1;

  ucb_vobserve_count (r, "uid 0 forks after reaping 2 of uid 1's", UCB_VITEM_READMITTED, p->room,
                      v[P_REAPER], cap);
  ucb_vobserve_count (r, "uid 1 forks after uid 0 reaped 2 of its", UCB_VITEM_READMITTED, p->room,
                      v[P_WITNESS], cap);
  if (p->arg.level)
    ucb_vobserve_count (r, "uid 0 forks to the level's bound after", UCB_VITEM_READMITTED, p->level,
                        v[P_LEVEL], cap);
}

int
ucb_vcell_p3_other_task (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                         ucb_error_t *err)
{
  struct other_plan p = other_plan (ops, level);
  /* R is made with the hard limit: its level never binds. */
  struct ucb_probe_spec spec = { .what = "the agent of two uids",
                                 .uid = ctx->uid_base,
                                 .block_rt = true,
                                 .resource = ucb_rl_resource (ops->rl),
                                 .soft = RLIM_INFINITY,
                                 .userns = CLONE_NEWUSER,
                                 .map_first = ctx->uid_base,
                                 .map_width = 2 };
  struct ucb_vroom room = { -1, -1 };
  struct ucb_probe a = UCB_PROBE_NONE;
  struct ucb_probe_out o = { 0 };
  struct stat st;
  long n;

  if (ops->rl != UCB_RL_SIGPENDING && ops->rl != UCB_RL_NPROC)
    return ucb_make_error (err, 0, "internal: no task releases %s", ucb_rl_name (ops->rl));
  if (stat ("/proc/self/ns/user", &st) < 0)
    return ucb_make_error (err, errno, "stat /proc/self/ns/user");
  p.arg.outer = st.st_ino;
  if (ucb_probe_start_report (&a, &spec, other_main, &p.arg, NULL, err) < 0)
    return -1;
  if (ucb_vopen_userns (a.pid, &room.room, err) < 0 || ucb_probe_order (&a, &o, err) < 0
      || ucb_probe_finish (&a, &o, err) < 0)
    {
      ucb_probe_kill (&a);
      ucb_vroom_close (&room);
      return -1;
    }
  (ops->rl == UCB_RL_NPROC ? record_nproc : record_sig) (ctx, &p, o.v);
  if ((n = ucb_vroom_allows (ctx, &room, err)) >= 0)
    ucb_vobserve_pinned (
        ctx->res, "user namespaces the room allows afterwards",
        "below the room (the place's or uid 1's child's: a ucounts reference not put)",
        UCB_VROOM_ALLOWS, n, UCB_VROOM_ALLOWS + 1);
  ucb_vroom_close (&room);
  return *err ? -1 : 0;
}
