/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-text.h - `ucbench compare`'s text table, from its JSON result. */
#ifndef UCB_COMPARE_TEXT_H
#define UCB_COMPARE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report/model.h"

/* Print `out` (what compare.c built: warnings, method, points, only_in, verify, counts) on
 * stdout as the text table: at most three lines before it (the documents, what the columns
 * are, what limits the reading), or with `verbose` the method, the legend and every note. */
void ucb_compare_print_text (json_t *out, const struct ucb_doc *base, size_t n_base,
                             const struct ucb_doc *head, size_t n_head, bool verbose);
/* The cells compare's table and the owner contrast share: a ratio object ({ratio, ci_low,
 * ci_high}) as "r [lo, hi]", "r" without an interval, "-" without a ratio, " c" appended when it
 * comes from contended repeats; a side's repeats as "3", or "2-1c" with one contended left out. */
void ucb_cmp_ratio_cell (const json_t *o, bool contended, char *buf, size_t n);
void ucb_cmp_runs_cell (const json_t *side, char *buf, size_t n);

#endif
