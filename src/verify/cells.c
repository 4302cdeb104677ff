/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells.c - the generic matrix cells: shared helpers, the dispatcher, P1 exact bound, P2 a
 * refusal has no side effects, P3 release restores (P4 and P5: cells-unlimited-levels.c). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "verify/cells.h"
#include "verify/probe-work.h"

struct ucb_vexpect
ucb_vexpect (long want, long bug)
{
  return (struct ucb_vexpect){ want, bug };
}

struct ucb_vexpect
ucb_vexpect_add (struct ucb_vexpect a, long d)
{
  return ucb_vexpect (a.want + d > 0 ? a.want + d : 0, a.bug + d > 0 ? a.bug + d : 0);
}

struct ucb_vexpect
ucb_vexpect_sub (struct ucb_vexpect a, struct ucb_vexpect b, long d)
{
  return ucb_vexpect_add (ucb_vexpect (a.want - b.want, a.bug - b.bug), d);
}

struct ucb_vexpect
ucb_vexpect_min (struct ucb_vexpect a, struct ucb_vexpect b)
{
  return ucb_vexpect (a.want < b.want ? a.want : b.want, a.bug < b.bug ? a.bug : b.bug);
}

struct ucb_vexpect
ucb_vagent_room (const struct ucb_rlops *ops, struct ucb_vexpect bound)
{
  return ucb_vexpect_add (bound, -ops->self);
}

struct ucb_vexpect
ucb_vsnap_bound (const struct ucb_rlops *ops, long units)
{
  return ucb_vexpect (ops->snap_intended (units), units);
}

/* Which kernel the first observation that tells them apart showed: the rest are judged
 * against that one only, so that a stock kernel whose later counts fall to the intended values
 * (a leak that happens to look like the fix) fails instead of passing item by item.  NEITHER:
 * it showed neither value (that observation fails), and each later one is held to both. */
static enum { UNDECIDED, INTENDED, STOCK, NEITHER } seen_kernel;

void
ucb_vcell_check_reset (void)
{
  seen_kernel = UNDECIDED;
}

static void
see (struct ucb_vresult *r, const char *name, enum ucb_vkind kind, struct ucb_vexpect e,
     long observed, long tries)
{
  if (e.want != e.bug && (seen_kernel == UNDECIDED || seen_kernel == NEITHER))
    {
      if (seen_kernel == UNDECIDED)
        seen_kernel = observed == e.bug ? STOCK : observed == e.want ? INTENDED : NEITHER;
      /* e.want and e.bug differ only for MEMLOCK's snapshot in bytes (cells.h). */
      ucb_vobserve_bug_count (r, UCB_VBUG_MEMLOCK_UNITS, name, kind, e.want, observed, e.bug,
                              tries);
    }
  else
    ucb_vobserve_count (r, name, kind, seen_kernel == STOCK ? e.bug : e.want, observed, tries);
}

void
ucb_vcell_check (struct ucb_vresult *r, const char *name, enum ucb_vkind kind, struct ucb_vexpect e,
                 long observed)
{
  see (r, name, kind, e, observed, 0);
}

void
ucb_vcell_check_fill (struct ucb_vresult *r, const char *name, struct ucb_vexpect e,
                      const struct ucb_rlans *fill)
{
  see (r, name, UCB_VITEM_ADMITTED, e, fill->count, fill->tries);
}

void
ucb_vcell_check_count (struct ucb_vresult *r, const char *name, struct ucb_vexpect e, long count,
                       long tries)
{
  see (r, name, UCB_VITEM_ADMITTED, e, count, tries);
}

void
ucb_vcell_check_refill (struct ucb_vresult *r, const char *name, struct ucb_vexpect e,
                        const struct ucb_rlans *fill)
{
  see (r, name, UCB_VITEM_READMITTED, e, fill->count, fill->tries);
}

