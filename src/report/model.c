/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.c - loading a ucbench-result/1 document into the structures of model.h, once, with a
 * one-line schema error naming the field (the typed readers and the top level: model-validate.c);
 * point identity, groups of repeats, series and compare's "anything in common"
 * computed here for every reader. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/model-fields.h"
#include "report/model.h"

/* ---- results[] ------------------------------------------------------------------------------ */

static const struct ucb_field_row container_rows[] = {
  UCB_REQ (struct ucb_doc_container, ops, UCB_J_INTEGER),
  UCB_REQ (struct ucb_doc_container, rate_ops_per_s, UCB_J_NUMBER),
  UCB_REQ (struct ucb_doc_container, cpu_ns_per_op, UCB_J_NUMBER_OR_NULL),
  { NULL },
};

static const struct ucb_field_row stats_rows[] = {
  UCB_ROW (struct ucb_doc_container, ops_per_s_stddev, "stddev", UCB_J_NUMBER_OR_NULL, false),
  { NULL },
};

/* Container `c`; `rates` gets samples[].ops_per_s (NaN for null), `n_rates` entries. */
static int
load_container (struct ucb_loc *l, json_t *c, struct ucb_doc_container *out, double **rates,
                ucb_error_t *err)
{
  json_t *stats, *samples, *s, *v;
  size_t j;
  int at = (int) strlen (l->at);

  if (!json_is_object (c))
    return ucb_schema_error (l, err, "not an object");
  if (ucb_fields (l, NULL, c, container_rows, out, err) < 0
      || ucb_field (l, c, "ops_per_s", UCB_J_OBJECT, false, &stats, err) < 0
      || ucb_field (l, c, "samples", UCB_J_ARRAY, false, &samples, err) < 0
      || ucb_fields (l, "ops_per_s", stats, stats_rows, out, err) < 0)
    return -1;
  out->n_samples = json_array_size (samples);
  *rates = xcalloc (out->n_samples + 1, sizeof **rates);
  json_array_foreach (samples, j, s)
  {
    snprintf (l->at + at, sizeof l->at - (size_t) at, ".samples[%zu]", j);
    if (!json_is_object (s))
      return ucb_schema_error (l, err, "not an object");
    if (ucb_field (l, s, "ops_per_s", UCB_J_NUMBER_OR_NULL, false, &v, err) < 0)
      return -1;
    (*rates)[j] = json_is_number (v) ? json_number_value (v) : NAN;
  }
  l->at[at] = '\0';
  return 0;
}

/* per_container[] and the interval rates drawn from it. */
static int
load_containers (struct ucb_loc *l, json_t *arr, struct ucb_doc_point *p, ucb_error_t *err)
{
  size_t n = json_array_size (arr), k = SIZE_MAX, i;
  int at = (int) strlen (l->at);
  double **rates = xcalloc (n + 1, sizeof *rates);
  int ret = 0;

  p->pc = xcalloc (n + 1, sizeof *p->pc);
  p->n_pc = n;
  for (i = 0; i < n && ret == 0; i++)
    {
      snprintf (l->at + at, sizeof l->at - (size_t) at, ".per_container[%zu]", i);
      ret = load_container (l, json_array_get (arr, i), &p->pc[i], &rates[i], err);
      k = p->pc[i].n_samples < k ? p->pc[i].n_samples : k;
    }
  l->at[at] = '\0';
  if (ret == 0 && n > 0)
    {
      p->intervals = xcalloc (k + 1, sizeof *p->intervals);
      p->n_intervals = k;
      for (size_t j = 0; j < k; j++)
        {
          double sum = 0;
          for (i = 0; i < n; i++)
            sum += rates[i][j]; /* NaN (a null rate) stays NaN */
          p->intervals[j] = sum / (double) n;
        }
    }
  for (i = 0; i < n; i++)
    free (rates[i]);
  free (rates);
  return ret;
}

