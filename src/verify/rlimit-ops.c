/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlimit-ops.c - charge, release and hold-until-exit for each ucounts rlimit, and the fills,
 * releases and counts over them (rlimit-ops.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "verify/probe.h"
#include "verify/rlimit-ops.h"
#include "verify/verify.h"

/* A charge taken: remember it (ucb_rlops_room keeps the charges within UCB_RL_HELD_MAX). */
static void
held_push (struct ucb_rlheld *h, bool big, int id, int name)
{
  if (h->n < UCB_RL_HELD_MAX)
    {
      h->big[h->n] = big;
      h->id[h->n] = id;
      h->name[h->n] = name;
    }
  h->n++;
}

/* ---- SIGPENDING: one RT signal queued to ourselves, or to shape.sig_to (SIGRTMIN blocked
 * there: the probe's spec says block_rt, probe.h) ---- */

static rlim_t
units_as_is (long units)
{
  return (rlim_t) units;
}

static long
intended_as_is (long units)
{
  return units;
}

static int
sig_charge (struct ucb_rlheld *h, bool big)
{
  union sigval v = { .sival_int = 0 };

  (void) big;
  if (sigqueue (h->shape.sig_to > 0 ? h->shape.sig_to : getpid (), SIGRTMIN, v) < 0)
    return errno;
  h->n++;
  return 0;
}

static void
sig_release (struct ucb_rlheld *h)
{
  sigset_t set;
  struct timespec zero = { 0, 0 };

  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN);
  if (h->shape.sig_to <= 0 && sigtimedwait (&set, NULL, &zero) >= 0)
    h->n--;
  else
    h->n = 0; /* nothing was queued after all (or to another, who takes it): the count would
               * only mislead */
}

static void
nothing_for_exit (struct ucb_rlheld *h)
{
  h->for_exit = true;
}

/* ---- NPROC: one child sleeping until killed (it dies with us: PR_SET_PDEATHSIG) ---- */

static int
nproc_charge (struct ucb_rlheld *h, bool big)
{
  pid_t pid = ucb_vfork ();

  if (pid < 0)
    return errno;
  if (pid == 0)
    for (;;)
      pause ();
  held_push (h, big, (int) pid, 0);
  return 0;
}

static void
nproc_release (struct ucb_rlheld *h)
{
  pid_t pid = (pid_t) h->id[h->n - 1];

  /* Only release_task (in the wait) uncharges NPROC. */
  kill (pid, SIGKILL);
  ucb_vwait (pid);
  h->n--;
}

/* Two NPROC updates of every level without a fork: the real uid to 1 and back to 0 (euid and
 * saved uid stay 0: capabilities, pdeath signal and dumpability are kept).  commit_creds adds
 * one to the new uid's counters, then takes one from the old uid's; both chains meet at the
 * namespace's parent level, whose counter goes up by one for a moment and back. */
static int
nproc_churn (void)
{
  if (setresuid (1, (uid_t) -1, (uid_t) -1) < 0)
    return errno;
  if (setresuid (0, (uid_t) -1, (uid_t) -1) < 0)
    return errno;
  return 0;
}

/* ---- MSGQUEUE: one 1 x 1024 queue, maxmsg * (msgsize + 96) = 1120 B on x86_64 (ULIM-16);
 * a big charge is a 10 x 8192 queue (82880 B); or the shape's queue ---- */

#define MQ_COST 1120

static rlim_t
mq_soft (long units)
{
  /* Exactly `units` queues: a fill lands on the bound itself, where a kernel's off-by-one
   * (">" against ">=") shows (the cost is ULIM-16's, checked there to the byte). */
  return (rlim_t) (units * MQ_COST);
}

static void
mq_name (char *buf, size_t len, int name)
{
  snprintf (buf, len, "/ucbench-rl.%d.%d", (int) getpid (), name);
}

/* The next queue name of this process: unique however many sets it holds at once. */
static int mq_next_name;

static int
mq_charge (struct ucb_rlheld *h, bool big)
{
  struct mq_attr attr = { .mq_maxmsg = big ? 10 : 1, .mq_msgsize = big ? 8192 : 1024 };
  char name[64];
  mqd_t q;

  if (h->shape.mq_maxmsg > 0)
    {
      attr.mq_maxmsg = h->shape.mq_maxmsg;
      attr.mq_msgsize = h->shape.mq_msgsize;
    }
  mq_name (name, sizeof name, mq_next_name);
  q = mq_open (name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600,
               h->shape.mq_defaults ? NULL : &attr);
  if (q == (mqd_t) -1)
    return errno;
  held_push (h, big, (int) q, mq_next_name++);
  return 0;
}