struct ucb_rlplace
ucb_vcell_place (const struct ucb_rlops *ops, enum ucb_vlevel level, long n)
{
  if (level == UCB_VLEVEL_PARENT)
    return (struct ucb_rlplace){ .depth = 1, .snap = { ops->snap (n) }, .own = UCB_RL_HARD };
  if (level == UCB_VLEVEL_GRANDPARENT)
    return (struct ucb_rlplace){ .depth = 2,
                                 .snap = { ops->snap (n), UCB_RL_HARD },
                                 .own = UCB_RL_HARD };
  return (struct ucb_rlplace){ .depth = 0, .own = ops->soft (n) };
}

struct ucb_vexpect
ucb_vcell_bound (const struct ucb_rlops *ops, enum ucb_vlevel level, long n)
{
  return level == UCB_VLEVEL_OWN ? ucb_vexpect (n, n) : ucb_vsnap_bound (ops, n);
}

int
ucb_vcell_observer (const struct ucb_rlops *ops, struct ucb_probe *obs, uid_t uid, ucb_error_t *err)
{
  if (ops->rl != UCB_RL_SIGPENDING)
    return 0;
  return ucb_vobserver (obs, uid, err);
}

long
ucb_vcell_sigq (const struct ucb_probe *obs)
{
  return obs->pid > 0 ? ucb_vsigq (obs->pid) : -1;
}

/* ---- which kernel: told apart before the cell, on its own ---- */

bool
ucb_vcell_tells_kernels (const struct ucb_rlops *ops, enum ucb_vlevel level, enum ucb_vprop prop)
{
  if (ops->snap_intended (CELL_N) == CELL_N)
    return false; /* no known bug in the way: intended and stock counts agree */
  if (prop == UCB_VPROP_P4)
    return level != UCB_VLEVEL_PARENT; /* there the finite bound beside it is the own limit */
  return level != UCB_VLEVEL_OWN;      /* the own level has no snapshot bound */
}

int
ucb_vcell_which_kernel (struct ucb_vctx *ctx, const struct ucb_rlops *ops, ucb_error_t *err)
{
  /* Uid + 99, not the cell's: its counters stay untouched.  A finite own limit above the
   * snapshot: a bug of RLIM_INFINITY (P4) does not reach this count. */
  struct ucb_rlplace pl
      = { .depth = 1, .snap = { ops->snap (CELL_N) }, .own = ops->soft (CELL_N + CELL_X) };
  struct ucb_rlagent a = UCB_RLAGENT_NONE;
  struct ucb_rlans f;

  if (ucb_rlagent_start (&a, ops, "the units probe", ctx->uid_base + 99, &pl, err) < 0)
    return -1;
  ucb_rlagent_fill_all (&a, &f, err);
  if (ucb_rlagent_stop (&a, err) < 0)
    return -1;
  ucb_vcell_check_fill (ctx->res, "units: 1-page locks, 4-byte parent bound",
                        ucb_vagent_room (ops, ucb_vsnap_bound (ops, CELL_N)), &f);
  return 0;
}

/* ---- P1: exactly the bound, then the refusal's errno ---- */

int
ucb_vcell_p1 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct ucb_rlplace pl = ucb_vcell_place (ops, level, CELL_N);
  struct ucb_vexpect b = ucb_vagent_room (ops, ucb_vcell_bound (ops, level, CELL_N));
  struct ucb_rlagent a = UCB_RLAGENT_NONE;
  struct ucb_rlans f, again;
  char name[UCB_VNAME_MAX];

  if (ucb_rlagent_start (&a, ops, "the agent", ctx->uid_base, &pl, err) < 0)
    return -1;
  ucb_rlagent_fill_all (&a, &f, err);
  ucb_rlagent_release (&a, -1, &again, err);
  ucb_rlagent_fill_all (&a, &again, err);
  if (ucb_rlagent_stop (&a, err) < 0)
    return -1;
  snprintf (name, sizeof name, "admitted at the %s bound", ucb_vlevel_name (level));
  ucb_vcell_check_fill (ctx->res, name, b, &f);
  ucb_vobserve (ctx->res, "errno of the refusal", UCB_VITEM_ERRNO, ops->refusal, f.errnum);
  ucb_vcell_check_refill (ctx->res, "admitted again after the release", b, &again);
  return 0;
}

/* ---- P2: a refusal changes nothing ---- */

