/* SPDX-License-Identifier: GPL-2.0-or-later */
/* export.c - `ucbench export --to FORMAT FILE.json`: a result document, read through the model
 * (report/model.h), as CI dashboards read it. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/doc-file.h"
#include "report/export.h"
#include "report/flags.h"
#include "report/meanings.h"
#include "report/model.h"
#include "report/output.h"

const char *const ucb_export_format_names[UCB_EXPORT_N]
    = { "gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap", "kcidb", "lava" };
const char ucb_export_format_list[]
    = "gab, gab-smaller, bmf, gbench, lkp, junit, ktap, kcidb or lava";

/* The stable name of a sweep point: the same with and without --repeat (its repeats are one
 * series, their median). */
static char *
point_name (const struct ucb_doc_point *p)
{
  return xasprintf ("%s/%s/depth:%lld/tasks:%lld/%s/containers:%lld", p->workload, p->owner,
                    p->depth, p->tasks, p->mode, p->containers);
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

enum figure
{
  FIG_PER_CONTAINER, /* summary.per_container_ops */
  FIG_CPU,           /* summary.cpu_ns_per_op */
  FIG_REAL_NS,       /* 1e9 / summary.total_ops_per_s: wall ns per op of all tasks */
};

static double
figure_of (const struct ucb_doc_summary *s, enum figure f)
{
  if (f == FIG_PER_CONTAINER)
    return s->per_container_ops;
  if (f == FIG_CPU)
    return s->cpu_ns_per_op;
  return s->total_ops_per_s > 0 ? 1e9 / s->total_ops_per_s : NAN;
}

/* Statistics of a figure over the measured repeats of group g (where it is not null). */
static void
repeat_stats (const struct ucb_doc *d, size_t g, enum figure f, struct ucb_stats *st)
{
  cleanup_free double *v = xcalloc (d->n_points + 1, sizeof *v);
  size_t n = 0;

  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].group == g && d->points[i].measured)
      {
        double x = figure_of (&d->points[i].sum, f);
        if (isfinite (x))
          v[n++] = x;
      }
  ucb_stats_compute (v, n, st);
}

/* The first measured point of each group, in document order: points[i] is one when
 * first_of_group (d, seen, i); `seen` has n_groups entries. */
static bool
first_of_group (const struct ucb_doc *d, bool *seen, size_t i)
{
  const struct ucb_doc_point *p = &d->points[i];

  if (!p->measured || seen[p->group])
    return false;
  seen[p->group] = true;
  return true;
}

static size_t
group_samples (const struct ucb_doc *d, size_t g)
{
  size_t n = 0;
  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].group == g && d->points[i].measured)
      for (size_t j = 0; j < d->points[i].n_pc; j++)
        n += d->points[i].pc[j].n_samples;
  return n;
}

/* ---- github-action-benchmark ---------------------------------------------------------------- */

/* range: with repeats, half their spread (max - min); else the stddev across containers (of
 * the interval samples for 1 container; none for CPU ns/op of 1 container). */
static double
gab_range (const struct ucb_doc *d, const struct ucb_doc_point *p, bool smaller, char **how)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  struct ucb_stats st;

  if (gr->n_measured > 1)
    {
      repeat_stats (d, p->group, smaller ? FIG_CPU : FIG_PER_CONTAINER, &st);
      *how = xasprintf ("half the spread of %zu repeats: %.1f .. %.1f", st.n, st.min, st.max);
      return st.n > 1 ? (st.max - st.min) / 2 : NAN;
    }
  container_stats (p, smaller, &st);
  if (isfinite (st.stddev) || smaller)
    {
      *how = xstrdup ("stddev across containers");
      return st.stddev;
    }
  *how = xstrdup ("stddev across samples");
  return p->pc[0].ops_per_s_stddev;
}

/* extra: what the dashboard shows beside the value (github-action-benchmark keeps it as is, a
 * tooltip line each); a flagged point says so on its last line. */
