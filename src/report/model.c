/* model.c - loading a ucbench-result/1 document into the structures of model.h, once, with a
 * one-line schema error naming the field; point identity, groups of repeats, series and
 * scalability computed here for every reader. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/model.h"

/* Where the loader is in the document, for messages: "results[3].per_container[1]". */
struct loc
{
  const char *name;
  char at[160];
};

static int __attribute__ ((format (printf, 3, 4)))
schema_error (const struct loc *l, ucb_error_t *err, const char *fmt, ...)
{
  char what[160];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  return ucb_usage_error (err, "`%s`: %s: %s", l->name, l->at, what);
}

/* The JSON types the loader asks for, with the words of its messages. */
enum jtype
{
  J_STRING,
  J_INTEGER,
  J_NUMBER,
  J_NUMBER_OR_NULL,
  J_ARRAY,
  J_OBJECT,
};
static const char *const jtype_words[]
    = { "a string", "an integer", "a number", "a number or null", "an array", "an object" };

static bool
has_type (const json_t *v, enum jtype t)
{
  switch (t)
    {
    case J_STRING:
      return json_is_string (v);
    case J_INTEGER:
      return json_is_integer (v);
    case J_NUMBER:
      return json_is_number (v);
    case J_NUMBER_OR_NULL:
      return json_is_number (v) || json_is_null (v);
    case J_ARRAY:
      return json_is_array (v);
    case J_OBJECT:
    default:
      return json_is_object (v);
    }
}

/* `key` of object `o`, required and of type `t`. */
static int
field (const struct loc *l, json_t *o, const char *key, enum jtype t, json_t **out,
       ucb_error_t *err)
{
  json_t *v = json_object_get (o, key);

  *out = v;
  if (v == NULL)
    return schema_error (l, err, "missing \"%s\" (%s)", key, jtype_words[t]);
  if (!has_type (v, t))
    return schema_error (l, err, "\"%s\" is not %s", key, jtype_words[t]);
  return 0;
}

static int
req_str (const struct loc *l, json_t *o, const char *key, const char **out, ucb_error_t *err)
{
  json_t *v;
  int r = field (l, o, key, J_STRING, &v, err);
  *out = json_string_value (v);
  return r;
}

static int
req_int (const struct loc *l, json_t *o, const char *key, long long *out, ucb_error_t *err)
{
  json_t *v;
  int r = field (l, o, key, J_INTEGER, &v, err);
  *out = json_integer_value (v);
  return r;
}

/* A number, or NaN for null when `nullable`. */
static int
req_num (const struct loc *l, json_t *o, const char *key, bool nullable, double *out,
         ucb_error_t *err)
{
  json_t *v;
  int r = field (l, o, key, nullable ? J_NUMBER_OR_NULL : J_NUMBER, &v, err);
  *out = json_is_number (v) ? json_number_value (v) : NAN;
  return r;
}

static const char *
opt_str (json_t *o, const char *key)
{
  return json_string_value (json_object_get (o, key));
}

static double
opt_num (json_t *o, const char *key)
{
  json_t *v = json_object_get (o, key);
  return json_is_number (v) ? json_number_value (v) : NAN;
}

static long long
opt_int (json_t *o, const char *key, long long dflt)
{
  json_t *v = json_object_get (o, key);
  return json_is_integer (v) ? json_integer_value (v) : dflt;
}

/* ---- results[] ------------------------------------------------------------------------------ */

/* Container `c`; `rates` gets samples[].ops_per_s (NaN for null), `n_rates` entries. */
static int
load_container (struct loc *l, json_t *c, struct ucb_doc_container *out, double **rates,
                ucb_error_t *err)
{
  json_t *stats, *samples, *s;
  size_t j;
  int at = (int) strlen (l->at);

  if (!json_is_object (c))
    return schema_error (l, err, "not an object");
  if (req_int (l, c, "ops", &out->ops, err) < 0
      || req_num (l, c, "rate_ops_per_s", false, &out->rate_ops_per_s, err) < 0
      || req_num (l, c, "cpu_ns_per_op", true, &out->cpu_ns_per_op, err) < 0
      || field (l, c, "ops_per_s", J_OBJECT, &stats, err) < 0
      || field (l, c, "samples", J_ARRAY, &samples, err) < 0)
    return -1;
  snprintf (l->at + at, sizeof l->at - (size_t) at, ".ops_per_s");
  if (req_num (l, stats, "stddev", true, &out->ops_per_s_stddev, err) < 0)
    return -1;
  out->n_samples = json_array_size (samples);
  *rates = xcalloc (out->n_samples + 1, sizeof **rates);
  json_array_foreach (samples, j, s)
  {
    snprintf (l->at + at, sizeof l->at - (size_t) at, ".samples[%zu]", j);
    if (!json_is_object (s))
      return schema_error (l, err, "not an object");
    if (req_num (l, s, "ops_per_s", true, &(*rates)[j], err) < 0)
      return -1;
  }
  l->at[at] = '\0';
  return 0;
}