/* Fill until refused, then K more attempts, all refused; the counters read the same (SigQ of
 * the agent and of the observer, for SIGPENDING); releasing one lets exactly one more in.
 * `full` is what the fill must admit. */
static void
p2_refusals (struct ucb_vctx *ctx, const struct ucb_rlops *ops, struct ucb_rlagent *a,
             const struct ucb_probe *obs, struct ucb_vexpect full, ucb_error_t *err)
{
  struct ucb_rlans f, t, rel, one;
  long seen;

  ucb_rlagent_fill_all (a, &f, err);
  ucb_rlagent_try (a, CELL_K, ops->refusal, &t, err);
  seen = ucb_vcell_sigq (obs);
  ucb_rlagent_release (a, 1, &rel, err);
  ucb_rlagent_fill_all (a, &one, err);
  if (*err)
    return;
  ucb_vcell_check_fill (ctx->res, "admitted before the refusal", full, &f);
  ucb_vobserve (ctx->res, "errno of the refusal", UCB_VITEM_ERRNO, ops->refusal, f.errnum);
  ucb_vobserve_count (ctx->res, "admitted of 8 attempts after the refusal", UCB_VITEM_ADMITTED, 0,
                      t.count, CELL_K);
  ucb_vobserve (ctx->res, "of 8 attempts refused with the errno", UCB_VITEM_REFUSED, CELL_K,
                t.refused);
  if (obs->pid > 0)
    {
      ucb_vcell_check (ctx->res, "SigQ of the agent after the refusals", UCB_VITEM_COUNTER, full,
                       t.sigq);
      ucb_vcell_check (ctx->res, "observer SigQ after the refusals", UCB_VITEM_COUNTER, full, seen);
    }
  if (t.sigq_n1 >= 0)
    ucb_vcell_check (ctx->res, "level-1 SigQ after the refusals", UCB_VITEM_COUNTER, full,
                     t.sigq_n1);
  ucb_vcell_check_refill (ctx->res, "admitted after releasing one",
                          ucb_vexpect (full.want > 0, full.bug > 0), &one);
}

/* Everything released: a fill with the own limit set to `soft` must admit `e` (the count of
 * a level seen through its bound). */
static void
p2_next_bound (struct ucb_vctx *ctx, struct ucb_rlagent *a, const char *name, rlim_t soft,
               struct ucb_vexpect e, ucb_error_t *err)
{
  struct ucb_rlans rel, f;

  ucb_rlagent_release (a, -1, &rel, err);
  ucb_rlagent_soft (a, soft, &rel, err);
  ucb_rlagent_fill_all (a, &f, err);
  ucb_rlagent_release (a, -1, &rel, err);
  if (!*err)
    ucb_vcell_check_refill (ctx->res, name, e, &f);
}

/* The own level: refused at own soft N; the level above, made with N + X, is then seen by
 * raising the own limit.  MEMLOCK stays at depth 0: on stock kernels a parent bound in pages
 * that the own limit does not hide cannot be made (the snapshot is compared as pages,
 * ULIM-19). */
static void
p2_own (struct ucb_vctx *ctx, const struct ucb_rlops *ops, struct ucb_rlagent *a,
        const struct ucb_probe *obs, ucb_error_t *err)
{
  bool above = ops->rl != UCB_RL_MEMLOCK;
  struct ucb_rlplace pl
      = { .depth = above, .snap = { ops->snap (CELL_N + CELL_X) }, .own = ops->soft (CELL_N) };

  if (ucb_rlagent_start (a, ops, "the agent", ctx->uid_base, &pl, err) < 0)
    return;
  p2_refusals (ctx, ops, a, obs, ucb_vagent_room (ops, ucb_vexpect (CELL_N, CELL_N)), err);
  if (above)
    p2_next_bound (ctx, a, "level 1 after: admitted with own raised", UCB_RL_HARD,
                   ucb_vagent_room (ops, ucb_vsnap_bound (ops, CELL_N + CELL_X)), err);
}

/* The parent level: depth 2, N2 made with N (level 1 binds), N1 with N + X.  Level 2's
 * count is then seen by a sibling at depth 1 (its level 1 is the same object), level 0's by
 * an own limit M < N. */
