/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-file.h - reading a ucbench-result document back from a file (compare, export, plot). */
#ifndef UCB_DOC_FILE_H
#define UCB_DOC_FILE_H

#include <jansson.h>

#include "core/error.h"
#include "report/model.h"

/* Read `path` (a regular file, a pipe, a FIFO or a character device) and check it is a
 * ucbench-result/1 document (an object with the right schema string).  Every problem is a usage
 * error (exit 2) naming the file: not found, over 512 MiB (a pipe's bytes counted as they come),
 * a FIFO no process opened for writing in 10 s, not JSON (with line and column), not a ucbench
 * document, a newer schema major. */
int ucb_doc_read (const char *path, json_t **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The whole of `path` as bytes (a NUL after them, in *text to free; *len without it), with the
 * inputs, the cap and the errors of ucb_doc_read(): for a reader that decides by the content
 * what the file is (`ucbench model` takes a document or a table, report/model/table.c). */
int ucb_doc_read_text (const char *path, char **text, size_t *len, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* ucb_doc_read()'s checks of bytes already read: JSON, a ucbench-result/1 document. */
int ucb_doc_parse (const char *path, const char *text, size_t len, json_t **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* ucb_doc_read(), then ucb_doc_load() into `d` (schema errors name the file and the field; a
 * document of a kind not in `kinds`, enum ucb_doc_kind, is one too); ucb_doc_free() it after
 * success. */
int ucb_doc_open (const char *path, unsigned kinds, struct ucb_doc *d, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
