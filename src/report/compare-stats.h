/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-stats.h - the statistics of `ucbench compare` (docs/statistics.md): per point, the
 * ratio head/base of a metric with a Welch t interval on the log of the per-unit values (the
 * unit: a repeat, or a document when there are several a side), the tests behind the
 * verdicts, and the verdict rules. */
#ifndef UCB_COMPARE_STATS_H
#define UCB_COMPARE_STATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/flags.h"
#include "report/model.h"

#define UCB_COMPARE_ALPHA 0.05
#define UCB_COMPARE_MAX_NEEDED 1000

/* The estimate of one metric at one point. */
struct ucb_cmp_est
{
  bool ok;              /* >= 2 units a side: an interval exists (a ratio: >= 1) */
  size_t nb, nh;        /* units a side */
  double d, se, df;     /* log(head/base): Welch difference, standard error, df */
  double sb, sh;        /* standard deviation of the log unit values a side */
  double drift;         /* the assumed between-invocation SD (log scale) a side, or 0 */
  double ratio, lo, hi; /* exp(d) and its 95 % interval */
  double p_beyond;      /* H0 |d| within the threshold's band, vs. beyond it (two one-sided) */
  double p_inside;      /* H0 d outside the band, vs. inside it (TOST) */
};

/* Estimate from the log unit values of base (`lb`, nb) and head (`lh`, nh); `thr` the threshold
 * as a fraction (0.05); `drift` the between-invocation SD (log scale) that the units cannot
 * show (one document a side), added to each side's variance as a known term (infinite df in
 * Welch-Satterthwaite), or 0.  With fewer than 2 units a side, e->ok is false, the interval and
 * p-values NaN; d and the ratio are still those of the means when each side has a unit. */
void ucb_cmp_estimate (const double *lb, size_t nb, const double *lh, size_t nh, double thr,
                       double drift, struct ucb_cmp_est *e);

enum ucb_cmp_verdict
{
  UCB_CMP_REGRESSION,
  UCB_CMP_IMPROVEMENT,
  UCB_CMP_NO_CHANGE,
  UCB_CMP_INCONCLUSIVE,
  UCB_CMP_ONE_REPEAT, /* fewer than 2 units a side, none contended */
  UCB_CMP_CONTENDED,  /* fewer than 2 units a side once contended repeats are left out */
  UCB_CMP_DISAGREE,   /* ops/s says a change that CPU ns/op does not confirm */
};
const char *ucb_cmp_verdict_name (enum ucb_cmp_verdict v);

/* The verdict of ops/s estimate `ops` (higher is better), given the Holm-adjusted p-values of
 * its family (`adj_beyond`, `adj_inside`) and CPU ns/op estimate `cpu` (lower is better; NULL
 * or !ok when not known): ops/s decides; a regression (improvement) needs CPU ns/op's interval
 * wholly above (below) 1 where it is known.  `contended`: units were left out for contention. */
enum ucb_cmp_verdict ucb_cmp_verdict (const struct ucb_cmp_est *ops, double adj_beyond,
                                      double adj_inside, const struct ucb_cmp_est *cpu,
                                      bool contended);

/* One comparison of a family: its ops/s and CPU ns/op estimates; `contended`: units were left
 * out for contention; `from_contended`: too few were left for an interval, so the estimates
 * shown are of every unit and decide nothing (inconclusive (contended)). */
struct ucb_cmp_test
{
  struct ucb_cmp_est ops, cpu;
  bool contended, from_contended;
};

/* The verdicts of `n` comparisons as one family: Holm over their p_beyond and p_inside (those
 * without an interval, or from contended units, take no part), then ucb_cmp_verdict.  Each
 * output array has n entries; `needed` (may be NULL): for an inconclusive one, the units a side
 * that would likely settle it at threshold `thr` (ucb_cmp_needed at the family's alpha per
 * test), else 0. */
void ucb_cmp_family (const struct ucb_cmp_test *t, size_t n, double thr, double *adj_beyond,
                     double *adj_inside, enum ucb_cmp_verdict *v, size_t *needed);

/* The units a side that would likely settle an inconclusive point: the smallest n (both sides
 * n) whose t interval at level 1 - alpha_point, with the variances seen, would no longer
 * contain the nearer edge of the band [1 - thr, 1 + thr]; 0 when none up to
 * UCB_COMPARE_MAX_NEEDED (the estimate sits on an edge).  With a drift, more repeats cannot
 * shrink it: the units are then documents of as many repeats as now, each of variance
 * drift^2 + s^2 / n. */
size_t ucb_cmp_needed (const struct ucb_cmp_est *e, double thr, double alpha_point);

/* One side of one point, gathered over its documents (compare) or from one (the owner
 * contrast): the log of each usable repeat's value (per-container ops/s; CPU ns/op where
 * known), the mean of those logs per document, and the raw values for the medians; contended
 * repeats left out unless `all`.  `flags`: the ucb_point_flags() of its repeats, each once.
 * `lcan`, `lcan_doc`: the sums of the log canary rates that --normalize canary took out of
 * `ops` (0 without it), per repeat and per document (each the mean of its repeats'). */
struct ucb_cmp_gathered
{
  double *ops, *cpu, *ops_doc, *cpu_doc, *raw_ops, *raw_cpu;
  double lcan, lcan_doc;
  size_t n_ops, n_cpu, n_ops_doc, n_cpu_doc;
  size_t used, left_out;
  bool all;
  struct ucb_flags flags;
};

/* An empty side with room for `cap` repeats. */
void ucb_cmp_gather_init (struct ucb_cmp_gathered *g, size_t cap, bool all);
/* Add the repeats of group `grp` of document `d`; with `canary`, each normalised by its host
 * speed (every repeat must have a canary rate). */
void ucb_cmp_gather_doc (const struct ucb_doc *d, const struct ucb_doc_group *grp, bool canary,
                         struct ucb_cmp_gathered *g);
void ucb_cmp_gathered_free (struct ucb_cmp_gathered *g);

/* The JSON both `compare` and the owner contrast write: a side's medians, spread, repeats used
 * and left out, and its flags (a comma-separated list, as an array); an estimate's ratio and
 * interval ({ratio, ci_low, ci_high}), NULL without a ratio. */
json_t *ucb_cmp_side_json (double med_ops, double med_cpu, double cv, size_t used, size_t left,
                           const char *flags);
json_t *ucb_cmp_ratio_json (const struct ucb_cmp_est *e);

/* The cells compare's table and the owner contrast share: a ratio object ({ratio, ci_low,
 * ci_high}) as "r [lo, hi]", "r" without an interval, "-" without a ratio, " c" appended when it
 * comes from contended repeats; a side's repeats as "3", or "2-1c" with one contended left out. */
void ucb_cmp_ratio_cell (const json_t *o, bool contended, char *buf, size_t n);
/* The same cells from the values: a ratio and its interval ends (not finite: none). */
void ucb_cmp_ratio_text (double r, double lo, double hi, bool contended, char *buf, size_t n);
void ucb_cmp_runs_text (long long used, long long left, char *buf, size_t n);

#endif