static json_t *
gab_entry (const struct ucb_doc *d, const struct ucb_doc_point *p, bool smaller,
           const struct ucb_flags *fl)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  cleanup_free char *name = point_name (p), *extra = NULL, *how = NULL, *ranged = NULL;
  json_t *o = ucb_json_obj ();
  double range = gab_range (d, p, smaller, &how);
  char buf[64], flags[UCB_FLAGS_TEXT_MAX];

  ucb_json_set (o, "name", ucb_json_str (name));
  ucb_json_set (o, "unit", ucb_json_str (smaller ? "ns/op" : "ops/s"));
  ucb_json_set (o, "value",
                ucb_json_real (smaller ? gr->median.cpu_ns_per_op : gr->median.per_container_ops));
  if (isfinite (range))
    {
      snprintf (buf, sizeof buf, "± %.1f", range);
      ucb_json_set (o, "range", ucb_json_str (buf));
    }
  extra = xasprintf ("total: %.1f ops/s\ncontainers: %lld x %lld tasks\nrepeats: %zu (median)\n"
                     "samples: %zu",
                     gr->median.total_ops_per_s, p->containers, p->tasks, gr->n_measured,
                     group_samples (d, p->group));
  ranged = isfinite (range) ? xasprintf ("%s\nrange: %s", extra, how) : xstrdup (extra);
  ucb_flags_text (fl, flags, sizeof flags);
  if (*flags)
    ucb_json_set (o, "extra", ucb_json_fmt ("%s\n%s%s", ranged, ucb_point_rows[1].gab, flags));
  else
    ucb_json_set (o, "extra", ucb_json_str (ranged));
  return o;
}

static json_t *
export_gab (const struct ucb_doc *d, bool smaller, const struct ucb_flags *fl)
{
  json_t *arr = ucb_json_arr ();
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    if (first_of_group (d, seen, i)
        && (!smaller || isfinite (d->groups[d->points[i].group].median.cpu_ns_per_op)))
      ucb_json_push (arr, gab_entry (d, &d->points[i], smaller, &fl[d->points[i].group]));
  if (!smaller)
    ucb_export_contrast_gab (d, arr);
  return arr;
}

/* ---- Bencher Metric Format ------------------------------------------------------------------ */

/* value: the median over repeats; lower/upper: the smallest and largest repeat, or with one
 * repeat, the smallest and largest container. */
static json_t *
bmf_measure (const struct ucb_doc *d, const struct ucb_doc_point *p, bool cpu)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  json_t *m = ucb_json_obj ();
  struct ucb_stats st;

  ucb_json_set (m, "value",
                ucb_json_real (cpu ? gr->median.cpu_ns_per_op : gr->median.per_container_ops));
  if (gr->n_measured > 1)
    repeat_stats (d, p->group, cpu ? FIG_CPU : FIG_PER_CONTAINER, &st);
  else
    container_stats (p, cpu, &st);
  if (st.n > 0)
    {
      ucb_json_set (m, "lower_value", ucb_json_real (st.min));
      ucb_json_set (m, "upper_value", ucb_json_real (st.max));
    }
  return m;
}

static json_t *
export_bmf (const struct ucb_doc *d, const struct ucb_flags *fl)
{
  json_t *out = ucb_json_obj ();
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      cleanup_free char *name = NULL;
      json_t *b;

      if (!first_of_group (d, seen, i))
        continue;
      name = point_name (p);
      /* Bencher strips the suffix (the same benchmark, its history kept) and raises no alert
       * on the value (bencher_json BenchmarkName to_strip_ignore); a BMF measure holds numbers
       * only, so the name is the one place for it. */
      if (fl[p->group].n_flagged > 0)
        {
          char *ignored = xasprintf ("%s%s", name, ucb_point_rows[1].bmf);
          free (name);
          name = ignored;
        }
      b = ucb_json_obj ();
      /* Bencher's throughput measure is operations / second. */
      ucb_json_set (b, "throughput", bmf_measure (d, p, false));
      /* CPU time per op, not Bencher's latency (wall time per iteration): its own measure,
       * named as the JSON key. */
      if (isfinite (d->groups[p->group].median.cpu_ns_per_op))
        ucb_json_set (b, "cpu_ns_per_op", bmf_measure (d, p, true));
      ucb_json_set (out, name, b);
    }
  ucb_export_contrast_bmf (d, out);
  return out;
}

/* ---- Google Benchmark ----------------------------------------------------------------------- */

/* What json_reporter.cc writes that the document knows; nothing invented (no CPU MHz, no
 * scaling governor, no caches). */
static json_t *
gbench_context (const struct ucb_doc *d)
{
  json_t *c = ucb_json_obj ();

  if (d->start_time)
    ucb_json_set (c, "date", ucb_json_str (d->start_time));
  if (d->host.hostname)
    ucb_json_set (c, "host_name", ucb_json_str (d->host.hostname));
  ucb_json_set (c, "executable", ucb_json_str ("ucbench"));
  if (d->host.cpus_online > 0)
    ucb_json_set (c, "num_cpus", ucb_json_int (d->host.cpus_online));
  ucb_json_set (c, "json_schema_version", ucb_json_int (1));
  return c;
}

