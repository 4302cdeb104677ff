/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h - `ucbench compare`: result documents point by point, one or several a side. */
#ifndef UCB_COMPARE_H
#define UCB_COMPARE_H

#include <stdbool.h>

#include "core/error.h"

#include <stddef.h>

/* The between-invocation CV assumed with one document a side, in percent (docs/statistics.md:
 * measured on this project's VM). */
#define UCB_COMPARE_DRIFT_PCT 3.0

/* --normalize: what the ratios are of (docs/statistics.md, "host-speed canary"). */
enum ucb_normalize
{
  UCB_NORMALIZE_NONE,   /* per-container ops/s as measured */
  UCB_NORMALIZE_CANARY, /* each repeat's ops/s / its results[].canary rate */
};

/* The documents of each side (at least one each), the threshold in percent, the format. */
struct ucb_compare_args
{
  const char *const *base, *const *head;
  size_t n_base, n_head;
  double threshold_pct;
  double drift_pct; /* between-invocation CV assumed with one document a side; 0: none */
  bool json;
  bool verbose; /* text: the method, the legend and every note in full before the table */
  enum ucb_normalize normalize; /* canary: falls back to none, with a warning, when a document
                                   lacks the canary */
};

/* Load the documents, compare and print the result on stdout (a table, or JSON when `json`).
 * Returns 0 without a regression, UCB_EXIT_FAILURE with a regression that holds up over the
 * table or a verify case that newly fails, < 0 with `err` set (bad input: a usage error). */
int ucb_compare (const struct ucb_compare_args *a, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
