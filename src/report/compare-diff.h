/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-diff.h - what differs between the documents `ucbench compare` reads, besides their
 * points: the host and the run options that change what is measured. */
#ifndef UCB_COMPARE_DIFF_H
#define UCB_COMPARE_DIFF_H

#include <stddef.h>

#include <jansson.h>

#include "report/model.h"

/* The keys of host, config and tool (docs/json.md, compare's `differences`) whose values differ
 * between base and head, or between the documents of one side, as a new array of
 * {key, base, head}: a side's value when its documents agree, else an array of each document's
 * value (null where one does not record the key).  Each difference's sentence, as the text
 * output prints it after `# note: `, is pushed on `notes`.  Volatile keys (start time, argv,
 * hostname, pids, notes) are not compared. */
json_t *ucb_compare_differences (const struct ucb_doc *base, size_t n_base,
                                 const struct ucb_doc *head, size_t n_head, json_t *notes);

#endif
