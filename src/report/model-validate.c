/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model-validate.c - what the loader (model.c) checks of a document against
 * docs/ucbench-result.schema.json before any reader sees it: the type of every field a reader
 * uses (typed readers, model-fields.h), the kind of the document (run or verify) against what
 * the reader takes, the optional parts (host, config, run, kernel_matrix, contention,
 * placement, canary); the messages of a range or an enum broken (model-ranges.c checks them). */
#include "config.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/model-fields.h"
#include "report/model.h"

/* ---- typed fields --------------------------------------------------------------------------- */

int
ucb_schema_error (const struct ucb_loc *l, ucb_error_t *err, const char *fmt, ...)
{
  char what[512];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  if (l->at[0] == '\0')
    return ucb_usage_error (err, "`%s`: %s", l->name, what);
  return ucb_usage_error (err, "`%s`: %s: %s", l->name, l->at, what);
}

size_t
ucb_loc_push (struct ucb_loc *l, const char *fmt, ...)
{
  size_t at = strlen (l->at);
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (l->at + at, sizeof l->at - at, fmt, ap);
  va_end (ap);
  return at;
}

void
ucb_loc_pop (struct ucb_loc *l, size_t at)
{
  l->at[at] = '\0';
}

static const char *const jtype_words[] = {
  "a string",         "a string or null", "an integer", "an integer or null", "a number",
  "a number or null", "true or false",    "an array",   "an object",
};

static bool
has_type (const json_t *v, enum ucb_jtype t)
{
  switch (t)
    {
    case UCB_J_STRING:
      return json_is_string (v);
    case UCB_J_STRING_OR_NULL:
      return json_is_string (v) || json_is_null (v);
    case UCB_J_INTEGER:
      return json_is_integer (v);
    case UCB_J_INTEGER_OR_NULL:
      return json_is_integer (v) || json_is_null (v);
    case UCB_J_NUMBER:
      return json_is_number (v);
    case UCB_J_NUMBER_OR_NULL:
      return json_is_number (v) || json_is_null (v);
    case UCB_J_BOOLEAN:
      return json_is_boolean (v);
    case UCB_J_ARRAY:
      return json_is_array (v);
    case UCB_J_OBJECT:
    default:
      return json_is_object (v);
    }
}

int
ucb_field (const struct ucb_loc *l, json_t *o, const char *key, enum ucb_jtype t, bool optional,
           json_t **out, ucb_error_t *err)
{
  json_t *v = json_object_get (o, key);

  *out = v;
  if (v == NULL)
    return optional ? 0 : ucb_schema_error (l, err, "missing \"%s\" (%s)", key, jtype_words[t]);
  if (!has_type (v, t))
    {
      *out = NULL;
      return ucb_schema_error (l, err, "\"%s\" is not %s", key, jtype_words[t]);
    }
  return 0;
}

/* v (of f's type, or NULL) into the member of `out` that f names. */
static void
store (const struct ucb_field_row *f, json_t *v, void *out)
{
  void *m = (char *) out + f->offset;

  switch (f->raw ? UCB_J_OBJECT : f->type)
    {
    case UCB_J_STRING:
    case UCB_J_STRING_OR_NULL:
      *(const char **) m = json_string_value (v);
      break;
    case UCB_J_INTEGER:
    case UCB_J_INTEGER_OR_NULL:
      *(long long *) m = json_is_integer (v) ? json_integer_value (v) : f->dflt;
      break;
    case UCB_J_NUMBER:
    case UCB_J_NUMBER_OR_NULL:
      *(double *) m = json_is_number (v) ? json_number_value (v) : NAN;
      break;
    case UCB_J_BOOLEAN:
      *(bool *) m = json_is_true (v);
      break;
    case UCB_J_ARRAY:
    case UCB_J_OBJECT:
    default:
      *(json_t **) m = v;
    }
}