static const struct ucb_field_row summary_rows[] = {
  UCB_REQ (struct ucb_doc_summary, total_ops_per_s, UCB_J_NUMBER_OR_NULL),
  UCB_REQ (struct ucb_doc_summary, per_container_ops, UCB_J_NUMBER_OR_NULL),
  UCB_REQ (struct ucb_doc_summary, scalability, UCB_J_NUMBER_OR_NULL),
  UCB_REQ (struct ucb_doc_summary, fairness, UCB_J_NUMBER_OR_NULL),
  UCB_REQ (struct ucb_doc_summary, cv, UCB_J_NUMBER_OR_NULL),
  UCB_REQ (struct ucb_doc_summary, cpu_ns_per_op, UCB_J_NUMBER_OR_NULL),
  UCB_REQ (struct ucb_doc_summary, failed_ops, UCB_J_INTEGER),
  { NULL },
};

/* A point's identity and status. */
static const struct ucb_field_row point_rows[] = {
  UCB_REQ (struct ucb_doc_point, workload, UCB_J_STRING),
  UCB_REQ (struct ucb_doc_point, containers, UCB_J_INTEGER),
  UCB_REQ (struct ucb_doc_point, owner, UCB_J_STRING),
  UCB_REQ (struct ucb_doc_point, depth, UCB_J_INTEGER),
  UCB_REQ (struct ucb_doc_point, tasks, UCB_J_INTEGER),
  UCB_REQ (struct ucb_doc_point, mode, UCB_J_STRING),
  UCB_REQ (struct ucb_doc_point, repeat, UCB_J_INTEGER),
  UCB_REQ (struct ucb_doc_point, status, UCB_J_STRING),
  { NULL },
};

static int
load_point (struct ucb_loc *l, json_t *r, struct ucb_doc_point *p, ucb_error_t *err)
{
  json_t *pcs, *sum, *reason;

  p->json = r;
  if (!json_is_object (r))
    return ucb_schema_error (l, err, "not an object");
  if (ucb_fields (l, NULL, r, point_rows, p, err) < 0
      || ucb_field (l, r, "per_container", UCB_J_ARRAY, false, &pcs, err) < 0
      || ucb_field (l, r, "summary", UCB_J_OBJECT, false, &sum, err) < 0
      || ucb_field (l, r, "reason", UCB_J_STRING_OR_NULL, true, &reason, err) < 0)
    return -1;
  p->reason = json_string_value (reason);
  if (load_containers (l, pcs, p, err) < 0
      || ucb_fields (l, "summary", sum, summary_rows, &p->sum, err) < 0
      || ucb_doc_load_contention (l, r, &p->contention, err) < 0
      || ucb_doc_load_canary (l, r, &p->canary, err) < 0
      || ucb_doc_load_placement (l, r, p, err) < 0)
    return -1;
  p->measured = strcmp (p->status, "ok") == 0 && p->n_pc > 0 && isfinite (p->sum.per_container_ops);
  return 0;
}

/* ---- identity: groups, series, workloads ---------------------------------------------------- */

int
ucb_point_series_cmp (const struct ucb_doc_point *a, const struct ucb_doc_point *b)
{
  int c = strcmp (a->workload, b->workload);
  if (c == 0)
    c = strcmp (a->owner, b->owner);
  if (c == 0)
    c = (a->depth > b->depth) - (a->depth < b->depth);
  if (c == 0)
    c = (a->tasks > b->tasks) - (a->tasks < b->tasks);
  if (c == 0)
    c = strcmp (a->mode, b->mode);
  return c;
}

int
ucb_point_cmp (const struct ucb_doc_point *a, const struct ucb_doc_point *b)
{
  int c = ucb_point_series_cmp (a, b);
  return c ? c : (a->containers > b->containers) - (a->containers < b->containers);
}

static int
workload_cmp (const struct ucb_doc_point *a, const struct ucb_doc_point *b)
{
  return strcmp (a->workload, b->workload);
}

