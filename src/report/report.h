/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the result document (jansson) and the text table drawn from it. */
#ifndef UCB_REPORT_H
#define UCB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/error.h"
#include "report/output.h" /* where a document goes: --output */
#include "report/schema.h"

/* The whole document; steals references to host, config and results. */
json_t *ucb_report_document (int argc, char **argv, double start_realtime, double duration_s,
                             json_t *host, json_t *config, json_t *results);
/* l3.c: rows of the scaling-by-L3-domain table (--pin l3), from results[].placement. */
json_t *ucb_report_l3_table (json_t *results);
void ucb_report_l3_text (FILE *f, json_t *rows);

/* The human table: one row per results[] entry, then its legend: two lines (the cpu/fair
 * column, the marks, why each flag in the rows), or with `full_legend` every column's key. */
void ucb_report_text (FILE *f, const json_t *doc, bool full_legend);
/* The last lines of a run (`run` prints them on stderr unless --quiet): where the document
 * went (`output`, NULL: none kept, or on stdout when `doc_on_stdout`) and the next step
 * (ucbench plot, its command line ready to paste), then, when the owner contrast lacked
 * repeats for its verdicts, the -r that gives them (ucb_contrast_repeat_hint). */
void ucb_report_next_steps (FILE *f, const char *output, bool doc_on_stdout, const json_t *doc);
/* The warning of a run whose window was too short: how many measured points had starved
 * containers (contention.starved) and the window that would give every task its turns; NULL
 * when none did. */
char *ucb_report_starved_note (json_t *results);
/* The one warning of a run on a busy host: how many measured points were contended, the median
 * CPU share of their tasks, the highest steal and lowest idle, and what to do; NULL when none
 * was (or the results carry no contention). */
char *ucb_report_contention_note (json_t *results);

#endif