int
ucb_fields (struct ucb_loc *l, const char *at, json_t *o, const struct ucb_field_row *rows,
            void *out, ucb_error_t *err)
{
  size_t was = at ? ucb_loc_push (l, "%s%s", l->at[0] ? "." : "", at) : strlen (l->at);
  int r = 0;
  json_t *v;

  for (const struct ucb_field_row *f = rows; f->key && r == 0; f++)
    {
      r = ucb_field (l, o, f->key, f->type, f->optional || o == NULL, &v, err);
      if (r == 0 && f->sub == NULL)
        store (f, v, out);
    }
  for (const struct ucb_field_row *f = rows; f->key && r == 0; f++)
    if (f->sub)
      r = ucb_fields (l, f->key, json_object_get (o, f->key), f->sub, out, err);
  ucb_loc_pop (l, was);
  return r;
}

/* v as briefly as it reads back exactly: 1e+300, not 1.0000000000000001e+300. */
static void
format_number (char *buf, size_t len, double v)
{
  snprintf (buf, len, "%.15g", v);
  if (strtod (buf, NULL) != v)
    snprintf (buf, len, "%.17g", v);
}

int
ucb_range (const struct ucb_loc *l, const char *key, double v, double lo, bool lo_open, double hi,
           ucb_error_t *err)
{
  char got[32];

  if (isnan (v) || ((lo_open ? v > lo : v >= lo) && v <= hi))
    return 0;
  format_number (got, sizeof got, v);
  if (isinf (hi))
    return ucb_schema_error (l, err, "\"%s\" is %s, out of range (%s %g)", key, got,
                             lo_open ? "above" : "at least", lo);
  if (lo_open)
    return ucb_schema_error (l, err, "\"%s\" is %s, out of range (above %g, at most %g)", key, got,
                             lo, hi);
  return ucb_schema_error (l, err, "\"%s\" is %s, out of range (%g to %g)", key, got, lo, hi);
}

int
ucb_enum (const struct ucb_loc *l, const char *key, const char *v, const char *const *words,
          ucb_error_t *err)
{
  char list[256] = "";
  size_t at = 0;

  for (const char *const *w = words; *w && at < sizeof list; w++)
    at += (size_t) snprintf (list + at, sizeof list - at, "%s%s", at ? ", " : "", *w);
  /* The value shortened: the list is what the reader needs to see whole. */
  return ucb_schema_error (l, err, "\"%s\" is \"%.60s%s\", not one of: %s", key, v,
                           strlen (v) > 60 ? "..." : "", list);
}

/* The first 60 bytes of `v` for a message, cut at a UTF-8 boundary; "..." when cut. */
static int
shown (const char *v, const char **more)
{
  size_t n = strnlen (v, 61);

  *more = n > 60 ? "..." : "";
  if (n > 60)
    for (n = 60; n > 0 && ((unsigned char) v[n] & 0xc0) == 0x80; n--)
      ;
  return (int) n;
}

int
ucb_length (const struct ucb_loc *l, const char *key, const char *v, long min, long max,
            ucb_error_t *err)
{
  const char *more;
  int cut = shown (v, &more);
  size_t n = 0;

  /* Characters, as the schema counts them (jansson gave valid UTF-8). */
  for (const unsigned char *p = (const unsigned char *) v; *p; p++)
    n += (*p & 0xc0) != 0x80;
  if (n < (size_t) min)
    return ucb_schema_error (l, err,
                             "\"%s\" is \"%.*s%s\" (%zu characters), shorter than the schema's "
                             "minLength %ld",
                             key, cut, v, more, n, min);
  if (max >= 0 && n > (size_t) max)
    return ucb_schema_error (l, err,
                             "\"%s\" is \"%.*s%s\" (%zu characters), longer than the schema's "
                             "maxLength %ld",
                             key, cut, v, more, n, max);
  return 0;
}

/* `pattern` compiled once (a POSIX extended expression: the schema's patterns keep to what
 * ECMA-262 and POSIX read alike). */
