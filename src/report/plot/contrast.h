/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contrast.h - the owner contrast in `ucbench plot`: per workload with a pair, a chart of
 * the ratio shared/distinct against the container count (bars: its 95 % interval; dashed: 1),
 * a line per depth/tasks/mode and file; in the HTML report also a table with the verdicts. */
#ifndef UCB_PLOT_CONTRAST_H
#define UCB_PLOT_CONTRAST_H

#include <stdio.h>

#include "report/model.h"

struct ucb_plot_contrast;

struct ucb_plot_contrast *ucb_plot_contrast_new (void);
/* The pairs of document `d` (report/contrast.h); `file` names its lines when there are several
 * documents, NULL when there is one.  Borrows `d` and `file` until freed. */
void ucb_plot_contrast_add (struct ucb_plot_contrast *pc, const struct ucb_doc *d,
                            const char *file);
/* The height of its charts (0 without a pair), and drawing them with their top at `y0`. */
double ucb_plot_contrast_height (struct ucb_plot_contrast *pc);
void ucb_plot_contrast_svg (FILE *f, struct ucb_plot_contrast *pc, double y0);
/* The HTML table: a row per pair; nothing without one. */
void ucb_plot_contrast_html (FILE *f, const struct ucb_plot_contrast *pc);
void ucb_plot_contrast_free (struct ucb_plot_contrast *pc);

#endif