static void
p2_parent (struct ucb_vctx *ctx, const struct ucb_rlops *ops, struct ucb_rlagent *a,
           const struct ucb_probe *obs, ucb_error_t *err)
{
  struct ucb_rlplace pl = { .depth = 2,
                            .snap = { ops->snap (CELL_N + CELL_X), ops->snap (CELL_N) },
                            .own = UCB_RL_HARD };
  struct ucb_rlplace sib
      = { .depth = 1, .snap = { ops->snap (CELL_N + CELL_X) }, .own = UCB_RL_HARD };
  struct ucb_vexpect top = ucb_vsnap_bound (ops, CELL_N + CELL_X);
  struct ucb_vexpect tight = ucb_vexpect_min (ucb_vsnap_bound (ops, CELL_N), top);
  struct ucb_vexpect full = ucb_vagent_room (ops, tight);
  struct ucb_rlagent b = UCB_RLAGENT_NONE;
  struct ucb_rlans f;

  if (ucb_rlagent_start (a, ops, "the agent", ctx->uid_base, &pl, err) < 0)
    return;
  p2_refusals (ctx, ops, a, obs, full, err);
  if (*err || ucb_rlagent_start (&b, ops, "the sibling", ctx->uid_base, &sib, err) < 0)
    return;
  ucb_rlagent_fill_all (&b, &f, err);
  if (ucb_rlagent_stop (&b, err) < 0)
    return;
  /* The agent holds `full` again (one released, one more admitted); both are tasks (NPROC). */
  ucb_vcell_check_refill (ctx->res, "level 2 after: admitted to a sibling",
                          ucb_vexpect_sub (top, full, -2 * ops->self), &f);
  p2_next_bound (ctx, a, "level 0 after: admitted at own M", ops->soft (CELL_M),
                 ucb_vagent_room (ops, ucb_vexpect_min (ucb_vexpect (CELL_M, CELL_M), tight)), err);
}

/* The grandparent level: depth 2, N1 made with N (level 2 binds), N2 with the hard limit.
 * Level 0's count is seen by an own limit M < N; level 1's (N1, 0) has no observer but a task
 * of N1 (none here). */
static void
p2_grandparent (struct ucb_vctx *ctx, const struct ucb_rlops *ops, struct ucb_rlagent *a,
                const struct ucb_probe *obs, ucb_error_t *err)
{
  struct ucb_rlplace pl = ucb_vcell_place (ops, UCB_VLEVEL_GRANDPARENT, CELL_N);
  struct ucb_vexpect tight = ucb_vsnap_bound (ops, CELL_N);

  if (ucb_rlagent_start (a, ops, "the agent", ctx->uid_base, &pl, err) < 0)
    return;
  p2_refusals (ctx, ops, a, obs, ucb_vagent_room (ops, tight), err);
  p2_next_bound (ctx, a, "level 0 after: admitted at own M", ops->soft (CELL_M),
                 ucb_vagent_room (ops, ucb_vexpect_min (ucb_vexpect (CELL_M, CELL_M), tight)), err);
}

int
ucb_vcell_p2 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct ucb_probe obs = UCB_PROBE_NONE;
  struct ucb_rlagent a = UCB_RLAGENT_NONE;

  if (ucb_vcell_observer (ops, &obs, ctx->uid_base, err) < 0)
    return -1;
  if (level == UCB_VLEVEL_OWN)
    p2_own (ctx, ops, &a, &obs, err);
  else if (level == UCB_VLEVEL_PARENT)
    p2_parent (ctx, ops, &a, &obs, err);
  else
    p2_grandparent (ctx, ops, &a, &obs, err);
  ucb_rlagent_stop (&a, err);
  if (!*err && obs.pid > 0)
    ucb_vobserve (ctx->res, "observer SigQ after the release", UCB_VITEM_COUNTER, 0,
                  ucb_vcell_sigq (&obs));
  ucb_probe_kill (&obs);
  return *err ? -1 : 0;
}

/* ---- P3: release restores ---- */

