/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-file.h - reading a ucbench-result document back from a file (compare, export, plot). */
#ifndef UCB_DOC_FILE_H
#define UCB_DOC_FILE_H

#include <jansson.h>

#include "core/error.h"
#include "report/model.h"

/* Read `path` and check it is a ucbench-result/1 document (an object with the right schema
 * string).  Every problem is a usage error (exit 2) naming the file: not found, too large, not
 * JSON (with line and column), not a ucbench document, a newer schema major. */
int ucb_doc_read (const char *path, json_t **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* ucb_doc_read(), then ucb_doc_load() into `d` (schema errors name the file and the field; a
 * document of a kind not in `kinds`, enum ucb_doc_kind, is one too); ucb_doc_free() it after
 * success. */
int ucb_doc_open (const char *path, unsigned kinds, struct ucb_doc *d, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
