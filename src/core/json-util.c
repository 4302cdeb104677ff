/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-util.c - jansson constructors that cannot fail silently (allocation failure aborts). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"

void
ucb_json_decrefp (json_t **v)
{
  json_decref (*v);
}

json_t *
ucb_json_checked (json_t *v)
{
  if (v == NULL)
    ucb_oom ();
  return v;
}

void
ucb_json_set (json_t *o, const char *k, json_t *v)
{
  if (json_object_set_new (o, k, v ? v : json_null ()) < 0)
    ucb_oom ();
}

void
ucb_json_push (json_t *a, json_t *v)
{
  if (json_array_append_new (a, v ? v : json_null ()) < 0)
    ucb_oom ();
}

json_t *
ucb_json_obj (void)
{
  return ucb_json_checked (json_object ());
}

json_t *
ucb_json_arr (void)
{
  return ucb_json_checked (json_array ());
}

json_t *
ucb_json_int (long long v)
{
  return ucb_json_checked (json_integer (v));
}

json_t *
ucb_json_int_array (const int *v, size_t n)
{
  json_t *a = ucb_json_arr ();
  for (size_t i = 0; i < n; i++)
    ucb_json_push (a, ucb_json_int (v[i]));
  return a;
}

json_t *
ucb_json_str (const char *s)
{
  json_t *j = s ? json_string (s) : NULL;
  return j ? j : json_null ();
}

json_t *
ucb_json_fmt (const char *fmt, ...)
{
  cleanup_free char *text = NULL, *escaped = NULL;
  va_list ap;
  json_t *j;

  va_start (ap, fmt);
  if (vasprintf (&text, fmt, ap) < 0)
    ucb_oom ();
  va_end (ap);
  if ((j = json_string (text)) != NULL)
    return j;
  escaped = ucb_escape_controls (text);
  return ucb_json_checked (json_string (escaped));
}

json_t *
ucb_json_real (double v)
{
  return ucb_json_checked (isfinite (v) ? json_real (v) : json_null ());
}

double
ucb_json_num (const json_t *o, const char *key)
{
  json_t *v = json_object_get (o, key);

  return json_is_number (v) ? json_number_value (v) : NAN;
}

int
ucb_json_write (const json_t *doc, FILE *f, ucb_error_t *err)
{
  if (json_dumpf (doc, f, JSON_INDENT (2) | JSON_SORT_KEYS | JSON_REAL_PRECISION (10)) < 0
      || fputc ('\n', f) == EOF || fflush (f) != 0)
    return ucb_make_error (err, errno, "write JSON document");
  return 0;
}