static const regex_t *
compiled (const char *pattern)
{
  static struct
  {
    const char *pattern;
    regex_t re;
  } cache[32];
  static size_t n;

  for (size_t i = 0; i < n; i++)
    if (cache[i].pattern == pattern)
      return &cache[i].re;
  if (n == UCB_ARRAY_SIZE (cache) || regcomp (&cache[n].re, pattern, REG_EXTENDED | REG_NOSUB))
    return NULL;
  cache[n].pattern = pattern;
  return &cache[n++].re;
}

int
ucb_pattern (const struct ucb_loc *l, const char *key, const char *v, const char *pattern,
             bool name, ucb_error_t *err)
{
  const regex_t *re = compiled (pattern);
  const char *more;
  int cut = shown (v, &more);

  if (re == NULL)
    return ucb_make_error (err, 0, "internal error: the pattern %s does not compile", pattern);
  if (regexec (re, v, 0, NULL, 0) == 0)
    return 0;
  if (name)
    return ucb_schema_error (l, err,
                             "the member name \"%.*s%s\" does not match the schema's pattern %s",
                             cut, v, more, pattern);
  return ucb_schema_error (l, err,
                           "\"%s\" is \"%.*s%s\", which does not match the schema's "
                           "pattern %s",
                           key, cut, v, more, pattern);
}

/* ---- the top level: kind, host, config, run ------------------------------------------------- */

const char *
ucb_doc_kind_name (enum ucb_doc_kind k)
{
  return k == UCB_DOC_VERIFY ? "`ucbench verify`" : "`ucbench run`";
}

static const struct ucb_field_row kernel_rows[] = {
  UCB_ROW (struct ucb_doc_host, kernel_release, "release", UCB_J_STRING_OR_NULL, true),
  { NULL },
};

static const struct ucb_field_row host_rows[] = {
  UCB_OPT (struct ucb_doc_host, hostname, UCB_J_STRING_OR_NULL),
  { "kernel", UCB_J_OBJECT, true, .sub = kernel_rows },
  UCB_OPT (struct ucb_doc_host, cpu_model, UCB_J_STRING_OR_NULL),
  UCB_OPT (struct ucb_doc_host, virtualization, UCB_J_STRING_OR_NULL),
  UCB_OPT (struct ucb_doc_host, cpus_online, UCB_J_INTEGER_OR_NULL, .dflt = -1),
  UCB_OPT (struct ucb_doc_host, cpus_allowed, UCB_J_INTEGER_OR_NULL, .dflt = -1),
  { NULL },
};

static const struct ucb_field_row config_rows[] = {
  UCB_OPT (struct ucb_doc_config, duration_s, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_config, warmup_s, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_config, interval_s, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_config, workloads, UCB_J_ARRAY),
  UCB_OPT (struct ucb_doc_config, containers, UCB_J_ARRAY),
  UCB_OPT (struct ucb_doc_config, owners, UCB_J_ARRAY),
  UCB_OPT (struct ucb_doc_config, depths, UCB_J_ARRAY),
  UCB_OPT (struct ucb_doc_config, tasks, UCB_J_ARRAY),
  { NULL },
};

static const struct ucb_field_row run_rows[] = {
  UCB_OPT (struct ucb_doc, start_time, UCB_J_STRING_OR_NULL),
  { NULL },
};

static const struct ucb_field_row interrupted_rows[] = {
  UCB_ROW (struct ucb_doc, interrupted_reason, "reason", UCB_J_STRING_OR_NULL, true),
  UCB_ROW (struct ucb_doc, interrupted_signal, "signal", UCB_J_INTEGER_OR_NULL, true),
  UCB_OPT (struct ucb_doc, points_finished, UCB_J_INTEGER_OR_NULL, .dflt = -1),
  UCB_OPT (struct ucb_doc, points_planned, UCB_J_INTEGER_OR_NULL, .dflt = -1),
  { NULL },
};

static const struct ucb_field_row kernel_matrix_rows[] = {
  UCB_OPT (struct ucb_doc, emulated_timing, UCB_J_BOOLEAN),
  UCB_ROW (struct ucb_doc, emulated_where, "where", UCB_J_STRING_OR_NULL, true),
  { NULL },
};