/* R rounds of {fill, release everything}: the fewest and the most admitted (each a count of
 * its round's tries), and how many rounds ended with the refusal's errno.  A round that
 * reaches the cap ends them: the kernel over-admits, and every further round to the cap would
 * only spend time that an emulated kernel does not have. */
static void
p3_rounds (struct ucb_vctx *ctx, struct ucb_rlagent *a, struct ucb_vexpect full, ucb_error_t *err)
{
  struct ucb_rlans lo = { .count = -1 }, hi = { .count = -1 };
  long refused = 0;

  for (int i = 0; i < CELL_R && !*err; i++)
    {
      struct ucb_rlans f, rel;

      ucb_rlagent_fill_all (a, &f, err);
      ucb_rlagent_release (a, -1, &rel, err);
      lo = lo.count < 0 || f.count < lo.count ? f : lo;
      hi = f.count > hi.count ? f : hi;
      refused += f.errnum == a->ops->refusal;
      if (f.errnum == 0)
        break;
    }
  if (*err)
    return;
  /* The most first: short in every round, the bound is (early denial); short in some, a
   * release did not return what was charged (a leak). */
  ucb_vcell_check_fill (ctx->res, "most admitted in 8 fill/release rounds", full, &hi);
  ucb_vcell_check_refill (ctx->res, "fewest admitted in 8 fill/release rounds", full, &lo);
  ucb_vobserve (ctx->res, "rounds ended by the refusal", UCB_VITEM_REFUSED, CELL_R, refused);
}

int
ucb_vcell_p3 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct ucb_rlplace pl = ucb_vcell_place (ops, level, CELL_N);
  struct ucb_vexpect full = ucb_vagent_room (ops, ucb_vcell_bound (ops, level, CELL_N));
  struct ucb_probe obs = UCB_PROBE_NONE;
  struct ucb_rlagent a = UCB_RLAGENT_NONE, again = UCB_RLAGENT_NONE;
  struct ucb_rlans held = { 0 }, f; /* held: read once every step succeeded; zeroed anyway */
  long sigq_held = -1, sigq_gone = -1;

  if (ucb_vcell_observer (ops, &obs, ctx->uid_base, err) < 0)
    return -1;
  /* Each count is recorded as soon as it is seen: a case stopped by its time limit is judged
   * on what it recorded (verify.c). */
  if (ucb_rlagent_start (&a, ops, "the holder", ctx->uid_base, &pl, err) == 0)
    {
      p3_rounds (ctx, &a, full, err);
      if (ucb_rlagent_fill_all (&a, &held, err) == 0)
        ucb_vcell_check_refill (ctx->res, "admitted to the holder before its exit", full, &held);
      sigq_held = ucb_vcell_sigq (&obs);
      /* The holder ends holding everything: its exit must release it at every level. */
      if (ucb_rlagent_exit_holding (&a, err) == 0)
        sigq_gone = ucb_vcell_sigq (&obs);
    }
  if (!*err && ucb_rlagent_start (&again, ops, "the next agent", ctx->uid_base, &pl, err) == 0
      && ucb_rlagent_fill_all (&again, &f, err) == 0)
    {
      ucb_vcell_check_refill (ctx->res, "admitted after the holder's exit", full, &f);
      ucb_vobserve (ctx->res, "errno after the holder's exit", UCB_VITEM_ERRNO, ops->refusal,
                    f.errnum);
    }
  ucb_rlagent_stop (&again, err);
  ucb_rlagent_stop (&a, err);
  ucb_probe_kill (&obs);
  if (*err)
    return -1;
  if (obs.pid > 0 || sigq_held >= 0)
    {
      ucb_vcell_check (ctx->res, "observer SigQ while the holder holds", UCB_VITEM_COUNTER, full,
                       sigq_held);
      ucb_vobserve (ctx->res, "observer SigQ after the holder's exit", UCB_VITEM_COUNTER, 0,
                    sigq_gone);
    }
  if (held.sigq_n1 >= 0)
    ucb_vcell_check (ctx->res, "level-1 SigQ while the holder holds", UCB_VITEM_COUNTER, full,
                     held.sigq_n1);
  return 0;
}
