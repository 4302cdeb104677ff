/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gbench.c - `--to gbench`: Google Benchmark's JSON (json_reporter.cc), a row per repeat and
 * the aggregates compare.py reads. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/export/exporter.h"
#include "report/meanings.h"

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
  cleanup_free char *name = ucb_export_point_name (p);
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
  ucb_json_set (o, "real_time", ucb_json_real (ucb_export_figure (&p->sum, UCB_FIG_REAL_NS)));
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

  ucb_export_repeat_stats (d, p->group, UCB_FIG_REAL_NS, &real);
  ucb_export_repeat_stats (d, p->group, UCB_FIG_CPU, &cpu);
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
gbench_json (const struct ucb_doc *d, const struct ucb_flags *fl, const struct ucb_export_opts *o)
{
  json_t *out = ucb_json_obj (), *rows = ucb_json_arr ();
  /* A family is a workload (one BENCHMARK()); its instances are its points, both numbered in
   * the order they first appear; a point's repeats are its repetitions. */
  cleanup_free size_t *family = xcalloc (d->n_workloads + 1, sizeof *family);
  cleanup_free size_t *instances = xcalloc (d->n_workloads + 1, sizeof *instances);
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
  size_t families = 0;

  (void) o;
  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      struct gbench_ids id;
      size_t rep = 0;

      if (!ucb_export_first_of_group (d, seen, i))
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

const struct ucb_exporter ucb_exporter_gbench = { .kinds = UCB_DOC_RUN, .json = gbench_json };
