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

int
ucb_req_str (const struct ucb_loc *l, json_t *o, const char *key, const char **out,
             ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, UCB_J_STRING, false, &v, err);
  *out = json_string_value (v);
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
  return ucb_schema_error (l, err, "\"%s\" is \"%.*s%s\", which does not match the schema's "
                           "pattern %s", key, cut, v, more, pattern);
}

int
ucb_req_int (const struct ucb_loc *l, json_t *o, const char *key, long long *out, ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, UCB_J_INTEGER, false, &v, err);
  *out = json_integer_value (v);
  return r;
}

int
ucb_req_num (const struct ucb_loc *l, json_t *o, const char *key, bool nullable, double *out,
             ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, nullable ? UCB_J_NUMBER_OR_NULL : UCB_J_NUMBER, false, &v, err);
  *out = json_is_number (v) ? json_number_value (v) : NAN;
  return r;
}

int
ucb_opt_str (const struct ucb_loc *l, json_t *o, const char *key, const char **out,
             ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, UCB_J_STRING_OR_NULL, true, &v, err);
  *out = json_string_value (v);
  return r;
}

int
ucb_opt_num (const struct ucb_loc *l, json_t *o, const char *key, double *out, ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, UCB_J_NUMBER_OR_NULL, true, &v, err);
  *out = json_is_number (v) ? json_number_value (v) : NAN;
  return r;
}

int
ucb_opt_int (const struct ucb_loc *l, json_t *o, const char *key, long long dflt, long long *out,
             ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, UCB_J_INTEGER_OR_NULL, true, &v, err);
  *out = json_is_integer (v) ? json_integer_value (v) : dflt;
  return r;
}

int
ucb_opt_bool (const struct ucb_loc *l, json_t *o, const char *key, bool *out, ucb_error_t *err)
{
  json_t *v;
  int r = ucb_field (l, o, key, UCB_J_BOOLEAN, true, &v, err);
  *out = json_is_true (v);
  return r;
}

/* ---- the top level: kind, host, config, run ------------------------------------------------- */

const char *
ucb_doc_kind_name (enum ucb_doc_kind k)
{
  return k == UCB_DOC_VERIFY ? "`ucbench verify`" : "`ucbench run`";
}

static int
load_host (struct ucb_loc *l, json_t *h, struct ucb_doc_host *out, ucb_error_t *err)
{
  json_t *k;
  size_t at = ucb_loc_push (l, "host");
  int r = ucb_opt_str (l, h, "hostname", &out->hostname, err) < 0
                  || ucb_field (l, h, "kernel", UCB_J_OBJECT, true, &k, err) < 0
                  || ucb_opt_str (l, h, "cpu_model", &out->cpu_model, err) < 0
                  || ucb_opt_str (l, h, "virtualization", &out->virtualization, err) < 0
                  || ucb_opt_int (l, h, "cpus_online", -1, &out->cpus_online, err) < 0
                  || ucb_opt_int (l, h, "cpus_allowed", -1, &out->cpus_allowed, err) < 0
              ? -1
              : 0;

  if (r == 0)
    {
      ucb_loc_push (l, ".kernel");
      r = ucb_opt_str (l, k, "release", &out->kernel_release, err);
    }
  ucb_loc_pop (l, at);
  return r;
}

static int
load_config (struct ucb_loc *l, json_t *c, struct ucb_doc_config *out, ucb_error_t *err)
{
  json_t *rep = json_object_get (c, "repeat");
  size_t at = ucb_loc_push (l, "config");
  int r = ucb_opt_num (l, c, "duration_s", &out->duration_s, err) < 0
                  || ucb_opt_num (l, c, "warmup_s", &out->warmup_s, err) < 0
                  || ucb_opt_num (l, c, "interval_s", &out->interval_s, err) < 0
                  || ucb_field (l, c, "workloads", UCB_J_ARRAY, true, &out->workloads, err) < 0
                  || ucb_field (l, c, "containers", UCB_J_ARRAY, true, &out->containers, err) < 0
                  || ucb_field (l, c, "owners", UCB_J_ARRAY, true, &out->owners, err) < 0
                  || ucb_field (l, c, "depths", UCB_J_ARRAY, true, &out->depths, err) < 0
                  || ucb_field (l, c, "tasks", UCB_J_ARRAY, true, &out->tasks, err) < 0
              ? -1
              : 0;

  /* An integer, or "auto" (--repeat auto: its repeats are in the points). */
  out->repeat = json_is_integer (rep) ? json_integer_value (rep) : 1;
  if (r == 0 && rep && !json_is_integer (rep)
      && !(json_is_string (rep) && strcmp (json_string_value (rep), "auto") == 0))
    r = ucb_schema_error (l, err, "\"repeat\" is not an integer or \"auto\"");
  ucb_loc_pop (l, at);
  return r;
}

