/* ulim17.c - ULIM-17: RLIMIT_MSGQUEUE parent bound, sibling sharing, release, root owner.
 *
 * mqueue_get_inode charges the queue cost (1 x 1024: 1120 B on x86_64, see ULIM-16) with
 * inc_rlimit_ucounts(MSGQUEUE) on every level; the task's own level is checked against its soft
 * limit, level j >= 1 against the rlimit_max snapshot (bytes) that create_user_ns took of the
 * creator's soft limit (59ec71575ab4, v5.16-rc7; de399236e240 names).  (a) U with soft 2240
 * creates a container with its own IPC namespace and raises its soft limit inside: 2 queues,
 * then EMFILE; after unlinking them, 2 again.  (b) Two containers of the same owner, each
 * created with 3360: while A holds 2 queues, B gets 1 (level 1 is the shared (init_user_ns, U)).
 * (c) At a 1-queue limit: mqueue_evict_inode uncharges only when the inode dies, so a closed
 * but linked queue and an unlinked but open one both keep the charge (EMFILE); closed and
 * unlinked, 1 fits again.  (d) Two containers created by root share level 1 with every root
 * task on the host, (init_user_ns, 0): each created with 3360 B, A holds 2 and B gets 1, then
 * EMFILE.  Host root's own queues also count there, so the bytes they hold are measured first
 * (binary search on root's soft limit, which bounds that same counter at level 0) and the
 * creators' soft limit is 3360 plus that; the measurement is repeated afterwards, it must be
 * unchanged (no parent-level leak), and (d) is retried (3 tries) when host root changed its
 * queues meanwhile.  Every queue lives in a private IPC namespace and is unlinked explicitly, so
 * its charge is gone before the case ends. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define COST 1120L /* 1 x 1024: 1024 + 48 (msg_msg) + 48 (posix_msg_tree_node), x86_64 */
#define MAXQ 16

/* Create 1 x 1024 queues /<tag>.<i> (closed, still linked) until refused or `max`. */
static long
fill (const char *tag, long max, int *refused)
{
  struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 1024 };
  char name[64];
  long n = 0;

  *refused = 0;
  for (; n < max; n++)
    {
      mqd_t q;
      snprintf (name, sizeof name, "/%s.%ld", tag, n);
      q = mq_open (name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
      if (q == (mqd_t) -1)
        {
          *refused = errno;
          break;
        }
      mq_close (q);
    }
  return n;
}

static void
drop (const char *tag, long n)
{
  char name[64];

  for (long i = 0; i < n; i++)
    {
      snprintf (name, sizeof name, "/%s.%ld", tag, i);
      mq_unlink (name);
    }
}

/* As `uid` (or root with uid 0), with soft MSGQUEUE `creator_soft`: a container with an IPC
 * namespace of its own, soft raised inside to the hard limit.  Exits on failure. */
static void
enter_container (uid_t uid, rlim_t creator_soft)
{
  ucb_error_t e = NULL;

  if ((uid != 0 && ucb_vbecome (uid, &e) < 0) || ucb_vsoft (RLIMIT_MSGQUEUE, creator_soft, &e) < 0
      || ucb_vuserns (CLONE_NEWIPC, &e) < 0 || ucb_vsoft (RLIMIT_MSGQUEUE, RLIM_INFINITY, &e) < 0)
    _exit (1);
}

/* (a) the parent bound of a container, refilled after cleanup. */
static void
part_a (struct ucb_vresult *r, uid_t uid)
{
  int refused, refused2;
  long n, again;

  enter_container (uid, 2 * COST);
  n = fill ("a", MAXQ, &refused);
  drop ("a", n);
  again = fill ("a", MAXQ, &refused2);
  drop ("a", again);
  ucb_vobserve (r, "(a) queues under a 2240-B parent bound", UCB_VITEM_ADMITTED, 2, n);
  ucb_vobserve (r, "(a) errno of the 3rd mq_open", UCB_VITEM_ERRNO, EMFILE, refused);
  ucb_vobserve (r, "(a) queues again after unlinking", UCB_VITEM_ADMITTED, 2, again);
  ucb_vobserve (r, "(a) errno of the 3rd mq_open again", UCB_VITEM_ERRNO, EMFILE, refused2);
  _exit (0);
}

/* Results of the two containers of (b) or (d), filled in by their helpers. */
struct pair
{
  long a, b;
  int b_err;
};

/* Container A of (b)/(d): create `hold` queues, keep them until `release`. */
static void
holder (struct pair *p, uid_t uid, rlim_t creator_soft, long hold, struct ucb_vgate *full,
        struct ucb_vgate *release)
{
  int refused;

  enter_container (uid, creator_soft);
  p->a = fill ("h", hold, &refused);
  ucb_vgate_post (full);
  ucb_vgate_wait (release);
  drop ("h", p->a);
  _exit (0);
}

