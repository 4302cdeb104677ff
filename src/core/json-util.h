/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-util.h - jansson constructors that cannot fail silently (allocation failure aborts). */
#ifndef UCB_JSON_UTIL_H
#define UCB_JSON_UTIL_H

#include <stdio.h>

#include <jansson.h>

#include "core/error.h"

/* json_decref() when the variable goes out of scope (steal_pointer() hands it over). */
void ucb_json_decrefp (json_t **v);
#define cleanup_json __attribute__ ((cleanup (ucb_json_decrefp)))

/* `v`, or abort: the only way a jansson constructor fails is lack of memory. */
json_t *ucb_json_checked (json_t *v);
/* Store `v` under `k`; NULL (no answer) becomes null. */
void ucb_json_set (json_t *o, const char *k, json_t *v);
void ucb_json_push (json_t *a, json_t *v);
json_t *ucb_json_obj (void);
json_t *ucb_json_arr (void);
json_t *ucb_json_int (long long v);
/* NULL, and strings jansson refuses (invalid UTF-8), become null. */
json_t *ucb_json_str (const char *s);
/* A formatted string (printf).  What it says must survive a file name or argument that is not
 * UTF-8 (jansson refuses those): then the whole text is written as ucb_escape_controls writes
 * it (\xHH for such bytes), never null. */
json_t *ucb_json_fmt (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
json_t *ucb_json_int_array (const int *v, size_t n);
/* A real, or null for NaN/inf (JSON has no NaN). */
json_t *ucb_json_real (double v);
/* The number o[key], NaN when absent, null or not a number (what ucb_json_real wrote back). */
double ucb_json_num (const json_t *o, const char *key);

/* Write `doc` with the house format (2-space indent, sorted keys, 10 significant digits) and a
 * newline, and flush. */
int ucb_json_write (const json_t *doc, FILE *f, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
