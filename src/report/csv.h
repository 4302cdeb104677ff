/* SPDX-License-Identifier: GPL-2.0-or-later */
/* csv.h - JSON rows as CSV (RFC 4180), for `run --format csv` and `list --format csv`. */
#ifndef UCB_CSV_H
#define UCB_CSV_H

#include <stdio.h>

#include <jansson.h>

/* One row per object of the array `rows`, after a header row: the objects' keys, nested
 * objects flattened with dots (`summary.cv`), in the order first met; a value absent from a
 * row, or null, is an empty cell; an array of scalars is one cell, its items separated by
 * spaces; arrays of objects are left out.  Lines end in CRLF. */
void ucb_csv_write_rows (FILE *f, const json_t *rows);
/* `run --format csv`: the rows of the document's results[] as ucb_csv_write_rows() writes
 * them; where a row's point is in owner_contrast[] (its owner `shared` or `distinct`), it also
 * has the pair's owner_contrast.ratio, .ci_low, .ci_high and .verdict (the same on both modes'
 * rows; empty on the others). */
void ucb_csv_write_run (FILE *f, const json_t *doc);

#endif
