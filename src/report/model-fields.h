/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model-fields.h - the typed field readers of the document loader (model.c, model-validate.c):
 * every field a reader uses is read through them, so a field of the wrong type is a schema
 * error naming the file and the field's path, never a silent default. */
#ifndef UCB_MODEL_FIELDS_H
#define UCB_MODEL_FIELDS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/error.h"
#include "report/model.h"

/* Where the loader is in the document, for messages: "results[3].per_container[1]" ("" at the
 * top level). */
struct ucb_loc
{
  const char *name;
  char at[160];
};

/* A usage error: "`FILE`: AT: what". */
int ucb_schema_error (const struct ucb_loc *l, ucb_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Append ".key" or "[i]" to l->at; returns the old length, for ucb_loc_pop(). */
size_t ucb_loc_push (struct ucb_loc *l, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
void ucb_loc_pop (struct ucb_loc *l, size_t at);

/* The JSON types the schema gives the fields the readers use. */
enum ucb_jtype
{
  UCB_J_STRING,
  UCB_J_STRING_OR_NULL,
  UCB_J_INTEGER,
  UCB_J_INTEGER_OR_NULL,
  UCB_J_NUMBER,
  UCB_J_NUMBER_OR_NULL,
  UCB_J_BOOLEAN,
  UCB_J_ARRAY,
  UCB_J_OBJECT,
};

/* `key` of object `o` of type `t`: required, or when `optional` absent (then *out NULL). */
int ucb_field (const struct ucb_loc *l, json_t *o, const char *key, enum ucb_jtype t, bool optional,
               json_t **out, ucb_error_t *err);

/* One member of an object that a loader reads (ucb_fields): `key`, of type `type`, required
 * unless `optional`, into the member at `offset` of the structure being filled, as its type
 * reads in C: a string (const char *; NULL for null), an integer (long long; `dflt` for null), a
 * number (double; NaN for null), true or false (bool), an array or an object (json_t *,
 * borrowed; when `raw`, any type is).  An object with `sub` has its own rows, read into the same
 * structure after the other rows. */
struct ucb_field_row
{
  const char *key; /* NULL ends a table */
  enum ucb_jtype type;
  bool optional;
  size_t offset;
  bool raw;
  long long dflt;
  const struct ucb_field_row *sub;
};

/* The C type a row of `type` stores (1 string, 2 integer, 3 number, 4 boolean, 5 JSON value),
 * and the one member `m` of T has (a JSON value fits any row: .raw). */
#define UCB_ROW_CTYPE(type)                                                                        \
  ((type) <= UCB_J_STRING_OR_NULL    ? 1                                                           \
   : (type) <= UCB_J_INTEGER_OR_NULL ? 2                                                           \
   : (type) <= UCB_J_NUMBER_OR_NULL  ? 3                                                           \
   : (type) == UCB_J_BOOLEAN         ? 4                                                           \
                                     : 5)
#define UCB_MEMBER_CTYPE(T, m)                                                                     \
  _Generic(((T *) 0)->m, const char * : 1, long long : 2, double : 3, bool : 4, json_t * : 5,      \
           default : 0)

/* The row of member `m` of structure `T`; `...`: .raw or .dflt where one is needed.  A member
 * whose C type is not the row's fails to compile: the loader stores through the offset. */
#define UCB_ROW(T, m, key, type, optional, ...)                                                    \
  {                                                                                                \
    key, type, optional,                                                                           \
        offsetof (T, m)                                                                            \
            + 0 * sizeof (struct {                                                                 \
                int ucb_row_;                                                                      \
                _Static_assert(UCB_MEMBER_CTYPE (T, m) == UCB_ROW_CTYPE (type)                     \
                                   || UCB_MEMBER_CTYPE (T, m) == 5,                                \
                               "ucb_fields row: the member's C type is not the row's");            \
              }),                                                                                  \
        __VA_ARGS__                                                                                \
  }
/* The same, its key the member's name. */
#define UCB_REQ(T, m, type, ...) UCB_ROW (T, m, #m, type, false, __VA_ARGS__)
#define UCB_OPT(T, m, type, ...) UCB_ROW (T, m, #m, type, true, __VA_ARGS__)

/* The rows of object `o` (member `at` of the object at l, l then at it; NULL: l itself), in
 * order, then each object with `sub`; the first broken one a schema error.  `o` NULL (an
 * optional object absent): every member reads as absent. */
int ucb_fields (struct ucb_loc *l, const char *at, json_t *o, const struct ucb_field_row *rows,
                void *out, ucb_error_t *err);

/* The schema's range of a number (`v`, NaN for null: always in range): below `lo` (or at it when
 * `lo_open`, the schema's exclusiveMinimum) or above `hi` is a schema error naming the field,
 * "`a.json`: results[0]: \"containers\" is -4, out of range (at least 1)". */
int ucb_range (const struct ucb_loc *l, const char *key, double v, double lo, bool lo_open,
               double hi, ucb_error_t *err);
/* A string of an enum that is none of `words` (NULL-terminated): a schema error naming the
 * field and the words. */
int ucb_enum (const struct ucb_loc *l, const char *key, const char *v, const char *const *words,
              ucb_error_t *err);

/* The schema's minLength and maxLength (-1: none) of a string, in characters: a schema error
 * naming the field, the value (its first 60 bytes) and the rule. */
int ucb_length (const struct ucb_loc *l, const char *key, const char *v, long min, long max,
                ucb_error_t *err);
/* The schema's pattern of a string (of a member's name when `name`, its propertyNames): a
 * schema error naming the field, the value and the pattern. */
int ucb_pattern (const struct ucb_loc *l, const char *key, const char *v, const char *pattern,
                 bool name, ucb_error_t *err);

/* model-ranges.c: every range, enum, pattern and length of docs/ucbench-result.schema.json,
 * checked over the whole document `doc` (named `name`) before the loader reads it, whether or
 * not a reader uses the field: a document the schema rejects for one is refused by every reader
 * alike. */
int ucb_doc_check_ranges (json_t *doc, const char *name, ucb_error_t *err);

/* model-validate.c: the top level of d->json (results[], verify[], their kind against `kinds`,
 * host, config, run, kernel_matrix); a results[] entry's contention and placement. */
int ucb_doc_load_top (struct ucb_doc *d, unsigned kinds, json_t **results, json_t **verify,
                      ucb_error_t *err);
/* "`ucbench run`" or "`ucbench verify`", for messages. */
const char *ucb_doc_kind_name (enum ucb_doc_kind k);
int ucb_doc_load_contention (struct ucb_loc *l, json_t *r, struct ucb_doc_contention *out,
                             ucb_error_t *err);
int ucb_doc_load_placement (struct ucb_loc *l, json_t *r, struct ucb_doc_point *p,
                            ucb_error_t *err);
int ucb_doc_load_canary (struct ucb_loc *l, json_t *r, struct ucb_doc_canary *out,
                         ucb_error_t *err);

#endif
