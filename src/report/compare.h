/* compare.h - `ucbench compare`: two result documents point by point. */
#ifndef UCB_COMPARE_H
#define UCB_COMPARE_H

#include <stdbool.h>

#include "core/error.h"

#define UCB_COMPARE_ALPHA 0.05
#define UCB_COMPARE_MIN_SAMPLES 3

/* Load both documents, compare and print the result on stdout (a table, or JSON when `json`).
 * Returns 0 without a regression, UCB_EXIT_FAILURE with a significant regression or a verify
 * case that newly fails, < 0 with `err` set (bad input: a usage error). */
int ucb_compare (const char *base_path, const char *head_path, double threshold_pct, bool json,
                 ucb_error_t *err) __attribute__ ((warn_unused_result));

#endif
