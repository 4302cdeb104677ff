/* SPDX-License-Identifier: GPL-2.0-or-later */
/* csv.c - a JSON array of objects as CSV (RFC 4180): one row per object, the headers its keys.
 *
 * Nested objects are flattened with dots (`summary.cv`, `contention.contended`), so a header
 * is the path of its value in the document; the headers are the union over the rows, in the
 * order first met.  Arrays of scalars become one cell, their items separated by spaces;
 * arrays of objects (per_container, host_samples) are left out: they are not one value. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/lists.h"
#include "core/util.h"
#include "report/csv.h"

struct headers
{
  char **name;
  size_t n, cap;
};

static bool
is_scalar (const json_t *v)
{
  return !json_is_object (v) && !json_is_array (v);
}

/* Every item a scalar: one cell; an empty array is one too (an empty cell). */
static bool
is_cell (const json_t *v)
{
  size_t i;
  json_t *item;

  if (!json_is_array (v))
    return is_scalar (v);
  json_array_foreach (v, i, item) if (!is_scalar (item)) return false;
  return true;
}

static void
add_header (struct headers *h, const char *name)
{
  for (size_t i = 0; i < h->n; i++)
    if (strcmp (h->name[i], name) == 0)
      return;
  if (h->n == h->cap)
    {
      h->cap = h->cap ? 2 * h->cap : 32;
      h->name = xrealloc (h->name, h->cap * sizeof *h->name);
    }
  h->name[h->n++] = xstrdup (name);
}

static void
collect (struct headers *h, const char *prefix, const json_t *obj)
{
  const char *key;
  json_t *v;

  json_object_foreach ((json_t *) obj, key, v)
  {
    cleanup_free char *path = *prefix ? xasprintf ("%s.%s", prefix, key) : xstrdup (key);

    if (json_is_object (v))
      collect (h, path, v);
    else if (is_cell (v))
      add_header (h, path);
  }
}

/* The value at a dotted path: NULL when absent (a key never holds a dot). */
static const json_t *
lookup (const json_t *obj, const char *path)
{
  cleanup_free char *copy = xstrdup (path);
  char *save = NULL;

  for (char *k = strtok_r (copy, ".", &save); k && obj; k = strtok_r (NULL, ".", &save))
    obj = json_is_object (obj) ? json_object_get (obj, k) : NULL;
  return obj;
}

/* A scalar as its JSON text, strings without their quotes; null is empty. */
static char *
scalar_text (const json_t *v)
{
  if (json_is_string (v))
    return xstrdup (json_string_value (v));
  if (v == NULL || json_is_null (v))
    return xstrdup ("");
  {
    char *s = json_dumps (v, JSON_ENCODE_ANY | JSON_REAL_PRECISION (10));
    if (s == NULL)
      ucb_oom ();
    return s;
  }
}

static char *
cell_text (const json_t *v)
{
  char *s = NULL;
  size_t i;
  json_t *item;

  if (!json_is_array (v))
    return scalar_text (v);
  json_array_foreach (v, i, item)
  {
    cleanup_free char *t = scalar_text (item);
    char *joined = s ? xasprintf ("%s %s", s, t) : xstrdup (t);
    free (s);
    s = joined;
  }
  return s ? s : xstrdup ("");
}

/* One record a line: a field's line breaks are escaped as in every line-based format
 * (ucb_escape_controls: \n, \r, U+2028 ...), not kept in quotes.  RFC 4180 allows a CR or LF
 * in a quoted field, and Python's csv module reads one, but grep, sort, awk, `wc -l` and a
 * reader that splits the text with str.splitlines() first (which also breaks at U+2028 in
 * quotes) would see a record cut in two.  Then RFC 4180: a field with a comma or a quote is
 * quoted, its quotes doubled. */
static void
csv_field (FILE *f, const char *s)
{
  cleanup_free char *line = ucb_escape_controls (s);

  if (strpbrk (line, ",\"") == NULL)
    {
      fputs (line, f);
      return;
    }
  fputc ('"', f);
  for (const char *c = line; *c; c++)
    {
      if (*c == '"')
        fputc ('"', f);
      fputc (*c, f);
    }
  fputc ('"', f);
}

void
ucb_csv_write_rows (FILE *f, const json_t *rows)
{
  struct headers h = { 0 };
  size_t i;
  json_t *row;

  json_array_foreach (rows, i, row) if (json_is_object (row)) collect (&h, "", row);
  for (size_t k = 0; k < h.n; k++)
    {
      if (k)
        fputc (',', f);
      csv_field (f, h.name[k]);
    }
  fputs ("\r\n", f);
  json_array_foreach (rows, i, row)
  {
    if (!json_is_object (row))
      continue;
    for (size_t k = 0; k < h.n; k++)
      {
        const json_t *v = lookup (row, h.name[k]);
        cleanup_free char *t = v && is_cell (v) ? cell_text (v) : xstrdup ("");

        if (k)
          fputc (',', f);
        csv_field (f, t);
      }
    fputs ("\r\n", f);
  }
  ucb_free_items (h.name, h.n);
}

/* The owner_contrast[] entry of results[] entry `e`, or NULL: the same point, either mode. */
static json_t *
pair_of (const json_t *contrast, const json_t *e)
{
  static const char *const keys[] = { "workload", "depth", "tasks", "mode", "containers" };
  const char *owner = json_string_value (json_object_get (e, "owner"));
  size_t i;
  json_t *c;

  if (!owner || (strcmp (owner, "shared") != 0 && strcmp (owner, "distinct") != 0))
    return NULL;
  json_array_foreach (contrast, i, c)
  {
    size_t k = 0;
    while (k < UCB_ARRAY_SIZE (keys)
           && json_equal (json_object_get (c, keys[k]), json_object_get (e, keys[k])))
      k++;
    if (k == UCB_ARRAY_SIZE (keys))
      return c;
  }
  return NULL;
}

void
ucb_csv_write_run (FILE *f, const json_t *doc)
{
  static const char *const cols[] = { "ratio", "ci_low", "ci_high", "verdict" };
  const json_t *contrast = json_object_get (doc, "owner_contrast");
  cleanup_json json_t *rows = ucb_json_arr ();
  json_t *e, *c;
  size_t i;

  json_array_foreach (json_object_get (doc, "results"), i, e)
  {
    json_t *row = ucb_json_checked (json_is_object (e) ? json_copy (e) : json_incref (e));
    if (json_is_object (e) && (c = pair_of (contrast, e)) != NULL)
      {
        json_t *o = ucb_json_obj ();
        for (size_t k = 0; k < UCB_ARRAY_SIZE (cols); k++)
          ucb_json_set (o, cols[k], json_incref (json_object_get (c, cols[k])));
        ucb_json_set (row, "owner_contrast", o);
      }
    ucb_json_push (rows, row);
  }
  ucb_csv_write_rows (f, rows);
}
