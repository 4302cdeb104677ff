/* export.c - `ucbench export --to FORMAT FILE.json`: a result document, read through the model
 * (report/model.h), as CI dashboards read it. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/docload.h"
#include "report/export.h"
#include "report/model.h"
#include "report/report.h"

const char *const ucb_export_format_names[UCB_EXPORT_N]
    = { "gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap" };

/* The stable name of a sweep point; `repeat` 0 leaves the repetition out. */
static char *
point_name (const struct ucb_doc_point *p, long long repeat)
{
  char *base = xasprintf ("%s/%s/depth:%lld/tasks:%lld/%s/containers:%lld", p->workload, p->owner,
                          p->depth, p->tasks, p->mode, p->containers);
  char *s;

  if (repeat == 0)
    return base;
  s = xasprintf ("%s/repeat:%lld", base, repeat);
  free (base);
  return s;
}

/* Statistics of a per-container figure over the containers where it is not null. */
static void
container_stats (const struct ucb_doc_point *p, bool cpu, struct ucb_stats *st)
{
  cleanup_free double *v = xcalloc (p->n_pc + 1, sizeof *v);
  size_t n = 0;

  for (size_t i = 0; i < p->n_pc; i++)
    {
      double x = cpu ? p->pc[i].cpu_ns_per_op : p->pc[i].rate_ops_per_s;
      if (isfinite (x))
        v[n++] = x;
    }
  ucb_stats_compute (v, n, st);
}

static size_t
sample_count (const struct ucb_doc_point *p)
{
  size_t n = 0;
  for (size_t i = 0; i < p->n_pc; i++)
    n += p->pc[i].n_samples;
  return n;
}

/* ---- github-action-benchmark ---------------------------------------------------------------- */

static json_t *
gab_entry (const struct ucb_doc_point *p, bool smaller, bool repeats)
{
  cleanup_free char *name = point_name (p, repeats ? p->repeat : 0);
  cleanup_free char *extra = NULL;
  json_t *o = ucb_json_obj ();
  const char *spread = "containers";
  struct ucb_stats st;
  double sd;
  char buf[64];

  container_stats (p, smaller, &st);
  sd = st.stddev;
  /* One container has no spread across containers: fall back to its interval samples. */
  if (!isfinite (sd) && !smaller)
    {
      sd = p->pc[0].ops_per_s_stddev;
      spread = "samples";
    }
  ucb_json_set (o, "name", ucb_json_str (name));
  ucb_json_set (o, "unit", ucb_json_str (smaller ? "ns/op" : "ops/s"));
  ucb_json_set (o, "value",
                ucb_json_real (smaller ? p->sum.cpu_ns_per_op : p->sum.per_container_ops));
  if (isfinite (sd))
    {
      snprintf (buf, sizeof buf, "± %.1f", sd);
      ucb_json_set (o, "range", ucb_json_str (buf));
    }
  extra = xasprintf ("total: %.1f ops/s\ncontainers: %lld x %lld tasks\nsamples: %zu",
                     p->sum.total_ops_per_s, p->containers, p->tasks, sample_count (p));
  if (isfinite (sd))
    ucb_json_set (o, "extra",
                  ucb_json_checked (json_sprintf ("%s\nrange: stddev across %s", extra, spread)));
  else
    ucb_json_set (o, "extra", ucb_json_str (extra));
  return o;
}

static json_t *
export_gab (const struct ucb_doc *d, bool smaller)
{
  json_t *arr = ucb_json_arr ();

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      if (p->measured && (!smaller || isfinite (p->sum.cpu_ns_per_op)))
        ucb_json_push (arr, gab_entry (p, smaller, d->has_repeats));
    }
  return arr;
}

/* ---- Bencher Metric Format ------------------------------------------------------------------ */

static json_t *
bmf_measure (double value, const struct ucb_stats *st)
{
  json_t *m = ucb_json_obj ();

  ucb_json_set (m, "value", ucb_json_real (value));
  if (st->n > 0)
    {
      ucb_json_set (m, "lower_value", ucb_json_real (st->min));
      ucb_json_set (m, "upper_value", ucb_json_real (st->max));
    }
  return m;
}