/* per_container[] and the interval rates drawn from it. */
static int
load_containers (struct loc *l, json_t *arr, struct ucb_doc_point *p, ucb_error_t *err)
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

static int
load_summary (const struct loc *l, json_t *s, struct ucb_doc_summary *out, ucb_error_t *err)
{
  if (req_num (l, s, "total_ops_per_s", true, &out->total_ops_per_s, err) < 0
      || req_num (l, s, "per_container_ops", true, &out->per_container_ops, err) < 0
      || req_num (l, s, "scalability", true, &out->scalability, err) < 0
      || req_num (l, s, "fairness", true, &out->fairness, err) < 0
      || req_num (l, s, "cv", true, &out->cv, err) < 0
      || req_num (l, s, "cpu_ns_per_op", true, &out->cpu_ns_per_op, err) < 0
      || req_int (l, s, "failed_ops", &out->failed_ops, err) < 0)
    return -1;
  return 0;
}

/* Optional: documents before contention was measured lack it. */
static void
load_contention (json_t *c, struct ucb_doc_contention *out)
{
  out->known = json_is_object (c);
  out->contended = json_is_true (json_object_get (c, "contended"));
  out->owns_cpu = json_is_true (json_object_get (c, "owns_cpu"));
  out->cpu_share_median = opt_num (c, "cpu_share_median");
  out->steal_pct_max = opt_num (c, "steal_pct_max");
  out->idle_pct_min = opt_num (c, "idle_pct_min");
}

static int
load_point (struct loc *l, json_t *r, struct ucb_doc_point *p, ucb_error_t *err)
{
  json_t *pcs, *sum, *pl;
  int at = (int) strlen (l->at);

  p->json = r;
  if (!json_is_object (r))
    return schema_error (l, err, "not an object");
  if (req_str (l, r, "workload", &p->workload, err) < 0
      || req_int (l, r, "containers", &p->containers, err) < 0
      || req_str (l, r, "owner", &p->owner, err) < 0 || req_int (l, r, "depth", &p->depth, err) < 0
      || req_int (l, r, "tasks", &p->tasks, err) < 0 || req_str (l, r, "mode", &p->mode, err) < 0
      || req_int (l, r, "repeat", &p->repeat, err) < 0
      || req_str (l, r, "status", &p->status, err) < 0
      || field (l, r, "per_container", J_ARRAY, &pcs, err) < 0
      || field (l, r, "summary", J_OBJECT, &sum, err) < 0)
    return -1;
  p->reason = opt_str (r, "reason");
  if (load_containers (l, pcs, p, err) < 0)
    return -1;
  snprintf (l->at + at, sizeof l->at - (size_t) at, ".summary");
  if (load_summary (l, sum, &p->sum, err) < 0)
    return -1;
  l->at[at] = '\0';
  load_contention (json_object_get (r, "contention"), &p->contention);
  pl = json_object_get (r, "placement");
  p->l3 = json_is_object (pl) && json_is_integer (json_object_get (pl, "l3_domains"));
  if (p->l3)
    {
      p->l3_domains = json_object_get (pl, "l3_domains");
      p->cores = json_object_get (pl, "cores");
      p->cpus = json_object_get (pl, "cpus");
    }
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

void
ucb_doc_scalability (const struct ucb_doc *d, double *out)
{
  cleanup_free double *base = xcalloc (d->n_points + 1, sizeof *base);
  cleanup_free double *one = xcalloc (d->n_series + 1, sizeof *one);
  cleanup_free size_t *idx = xcalloc (d->n_points + 1, sizeof *idx);
  size_t n = 0;

  /* The 1-container points with a total, series by series. */
  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].containers == 1 && isfinite (d->points[i].sum.total_ops_per_s))
      idx[n++] = i;
  sort_points = d->points;
  sort_cmp = ucb_point_series_cmp;
  qsort (idx, n, sizeof *idx, cmp_index);
  for (size_t s = 0; s < d->n_series; s++)
    one[s] = NAN;
  for (size_t i = 0, start = 0; i < n; i++)
    {
      base[i] = d->points[idx[i]].sum.total_ops_per_s;
      if (i + 1 == n || d->points[idx[i + 1]].series != d->points[idx[i]].series)
        {
          one[d->points[idx[i]].series] = ucb_median (base + start, i + 1 - start);
          start = i + 1;
        }
    }
  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      double b = one[p->series], total = p->sum.total_ops_per_s;
      /* A null total (a skipped point) counts as 0, as it always has. */
      out[i] = b > 0 && p->containers > 0
                   ? (isfinite (total) ? total : 0) / ((double) p->containers * b)
                   : NAN;
    }
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
        for (size_t j = start; j <= i; j++)
          best = rank (d->cases[d->by_id[j]].status) < best ? rank (d->cases[d->by_id[j]].status)
                                                            : best;
        for (size_t j = start; j <= i; j++)
          d->cases[d->by_id[j]].worst
              = best < UCB_ARRAY_SIZE (worst_order) ? worst_order[best] : NULL;
        d->cases[d->by_id[start]].first = true;
        start = i + 1;
      }
}