/* qsort has no context argument: the points being sorted and the comparison. */
static const struct ucb_doc_point *sort_points;
static int (*sort_cmp) (const struct ucb_doc_point *, const struct ucb_doc_point *);

static int
cmp_index (const void *x, const void *y)
{
  size_t a = *(const size_t *) x, b = *(const size_t *) y;
  int c = sort_cmp (&sort_points[a], &sort_points[b]);
  return c ? c : (a > b) - (a < b); /* document order within a class */
}

/* Point indices sorted by `cmp`; each point's class number (in sorted order) into the field
 * that `class_of` returns; returns the number of classes. */
static size_t
classify (struct ucb_doc *d,
          int (*cmp) (const struct ucb_doc_point *, const struct ucb_doc_point *),
          size_t *(*class_of) (struct ucb_doc_point *), size_t **sorted)
{
  size_t *idx = xcalloc (d->n_points + 1, sizeof *idx), n = 0;

  for (size_t i = 0; i < d->n_points; i++)
    idx[i] = i;
  sort_points = d->points;
  sort_cmp = cmp;
  qsort (idx, d->n_points, sizeof *idx, cmp_index);
  for (size_t i = 0; i < d->n_points; i++)
    {
      if (i > 0 && cmp (&d->points[idx[i - 1]], &d->points[idx[i]]) != 0)
        n++;
      *class_of (&d->points[idx[i]]) = n;
    }
  if (sorted)
    *sorted = idx;
  else
    free (idx);
  return d->n_points ? n + 1 : 0;
}

static double
median_finite (double *v, size_t n)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite (v[i]))
      v[m++] = v[i];
  return m ? ucb_median (v, m) : NAN;
}

/* The repeat statistics of group `g`, from its members `m` (document order). */
static void
group_stats (struct ucb_doc *d, struct ucb_doc_group *g, const size_t *m, size_t n)
{
  cleanup_free double *v = xcalloc (5 * (n + 1), sizeof *v);
  double *ops = v, *tot = v + n + 1, *scal = v + 2 * (n + 1), *fair = v + 3 * (n + 1),
         *cpu = v + 4 * (n + 1);
  size_t k = 0;

  g->rate_lo = g->rate_hi = NAN;
  for (size_t i = 0; i < n; i++)
    {
      const struct ucb_doc_point *p = &d->points[m[i]];
      if (!p->measured)
        continue;
      g->rates = xrealloc (g->rates, (g->n_rates + p->n_intervals + 1) * sizeof *g->rates);
      for (size_t j = 0; j < p->n_intervals; j++)
        {
          double x = p->intervals[j];
          if (!isfinite (x))
            continue; /* a null rate says nothing about the spread */
          g->rates[g->n_rates++] = x;
          g->rate_lo = isfinite (g->rate_lo) && g->rate_lo < x ? g->rate_lo : x;
          g->rate_hi = isfinite (g->rate_hi) && g->rate_hi > x ? g->rate_hi : x;
        }
      ops[k] = p->sum.per_container_ops;
      tot[k] = p->sum.total_ops_per_s;
      scal[k] = p->sum.scalability;
      fair[k] = p->sum.fairness;
      cpu[k] = p->sum.cpu_ns_per_op;
      k++;
    }
  g->n_measured = k;
  g->median.per_container_ops = median_finite (ops, k);
  g->median.total_ops_per_s = median_finite (tot, k);
  g->median.scalability = median_finite (scal, k);
  g->median.fairness = median_finite (fair, k);
  g->median.cpu_ns_per_op = median_finite (cpu, k);
  g->median.cv = NAN;
}

static size_t *
group_of (struct ucb_doc_point *p)
{
  return &p->group;
}

static size_t *
series_of (struct ucb_doc_point *p)
{
  return &p->series;
}

static size_t *
workload_id_of (struct ucb_doc_point *p)
{
  return &p->workload_id;
}