static int
load_config (struct ucb_loc *l, json_t *c, struct ucb_doc_config *out, ucb_error_t *err)
{
  json_t *rep = json_object_get (c, "repeat");
  size_t at = ucb_loc_push (l, "config");
  int r = ucb_fields (l, NULL, c, config_rows, out, err);

  /* An integer, or "auto" (--repeat auto: its repeats are in the points). */
  out->repeat = json_is_integer (rep) ? json_integer_value (rep) : 1;
  if (r == 0 && rep && !json_is_integer (rep)
      && !(json_is_string (rep) && strcmp (json_string_value (rep), "auto") == 0))
    r = ucb_schema_error (l, err, "\"repeat\" is not an integer or \"auto\"");
  ucb_loc_pop (l, at);
  return r;
}

/* The optional top-level objects a reader uses, each checked where present. */
/* run.interrupted, when the sweep ended before its last point (absent: points_* -1). */
static int
load_interrupted (struct ucb_loc *l, json_t *run, struct ucb_doc *d, ucb_error_t *err)
{
  json_t *in;

  if (ucb_field (l, run, "interrupted", UCB_J_OBJECT, true, &in, err) < 0
      || ucb_fields (l, "interrupted", in, interrupted_rows, d, err) < 0)
    return -1;
  if (in && d->interrupted_reason == NULL)
    d->interrupted_reason = "interrupted";
  return 0;
}

static int
load_context (struct ucb_doc *d, struct ucb_loc *l, ucb_error_t *err)
{
  json_t *h = json_object_get (d->json, "host"), *c, *run, *km;
  size_t at;

  /* ucbench writes "host": null when it could not collect it. */
  if ((!json_is_null (h) && ucb_field (l, d->json, "host", UCB_J_OBJECT, true, &h, err) < 0)
      || ucb_field (l, d->json, "config", UCB_J_OBJECT, true, &c, err) < 0
      || ucb_field (l, d->json, "run", UCB_J_OBJECT, true, &run, err) < 0
      || ucb_field (l, d->json, "kernel_matrix", UCB_J_OBJECT, true, &km, err) < 0)
    return -1;
  if (ucb_fields (l, "host", json_is_null (h) ? NULL : h, host_rows, &d->host, err) < 0
      || load_config (l, c, &d->config, err) < 0)
    return -1;
  at = ucb_loc_push (l, "run");
  if (ucb_fields (l, NULL, run, run_rows, d, err) < 0 || load_interrupted (l, run, d, err) < 0)
    return -1;
  ucb_loc_pop (l, at);
  return ucb_fields (l, "kernel_matrix", km, kernel_matrix_rows, d, err);
}

int
ucb_doc_load_top (struct ucb_doc *d, unsigned kinds, json_t **results, json_t **verify,
                  ucb_error_t *err)
{
  struct ucb_loc l = { .name = d->name };

  if (ucb_field (&l, d->json, "results", UCB_J_ARRAY, true, results, err) < 0
      || ucb_field (&l, d->json, "verify", UCB_J_ARRAY, true, verify, err) < 0)
    return -1;
  d->kind = *verify ? UCB_DOC_VERIFY : UCB_DOC_RUN;
  if (*verify == NULL && *results == NULL)
    return ucb_schema_error (&l, err,
                             "neither \"results\" (a `ucbench run` document) nor \"verify\" (a "
                             "`ucbench verify` one): nothing to read");
  if (!(kinds & d->kind))
    return ucb_schema_error (
        &l, err, "a %s document (%s), and this needs a %s one", ucb_doc_kind_name (d->kind),
        *verify ? "verify[]" : "results[], no verify[]",
        ucb_doc_kind_name (d->kind == UCB_DOC_RUN ? UCB_DOC_VERIFY : UCB_DOC_RUN));
  return load_context (d, &l, err);
}

/* ---- parts of a results[] entry ------------------------------------------------------------- */

