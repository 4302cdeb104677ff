/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h - `ucbench model`: the scalability model of a result document as a table, as
 * JSON (ucbench-model/1, docs/json.md) and as a chart. */
#ifndef UCB_USL_REPORT_H
#define UCB_USL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct ucb_model_args
{
  const char *input;
  const unsigned *predict; /* container counts to predict at */
  size_t n_predict;
  bool json;
  const char *output; /* the table or JSON to this file (atomically); NULL: stdout */
  const char *plot;   /* the chart to this SVG file; NULL: none */
};

/* Load the document, fit every series, print or write the result.  0 when every series was
 * fitted, UCB_EXIT_FAILURE when one was refused (each says why), < 0 with `err` (bad input:
 * a usage error). */
int ucb_model (const struct ucb_model_args *a, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