struct gbench_ids
{
  size_t family, instance, repetitions;
};

static json_t *
gbench_common (const struct ucb_doc_point *p, const struct gbench_ids *id, const char *suffix)
{
  cleanup_free char *name = point_name (p);
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "name", ucb_json_fmt ("%s%s", name, suffix));
  ucb_json_set (o, "family_index", ucb_json_int ((long long) id->family));
  ucb_json_set (o, "per_family_instance_index", ucb_json_int ((long long) id->instance));
  ucb_json_set (o, "run_name", ucb_json_str (name));
  ucb_json_set (o, "run_type", ucb_json_str (*suffix ? "aggregate" : "iteration"));
  ucb_json_set (o, "repetitions", ucb_json_int ((long long) id->repetitions));
  /* Saturated: Google Benchmark's counts are int64 (docs/exporters.md). */
  ucb_json_set (o, "threads", ucb_json_int (ucb_count_mul (p->containers, p->tasks)));
  return o;
}

/* One repeat.  As Google Benchmark counts a threaded run: iterations = the ops of all tasks,
 * real_time = wall time / iterations = 1e9 / total ops/s, cpu_time = CPU time / iterations.
 * A flagged repeat is still data: its flags go in `label` (State::SetLabel's field, which the
 * console reporter prints beside the row and compare.py carries), not in error_occurred, which
 * says the run failed and its numbers mean nothing. */
static json_t *
gbench_row (const struct ucb_doc_point *p, const struct gbench_ids *id, size_t repetition)
{
  json_t *o = gbench_common (p, id, "");
  long long ops = 0;
  char flags[UCB_POINT_FLAGS_MAX];

  for (size_t j = 0; j < p->n_pc; j++)
    ops = ucb_count_add (ops, p->pc[j].ops);
  ucb_json_set (o, "repetition_index", ucb_json_int ((long long) repetition));
  ucb_json_set (o, "iterations", ucb_json_int (ops));
  ucb_json_set (o, "real_time", ucb_json_real (figure_of (&p->sum, FIG_REAL_NS)));
  /* Omitted rather than invented when no task could read its CPU clock. */
  if (isfinite (p->sum.cpu_ns_per_op))
    ucb_json_set (o, "cpu_time", ucb_json_real (p->sum.cpu_ns_per_op));
  ucb_json_set (o, "time_unit", ucb_json_str ("ns"));
  if (ucb_point_flags (p, flags, sizeof flags))
    ucb_json_set (o, "label", ucb_json_fmt ("%s%s", ucb_point_rows[1].gbench, flags));
  return o;
}

/* The aggregates Google Benchmark adds after the repetitions of a benchmark.  Google Benchmark
 * labels them only when every repetition has the same label; here any flagged repeat labels
 * them, since it is in what they aggregate. */
static void
gbench_aggregates (json_t *rows, const struct ucb_doc *d, const struct ucb_doc_point *p,
                   const struct gbench_ids *id, const struct ucb_flags *fl)
{
  static const char *const names[] = { "mean", "median", "stddev", "cv" };
  struct ucb_stats real, cpu;
  char flags[UCB_FLAGS_TEXT_MAX];

  repeat_stats (d, p->group, FIG_REAL_NS, &real);
  repeat_stats (d, p->group, FIG_CPU, &cpu);
  ucb_flags_text (fl, flags, sizeof flags);
  for (size_t k = 0; k < UCB_ARRAY_SIZE (names); k++)
    {
      cleanup_free char *suffix = xasprintf ("_%s", names[k]);
      json_t *o = gbench_common (p, id, suffix);
      const double r[] = { real.mean, real.median, real.stddev, real.cv };
      const double c[] = { cpu.mean, cpu.median, cpu.stddev, cpu.cv };

      ucb_json_set (o, "aggregate_name", ucb_json_str (names[k]));
      ucb_json_set (o, "aggregate_unit", ucb_json_str (k == 3 ? "percentage" : "time"));
      ucb_json_set (o, "iterations", ucb_json_int ((long long) id->repetitions));
      ucb_json_set (o, "real_time", ucb_json_real (r[k]));
      if (isfinite (c[k]))
        ucb_json_set (o, "cpu_time", ucb_json_real (c[k]));
      ucb_json_set (o, "time_unit", ucb_json_str ("ns"));
      if (*flags)
        ucb_json_set (o, "label", ucb_json_fmt ("%s%s", ucb_point_rows[1].gbench, flags));
      ucb_json_push (rows, o);
    }
}