/* contention.unjudged; an older document without it judged nothing it could not measure, so a
 * sampled point with no median share there is unjudged too. */
static int
load_unjudged (struct ucb_loc *l, json_t *c, struct ucb_doc_contention *out, ucb_error_t *err)
{
  json_t *v;

  if (json_object_get (c, "unjudged") != NULL)
    {
      if (ucb_field (l, c, "unjudged", UCB_J_BOOLEAN, true, &v, err) < 0)
        return -1;
      out->unjudged = json_is_true (v);
      return 0;
    }
  if (ucb_field (l, c, "samples", UCB_J_INTEGER_OR_NULL, true, &v, err) < 0)
    return -1;
  out->unjudged = json_integer_value (v) > 0 && isnan (out->cpu_share_median);
  return 0;
}

static const struct ucb_field_row contention_rows[] = {
  UCB_OPT (struct ucb_doc_contention, contended, UCB_J_BOOLEAN),
  UCB_OPT (struct ucb_doc_contention, owns_cpu, UCB_J_BOOLEAN),
  UCB_OPT (struct ucb_doc_contention, cpu_share_median, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_contention, steal_pct_max, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_contention, idle_pct_min, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_contention, starved, UCB_J_BOOLEAN),
  UCB_OPT (struct ucb_doc_contention, starved_containers, UCB_J_INTEGER_OR_NULL),
  UCB_OPT (struct ucb_doc_contention, fair_share, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_contention, window_needed_s, UCB_J_NUMBER_OR_NULL),
  { NULL },
};

int
ucb_doc_load_contention (struct ucb_loc *l, json_t *r, struct ucb_doc_contention *out,
                         ucb_error_t *err)
{
  json_t *c;
  size_t at;
  int ret;

  /* Optional: documents before contention was measured lack it. */
  if (ucb_field (l, r, "contention", UCB_J_OBJECT, true, &c, err) < 0)
    return -1;
  out->known = c != NULL;
  at = ucb_loc_push (l, ".contention");
  ret = ucb_fields (l, NULL, c, contention_rows, out, err) < 0 || load_unjudged (l, c, out, err) < 0
            ? -1
            : 0;
  ucb_loc_pop (l, at);
  return ret;
}

static const struct ucb_field_row placement_rows[] = {
  UCB_OPT (struct ucb_doc_point, l3_domains, UCB_J_INTEGER_OR_NULL, .raw = true),
  UCB_OPT (struct ucb_doc_point, cores, UCB_J_INTEGER_OR_NULL, .raw = true),
  UCB_OPT (struct ucb_doc_point, cpus, UCB_J_INTEGER, .raw = true),
  { NULL },
};

int
ucb_doc_load_placement (struct ucb_loc *l, json_t *r, struct ucb_doc_point *p, ucb_error_t *err)
{
  json_t *pl;
  int ret;

  if (ucb_field (l, r, "placement", UCB_J_OBJECT, true, &pl, err) < 0)
    return -1;
  ret = ucb_fields (l, "placement", pl, placement_rows, p, err);
  /* --pin l3: the points with an integer l3_domains. */
  p->l3 = ret == 0 && json_is_integer (p->l3_domains);
  if (!p->l3)
    p->l3_domains = p->cores = p->cpus = NULL;
  return ret;
}

static const struct ucb_field_row canary_rows[] = {
  UCB_OPT (struct ucb_doc_canary, before, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_canary, after, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_canary, change_pct, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_canary, moved, UCB_J_BOOLEAN),
  { NULL },
};

int
ucb_doc_load_canary (struct ucb_loc *l, json_t *r, struct ucb_doc_canary *out, ucb_error_t *err)
{
  json_t *c;

  /* Optional: documents before the canary lack it. */
  if (ucb_field (l, r, "canary", UCB_J_OBJECT, true, &c, err) < 0)
    return -1;
  out->known = c != NULL;
  return ucb_fields (l, "canary", c, canary_rows, out, err);
}