static json_t *
export_bmf (const struct ucb_doc *d)
{
  json_t *out = ucb_json_obj ();

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      cleanup_free char *name = NULL;
      struct ucb_stats st;
      json_t *b;

      if (!p->measured)
        continue;
      name = point_name (p, d->has_repeats ? p->repeat : 0);
      b = ucb_json_obj ();
      container_stats (p, false, &st);
      ucb_json_set (b, "throughput", bmf_measure (p->sum.per_container_ops, &st));
      if (isfinite (p->sum.cpu_ns_per_op))
        {
          container_stats (p, true, &st);
          ucb_json_set (b, "latency", bmf_measure (p->sum.cpu_ns_per_op, &st));
        }
      ucb_json_set (out, name, b);
    }
  return out;
}

/* ---- Google Benchmark ----------------------------------------------------------------------- */

static json_t *
gbench_context (const struct ucb_doc *d)
{
  json_t *c = ucb_json_obj ();

  ucb_json_set (c, "date", ucb_json_str (d->start_time ?: ""));
  ucb_json_set (c, "host_name", ucb_json_str (d->host.hostname ?: ""));
  ucb_json_set (c, "executable", ucb_json_str ("ucbench"));
  ucb_json_set (c, "num_cpus", ucb_json_int (d->host.cpus_online < 0 ? 0 : d->host.cpus_online));
  ucb_json_set (c, "mhz_per_cpu", ucb_json_int (0));
  ucb_json_set (c, "cpu_scaling_enabled", json_false ());
  ucb_json_set (c, "caches", ucb_json_arr ());
  ucb_json_set (c, "library_build_type", ucb_json_str ("release"));
  ucb_json_set (c, "json_schema_version", ucb_json_int (1));
  return c;
}

static json_t *
gbench_row (const struct ucb_doc *d, const struct ucb_doc_point *p, size_t family, size_t instance)
{
  cleanup_free char *name = point_name (p, 0);
  json_t *o = ucb_json_obj ();
  long long ops = 0;
  double per = p->sum.per_container_ops;

  for (size_t j = 0; j < p->n_pc; j++)
    ops += p->pc[j].ops;
  ucb_json_set (o, "name", ucb_json_str (name));
  ucb_json_set (o, "family_index", ucb_json_int ((long long) family));
  ucb_json_set (o, "per_family_instance_index", ucb_json_int ((long long) instance));
  ucb_json_set (o, "run_name", ucb_json_str (name));
  ucb_json_set (o, "run_type", ucb_json_str ("iteration"));
  ucb_json_set (o, "repetitions", ucb_json_int ((long long) d->groups[p->group].n_measured));
  ucb_json_set (o, "repetition_index", ucb_json_int (p->repeat - 1));
  ucb_json_set (o, "threads", ucb_json_int (p->containers * p->tasks));
  ucb_json_set (o, "iterations", ucb_json_int (ops));
  ucb_json_set (o, "real_time", ucb_json_real (per > 0 ? 1e9 / per : NAN));
  /* Omitted rather than invented when no task could read its CPU clock. */
  if (isfinite (p->sum.cpu_ns_per_op))
    ucb_json_set (o, "cpu_time", ucb_json_real (p->sum.cpu_ns_per_op));
  ucb_json_set (o, "time_unit", ucb_json_str ("ns"));
  return o;
}

static json_t *
export_gbench (const struct ucb_doc *d)
{
  json_t *out = ucb_json_obj (), *rows = ucb_json_arr ();
  /* A family is a workload (one BENCHMARK()); its instances are its points, both numbered in
   * the order they first appear. */
  cleanup_free size_t *family = xcalloc (d->n_workloads + 1, sizeof *family);
  cleanup_free size_t *instances = xcalloc (d->n_workloads + 1, sizeof *instances);
  cleanup_free size_t *instance = xcalloc (d->n_groups + 1, sizeof *instance);
  size_t families = 0;

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      if (!p->measured)
        continue;
      if (family[p->workload_id] == 0)
        family[p->workload_id] = ++families;
      if (instance[p->group] == 0)
        instance[p->group] = ++instances[p->workload_id];
      ucb_json_push (rows, gbench_row (d, p, family[p->workload_id] - 1, instance[p->group] - 1));
    }
  ucb_json_set (out, "context", gbench_context (d));
  ucb_json_set (out, "benchmarks", rows);
  return out;
}

/* ---- LKP ------------------------------------------------------------------------------------ */