static void
mq_release (struct ucb_rlheld *h)
{
  char name[64];

  /* The charge goes when the inode dies: after the unlink and the last close. */
  mq_name (name, sizeof name, h->name[h->n - 1]);
  if (!h->for_exit)
    mq_unlink (name);
  mq_close ((mqd_t) h->id[h->n - 1]);
  h->n--;
}

static void
mq_for_exit (struct ucb_rlheld *h)
{
  char name[64];

  for (long i = 0; i < h->n && i < UCB_RL_HELD_MAX; i++)
    {
      mq_name (name, sizeof name, h->name[i]);
      mq_unlink (name);
    }
  h->for_exit = true;
}

/* ---- MEMLOCK: SHM_LOCK of a one-page segment; a big charge is 64 pages; or the next of
 * the caller's segments (shape.shm_ids) ---- */

#define SHM_BIG_PAGES 64

static long
page_size (void)
{
  return sysconf (_SC_PAGESIZE);
}

static rlim_t
shm_soft (long units)
{
  return (rlim_t) (units * page_size ());
}

static long
shm_snap_intended (long units)
{
  /* The snapshot is `units` bytes: by intent units / PAGE_SIZE pages (rounded down, as
   * user_shm_lock shifts the own limit). */
  return units / page_size ();
}

/* SHM_LOCK of the caller's next segment: a refused one stays the caller's, as it was. */
static int
shm_lock_given (struct ucb_rlheld *h, bool big)
{
  int id;

  if (h->n >= h->shape.shm_n)
    return EINVAL; /* none left: ucb_rlops_room keeps a fill within them */
  id = h->shape.shm_ids[h->n];
  if (shmctl (id, SHM_LOCK, NULL) < 0)
    return errno;
  held_push (h, big, id, 0);
  return 0;
}

static int
shm_charge (struct ucb_rlheld *h, bool big)
{
  size_t size = (size_t) page_size () * (big ? SHM_BIG_PAGES : 1);
  int id, e;

  if (h->shape.shm_ids)
    return shm_lock_given (h, big);
  if ((id = shmget (IPC_PRIVATE, size, IPC_CREAT | 0600)) < 0)
    return errno;
  if (shmctl (id, SHM_LOCK, NULL) < 0)
    {
      e = errno;
      shmctl (id, IPC_RMID, NULL);
      return e;
    }
  held_push (h, big, id, 0);
  return 0;
}

static void
shm_release (struct ucb_rlheld *h)
{
  /* The caller's segment is only unlocked (user_shm_unlock uncharges); ours, locked and not
   * attached, IPC_RMID destroys now, and shm_destroy uncharges. */
  shmctl (h->id[h->n - 1], h->shape.shm_ids ? SHM_UNLOCK : IPC_RMID, NULL);
  h->n--;
}

static void
shm_for_exit (struct ucb_rlheld *h)
{
  /* Attached and marked for removal: the exit's detach destroys it (synchronously, in
   * exit_mm), unlike an IPC namespace's teardown (a workqueue). */
  for (long i = 0; i < h->n && i < UCB_RL_HELD_MAX; i++)
    if (shmat (h->id[i], NULL, SHM_RDONLY) != (void *) -1)
      shmctl (h->id[i], IPC_RMID, NULL);
  h->for_exit = true;
}

