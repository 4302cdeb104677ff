/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contrast.h - the owner contrast (docs/statistics.md, "The owner contrast"): for every sweep
 * point measured with both `shared` and `distinct` owners (same workload, containers, depth,
 * tasks, mode), the ratio shared/distinct of per-container ops/s with a 95 % interval over the
 * repeats, and a verdict: compare's estimator and rules (report/compare-stats.h) with the two
 * owner modes of one document as base (distinct) and head (shared), Holm's adjustment over the
 * document's pairs, contended repeats left out. */
#ifndef UCB_CONTRAST_H
#define UCB_CONTRAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report/compare-stats.h"
#include "report/model.h"

/* A penalty is a shared owner costing more than this fraction of per-container ops/s. */
#define UCB_CONTRAST_THRESHOLD 0.05

/* One owner mode of one pair: the logs of its usable repeats' values (the unit: a repeat). */
struct ucb_contrast_side
{
  const double *ops, *cpu; /* log per-container ops/s; log CPU ns/op where known */
  size_t n_ops, n_cpu;
};

/* One pair, shared against distinct, is a test of compare's family (struct ucb_cmp_test):
 * `contended`: a repeat was left out for contention; `from_contended`: too few were left for
 * an interval, so the estimates are of every repeat and decide nothing. */

/* The estimate of a pair from the sides with contended repeats left out (`shared`,
 * `distinct`) and, used only when those give no interval and `contended`, from every repeat
 * (`shared_all`, `distinct_all`; may be NULL when nothing was left out).  No drift term: both
 * modes ran in one invocation, their repeats interleaved, so what drifts hits both. */
void ucb_contrast_estimate (const struct ucb_contrast_side *shared,
                            const struct ucb_contrast_side *distinct,
                            const struct ucb_contrast_side *shared_all,
                            const struct ucb_contrast_side *distinct_all, bool contended,
                            struct ucb_cmp_test *p);

/* The verdicts of `n` pairs as one family: Holm over their p_beyond and p_inside (pairs without
 * an interval, or from contended repeats, take no part), then compare's rules (ops/s decides,
 * CPU ns/op must confirm).  Each output array has n entries; `needed` (may be NULL): for an
 * inconclusive pair, the repeats a side that would likely settle it, else 0. */
void ucb_contrast_verdicts (const struct ucb_cmp_test *p, size_t n, double *adj_beyond,
                            double *adj_inside, enum ucb_cmp_verdict *v, size_t *needed);

/* compare's verdict in the words of the contrast: "penalty" (shared slower beyond the
 * threshold), "shared faster", "none" (within it), "inconclusive", "inconclusive (1 repeat)",
 * "inconclusive (contended)", "inconclusive (metrics disagree)". */
const char *ucb_contrast_verdict_name (enum ucb_cmp_verdict v);

/* The document's owner_contrast[] (docs/json.md): one entry per pair, in the order of their
 * first repeat; NULL when `d` has no point measured with both owners. */
json_t *ucb_contrast_json (const struct ucb_doc *d);
/* The flags of an owner_contrast entry's sides, "shared: contended; distinct: starved" (items
 * of a side joined by `sep`), "" when neither side's repeats are flagged. */
void ucb_contrast_flags (const json_t *x, const char *sep, char *buf, size_t n);
/* The same for the results[] array `run` has just built (NULL as well when it has no pair):
 * the call that puts `owner_contrast` into a run's document. */
json_t *ucb_report_owner_contrast (json_t *results);

/* The text after run's table: a line per pair of `rows` (an owner_contrast[] array), what was
 * left out in words after its verdict, then its legend: two lines, or with `full_legend` every
 * column and verdict; nothing when `rows` is NULL or empty. */
void ucb_contrast_text (FILE *f, const json_t *rows, bool full_legend);

/* The repeats a side that `-r` suggests for a pair that had one: the case the contrast's false
 * penalty rate and power were measured at (docs/statistics.md, 5 v 5 repeats). */
#define UCB_CONTRAST_HINT_REPEATS 5
/* The line that ends a run whose contrast reached no verdict for lack of repeats: pairs with a
 * side of fewer than 2 repeats (contended ones too: more repeats, not a quieter host, is what
 * they lack first), and inconclusive ones whose `needed` says how many would likely settle
 * them; "... rerun with -r N (--repeat N)", N the most of those.  NULL when no pair lacked
 * repeats (free it). */
char *ucb_contrast_repeat_hint (const json_t *rows);

#endif
