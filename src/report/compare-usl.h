/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-usl.h - compare's scalability section: the USL fit of each series on each side
 * (report/usl-doc.h) and how sigma, kappa and the scale at the largest common N changed. */
#ifndef UCB_COMPARE_USL_H
#define UCB_COMPARE_USL_H

#include <stddef.h>

#include <jansson.h>

#include "report/model.h"

/* The `scalability` array of compare's JSON (docs/json.md): one entry per series that both
 * sides have, fitted on each side over all its documents. */
json_t *ucb_compare_usl (const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
                         size_t n_head);
/* Its `# scalability` lines for the text, for the series fitted on both sides (none when no
 * series is). */
void ucb_compare_usl_print (json_t *scalability);

#endif