static json_t *
export_gbench (const struct ucb_doc *d, const struct ucb_flags *fl)
{
  json_t *out = ucb_json_obj (), *rows = ucb_json_arr ();
  /* A family is a workload (one BENCHMARK()); its instances are its points, both numbered in
   * the order they first appear; a point's repeats are its repetitions. */
  cleanup_free size_t *family = xcalloc (d->n_workloads + 1, sizeof *family);
  cleanup_free size_t *instances = xcalloc (d->n_workloads + 1, sizeof *instances);
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
  size_t families = 0;

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      struct gbench_ids id;
      size_t rep = 0;

      if (!first_of_group (d, seen, i))
        continue;
      if (family[p->workload_id] == 0)
        family[p->workload_id] = ++families;
      id.family = family[p->workload_id] - 1;
      id.instance = instances[p->workload_id]++;
      id.repetitions = d->groups[p->group].n_measured;
      for (size_t j = i; j < d->n_points; j++)
        if (d->points[j].group == p->group && d->points[j].measured)
          ucb_json_push (rows, gbench_row (&d->points[j], &id, rep++));
      if (id.repetitions > 1)
        gbench_aggregates (rows, d, p, &id, &fl[p->group]);
    }
  ucb_json_set (out, "context", gbench_context (d));
  ucb_json_set (out, "benchmarks", rows);
  return out;
}

/* ---- LKP ------------------------------------------------------------------------------------ */

/* One part of an LKP key, a document's string: each character outside [A-Za-z0-9_-] (a UTF-8
 * sequence, or a byte that starts none) becomes _.  sbin/dump-stat fails the whole run (exit 1)
 * on a key with a space or tab, splits the line at its first ": ", skips a line that starts
 * with '#' and reads a line to its "\n"; and a '.' would add a level to the key that
 * etc/index-perf-all.yaml's patterns and lkp compare see.  Two names that differ only there
 * share a key. */
static char *
lkp_name (const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *) s, *end = p + len;
  char *out = xcalloc (len + 1, 1), *o = out;

  while (p < end && *p)
    {
      size_t n = ucb_utf8_len (p);
      bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
                  || *p == '_' || *p == '-';

      *o++ = keep ? (char) *p : '_';
      p += n && p + n <= end ? n : 1;
    }
  return out;
}

/* A flagged point: `PREFIX.flagged.FLAG: 1` per flag (the table of meanings' form).  No pattern
 * of lkp-tests' etc/failure or etc/pass matches it (lib/stats.rb function_stat?), so lkp
 * compare never counts it as a failure, and etc/index-perf-all.yaml gives it no direction: it
 * is data about the run, never a KPI. */
static void
lkp_flags (FILE *f, const char *prefix, const char *list)
{
  const char *flag;
  size_t n;

  while (ucb_flag_next (&list, &flag, &n))
    {
      cleanup_free char *name = lkp_name (flag, n);

      fprintf (f, "%s.%s.%s: 1\n", prefix, ucb_point_rows[1].flag_key, name);
    }
}

/* What lkp-tests' programs/ucbench/parse prints: `key: value` lines that sbin/dump-stat stores
 * as ucbench.KEY (so no "ucbench." here).  KEY is the point (only what differs from the
 * defaults: depth 1, 1 task, process mode) and the figure, named as will-it-scale's stats are:
 * per_process_ops / per_thread_ops per task, workload = the total ops/s, scalability; and
 * ucbench's own per_container_ops, its stddev over the interval samples, fairness and
 * cpu_ns_per_op.  Repeats: the median.  Then the point's flags (lkp_flags). */
