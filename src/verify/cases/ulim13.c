/* ulim13.c - ULIM-13: RLIMIT_NPROC, same-owner containers share the parent level; distinct
 * owners are isolated.
 *
 * Same owner: containers A and B are both created by U with soft NPROC 10 (rlimit_max 10 each)
 * and raise their soft limit inside.  Both chains end in the one object (init_user_ns, U)
 * (ns->ucounts = inc_user_namespaces(parent, creator euid)), which is_rlimit_overlimit checks
 * against each namespace's snapshot (59ec71575ab4).  A and its 5 children hold 6; B itself is
 * the 7th, so B forks 3 (10 - 6 - 1) and then gets EAGAIN; while B is full A cannot fork either;
 * once B is gone A forks 4 (10 - 6).  Distinct owners U1 and U2, each creating a container with
 * soft 10: while U1's container holds 9 children, U2's still forks 9. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define MAXKIDS 64

enum
{
  HELD,    /* A: children forked of 5; a filler: children forked */
  REFUSED, /* the errno that ended the fill */
  BLOCKED, /* A: errno of the fork while B is full */
  MORE,    /* A: children once B is gone */
};

/* Same owner, container A: 5 children; on the 1st order (B full) one fork; on the 2nd (B
 * gone) fork until refused. */
static int
container_a (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t kids[MAXKIDS];
  long held, more;
  int refused, blocked;

  (void) arg;
  held = ucb_vfork_sleepers (kids, 5, &refused);
  o->v[HELD] = held;
  if (ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0)
    return -1;
  more = ucb_vfork_sleepers (kids + held, 1, &blocked);
  ucb_vkill_reap (kids + held, more);
  o->v[BLOCKED] = blocked;
  if (ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0)
    return -1;
  more = ucb_vfork_sleepers (kids + held, MAXKIDS - held, &refused);
  ucb_vkill_reap (kids, held + more);
  o->v[MORE] = more;
  o->v[REFUSED] = refused;
  return 0;
}

/* Fill a container: fork until refused, report, hold until ordered. */
static int
container_fill (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t kids[MAXKIDS];
  int refused;
  long n;

  (void) arg;
  n = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
  o->v[HELD] = n;
  o->v[REFUSED] = refused;
  if (ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0)
    {
      ucb_vkill_reap (kids, n);
      return -1;
    }
  ucb_vkill_reap (kids, n);
  return 0;
}

/* A container of `uid` created with soft NPROC 10, soft raised inside. */
static int
start (struct ucb_probe *p, const char *what, uid_t uid, ucb_probe_fn fn, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = what,
                                 .uid = uid,
                                 .resource = RLIMIT_NPROC,
                                 .soft = 10,
                                 .userns = CLONE_NEWUSER,
                                 .soft_inside = RLIM_INFINITY };

  return ucb_probe_start (p, &spec, fn, NULL, err);
}

static void
observe_fill (struct ucb_vresult *r, const char *who, long expect, const struct ucb_probe_out *o)
{
  char name[UCB_VNAME_MAX];

  snprintf (name, sizeof name, "%s: children forked", who);
  ucb_vobserve (r, name, UCB_VITEM_ADMITTED, expect, o->v[HELD]);
  snprintf (name, sizeof name, "%s: errno at the parent bound", who);
  ucb_vobserve (r, name, UCB_VITEM_ERRNO, EAGAIN, o->v[REFUSED]);
}

static int
same_owner (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe a = UCB_PROBE_NONE, b = UCB_PROBE_NONE;
  struct ucb_probe_out oa, ob;
  struct ucb_vresult *r = ctx->res;

  if (start (&a, "container A", ctx->uid_base, container_a, err) < 0
      || ucb_probe_next (&a, &oa, err) < 0
      || start (&b, "container B", ctx->uid_base, container_fill, err) < 0
      || ucb_probe_next (&b, &ob, err) < 0
      || ucb_probe_order (&a, &oa, err) < 0 /* A: fork while B is full */
      || ucb_probe_next (&a, &oa, err) < 0
      || ucb_probe_order (&b, &ob, err) < 0 /* B reaps its children and ends */
      || ucb_probe_finish (&b, NULL, err) < 0 || ucb_probe_order (&a, &oa, err) < 0 /* A: refill */
      || ucb_probe_finish (&a, &oa, err) < 0)
    {
      ucb_probe_kill (&b);
      ucb_probe_kill (&a);
      return -1;
    }
  ucb_vobserve (r, "A: children forked of 5", UCB_VITEM_ADMITTED, 5, oa.v[HELD]);
  observe_fill (r, "B", 3, &ob);
  ucb_vobserve (r, "A: fork while B is full", UCB_VITEM_ERRNO, EAGAIN, oa.v[BLOCKED]);
  ucb_vobserve (r, "A: more children once B is gone", UCB_VITEM_ADMITTED, 4, oa.v[MORE]);
  ucb_vobserve (r, "A: errno at the shared bound", UCB_VITEM_ERRNO, EAGAIN, oa.v[REFUSED]);
  return 0;
}

static int
distinct_owners (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe c = UCB_PROBE_NONE, d = UCB_PROBE_NONE;
  struct ucb_probe_out oc, od;

  if (start (&c, "the container of U1", ctx->uid_base + 1, container_fill, err) < 0
      || ucb_probe_next (&c, &oc, err) < 0
      || start (&d, "the container of U2", ctx->uid_base + 2, container_fill, err) < 0
      || ucb_probe_next (&d, &od, err) < 0 || ucb_probe_order (&d, &od, err) < 0
      || ucb_probe_finish (&d, NULL, err) < 0 || ucb_probe_order (&c, &oc, err) < 0
      || ucb_probe_finish (&c, NULL, err) < 0)
    {
      ucb_probe_kill (&d);
      ucb_probe_kill (&c);
      return -1;
    }
  observe_fill (ctx->res, "owner U1", 9, &oc);
  observe_fill (ctx->res, "owner U2 (U1 full)", 9, &od);
  return 0;
}

static int
ulim13_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  if (same_owner (ctx, err) < 0)
    return -1;
  return distinct_owners (ctx, err);
}

const struct ucb_vcase ucb_vcase_ulim13 = {
  .id = "ULIM-13",
  .name = "nproc-siblings",
  .title = "NPROC: same-owner containers share the parent level; distinct owners do not",
  .rlimit = "NPROC",
  .depends = "59ec71575ab4 (5.16-rc7): before it siblings did not share",
  .checks = "ns->ucounts = (parent ns, creator euid) shared by sibling namespaces; "
            "is_rlimit_overlimit level 1 vs each namespace's rlimit_max (59ec71575ab4)",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim13_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P5 } },
};
