/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells-release-ipc.c - P3 by other hands for the IPC rlimits (cells.h): a charge that a task
 * other than its charger ends.  A queue's bytes are charged to its creator (mqueue_get_inode
 * keeps info->ucounts) and uncharged where its inode dies (mqueue_evict_inode): in the task that
 * drops the last reference, or in the work item that frees its IPC namespace.  A segment's
 * locked pages are charged to the locker (shp->mlock_ucounts) and uncharged in shm_destroy: in
 * IPC_RMID's task, the last detacher's, or the namespace's teardown.  A kernel that uncharges
 * whoever runs there (current_ucounts()) leaves the creator charged for good and takes the
 * releaser's count below zero, where it admits more.  One unit is handed over three ways:
 *  (a) to a task of another uid, in a user namespace of its own: the creator unlinks the queue
 *      it passed (SCM_RIGHTS) and closes its own, or removes the segment the other attached;
 *      the other's close or shmdt() is the last;
 *  (b) the same to a task of the creator's uid in a sibling user namespace: the levels above
 *      both net out, only their own levels show it;
 *  (c) the creator exits leaving it linked / locked to its IPC namespace's teardown (kworker).
 * After (a) and (b) the creator and the releaser each fill to their bound: fewer is a leak (the
 * charge stayed), more an underflow.  The creator's own limit is a bound as well, and the
 * releaser's is its only one: a same-uid releaser's wrong uncharge shows at the own levels only.
 * The creator's uid works in P9's room: a keeper that sits there at the level the creator's
 * bound is on keeps that count alive (a ucounts freed with no task left would drop a leak with
 * it) and fills after (c), until the teardown was seen or 10 s passed; at the end the room must
 * allow its namespaces again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/cells.h"
#include "verify/probe-work.h"

enum ucb_vhand ucb_vcell_hand;

/* ---- in the agents (ucb_rlagent_call) ---- */

/* What a releaser took: a queue's descriptor, or the segment's attachment. */
static int taken_fd = -1;
static void *taken_at;

