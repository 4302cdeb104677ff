/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parts.h - inside the model room: its input and its chart, for model.c (the way in is
 * model.h).  table.c: what `ucbench model` reads, a ucbench-result/1 document or the user's own
 * numbers (a CSV or whitespace table of N, ops/s per container and an optional repeat, or
 * will-it-scale's runtest.py output), told apart by their content; a table becomes a document
 * in memory with one series, so the fit, the table, the JSON and the chart are those of a
 * document (docs/statistics.md, "The scalability model").  plot.c: the chart, per series the
 * measured repeats, the fitted USL curve, its 95 % band and the predictions, as SVG. */
#ifndef UCB_MODEL_PARTS_H
#define UCB_MODEL_PARTS_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "report/model.h"
#include "report/usl-doc.h"

/* Read `path` into `d` (ucb_doc_free() it after success): a run document as ucb_doc_open()
 * loads it, else a table.  Bad input is a usage error naming the file, and for a table the line
 * ("`t.csv`: line 4: ..."). */
int ucb_model_input_open (const char *path, struct ucb_doc *d, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* A standalone SVG of every series of `m` (a refused one with its points and, in the notes
 * under the charts, why), with the predictions at the `n_pred` container counts `pred`;
 * `name` (the document) in the titles. */
void ucb_usl_plot_svg (FILE *f, const struct ucb_usl_model *m, const unsigned *pred, size_t n_pred,
                       const char *name);

#endif
