/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-text.h - `ucbench compare`'s text table, from its JSON result. */
#ifndef UCB_COMPARE_TEXT_H
#define UCB_COMPARE_TEXT_H

#include <stddef.h>

#include <jansson.h>

#include "report/model.h"

/* Print `out` (what compare.c built: warnings, method, points, only_in, verify, counts) on
 * stdout as the text table, the documents of each side named first. */
void ucb_compare_print_text (json_t *out, const struct ucb_doc *base, size_t n_base,
                             const struct ucb_doc *head, size_t n_head);

#endif