static int
load_cases (struct ucb_doc *d, json_t *arr, ucb_error_t *err)
{
  struct loc l = { .name = d->name };
  size_t i;
  json_t *v;

  d->has_verify = json_is_array (arr);
  d->n_cases = json_array_size (arr);
  d->cases = xcalloc (d->n_cases + 1, sizeof *d->cases);
  json_array_foreach (arr, i, v)
  {
    struct ucb_doc_case *c = &d->cases[i];
    snprintf (l.at, sizeof l.at, "verify[%zu]", i);
    if (!json_is_object (v))
      return schema_error (&l, err, "not an object");
    if (req_str (&l, v, "id", &c->id, err) < 0 || req_str (&l, v, "status", &c->status, err) < 0)
      return -1;
    c->name = opt_str (v, "name");
    c->rlimit = opt_str (v, "rlimit");
    c->detail = opt_str (v, "detail");
    c->checks = opt_str (v, "checks");
    c->duration_s = opt_num (v, "duration_s");
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

/* ---- the document --------------------------------------------------------------------------- */

static void
load_host_config (struct ucb_doc *d)
{
  json_t *h = json_object_get (d->json, "host"), *c = json_object_get (d->json, "config");
  json_t *km = json_object_get (d->json, "kernel_matrix");

  d->host.hostname = opt_str (h, "hostname");
  d->host.kernel_release = opt_str (json_object_get (h, "kernel"), "release");
  d->host.cpu_model = opt_str (h, "cpu_model");
  d->host.virtualization = opt_str (h, "virtualization");
  d->host.cpus_online = opt_int (h, "cpus_online", -1);
  d->host.cpus_allowed = opt_int (h, "cpus_allowed", -1);
  d->config.duration_s = opt_num (c, "duration_s");
  d->config.warmup_s = opt_num (c, "warmup_s");
  d->config.interval_s = opt_num (c, "interval_s");
  d->config.repeat = opt_int (c, "repeat", 1);
  d->config.workloads = json_object_get (c, "workloads");
  d->config.containers = json_object_get (c, "containers");
  d->config.owners = json_object_get (c, "owners");
  d->config.depths = json_object_get (c, "depths");
  d->config.tasks = json_object_get (c, "tasks");
  d->start_time = opt_str (json_object_get (d->json, "run"), "start_time");
  d->emulated_timing = json_is_true (json_object_get (km, "emulated_timing"));
  d->emulated_where = opt_str (km, "where");
}

int
ucb_doc_load (json_t *json, const char *name, struct ucb_doc *d, ucb_error_t *err)
{
  json_t *results = json_object_get (json, "results"), *r;
  struct loc l = { .name = name };
  size_t i;

  memset (d, 0, sizeof *d);
  d->json = json_incref (json);
  d->name = name;
  if (results && !json_is_array (results))
    {
      ucb_usage_error (err, "`%s`: \"results\" is not an array", name);
      ucb_doc_free (d);
      return -1;
    }
  load_host_config (d);
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
  if (load_cases (d, json_object_get (json, "verify"), err) < 0)
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
  int r = ucb_doc_load (doc, "(document)", d, &err);

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