/* Container B of (b)/(d): fill while A holds its queues. */
static void
sibling (struct pair *p, uid_t uid, rlim_t creator_soft)
{
  enter_container (uid, creator_soft);
  p->b = fill ("s", MAXQ, &p->b_err);
  drop ("s", p->b);
  _exit (0);
}

/* Run A (holding 2) and then B, both as `uid` created with `creator_soft`. */
static int
run_pair (struct pair *p, uid_t uid, rlim_t creator_soft, ucb_error_t *err)
{
  struct ucb_vgate full, release;
  pid_t a, b;
  int sa, sb;

  memset (p, 0, sizeof *p);
  p->a = p->b = -1;
  if (ucb_vgate_open (&full, err) < 0)
    return -1;
  if (ucb_vgate_open (&release, err) < 0)
    {
      ucb_vgate_close (&full);
      return -1;
    }
  a = ucb_vfork ();
  if (a == 0)
    holder (p, uid, creator_soft, 2, &full, &release);
  if (a < 0 || !ucb_vgate_wait (&full))
    {
      ucb_vgate_close (&full);
      ucb_vgate_close (&release);
      if (a > 0)
        ucb_vwait (a);
      return ucb_make_error (err, errno, "container A (uid %u) did not fill", (unsigned) uid);
    }
  b = ucb_vfork ();
  if (b == 0)
    sibling (p, uid, creator_soft);
  sb = b > 0 ? ucb_vwait (b) : -1;
  ucb_vgate_post (&release);
  sa = ucb_vwait (a);
  ucb_vgate_close (&full);
  ucb_vgate_close (&release);
  if (sa != 0 || sb != 0)
    return ucb_make_error (err, 0, "a container probe (uid %u) failed (A %d, B %d)", (unsigned) uid,
                           sa, sb);
  return 0;
}