const struct ucb_rlops ucb_rlops[UCB_RLS] = {
  [UCB_RL_SIGPENDING] = {
    .rl = UCB_RL_SIGPENDING, .refusal = EAGAIN,
    .unit = "one queued RT signal (sigqueue SIGRTMIN, SI_QUEUE: no override)",
    .cap = 1000, .large = 8192, .big_units = 1,
    .checks = "sig_get_ucounts -> inc_rlimit_get_ucounts (walk up iter->ns->ucounts, max = "
              "rlimit_max of the child ns, level 0 vs task_rlimit), dec_rlimit_put_ucounts at "
              "dequeue and exit",
    .soft = units_as_is, .snap = units_as_is, .snap_intended = intended_as_is,
    .charge = sig_charge, .release = sig_release, .for_exit = nothing_for_exit,
  },
  [UCB_RL_MSGQUEUE] = {
    .rl = UCB_RL_MSGQUEUE, .refusal = EMFILE,
    .unit = "one 1 x 1024 queue, 1120 B (big: 10 x 8192, 82880 B)", .ipc = true,
    .cap = 200, .large = 100, .big_units = 74,
    .checks = "mqueue_get_inode inc_rlimit_ucounts(MSGQUEUE, bytes) vs own soft and rlimit_max, "
              "EMFILE; dec_rlimit_ucounts in mqueue_evict_inode (unlink + last close)",
    .needs_caps = UCB_VCAP (CAP_SYS_ADMIN), /* an IPC namespace of init_user_ns (depth 0) */
    .soft = mq_soft, .snap = mq_soft, .snap_intended = intended_as_is,
    .charge = mq_charge, .release = mq_release, .for_exit = mq_for_exit,
  },
  [UCB_RL_MEMLOCK] = {
    .rl = UCB_RL_MEMLOCK, .refusal = ENOMEM,
    .unit = "one SHM_LOCKed page (big: a 64-page segment)", .ipc = true,
    .cap = 400, .large = 64, .big_units = SHM_BIG_PAGES,
    .checks = "user_shm_lock inc_rlimit_ucounts(MEMLOCK, pages) vs soft >> PAGE_SHIFT and "
              "rlimit_max (bytes: ULIM-19), ENOMEM; user_shm_unlock at shm_destroy",
    .needs_caps = UCB_VCAP (CAP_SYS_ADMIN),
    .soft = shm_soft, .snap = units_as_is, .snap_intended = shm_snap_intended,
    .charge = shm_charge, .release = shm_release, .for_exit = shm_for_exit,
  },
  [UCB_RL_NPROC] = {
    .rl = UCB_RL_NPROC, .refusal = EAGAIN,
    .unit = "one task (a sleeping child; the probe itself is one)", .self = 1,
    .cap = 200, .large = 300, .big_units = 1,
    .checks = "copy_creds inc_rlimit_ucounts + copy_process is_rlimit_overlimit on every level, "
              "EAGAIN; bad_fork_cleanup_count, release_task",
    .soft = units_as_is, .snap = units_as_is, .snap_intended = intended_as_is,
    .charge = nproc_charge, .release = nproc_release, .for_exit = nothing_for_exit,
    .churn = nproc_churn,
  },
};

/* ---- fills, releases, counts (one loop each, for the agents and the cases' probes) ---- */

long
ucb_rlops_room (const struct ucb_rlops *ops, const struct ucb_rlheld *h, long want)
{
  long left = UCB_RL_HELD_MAX - h->n;

  if (ops->rl == UCB_RL_SIGPENDING)
    return want;
  if (ops->rl == UCB_RL_MEMLOCK && h->shape.shm_ids && h->shape.shm_n - h->n < left)
    left = h->shape.shm_n - h->n;
  if (left < 0)
    left = 0;
  return want < left ? want : left;
}

long
ucb_rlops_fill (const struct ucb_rlops *ops, struct ucb_rlheld *h, long max, bool big, int *refused)
{
  long n = 0;

  max = ucb_rlops_room (ops, h, max);
  *refused = 0;
  while (n < max && (*refused = ops->charge (h, big)) == 0)
    n++;
  return n;
}

long
ucb_rlops_try (const struct ucb_rlops *ops, struct ucb_rlheld *h, long k, int errnum, long *refused)
{
  long admitted = 0;
  int e;

  k = ucb_rlops_room (ops, h, k);
  *refused = 0;
  for (long i = 0; i < k; i++)
    if ((e = ops->charge (h, false)) == 0)
      admitted++;
    else if (e == errnum)
      (*refused)++;
  return admitted;
}

long
ucb_rlops_release (const struct ucb_rlops *ops, struct ucb_rlheld *h, long k)
{
  long n = 0;

  while (h->n > 0 && (k < 0 || n < k))
    {
      long before = h->n;

      ops->release (h);
      if (h->n != before - 1)
        break; /* SIGPENDING: nothing was left to take (sig_release forgot the rest) */
      n++;
    }
  return n;
}

long
ucb_rlops_count (const struct ucb_rlops *ops, const struct ucb_rlshape *shape, long max,
                 int *refused)
{
  struct ucb_rlheld h = { .n = 0 };
  long n;

  if (shape)
    h.shape = *shape;
  n = ucb_rlops_fill (ops, &h, max, false, refused);
  ucb_rlops_release (ops, &h, -1);
  return n;
}

long
ucb_rlops_send (const struct ucb_rlops *ops, pid_t to, long max, int *refused)
{
  struct ucb_rlheld h = { .shape = { .sig_to = to } };

  return ucb_rlops_fill (ops, &h, max, false, refused);
}

long
ucb_rlops_take (const struct ucb_rlops *ops, long n)
{
  struct ucb_rlheld h = { .n = n > 0 ? n : 0 };

  return ucb_rlops_release (ops, &h, -1);
}

const char *
ucb_rlops_unsupported (const struct ucb_rlops *ops)
{
  struct utsname u;

  if (ops->rl == UCB_RL_MSGQUEUE && uname (&u) == 0 && strcmp (u.machine, "x86_64") != 0)
    return "the queue cost formula is known for x86_64 only (struct sizes, as ULIM-16)";
  return "";
}
