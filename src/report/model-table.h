/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model-table.h - what `ucbench model` reads: a ucbench-result/1 document, or the user's own
 * numbers (a CSV or whitespace table of N, ops/s per container and an optional repeat, or
 * will-it-scale's runtest.py output), told apart by their content.  A table becomes a document
 * in memory with one series, so the fit, the table, the JSON and the chart are those of a
 * document (docs/statistics.md, "The scalability model"). */
#ifndef UCB_MODEL_TABLE_H
#define UCB_MODEL_TABLE_H

#include <stddef.h>

#include "core/error.h"
#include "report/model.h"

/* The owner of a table's one series: a table says no owner, depth or mode, and its series is
 * named by its form alone ("table", "will-it-scale"). */
#define UCB_TABLE_OWNER "-"

/* Read `path` into `d` (ucb_doc_free() it after success): a run document as ucb_doc_open()
 * loads it, else a table.  Bad input is a usage error naming the file, and for a table the line
 * ("`t.csv`: line 4: ..."). */
int ucb_model_input_open (const char *path, struct ucb_doc *d, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
