/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * unchanged (no parent-level leak), and (d) is retried (5 tries) when host root changed its
 * queues meanwhile (a skip saying so when every try saw them change, unless by one same excess).
 * Every queue lives in a private IPC namespace and is unlinked explicitly, so its charge is gone
 * before the case ends. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

#define COST 1120L /* 1 x 1024: 1024 + 48 (msg_msg) + 48 (posix_msg_tree_node), x86_64 */

/* The queues of the fills: the ops' unit, a 1 x 1024 queue (COST). */
static const struct ucb_rlops *const mq = &ucb_rlops[UCB_RL_MSGQUEUE];
_Static_assert(UCB_VTRIES (2) <= UCB_RL_HELD_MAX, "the queues fit the held table");

/* As `uid` (or root with uid 0), with soft MSGQUEUE `creator_soft`: a container with an IPC
 * namespace of its own, soft `inside` there (RLIM_INFINITY: raised to the hard limit). */
static struct ucb_probe_spec
container (const char *what, uid_t uid, rlim_t creator_soft, rlim_t inside)
{
  return (struct ucb_probe_spec){ .what = what,
                                  .uid = uid,
                                  .resource = RLIMIT_MSGQUEUE,
                                  .soft = creator_soft,
                                  .userns = CLONE_NEWUSER | CLONE_NEWIPC,
                                  .soft_inside = inside };
}

/* (a) the parent bound of a container, refilled after cleanup. */
static int
part_a (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  int refused;

  (void) arg, (void) err;
  /* The count, then the same again once its queues are gone: v[0], v[1] and v[2], v[3]. */
  for (int i = 0; i < 2; i++)
    {
      o->v[2 * i] = ucb_rlops_count (mq, NULL, UCB_VTRIES (2), &refused);
      o->v[2 * i + 1] = refused;
    }
  return 0;
}

/* Results of the two containers of (b) or (d). */
struct pair
{
  long a, b;
  int b_err;
};

/* Container A of (b)/(d): create 2 queues, report, keep them until ordered. */
static int
holder (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct ucb_rlheld held = { .n = 0 };
  int refused, r;

  (void) arg;
  o->v[0] = ucb_rlops_fill (mq, &held, 2, false, &refused);
  r = ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0 ? -1 : 0;
  ucb_rlops_release (mq, &held, -1);
  return r;
}

/* Run A (holding 2) and then B of `part` (it fills while A holds its queues), both as `uid`
 * created with `creator_soft`. */
static int
run_pair (struct pair *p, const char *part, uid_t uid, rlim_t creator_soft, ucb_error_t *err)
{
  struct ucb_vcount sibling = { mq, NULL, UCB_VTRIES (1) };
  char a_what[32], b_what[32];
  struct ucb_probe_spec spec = container (a_what, uid, creator_soft, RLIM_INFINITY);
  struct ucb_probe a = UCB_PROBE_NONE;
  struct ucb_probe_out oa, ob;

  snprintf (a_what, sizeof a_what, "%s container A", part);
  snprintf (b_what, sizeof b_what, "%s container B", part);
  if (ucb_probe_start_report (&a, &spec, holder, NULL, &oa, err) < 0)
    return -1;
  spec.what = b_what;
  if (ucb_probe_run (&spec, ucb_vcount, &sibling, &ob, err) < 0
      || ucb_probe_order (&a, &oa, err) < 0 || ucb_probe_finish (&a, NULL, err) < 0)
    {
      ucb_probe_kill (&a);
      return -1;
    }
  p->a = (long) oa.v[0];
  p->b = (long) ob.v[0];
  p->b_err = ob.errnum;
  return 0;
}

enum
{
  C_FIRST,
  C_CLOSED,
  C_RECREATED,
  C_UNLINKED,
  C_AGAIN,
};

