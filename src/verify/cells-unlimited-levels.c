/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells-unlimited-levels.c - the generic matrix cells P4 unlimited is unlimited and P5 levels are
 * independent (cells.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "core/util.h"
#include "verify/cells.h"

/* ---- P4: RLIM_INFINITY ---- */

/* RLIM_INFINITY needs a hard limit of RLIM_INFINITY: ours is raised (the agents inherit it),
 * which takes CAP_SYS_RESOURCE in the initial user namespace where it is finite.  1: the
 * cell is skipped (and says why). */
static int
raise_hard (struct ucb_vctx *ctx, const struct ucb_rlops *ops, ucb_error_t *err)
{
  int res = ucb_rl_resource (ops->rl);
  const char *name = ucb_rl_name (ops->rl);
  struct rlimit rl;

  if (getrlimit (res, &rl) < 0)
    return ucb_make_error (err, errno, "getrlimit(%s)", name);
  if (rl.rlim_max == RLIM_INFINITY)
    return 0;
  {
    struct rlimit up = { .rlim_cur = rl.rlim_cur, .rlim_max = RLIM_INFINITY };
    if (setrlimit (res, &up) == 0)
      return 0;
    if (errno != EPERM)
      return ucb_make_error (err, errno, "setrlimit(%s, hard unlimited)", name);
  }
  ucb_vskip (ctx->res,
             "the hard RLIMIT_%s is %llu, not unlimited, and raising it needs "
             "CAP_SYS_RESOURCE in the initial user namespace",
             name, (unsigned long long) rl.rlim_max);
  return 1;
}

/* The place where `level` is unlimited, everything else too (unlimited), or only that
 * level, with a finite bound of N beside it (finite). */
static struct ucb_rlplace
p4_place (const struct ucb_rlops *ops, enum ucb_vlevel level, bool finite)
{
  rlim_t n = finite ? ops->snap (CELL_N) : RLIM_INFINITY;

  if (level == UCB_VLEVEL_OWN) /* own unlimited; beside it a parent bound */
    return (struct ucb_rlplace){ .depth = finite, .snap = { n }, .own = RLIM_INFINITY };
  if (level == UCB_VLEVEL_PARENT) /* made by an unlimited creator; beside it the own limit */
    return (struct ucb_rlplace){ .depth = 1,
                                 .snap = { RLIM_INFINITY },
                                 .own = finite ? ops->soft (CELL_N) : RLIM_INFINITY };
  /* N1 made unlimited; beside it N2 made with N */
  return (struct ucb_rlplace){ .depth = 2, .snap = { RLIM_INFINITY, n }, .own = RLIM_INFINITY };
}

int
ucb_vcell_p4 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct ucb_rlplace unl = p4_place (ops, level, false), fin = p4_place (ops, level, true);
  struct ucb_vexpect bound
      = level == UCB_VLEVEL_PARENT ? ucb_vexpect (CELL_N, CELL_N) : ucb_vsnap_bound (ops, CELL_N);
  struct ucb_rlagent a = UCB_RLAGENT_NONE, b = UCB_RLAGENT_NONE;
  struct ucb_rlans big = { 0 }, f = { 0 }; /* read once every step succeeded; zeroed anyway */
  int r = raise_hard (ctx, ops, err);

  if (r != 0)
    return r < 0 ? -1 : 0;
  if (ucb_rlagent_start (&a, ops, "the unlimited agent", ctx->uid_base, &unl, err) == 0)
    ucb_rlagent_fill (&a, ops->large, true, &big, err);
  ucb_rlagent_stop (&a, err);
  if (!*err && ucb_rlagent_start (&b, ops, "the bounded agent", ctx->uid_base, &fin, err) == 0)
    ucb_rlagent_fill_all (&b, &f, err);
  ucb_rlagent_stop (&b, err);
  if (*err)
    return -1;
  ucb_vobserve (ctx->res, "charges admitted under RLIM_INFINITY", UCB_VITEM_ADMITTED, ops->large,
                big.count);
  ucb_vobserve (ctx->res, "errno under RLIM_INFINITY (none)", UCB_VITEM_ERRNO, 0, big.errnum);
  ucb_vcell_check_fill (ctx->res, "admitted at the finite bound beside it",
                        ucb_vagent_room (ops, bound), &f);
  ucb_vobserve (ctx->res, "errno at the finite bound", UCB_VITEM_ERRNO, ops->refusal, f.errnum);
  return 0;
}

/* ---- P5: levels are independent ---- */

/* The P5 scenario: siblings A and B of one owner at one place; A takes its share, B fills,
 * B releases and A's own limit is cut to 1, B fills again; below a shared bound both release
 * and B fills alone.  Where the bound sits and what each step admits is the level's. */