/* The optional top-level objects a reader uses, each checked where present. */
/* run.interrupted, when the sweep ended before its last point. */
static int
load_interrupted (struct ucb_loc *l, json_t *run, struct ucb_doc *d, ucb_error_t *err)
{
  json_t *in;
  size_t at;

  d->points_finished = d->points_planned = -1;
  if (ucb_field (l, run, "interrupted", UCB_J_OBJECT, true, &in, err) < 0)
    return -1;
  if (in == NULL)
    return 0;
  at = ucb_loc_push (l, "interrupted");
  if (ucb_opt_str (l, in, "reason", &d->interrupted_reason, err) < 0
      || ucb_opt_int (l, in, "signal", 0, &d->interrupted_signal, err) < 0
      || ucb_opt_int (l, in, "points_finished", -1, &d->points_finished, err) < 0
      || ucb_opt_int (l, in, "points_planned", -1, &d->points_planned, err) < 0)
    return -1;
  if (d->interrupted_reason == NULL)
    d->interrupted_reason = "interrupted";
  ucb_loc_pop (l, at);
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
  if (load_host (l, json_is_null (h) ? NULL : h, &d->host, err) < 0
      || load_config (l, c, &d->config, err) < 0)
    return -1;
  at = ucb_loc_push (l, "run");
  if (ucb_opt_str (l, run, "start_time", &d->start_time, err) < 0
      || load_interrupted (l, run, d, err) < 0)
    return -1;
  ucb_loc_pop (l, at);
  at = ucb_loc_push (l, "kernel_matrix");
  if (ucb_opt_bool (l, km, "emulated_timing", &d->emulated_timing, err) < 0
      || ucb_opt_str (l, km, "where", &d->emulated_where, err) < 0)
    return -1;
  ucb_loc_pop (l, at);
  return 0;
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
  long long samples = 0;

  if (json_object_get (c, "unjudged") != NULL)
    return ucb_opt_bool (l, c, "unjudged", &out->unjudged, err);
  if (ucb_opt_int (l, c, "samples", 0, &samples, err) < 0)
    return -1;
  out->unjudged = samples > 0 && isnan (out->cpu_share_median);
  return 0;
}

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
  ret = ucb_opt_bool (l, c, "contended", &out->contended, err) < 0
                || ucb_opt_bool (l, c, "owns_cpu", &out->owns_cpu, err) < 0
                || ucb_opt_num (l, c, "cpu_share_median", &out->cpu_share_median, err) < 0
                || ucb_opt_num (l, c, "steal_pct_max", &out->steal_pct_max, err) < 0
                || ucb_opt_num (l, c, "idle_pct_min", &out->idle_pct_min, err) < 0
                || ucb_opt_bool (l, c, "starved", &out->starved, err) < 0
                || ucb_opt_int (l, c, "starved_containers", 0, &out->starved_containers, err) < 0
                || ucb_opt_num (l, c, "fair_share", &out->fair_share, err) < 0
                || ucb_opt_num (l, c, "window_needed_s", &out->window_needed_s, err) < 0
                || load_unjudged (l, c, out, err) < 0
            ? -1
            : 0;
  ucb_loc_pop (l, at);
  return ret;
}

int
ucb_doc_load_placement (struct ucb_loc *l, json_t *r, struct ucb_doc_point *p, ucb_error_t *err)
{
  json_t *pl;
  size_t at;
  int ret;

  if (ucb_field (l, r, "placement", UCB_J_OBJECT, true, &pl, err) < 0)
    return -1;
  at = ucb_loc_push (l, ".placement");
  ret = ucb_field (l, pl, "l3_domains", UCB_J_INTEGER_OR_NULL, true, &p->l3_domains, err) < 0
                || ucb_field (l, pl, "cores", UCB_J_INTEGER_OR_NULL, true, &p->cores, err) < 0
                || ucb_field (l, pl, "cpus", UCB_J_INTEGER, true, &p->cpus, err) < 0
            ? -1
            : 0;
  ucb_loc_pop (l, at);
  /* --pin l3: the points with an integer l3_domains. */
  p->l3 = ret == 0 && json_is_integer (p->l3_domains);
  if (!p->l3)
    p->l3_domains = p->cores = p->cpus = NULL;
  return ret;
}

int
ucb_doc_load_canary (struct ucb_loc *l, json_t *r, struct ucb_doc_canary *out, ucb_error_t *err)
{
  json_t *c;
  size_t at;
  int ret;

  /* Optional: documents before the canary lack it. */
  if (ucb_field (l, r, "canary", UCB_J_OBJECT, true, &c, err) < 0)
    return -1;
  out->known = c != NULL;
  at = ucb_loc_push (l, ".canary");
  ret = ucb_opt_num (l, c, "before", &out->before, err) < 0
                || ucb_opt_num (l, c, "after", &out->after, err) < 0
                || ucb_opt_num (l, c, "change_pct", &out->change_pct, err) < 0
                || ucb_opt_bool (l, c, "moved", &out->moved, err) < 0
            ? -1
            : 0;
  ucb_loc_pop (l, at);
  return ret;
}