static void
export_lkp (FILE *f, const struct ucb_doc *d, const struct ucb_flags *fl)
{
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      const struct ucb_doc_group *gr = &d->groups[p->group];
      const struct ucb_doc_summary *m = &gr->median;
      bool thread = strcmp (p->mode, "thread") == 0;
      cleanup_free char *prefix = NULL, *dpart = NULL, *tpart = NULL, *mpart = NULL;
      cleanup_free char *w = lkp_name (p->workload, strlen (p->workload));
      cleanup_free char *o = lkp_name (p->owner, strlen (p->owner));
      struct ucb_stats st;
      const char *names[] = { thread ? "per_thread_ops" : "per_process_ops",
                              "workload",
                              "scalability",
                              "per_container_ops",
                              "per_container_ops_stddev",
                              "fairness",
                              "cpu_ns_per_op" };
      double v[UCB_ARRAY_SIZE (names)];

      if (!first_of_group (d, seen, i))
        continue;
      ucb_stats_compute (gr->rates, gr->n_rates, &st);
      v[0] = ucb_doc_per_task_ops (p, m);
      v[1] = m->total_ops_per_s;
      v[2] = m->scalability;
      v[3] = m->per_container_ops;
      v[4] = st.stddev;
      v[5] = m->fairness;
      v[6] = m->cpu_ns_per_op;
      dpart = p->depth != 1 ? xasprintf (".d%lld", p->depth) : xstrdup ("");
      tpart = p->tasks != 1 ? xasprintf (".t%lld", p->tasks) : xstrdup ("");
      if (strcmp (p->mode, "process") != 0)
        {
          cleanup_free char *mode = lkp_name (p->mode, strlen (p->mode));
          mpart = xasprintf (".%s", mode);
        }
      else
        mpart = xstrdup ("");
      prefix = xasprintf ("%s.%s%s%s%s.%lld", w, o, dpart, tpart, mpart, p->containers);
      for (size_t k = 0; k < UCB_ARRAY_SIZE (names); k++)
        if (isfinite (v[k]))
          fprintf (f, "%s.%s: %.10g\n", prefix, names[k], v[k]);
      lkp_flags (f, prefix, fl[p->group].list);
    }
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/* The kinds of document a format takes: kcidb reports verify cases and metrics alike. */
static unsigned
doc_kinds (enum ucb_export_format format)
{
  if (format == UCB_EXPORT_KCIDB || format == UCB_EXPORT_LAVA)
    return UCB_DOC_ANY;
  return format == UCB_EXPORT_JUNIT || format == UCB_EXPORT_KTAP ? UCB_DOC_VERIFY : UCB_DOC_RUN;
}

/* What the format needs from the document beyond its kind (the loader checks that); a usage
 * error naming the file otherwise. */
static int
check_input (enum ucb_export_format format, const struct ucb_doc *d, ucb_error_t *err)
{
  if (format == UCB_EXPORT_KCIDB || format == UCB_EXPORT_LAVA)
    {
      if (!d->has_verify && d->n_points == 0)
        return ucb_usage_error (err,
                                "%s: neither a verify[] array nor a results[] entry to "
                                "export as %s",
                                d->name, ucb_export_format_names[format]);
      return 0;
    }
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
write_text (enum ucb_export_format format, const struct ucb_doc *d, const struct ucb_flags *fl,
            const char *output, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);

  if (m == NULL)
    ucb_oom ();
  if (format == UCB_EXPORT_LKP)
    export_lkp (m, d, fl);
  else if (format == UCB_EXPORT_JUNIT)
    ucb_export_junit_doc (m, d);
  else if (format == UCB_EXPORT_LAVA)
    ucb_export_lava (m, d, fl);
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
  return ucb_report_write_bytes (buf, len, output, err);
}

int
ucb_export_check_origin (const char *origin, ucb_error_t *err)
{
  if (*origin == '\0'
      || strspn (origin, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen (origin))
    return ucb_usage_error (
        err, "invalid --origin `%s` (KCIDB: lower-case letters, digits and _ only)", origin);
  return 0;
}

int
ucb_export (enum ucb_export_format format, const char *input, const char *output,
            const struct ucb_export_opts *opts, ucb_error_t *err)
{
  struct ucb_doc d;
  json_t *out = NULL;
  cleanup_free struct ucb_flags *fl = NULL;
  int ret;

  if (ucb_doc_open (input, doc_kinds (format), &d, err) < 0)
    return -1;
  if (check_input (format, &d, err) < 0)
    {
      ucb_doc_free (&d);
      return -1;
    }
  fl = ucb_flags_of_groups (&d);
  if (format == UCB_EXPORT_GAB || format == UCB_EXPORT_GAB_SMALLER)
    out = export_gab (&d, format == UCB_EXPORT_GAB_SMALLER, fl);
  else if (format == UCB_EXPORT_BMF)
    out = export_bmf (&d, fl);
  else if (format == UCB_EXPORT_GBENCH)
    out = export_gbench (&d, fl);
  else if (format == UCB_EXPORT_KCIDB)
    out = ucb_export_kcidb (&d, opts && opts->origin ? opts->origin : UCB_KCIDB_ORIGIN, fl);
  if (out == NULL)
    ret = write_text (format, &d, fl, output, err);
  else if (output)
    ret = ucb_report_write_file (out, output, err);
  else
    ret = ucb_json_write (out, stdout, err);
  json_decref (out);
  ucb_doc_free (&d);
  return ret < 0 ? -1 : 0;
}