struct p5_level
{
  struct ucb_rlplace pl;
  long a_takes; /* < 0: all A's own limit allows */
  struct ucb_vexpect a_gets, b_gets, b_alone;
  bool shared; /* one bound over both: B alone gets b_alone */
  long sum;    /* the observer's SigQ while both hold */
  const char *a_what, *b_what, *sum_what;
};

/* own: each with own soft N in a container made with the hard limit: B still gets N while A
 * holds N at the shared parent level, and still N once A's own limit is cut to 1.
 * parent/grandparent: one bound of N + X at `level` (parent: both at depth 1 made with it;
 * grandparent: each at depth 2 in an N1 of its own made with it): A holds 2, B gets the rest
 * (N + X: some is left for B when both are tasks, NPROC); the same after A's own limit is cut;
 * all of it once A released. */
static struct p5_level
p5_level (const struct ucb_rlops *ops, enum ucb_vlevel level)
{
  struct ucb_vexpect bound = ucb_vsnap_bound (ops, CELL_N + CELL_X);
  struct ucb_vexpect held = ucb_vexpect_min (ucb_vexpect (2, 2), ucb_vagent_room (ops, bound));

  if (level == UCB_VLEVEL_OWN)
    {
      struct ucb_vexpect full = ucb_vagent_room (ops, ucb_vexpect (CELL_N, CELL_N));
      return (struct p5_level){
        .pl = { .depth = 1, .snap = { UCB_RL_HARD }, .own = ops->soft (CELL_N) },
        .a_takes = -1,
        .a_gets = full,
        .b_gets = full,
        .sum = 2 * CELL_N,
        .a_what = "admitted to A at its own N",
        .b_what = "admitted to B while A holds N",
        .sum_what = "observer SigQ: A's and B's",
      };
    }
  return (struct p5_level){
    .pl = ucb_vcell_place (ops, level, CELL_N + CELL_X),
    .a_takes = 2,
    .a_gets = held,
    .b_gets = ucb_vexpect_sub (bound, held, -2 * ops->self),
    .b_alone = ucb_vexpect_add (bound, -2 * ops->self),
    .shared = true,
    .sum = CELL_N + CELL_X,
    .a_what = "admitted to A (at most 2)",
    .b_what = "admitted to B while A holds them",
    .sum_what = "observer SigQ: the sum of A and B",
  };
}

static void
p5_run (struct ucb_vctx *ctx, const struct ucb_rlops *ops, const struct p5_level *lv,
        struct ucb_rlagent *a, struct ucb_rlagent *b, const struct ucb_probe *obs, ucb_error_t *err)
{
  struct ucb_rlans fa, fb, rel, tight, alone;
  long sum = -1;

  if (ucb_rlagent_start (a, ops, "sibling A", ctx->uid_base, &lv->pl, err) < 0
      || ucb_rlagent_start (b, ops, "sibling B", ctx->uid_base, &lv->pl, err) < 0)
    return;
  if (lv->a_takes < 0)
    ucb_rlagent_fill_all (a, &fa, err);
  else
    ucb_rlagent_fill (a, lv->a_takes, false, &fa, err);
  ucb_rlagent_fill_all (b, &fb, err);
  sum = ucb_vcell_sigq (obs);
  ucb_rlagent_release (b, -1, &rel, err);
  ucb_rlagent_soft (a, ops->soft (1), &rel, err);
  ucb_rlagent_fill_all (b, &tight, err);
  if (lv->shared)
    {
      ucb_rlagent_release (b, -1, &rel, err);
      ucb_rlagent_release (a, -1, &rel, err);
      ucb_rlagent_fill_all (b, &alone, err);
    }
  if (*err)
    return;
  ucb_vcell_check_fill (ctx->res, lv->a_what, lv->a_gets, &fa);
  ucb_vcell_check_fill (ctx->res, lv->b_what, lv->b_gets, &fb);
  ucb_vobserve (ctx->res, "errno of B's refusal", UCB_VITEM_ERRNO, ops->refusal, fb.errnum);
  ucb_vcell_check_fill (ctx->res, "admitted to B after A's own limit fell", lv->b_gets, &tight);
  if (lv->shared)
    ucb_vcell_check_refill (ctx->res, "admitted to B once A released", lv->b_alone, &alone);
  if (obs->pid > 0)
    ucb_vobserve (ctx->res, lv->sum_what, UCB_VITEM_COUNTER, lv->sum, sum);
}

int
ucb_vcell_p5 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct p5_level lv = p5_level (ops, level);
  struct ucb_probe obs = UCB_PROBE_NONE;
  struct ucb_rlagent a = UCB_RLAGENT_NONE, b = UCB_RLAGENT_NONE;

  if (ucb_vcell_observer (ops, &obs, ctx->uid_base, err) < 0)
    return -1;
  p5_run (ctx, ops, &lv, &a, &b, &obs, err);
  ucb_rlagent_stop (&b, err);
  ucb_rlagent_stop (&a, err);
  ucb_probe_kill (&obs);
  return *err ? -1 : 0;
}
