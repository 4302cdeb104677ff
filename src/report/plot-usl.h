/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot-usl.h - the chart of the scalability model (`ucbench model --plot`): per series the
 * measured repeats, the fitted USL curve, its 95 % band and the predictions, as SVG. */
#ifndef UCB_PLOT_USL_H
#define UCB_PLOT_USL_H

#include <stddef.h>
#include <stdio.h>

#include "report/usl-doc.h"

/* A standalone SVG of every series of `m` (a refused one with its points and, in the notes
 * under the charts, why), with the predictions at the `n_pred` container counts `pred`;
 * `name` (the document) in the titles. */
void ucb_usl_plot_svg (FILE *f, const struct ucb_usl_model *m, const unsigned *pred, size_t n_pred,
                       const char *name);

#endif