/* (c) release semantics at a 1-queue limit. */
static int
part_c (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 1024 };
  int refused;
  long n;
  mqd_t q, x;

  (void) arg, (void) err;
  /* closed, still linked */
  q = mq_open ("/c.held", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  o->v[C_FIRST] = q == (mqd_t) -1 ? errno : 0;
  if (q != (mqd_t) -1)
    mq_close (q);
  x = mq_open ("/c.next", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  o->v[C_CLOSED] = x == (mqd_t) -1 ? errno : 0;
  if (x != (mqd_t) -1)
    mq_close (x), mq_unlink ("/c.next");
  mq_unlink ("/c.held");
  /* unlinked, still open */
  q = mq_open ("/c.held", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  o->v[C_RECREATED] = q == (mqd_t) -1 ? errno : 0;
  mq_unlink ("/c.held");
  x = mq_open ("/c.next", O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  o->v[C_UNLINKED] = x == (mqd_t) -1 ? errno : 0;
  if (x != (mqd_t) -1)
    mq_close (x), mq_unlink ("/c.next");
  if (q != (mqd_t) -1)
    mq_close (q);
  /* closed and unlinked */
  n = ucb_rlops_count (mq, NULL, UCB_VTRIES (1), &refused);
  o->v[C_AGAIN] = n;
  return 0;
}

/* In root_baseline's probe: does one 1120-B queue fit under root's soft limit `soft`? */
static int
fits_under (long soft, ucb_error_t *err)
{
  int refused;

  if (ucb_vsoft (RLIMIT_MSGQUEUE, (rlim_t) soft, err) < 0)
    return -1;
  if (ucb_rlops_count (mq, NULL, 1, &refused) == 1)
    return 1;
  if (refused != EMFILE)
    return ucb_make_error (err, refused, "mq_open under a soft limit of %ld B", soft);
  return 0;
}

/* The least soft limit that admits one queue (binary search up to the hard limit), -1 if
 * none does. */
static int
least_soft (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  long lo = COST + 1, hi = (long) *(const rlim_t *) arg, least = -1;
  int fits;

  if (unshare (CLONE_NEWIPC) < 0)
    return ucb_make_error (err, errno, "unshare(CLONE_NEWIPC)");
  if ((fits = fits_under (COST, err)) < 0)
    return -1;
  if (fits) /* the usual case: host root holds no queue */
    least = COST;
  else
    while (lo <= hi)
      {
        long mid = lo + (hi - lo) / 2;
        if ((fits = fits_under (mid, err)) < 0)
          return -1;
        if (fits)
          least = mid, hi = mid - 1;
        else
          lo = mid + 1;
      }
  o->v[0] = least;
  return 0;
}

/* The MSGQUEUE bytes charged to (init_user_ns, 0) now, in *bytes: root's own level is that
 * counter, checked against root's soft limit only, so the least soft limit that still admits
 * one 1120-B queue is the counter + 1120.  *bytes = -1 when not even `hard` admits one. */
static int
root_baseline (rlim_t hard, long *bytes, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "measuring root's MSGQUEUE bytes" };
  struct ucb_probe_out o;

  if (ucb_probe_run (&spec, least_soft, &hard, &o, err) < 0)
    return -1;
  *bytes = o.v[0] < 0 ? -1 : (long) o.v[0] - COST;
  return 0;
}

/* (d): root-created containers; host root's own queues count at the same level. */
#define D_TRIES 5
static int
part_d (struct ucb_vresult *r, rlim_t hard, ucb_error_t *err)
{
  struct pair p = { 0 };
  long before = 0, after = 0, delta[D_TRIES];
  int tries = 0;
  bool same = true;

  for (int attempt = 0; attempt < D_TRIES; attempt++)
    {
      if (root_baseline (hard, &before, err) < 0)
        return -1;
      if (before < 0 || (rlim_t) (before + 4 * COST) > hard)
        {
          ucb_vskip (r, "host root holds MSGQUEUE bytes (%ld) too close to its hard limit for (d)",
                     before);
          return 0;
        }
      if (run_pair (&p, "(d)", 0, (rlim_t) (before + 3 * COST), err) < 0
          || root_baseline (hard, &after, err) < 0)
        return -1;
      delta[tries] = after - before;
      same = same && delta[tries] == delta[0];
      tries++;
      if (after == before) /* else host root's queues changed meanwhile: again */
        break;
    }
  /* Changed in every try: a leak of (d) leaves the same excess each time; anything else is
   * another root task's queues, and (d)'s leak check cannot be decided (unless the case has
   * failed already, which then stands). */
  if (after != before && !(same && delta[0] > 0))
    {
      char why[UCB_VDETAIL_MAX];
      if (ucb_vjudge (r, why, sizeof why) != UCB_VERDICT_FAIL)
        ucb_vskip (r,
                   "host root's MSGQUEUE bytes changed during each of %d tries of (d) (by %+ld B "
                   "the last time): another root task uses message queues, so a leak of (d) "
                   "cannot be told from them; rerun on a quieter host",
                   tries, after - before);
      return 0;
    }
  ucb_vobserve (r, "(d) queues held by root-owned A", UCB_VITEM_ADMITTED, 2, p.a);
  ucb_vobserve_fill (r, "(d) queues in root-owned B while A holds 2", UCB_VITEM_ADMITTED, 1, p.b,
                     UCB_VTRIES (1), "(d) errno of B's refused mq_open", EMFILE, p.b_err);
  ucb_vobserve (r, "(d) root's MSGQUEUE bytes, after - before", UCB_VITEM_COUNTER, 0,
                after - before);
  return 0;
}

static int
parts_abc (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = container ("(a)", ctx->uid_base, 2 * COST, RLIM_INFINITY);
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;
  struct pair p;

  if (ucb_probe_run (&spec, part_a, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (r, "(a) queues under a 2240-B parent bound", UCB_VITEM_ADMITTED, 2, o.v[0],
                     UCB_VTRIES (2), "(a) errno of the 3rd mq_open", EMFILE, o.v[1]);
  ucb_vobserve_fill (r, "(a) queues again after unlinking", UCB_VITEM_READMITTED, 2, o.v[2],
                     UCB_VTRIES (2), "(a) errno of the 3rd mq_open again", EMFILE, o.v[3]);
  if (run_pair (&p, "(b)", ctx->uid_base + 1, 3 * COST, err) < 0)
    return -1;
  ucb_vobserve (r, "(b) queues held by A (same owner)", UCB_VITEM_ADMITTED, 2, p.a);
  ucb_vobserve_fill (r, "(b) queues in B while A holds 2", UCB_VITEM_ADMITTED, 1, p.b,
                     UCB_VTRIES (1), "(b) errno of B's refused mq_open", EMFILE, p.b_err);
  spec = container ("(c)", ctx->uid_base + 2, COST, COST);
  if (ucb_probe_run (&spec, part_c, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "(c) 1st queue at a 1-queue limit", UCB_VITEM_ERRNO, 0, o.v[C_FIRST]);
  ucb_vobserve (r, "(c) next after close without unlink", UCB_VITEM_ERRNO, EMFILE, o.v[C_CLOSED]);
  ucb_vobserve (r, "(c) queue again once unlinked and closed", UCB_VITEM_ERRNO_RELEASED, 0,
                o.v[C_RECREATED]);
  ucb_vobserve (r, "(c) next after unlink without close", UCB_VITEM_ERRNO, EMFILE, o.v[C_UNLINKED]);
  ucb_vobserve_count (r, "(c) queues after close and unlink", UCB_VITEM_READMITTED, 1, o.v[C_AGAIN],
                      UCB_VTRIES (1));
  return 0;
}

static int
ulim17_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vresult *r = ctx->res;
  struct rlimit rl;

  if (*ucb_rlops_unsupported (mq))
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
  if (parts_abc (ctx, err) < 0)
    return -1;
  return part_d (r, rl.rlim_max, err);
}

const struct ucb_vcase ucb_vcase_ulim17 = {
  .id = "ULIM-17",
  .name = "msgqueue-parent-bound",
  .title = "MSGQUEUE: parent bound, same-owner sharing, release on unlink+close, root owner",
  .rlimit = UCB_RL_MSGQUEUE,
  .depends = "5.16-rc7+ (59ec71575ab4) for the parent bound and sharing",
  .checks = "mqueue_get_inode inc_rlimit_ucounts(MSGQUEUE) vs rlimit_max (59ec71575ab4); "
            "mqueue_evict_inode uncharge; (init_user_ns, 0) shared by root-owned namespaces",
  /* Private IPC namespaces of init_user_ns (CAP_SYS_ADMIN); (d) root-owned containers:
   * mapping uid 0 needs CAP_SETFCAP. */
  .needs_caps = UCB_VCAP (CAP_SYS_ADMIN) | UCB_VCAP (CAP_SETFCAP),
  .needs_init_root = true,
  .run = ulim17_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P1 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P6 } },
};
