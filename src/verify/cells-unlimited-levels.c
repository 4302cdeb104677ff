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

/* Two siblings of one owner, each with own soft N in a container made with the hard limit:
 * the second still gets N while the first holds N at the shared parent level, and still N
 * once the first's own limit is cut to 1. */
static void
p5_own (struct ucb_vctx *ctx, const struct ucb_rlops *ops, struct ucb_rlagent *a,
        struct ucb_rlagent *b, const struct ucb_probe *obs, ucb_error_t *err)
{
  struct ucb_rlplace pl = { .depth = 1, .snap = { UCB_RL_HARD }, .own = ops->soft (CELL_N) };
  struct ucb_vexpect full = ucb_vagent_room (ops, ucb_vexpect (CELL_N, CELL_N));
  struct ucb_rlans fa, fb, rel, again;
  long both = -1;

  if (ucb_rlagent_start (a, ops, "sibling A", ctx->uid_base, &pl, err) < 0
      || ucb_rlagent_start (b, ops, "sibling B", ctx->uid_base, &pl, err) < 0)
    return;
  ucb_rlagent_fill_all (a, &fa, err);
  ucb_rlagent_fill_all (b, &fb, err);
  both = ucb_vcell_sigq (obs);
  ucb_rlagent_release (b, -1, &rel, err);
  ucb_rlagent_soft (a, ops->soft (1), &rel, err);
  ucb_rlagent_fill_all (b, &again, err);
  if (*err)
    return;
  ucb_vcell_check_fill (ctx->res, "admitted to A at its own N", full, &fa);
  ucb_vcell_check_fill (ctx->res, "admitted to B while A holds N", full, &fb);
  ucb_vobserve (ctx->res, "errno of B's refusal", UCB_VITEM_ERRNO, ops->refusal, fb.errnum);
  ucb_vcell_check_fill (ctx->res, "admitted to B after A's own limit fell", full, &again);
  if (obs->pid > 0)
    ucb_vobserve (ctx->res, "observer SigQ: A's and B's", UCB_VITEM_COUNTER, 2 * CELL_N, both);
}

/* Two siblings below one bound of N + X at `level` (parent: both at depth 1 made with it;
 * grandparent: each at depth 2 in an N1 of its own made with it): A holds 2, B gets the rest
 * (N + X: some is left for B when both are tasks, NPROC); the same after A's own limit is cut
 * to 1; all of it once A released. */
static void
p5_shared (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
           struct ucb_rlagent *a, struct ucb_rlagent *b, const struct ucb_probe *obs,
           ucb_error_t *err)
{
  struct ucb_rlplace pl = ucb_vcell_place (ops, level, CELL_N + CELL_X);
  struct ucb_vexpect bound = ucb_vsnap_bound (ops, CELL_N + CELL_X);
  struct ucb_vexpect held = ucb_vexpect_min (ucb_vexpect (2, 2), ucb_vagent_room (ops, bound));
  struct ucb_vexpect rest = ucb_vexpect_sub (bound, held, -2 * ops->self);
  struct ucb_rlans fa, fb, rel, tight, alone;
  long sum = -1;

  if (ucb_rlagent_start (a, ops, "sibling A", ctx->uid_base, &pl, err) < 0
      || ucb_rlagent_start (b, ops, "sibling B", ctx->uid_base, &pl, err) < 0)
    return;
  ucb_rlagent_fill (a, 2, false, &fa, err);
  ucb_rlagent_fill_all (b, &fb, err);
  sum = ucb_vcell_sigq (obs);
  ucb_rlagent_release (b, -1, &rel, err);
  ucb_rlagent_soft (a, ops->soft (1), &rel, err);
  ucb_rlagent_fill_all (b, &tight, err);
  ucb_rlagent_release (b, -1, &rel, err);
  ucb_rlagent_release (a, -1, &rel, err);
  ucb_rlagent_fill_all (b, &alone, err);
  if (*err)
    return;
  ucb_vcell_check_fill (ctx->res, "admitted to A (at most 2)", held, &fa);
  ucb_vcell_check_fill (ctx->res, "admitted to B while A holds them", rest, &fb);
  ucb_vobserve (ctx->res, "errno of B's refusal", UCB_VITEM_ERRNO, ops->refusal, fb.errnum);
  ucb_vcell_check_fill (ctx->res, "admitted to B after A's own limit fell", rest, &tight);
  ucb_vcell_check_fill (ctx->res, "admitted to B once A released",
                        ucb_vexpect_add (bound, -2 * ops->self), &alone);
  if (obs->pid > 0)
    ucb_vobserve (ctx->res, "observer SigQ: the sum of A and B", UCB_VITEM_COUNTER, CELL_N + CELL_X,
                  sum);
}

int
ucb_vcell_p5 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct ucb_probe obs = UCB_PROBE_NONE;
  struct ucb_rlagent a = UCB_RLAGENT_NONE, b = UCB_RLAGENT_NONE;

  if (ucb_vcell_observer (ops, &obs, ctx->uid_base, err) < 0)
    return -1;
  if (level == UCB_VLEVEL_OWN)
    p5_own (ctx, ops, &a, &b, &obs, err);
  else
    p5_shared (ctx, ops, level, &a, &b, &obs, err);
  ucb_rlagent_stop (&b, err);
  ucb_rlagent_stop (&a, err);
  ucb_probe_kill (&obs);
  return *err ? -1 : 0;
}