static int
send_fd (int sock, int fd)
{
  char byte = 'q';
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  union
  {
    struct cmsghdr align;
    char buf[CMSG_SPACE (sizeof (int))];
  } u;
  struct msghdr m
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c = CMSG_FIRSTHDR (&m);

  memset (&u, 0, sizeof u);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  return sendmsg (sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == 1 ? 0 : errno;
}

/* The descriptor sent before this order (never waited for: the creator's answer came first). */
static int
recv_fd (int sock, int *fd)
{
  char byte;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  union
  {
    struct cmsghdr align;
    char buf[CMSG_SPACE (sizeof (int))];
  } u;
  struct msghdr m
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c;

  if (recvmsg (sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
    return errno ? errno : EPROTO;
  c = CMSG_FIRSTHDR (&m);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
    return EPROTO;
  memcpy (fd, CMSG_DATA (c), sizeof *fd);
  return 0;
}

/* The creator: its last charge handed over.  MSGQUEUE: the queue's descriptor sent into the
 * socket `arg`; MEMLOCK: the segment opened to every uid, its id the value. */
static long
hand_give (const struct ucb_rlops *ops, struct ucb_rlheld *h, long arg, int *errnum)
{
  struct shmid_ds ds;
  int id;

  if (h->n < 1)
    return *errnum = EINVAL, -1;
  id = h->id[h->n - 1];
  ucb_vcell_hand = UCB_VHAND_GAVE;
  if (ops->rl != UCB_RL_MEMLOCK)
    return (*errnum = send_fd ((int) arg, id)) ? -1 : 0;
  if (shmctl (id, IPC_STAT, &ds) < 0)
    return *errnum = errno, -1;
  ds.shm_perm.mode = 0666;
  if (shmctl (id, IPC_SET, &ds) < 0)
    return *errnum = errno, -1;
  return id;
}

/* A releaser: take the charge (MSGQUEUE: the descriptor from the socket `arg`; MEMLOCK: attach
 * segment `arg`). */
static long
hand_take (const struct ucb_rlops *ops, struct ucb_rlheld *h, long arg, int *errnum)
{
  (void) h;
  if (ops->rl != UCB_RL_MEMLOCK)
    return (*errnum = recv_fd ((int) arg, &taken_fd)) ? -1 : 0;
  taken_at = shmat ((int) arg, NULL, SHM_RDONLY);
  if (taken_at == (void *) -1)
    return *errnum = errno, -1;
  return 0;
}

/* A releaser: end what it took, the creator's hold on it gone: its close or detach is the last,
 * the kernel uncharges here. */
static long
hand_end (const struct ucb_rlops *ops, struct ucb_rlheld *h, long arg, int *errnum)
{
  (void) h, (void) arg;
  ucb_vcell_hand = UCB_VHAND_ENDED;
  if (ops->rl == UCB_RL_MEMLOCK ? shmdt (taken_at) < 0 : close (taken_fd) < 0)
    return *errnum = errno, -1;
  return 0;
}

/* The creator: one charge to leave to its namespace's teardown; 1 if admitted. */
static long
hand_leave (const struct ucb_rlops *ops, struct ucb_rlheld *h, long arg, int *errnum)
{
  (void) arg;
  ucb_vcell_hand = UCB_VHAND_LEFT;
  *errnum = ops->charge (h, false);
  return *errnum == 0;
}

/* The keeper, after the teardown: fill until refused and release, again, until `want` are
 * admitted or UCB_VUSERNS_FREED_NS passed (the namespace is freed by a work item after an RCU
 * grace period: late under emulation).  The last fill's count and refusal. */
static long
refill_torn (const struct ucb_rlops *ops, struct ucb_rlheld *h, long want, int *errnum)
{
  uint64_t deadline = ucb_now_ns () + UCB_VUSERNS_FREED_NS;
  long n;

  ucb_vcell_hand = UCB_VHAND_TORN;
  for (;;)
    {
      n = ucb_rlops_fill (ops, h, ops->cap + 1, false, errnum);
      ucb_rlops_release (ops, h, -1);
      if (n >= want || ucb_now_ns () >= deadline)
        return n;
      nanosleep (&(struct timespec){ 0, 1000000 }, NULL);
    }
}

/* ---- the case process ---- */

struct hands
{
  struct ucb_vctx *ctx;
  const struct ucb_rlops *ops;
  struct ucb_vroom room; /* the creator's uid's */
  int sock[2];           /* MSGQUEUE: a queue's way from the creator to a releaser */
  int ipc;               /* MEMLOCK: the creator's IPC namespace, for the releasers to join */
  struct ucb_rlagent keeper, creator;
  struct ucb_vexpect bound; /* what the creator fills */
  long handed;              /* units the creator handed over */
  char name[UCB_VNAME_MAX];
};

static const char *
last_end (const struct hands *h)
{
  return h->ops->rl == UCB_RL_MEMLOCK ? "detach" : "close";
}

/* The IPC namespace of `pid` as an fd above 0 (0 means none in a place). */
static int
open_ipc_ns (pid_t pid, int *fd, ucb_error_t *err)
{
  char path[64];
  int raw;

  snprintf (path, sizeof path, "/proc/%d/ns/ipc", (int) pid);
  if ((raw = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return ucb_make_error (err, errno, "open %s", path);
  *fd = raw > 0 ? raw : fcntl (raw, F_DUPFD_CLOEXEC, 1);
  if (raw == 0)
    close (raw);
  return *fd < 0 ? ucb_make_error (err, errno, "dup %s", path) : 0;
}

/* The room, the keeper at its level 0 (own soft N: the count the creator's bound is on, below
 * the level it is at), the creator at the cell's place there, its own soft N as well. */
static int
parties (struct hands *h, enum ucb_vlevel level, ucb_error_t *err)
{
  const struct ucb_rlops *ops = h->ops;
  struct ucb_rlplace kp = { .depth = 0, .own = ops->soft (CELL_N) };
  struct ucb_rlplace cp = ucb_vcell_place (ops, level, CELL_N);

  if (ucb_vroom_open (h->ctx, &h->room, err) < 0)
    return -1;
  if (ops->rl != UCB_RL_MEMLOCK && socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, h->sock) < 0)
    return ucb_make_error (err, errno, "socketpair for the queues");
  kp.room = cp.room = h->room.room;
  cp.own = ops->soft (CELL_N);
  if (ucb_rlagent_start (&h->keeper, ops, "the keeper", h->ctx->uid_base, &kp, err) < 0
      || ucb_rlagent_start (&h->creator, ops, "the creator", h->ctx->uid_base, &cp, err) < 0)
    return -1;
  if (ops->rl == UCB_RL_MEMLOCK && open_ipc_ns (h->creator.p.pid, &h->ipc, err) < 0)
    return -1;
  return 0;
}

/* One unit from the creator to `r`, ended there. */
static void
hand_over (struct hands *h, struct ucb_rlagent *r, ucb_error_t *err)
{
  bool shm = h->ops->rl == UCB_RL_MEMLOCK;
  struct ucb_rlans one, given = { 0 }, took = { 0 }, dropped, ended = { 0 };

  if (ucb_rlagent_fill (&h->creator, 1, false, &one, err) < 0 || one.count != 1)
    return; /* refused (an intended kernel's MEMLOCK parent bound is 0 pages) */
  if (ucb_rlagent_call (&h->creator, hand_give, h->sock[0], &given, err) == 0 && !given.errnum
      && ucb_rlagent_call (r, hand_take, shm ? given.count : h->sock[1], &took, err) == 0
      && !took.errnum
      /* The creator's hold goes (unlink and close; IPC_RMID): the releaser's is the last. */
      && ucb_rlagent_release (&h->creator, 1, &dropped, err) == 0
      && ucb_rlagent_call (r, hand_end, 0, &ended, err) == 0 && !ended.errnum)
    h->handed++;
  else if (!*err)
    ucb_make_error (err,
                    given.errnum  ? given.errnum
                    : took.errnum ? took.errnum
                                  : ended.errnum,
                    "%s the %s handed over",
                    given.errnum  ? "giving"
                    : took.errnum ? "taking"
                                  : "ending",
                    shm ? "segment" : "queue");
}

/* Fill to the bound and release: a count after a release. */
static void
refill (struct hands *h, struct ucb_rlagent *a, const char *name, struct ucb_vexpect e,
        ucb_error_t *err)
{
  struct ucb_rlans f, rel;

  if (ucb_rlagent_fill_all (a, &f, err) == 0 && ucb_rlagent_release (a, -1, &rel, err) == 0)
    ucb_vcell_check_refill (h->ctx->res, name, e, &f);
}

/* (a), (b): the releaser in a user namespace of its own, its own soft limit N its only bound
 * (in the room with the creator's uid: the levels above are the creator's). */
static void
way (struct hands *h, bool same_uid, ucb_error_t *err)
{
  const struct ucb_rlops *ops = h->ops;
  struct ucb_rlplace rp = { .depth = 1, .snap = { UCB_RL_HARD }, .own = ops->soft (CELL_N) };
  struct ucb_rlagent r = UCB_RLAGENT_NONE;
  uid_t uid = h->ctx->uid_base + (same_uid ? 0 : 2);
  const char *who = same_uid ? "same uid's" : "other uid's";

  rp.room = same_uid ? h->room.room : 0;
  rp.ipc = ops->rl == UCB_RL_MEMLOCK ? h->ipc : 0;
  if (ucb_rlagent_start (&r, ops, same_uid ? "the same uid's releaser" : "the other uid's releaser",
                         uid, &rp, err)
      < 0)
    return;
  hand_over (h, &r, err);
  snprintf (h->name, sizeof h->name, "creator admitted after %s last %s", who, last_end (h));
  refill (h, &h->creator, h->name, h->bound, err);
  snprintf (h->name, sizeof h->name, "%s admitted after its last %s",
            same_uid ? "same-uid sibling" : "other uid", last_end (h));
  refill (h, &r, h->name, ucb_vagent_room (ops, ucb_vexpect (CELL_N, CELL_N)), err);
  ucb_rlagent_stop (&r, err);
}

/* (c): nothing else in the creator's IPC namespace, it charges one unit and is killed holding
 * it; the keeper fills until the teardown returned it. */
static void
teardown (struct hands *h, ucb_error_t *err)
{
  struct ucb_rlans left, f;
  long want = ucb_vagent_room (h->ops, ucb_vexpect (CELL_N, CELL_N)).want;

  if (h->ipc > 0)
    close (h->ipc);
  h->ipc = -1;
  if (ucb_rlagent_call (&h->creator, hand_leave, 0, &left, err) < 0)
    return;
  h->handed += left.count;
  ucb_probe_kill (&h->creator.p);
  if (ucb_rlagent_call (&h->keeper, refill_torn, want, &f, err) < 0)
    return;
  f.tries = h->ops->cap + 1;
  ucb_vcell_check_refill (h->ctx->res, "creator's uid admitted after IPC ns teardown",
                          ucb_vexpect (want, want), &f);
}

static void
hands_end (struct hands *h, ucb_error_t *err)
{
  ucb_rlagent_stop (&h->creator, err);
  ucb_rlagent_stop (&h->keeper, err);
  for (int i = 0; i < 2; i++)
    if (h->sock[i] >= 0)
      close (h->sock[i]);
  if (h->ipc > 0)
    close (h->ipc);
  h->ipc = -1;
}

int
ucb_vcell_p3_other_ipc (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                        ucb_error_t *err)
{
  struct hands h = {
    .ctx = ctx,
    .ops = ops,
    .room = { -1, -1 },
    .sock = { -1, -1 },
    .ipc = -1,
    .keeper = UCB_RLAGENT_NONE,
    .creator = UCB_RLAGENT_NONE,
  };
  struct ucb_vexpect b = ucb_vcell_bound (ops, level, CELL_N);
  long n;

  h.bound = ucb_vagent_room (ops, ucb_vexpect_min (ucb_vexpect (CELL_N, CELL_N), b));
  if (parties (&h, level, err) == 0)
    {
      way (&h, false, err);
      if (!*err)
        way (&h, true, err);
      if (!*err)
        teardown (&h, err);
      if (!*err)
        ucb_vcell_check_count (ctx->res, "units the creator handed over in 3 ways",
                               ucb_vexpect (h.bound.want > 0 ? 3 : 0, h.bound.bug > 0 ? 3 : 0),
                               h.handed, 3);
    }
  hands_end (&h, err);
  if (!*err && (n = ucb_vroom_allows (ctx, &h.room, err)) >= 0)
    ucb_vobserve_pinned (ctx->res, "user namespaces the room allows after",
                         "made by the creator's uid for the hand-overs (a reference not put)",
                         UCB_VROOM_ALLOWS, n, UCB_VROOM_ALLOWS + 1);
  ucb_vroom_close (&h.room);
  return *err ? -1 : 0;
}