/* (c) release semantics at a 1-queue limit. */
static void
part_c (struct ucb_vresult *r, uid_t uid)
{
  struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 1024 };
  int first, closed, recreated, unlinked, refused;
  long n;
  mqd_t q, x;

  enter_container (uid, COST);
  if (ucb_vsoft (RLIMIT_MSGQUEUE, COST, NULL) < 0)
    _exit (1);
  /* closed, still linked */
  q = mq_open ("/c.held", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  first = q == (mqd_t) -1 ? errno : 0;
  if (q != (mqd_t) -1)
    mq_close (q);
  x = mq_open ("/c.next", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  closed = x == (mqd_t) -1 ? errno : 0;
  if (x != (mqd_t) -1)
    mq_close (x), mq_unlink ("/c.next");
  mq_unlink ("/c.held");
  /* unlinked, still open */
  q = mq_open ("/c.held", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  recreated = q == (mqd_t) -1 ? errno : 0;
  mq_unlink ("/c.held");
  x = mq_open ("/c.next", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  unlinked = x == (mqd_t) -1 ? errno : 0;
  if (x != (mqd_t) -1)
    mq_close (x), mq_unlink ("/c.next");
  if (q != (mqd_t) -1)
    mq_close (q);
  /* closed and unlinked */
  n = fill ("c", MAXQ, &refused);
  drop ("c", n);
  ucb_vobserve (r, "(c) 1st queue at a 1-queue limit", UCB_VITEM_ERRNO, 0, first);
  ucb_vobserve (r, "(c) next after close without unlink", UCB_VITEM_ERRNO, EMFILE, closed);
  ucb_vobserve (r, "(c) queue again once unlinked and closed", UCB_VITEM_ERRNO, 0, recreated);
  ucb_vobserve (r, "(c) next after unlink without close", UCB_VITEM_ERRNO, EMFILE, unlinked);
  ucb_vobserve (r, "(c) queues after close and unlink", UCB_VITEM_ADMITTED, 1, n);
  _exit (0);
}

/* In root_baseline's helper: does one 1120-B queue fit under root's soft limit `soft`? */
static bool
fits_under (long soft)
{
  int refused;

  if (ucb_vsoft (RLIMIT_MSGQUEUE, (rlim_t) soft, NULL) < 0)
    _exit (1);
  if (fill ("base", 1, &refused) == 1)
    {
      drop ("base", 1);
      return true;
    }
  if (refused != EMFILE)
    _exit (1);
  return false;
}

/* The MSGQUEUE bytes charged to (init_user_ns, 0) now, in *bytes: root's own level is that
 * counter, checked against root's soft limit only, so the least soft limit that still admits
 * one 1120-B queue is the counter + 1120.  *bytes = -1 when not even `hard` admits one. */
static int
root_baseline (rlim_t hard, long *bytes, ucb_error_t *err)
{
  long *out = mmap (NULL, sizeof *out, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t pid;
  int st;

  if (out == MAP_FAILED)
    return ucb_make_error (err, errno, "mmap");
  *out = -2;
  pid = ucb_vfork ();
  if (pid == 0)
    {
      long lo = COST + 1, hi = (long) hard, least = -1;
      if (unshare (CLONE_NEWIPC) < 0)
        _exit (1);
      if (fits_under (COST)) /* the usual case: host root holds no queue */
        least = COST;
      else
        while (lo <= hi)
          {
            long mid = lo + (hi - lo) / 2;
            if (fits_under (mid))
              least = mid, hi = mid - 1;
            else
              lo = mid + 1;
          }
      *out = least < 0 ? -1 : least - COST;
      _exit (0);
    }
  st = pid > 0 ? ucb_vwait (pid) : -1;
  *bytes = *out;
  munmap (out, sizeof *out);
  if (st != 0 || *bytes == -2)
    return ucb_make_error (err, 0, "measuring root's MSGQUEUE bytes failed (%d)", st);
  return 0;
}

static int
ulim17_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vresult *r = ctx->res;
  struct pair *p;
  struct utsname u;
  struct rlimit rl;
  long before = 0, after = 0;
  int rc = 0;
  pid_t pid;

  if (uname (&u) == 0 && strcmp (u.machine, "x86_64") != 0)
    {
      ucb_vskip (r, "the queue cost formula is known for x86_64 only (struct sizes)");
      return 0;
    }
  if (getrlimit (RLIMIT_MSGQUEUE, &rl) < 0)
    return ucb_make_error (err, errno, "getrlimit(MSGQUEUE)");
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t) (8 * COST))
    {
      ucb_vskip (r, "hard RLIMIT_MSGQUEUE %llu B is below 8 queues of 1120 B",
                 (unsigned long long) rl.rlim_max);
      return 0;
    }
  if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t) (1L << 30))
    rl.rlim_max = 1L << 30;

  pid = ucb_vfork ();
  if (pid == 0)
    part_a (r, ctx->uid_base);
  if (pid < 0 || ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "(a) as uid %u failed", (unsigned) ctx->uid_base);

  p = mmap (NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return ucb_make_error (err, errno, "mmap");
  if (run_pair (p, ctx->uid_base + 1, 3 * COST, err) < 0)
    goto out_err;
  ucb_vobserve (r, "(b) queues held by A (same owner)", UCB_VITEM_ADMITTED, 2, p->a);
  ucb_vobserve (r, "(b) queues in B while A holds 2", UCB_VITEM_ADMITTED, 1, p->b);
  ucb_vobserve (r, "(b) errno of B's refused mq_open", UCB_VITEM_ERRNO, EMFILE, p->b_err);

  pid = ucb_vfork ();
  if (pid == 0)
    part_c (r, ctx->uid_base + 2);
  if (pid < 0 || ucb_vwait (pid) != 0)
    {
      ucb_make_error (err, 0, "(c) as uid %u failed", (unsigned) ctx->uid_base + 2);
      goto out_err;
    }

  /* (d): root-created containers; host root's own queues count at the same level. */
  for (int attempt = 0; attempt < 3; attempt++)
    {
      if (root_baseline (rl.rlim_max, &before, err) < 0)
        goto out_err;
      if (before < 0 || (rlim_t) (before + 4 * COST) > rl.rlim_max)
        {
          ucb_vskip (r, "host root holds MSGQUEUE bytes (%ld) too close to its hard limit for (d)",
                     before);
          goto out;
        }
      if (run_pair (p, 0, (rlim_t) (before + 3 * COST), err) < 0
          || root_baseline (rl.rlim_max, &after, err) < 0)
        goto out_err;
      if (after == before) /* else host root's queues changed meanwhile: again */
        break;
    }
  ucb_vobserve (r, "(d) queues held by root-owned A", UCB_VITEM_ADMITTED, 2, p->a);
  ucb_vobserve (r, "(d) queues in root-owned B while A holds 2", UCB_VITEM_ADMITTED, 1, p->b);
  ucb_vobserve (r, "(d) errno of B's refused mq_open", UCB_VITEM_ERRNO, EMFILE, p->b_err);
  ucb_vobserve (r, "(d) root's MSGQUEUE bytes, after - before", UCB_VITEM_COUNTER, 0,
                after - before);
  goto out;
out_err:
  rc = -1;
out:
  munmap (p, sizeof *p);
  return rc;
}

const struct ucb_vcase ucb_vcase_ulim17 = {
  .id = "ULIM-17",
  .name = "msgqueue-parent-bound",
  .title = "MSGQUEUE: parent bound, same-owner sharing, release on unlink+close, root owner",
  .rlimit = "MSGQUEUE",
  .depends = "5.16-rc7+ (59ec71575ab4) for the parent bound and sharing",
  .checks = "mqueue_get_inode inc_rlimit_ucounts(MSGQUEUE) vs rlimit_max (59ec71575ab4); "
            "mqueue_evict_inode uncharge; (init_user_ns, 0) shared by root-owned namespaces",
  .run = ulim17_run,
};