static void
index_points (struct ucb_doc *d)
{
  d->n_groups = classify (d, ucb_point_cmp, group_of, &d->by_identity);
  d->n_series = classify (d, ucb_point_series_cmp, series_of, NULL);
  d->n_workloads = classify (d, workload_cmp, workload_id_of, NULL);
  d->groups = xcalloc (d->n_groups + 1, sizeof *d->groups);
  for (size_t i = 0, start = 0; i < d->n_points; i++)
    if (i + 1 == d->n_points
        || d->points[d->by_identity[i + 1]].group != d->points[d->by_identity[i]].group)
      {
        group_stats (d, &d->groups[d->points[d->by_identity[i]].group], d->by_identity + start,
                     i + 1 - start);
        start = i + 1;
      }
  for (size_t i = 0; i < d->n_points; i++)
    {
      d->n_measured += d->points[i].measured;
      d->has_repeats = d->has_repeats || d->points[i].repeat > 1;
    }
}

const struct ucb_doc_group *
ucb_doc_find_group (const struct ucb_doc *d, const struct ucb_doc_point *p)
{
  size_t lo = 0, hi = d->n_points;

  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      int c = ucb_point_cmp (&d->points[d->by_identity[mid]], p);
      if (c == 0)
        return &d->groups[d->points[d->by_identity[mid]].group];
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

/* Append `flag` to the list in buf. */
static void
add_flag (char *buf, size_t len, const char *flag)
{
  size_t at = strlen (buf);
  snprintf (buf + at, len > at ? len - at : 0, "%s%s", at ? "," : "", flag);
}

bool
ucb_point_flags (const struct ucb_doc_point *p, char *buf, size_t len)
{
  if (len == 0)
    return false;
  buf[0] = '\0';
  if (p->contention.starved)
    add_flag (buf, len, "starved");
  if (p->contention.contended)
    add_flag (buf, len, "contended");
  if (p->contention.unjudged)
    add_flag (buf, len, "unjudged");
  if (p->canary.moved)
    add_flag (buf, len, "speed-moved");
  return buf[0] != '\0';
}

bool
ucb_point_cpu_doubtful (const struct ucb_doc_point *p)
{
  return p->contention.contended || p->contention.unjudged;
}

double
ucb_doc_canary_rate (const struct ucb_doc_canary *c)
{
  bool b = c->known && isfinite (c->before) && c->before > 0;
  bool a = c->known && isfinite (c->after) && c->after > 0;

  if (a && b)
    return sqrt (c->before * c->after);
  return b ? c->before : a ? c->after : NAN;
}

/* ---- verify[] ------------------------------------------------------------------------------- */

static const char *const worst_order[] = { "error", "fail", "known-bug", "skip", "pass" };

static const struct ucb_doc_case *sort_cases;

static int
cmp_case (const void *x, const void *y)
{
  size_t a = *(const size_t *) x, b = *(const size_t *) y;
  int c = strcmp (sort_cases[a].id, sort_cases[b].id);
  return c ? c : (a > b) - (a < b);
}

static size_t
rank (const char *status)
{
  size_t k = 0;
  while (k < UCB_ARRAY_SIZE (worst_order) && strcmp (status, worst_order[k]) != 0)
    k++;
  return k;
}

/* first and worst of every case: over the run of equal ids in id order. */
static void
index_cases (struct ucb_doc *d)
{
  d->by_id = xcalloc (d->n_cases + 1, sizeof *d->by_id);
  for (size_t i = 0; i < d->n_cases; i++)
    d->by_id[i] = i;
  sort_cases = d->cases;
  qsort (d->by_id, d->n_cases, sizeof *d->by_id, cmp_case);
  for (size_t i = 0, start = 0; i < d->n_cases; i++)
    if (i + 1 == d->n_cases || strcmp (d->cases[d->by_id[i + 1]].id, d->cases[d->by_id[i]].id) != 0)
      {
        size_t best = UCB_ARRAY_SIZE (worst_order);
        bool none_ran = true;
        for (size_t j = start; j <= i; j++)
          {
            best = rank (d->cases[d->by_id[j]].status) < best ? rank (d->cases[d->by_id[j]].status)
                                                              : best;
            none_ran = none_ran && d->cases[d->by_id[j]].not_run;
          }
        for (size_t j = start; j <= i; j++)
          {
            d->cases[d->by_id[j]].worst
                = best < UCB_ARRAY_SIZE (worst_order) ? worst_order[best] : NULL;
            d->cases[d->by_id[j]].none_ran = none_ran;
          }
        d->cases[d->by_id[start]].first = true;
        start = i + 1;
      }
}

/* known_bug {id, title, reference, url}: absent but for a known-bug case of a document that
 * names its bug. */
static const struct ucb_field_row known_bug_rows[] = {
  UCB_ROW (struct ucb_doc_case, bug_id, "id", UCB_J_STRING, false),
  UCB_ROW (struct ucb_doc_case, bug_title, "title", UCB_J_STRING, false),
  UCB_ROW (struct ucb_doc_case, bug_reference, "reference", UCB_J_STRING, false),
  UCB_ROW (struct ucb_doc_case, bug_url, "url", UCB_J_STRING_OR_NULL, true),
  { NULL },
};

static const struct ucb_field_row case_rows[] = {
  UCB_REQ (struct ucb_doc_case, id, UCB_J_STRING),
  UCB_REQ (struct ucb_doc_case, status, UCB_J_STRING),
  UCB_OPT (struct ucb_doc_case, name, UCB_J_STRING_OR_NULL),
  UCB_OPT (struct ucb_doc_case, rlimit, UCB_J_STRING_OR_NULL),
  UCB_OPT (struct ucb_doc_case, detail, UCB_J_STRING_OR_NULL),
  UCB_OPT (struct ucb_doc_case, checks, UCB_J_STRING_OR_NULL),
  UCB_OPT (struct ucb_doc_case, duration_s, UCB_J_NUMBER_OR_NULL),
  UCB_OPT (struct ucb_doc_case, not_run, UCB_J_BOOLEAN),
  { "known_bug", UCB_J_OBJECT, true, .sub = known_bug_rows },
  { NULL },
};

static int
load_cases (struct ucb_doc *d, json_t *arr, ucb_error_t *err)
{
  struct ucb_loc l = { .name = d->name };
  size_t i;
  json_t *v;

  d->has_verify = arr != NULL;
  d->n_cases = json_array_size (arr);
  d->cases = xcalloc (d->n_cases + 1, sizeof *d->cases);
  json_array_foreach (arr, i, v)
  {
    struct ucb_doc_case *c = &d->cases[i];
    snprintf (l.at, sizeof l.at, "verify[%zu]", i);
    if (!json_is_object (v))
      return ucb_schema_error (&l, err, "not an object");
    if (ucb_fields (&l, NULL, v, case_rows, c, err) < 0)
      return -1;
    /* Only a skip can be "not run": a document cannot turn a verdict into none. */
    if (c->not_run && strcmp (c->status, "skip") != 0)
      return ucb_schema_error (&l, err, "not_run is true but status is \"%s\", not \"skip\"",
                               c->status);
  }
  index_cases (d);
  return 0;
}

const struct ucb_doc_case *
ucb_doc_find_case (const struct ucb_doc *d, const char *id)
{
  size_t lo = 0, hi = d->n_cases;

  /* The lowest index among equal ids sorts first: find the leftmost match. */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp (d->cases[d->by_id[mid]].id, id) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < d->n_cases && strcmp (d->cases[d->by_id[lo]].id, id) == 0 ? &d->cases[d->by_id[lo]]
                                                                        : NULL;
}

/* ---- compare: documents that can be compared ------------------------------------------------ */

static bool
in_common (const struct ucb_doc *base, size_t nb, const struct ucb_doc *h)
{
  for (size_t k = 0; k < nb; k++)
    {
      for (size_t i = 0; i < h->n_points; i++)
        if (ucb_doc_find_group (&base[k], &h->points[i]))
          return true;
      for (size_t i = 0; i < h->n_cases; i++)
        if (ucb_doc_find_case (&base[k], h->cases[i].id))
          return true;
    }
  return false;
}

int
ucb_doc_comparable (const struct ucb_doc *base, size_t nb, const struct ucb_doc *head, size_t nh,
                    ucb_error_t *err)
{
  for (size_t k = 0; k < nb + nh; k++)
    {
      const struct ucb_doc *d = k < nb ? &base[k] : &head[k - nb];
      if (d->kind != base[0].kind)
        return ucb_usage_error (err,
                                "`%s` is a %s document and `%s` a %s one: compare documents of "
                                "one kind",
                                base[0].name, ucb_doc_kind_name (base[0].kind), d->name,
                                ucb_doc_kind_name (d->kind));
      if (d->n_points == 0 && d->n_cases == 0)
        return ucb_usage_error (err,
                                "`%s`: no results[] entry and no verify[] case: nothing to "
                                "compare",
                                d->name);
    }
  for (size_t k = 0; k < nh; k++)
    if (in_common (base, nb, &head[k]))
      return 0;
  return ucb_usage_error (
      err, "`%s`%s and `%s`%s have no %s in common: nothing to compare", base[0].name,
      nb > 1 ? " (and the other bases)" : "", head[0].name, nh > 1 ? " (and the other heads)" : "",
      base[0].kind == UCB_DOC_VERIFY ? "verify case"
                                     : "point (workload, containers, owner, depth, tasks, mode)");
}

/* ---- the document --------------------------------------------------------------------------- */

int
ucb_doc_load (json_t *json, const char *name, unsigned kinds, struct ucb_doc *d, ucb_error_t *err)
{
  json_t *results, *verify, *r;
  struct ucb_loc l = { .name = name };
  size_t i;

  memset (d, 0, sizeof *d);
  /* The schema's ranges first, over the whole document: every reader refuses alike. */
  if (ucb_doc_check_ranges (json, name, err) < 0)
    return -1;
  d->json = json_incref (json);
  d->name = name;
  if (ucb_doc_load_top (d, kinds, &results, &verify, err) < 0)
    {
      ucb_doc_free (d);
      return -1;
    }
  d->n_points = json_array_size (results);
  d->points = xcalloc (d->n_points + 1, sizeof *d->points);
  json_array_foreach (results, i, r)
  {
    snprintf (l.at, sizeof l.at, "results[%zu]", i);
    if (load_point (&l, r, &d->points[i], err) < 0)
      {
        ucb_doc_free (d);
        return -1;
      }
  }
  index_points (d);
  if (load_cases (d, verify, err) < 0)
    {
      ucb_doc_free (d);
      return -1;
    }
  return 0;
}

bool
ucb_doc_built (json_t *json, struct ucb_doc *d)
{
  json_t *doc
      = json_is_array (json)
            ? ucb_json_checked (json_pack ("{s:s, s:O}", "schema", UCB_SCHEMA, "results", json))
            : json_incref (json);
  ucb_error_t err = NULL;
  int r = ucb_doc_load (doc, "(document)", UCB_DOC_ANY, d, &err);

  json_decref (doc);
  if (r == 0)
    return true;
  fprintf (stderr, "ucbench: internal error: %s\n", err->msg);
  ucb_error_free (&err);
  return false;
}

void
ucb_doc_free (struct ucb_doc *d)
{
  for (size_t i = 0; i < d->n_points; i++)
    {
      free (d->points[i].pc);
      free (d->points[i].intervals);
    }
  for (size_t i = 0; i < d->n_groups; i++)
    free (d->groups[i].rates);
  free (d->points);
  free (d->groups);
  free (d->by_identity);
  free (d->cases);
  free (d->by_id);
  json_decref (d->json);
  memset (d, 0, sizeof *d);
}