static void
export_lkp (FILE *f, const struct ucb_doc *d)
{
  static const char *const fields[]
      = { "per_container_ops", "total_ops_per_s", "scalability", "fairness", "cpu_ns_per_op" };
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      const struct ucb_doc_summary *m = &d->groups[p->group].median;
      cleanup_free char *prefix = NULL, *dpart = NULL, *tpart = NULL, *mpart = NULL;
      double v[UCB_ARRAY_SIZE (fields)];

      if (!p->measured || seen[p->group])
        continue; /* a repeat: already printed as the median */
      seen[p->group] = true;
      v[0] = m->per_container_ops;
      v[1] = m->total_ops_per_s;
      v[2] = m->scalability;
      v[3] = m->fairness;
      v[4] = m->cpu_ns_per_op;
      /* Only what differs from the defaults, so that plain runs keep LKP-like short keys. */
      dpart = p->depth != 1 ? xasprintf (".d%lld", p->depth) : xstrdup ("");
      tpart = p->tasks != 1 ? xasprintf (".t%lld", p->tasks) : xstrdup ("");
      mpart = strcmp (p->mode, "process") != 0 ? xasprintf (".%s", p->mode) : xstrdup ("");
      prefix = xasprintf ("ucbench.%s.%s%s%s%s.%lld", p->workload, p->owner, dpart, tpart, mpart,
                          p->containers);
      for (size_t k = 0; k < UCB_ARRAY_SIZE (fields); k++)
        if (isfinite (v[k]))
          fprintf (f, "%s.%s: %.10g\n", prefix, fields[k], v[k]);
    }
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/* What the format needs from the document beyond its kind (the loader checks that); a usage
 * error naming the file otherwise. */
static int
check_input (enum ucb_export_format format, const struct ucb_doc *d, ucb_error_t *err)
{
  if (format == UCB_EXPORT_JUNIT || format == UCB_EXPORT_KTAP)
    return 0;
  if (d->n_measured == 0)
    return ucb_usage_error (err,
                            "%s: no measured results[] entry (status ok) to export as %s "
                            "(a verify document?)",
                            d->name, ucb_export_format_names[format]);
  return 0;
}

static int
write_text (enum ucb_export_format format, const struct ucb_doc *d, const char *output,
            ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);
  cleanup_file FILE *f = NULL;

  if (m == NULL)
    ucb_oom ();
  if (format == UCB_EXPORT_LKP)
    export_lkp (m, d);
  else if (format == UCB_EXPORT_JUNIT)
    ucb_export_junit_doc (m, d);
  else
    ucb_export_ktap_doc (m, d);
  if (fclose (m) != 0)
    ucb_oom ();
  if (output == NULL)
    {
      if (fwrite (buf, 1, len, stdout) != len || fflush (stdout) != 0)
        return ucb_make_error (err, errno, "write to stdout");
      return 0;
    }
  f = fopen (output, "w");
  if (f == NULL)
    return ucb_make_error (err, errno, "open `%s`", output);
  if (fwrite (buf, 1, len, f) != len || fflush (f) != 0)
    return ucb_make_error (err, errno, "write `%s`", output);
  if (fclose (steal_pointer (&f)) != 0)
    return ucb_make_error (err, errno, "close `%s`", output);
  return 0;
}

int
ucb_export (enum ucb_export_format format, const char *input, const char *output, ucb_error_t *err)
{
  struct ucb_doc d;
  json_t *out = NULL;
  int ret;

  if (ucb_doc_open (input,
                    format == UCB_EXPORT_JUNIT || format == UCB_EXPORT_KTAP ? UCB_DOC_VERIFY
                                                                            : UCB_DOC_RUN,
                    &d, err)
      < 0)
    return -1;
  if (check_input (format, &d, err) < 0)
    {
      ucb_doc_free (&d);
      return -1;
    }
  if (format == UCB_EXPORT_GAB || format == UCB_EXPORT_GAB_SMALLER)
    out = export_gab (&d, format == UCB_EXPORT_GAB_SMALLER);
  else if (format == UCB_EXPORT_BMF)
    out = export_bmf (&d);
  else if (format == UCB_EXPORT_GBENCH)
    out = export_gbench (&d);
  if (out == NULL)
    ret = write_text (format, &d, output, err);
  else if (output)
    ret = ucb_report_write_file (out, output, err);
  else
    ret = ucb_json_write (out, stdout, err);
  json_decref (out);
  ucb_doc_free (&d);
  return ret < 0 ? -1 : 0;
}
