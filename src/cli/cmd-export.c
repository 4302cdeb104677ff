/* cmd-export.c - `ucbench export --to FORMAT FILE.json`: a result document as CI dashboards read
 * it. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/docload.h"
#include "report/export.h"
#include "report/report.h"

const char ucb_export_usage[]
    = "Usage: ucbench export --to FORMAT FILE.json [--output OUT]\n"
      "Convert a ucbench-result/1 document for a CI dashboard or test reporter.\n"
      "\n"
      "  --to gab          github-action-benchmark customBiggerIsBetter: per-container ops/s;\n"
      "                    range = stddev across containers (of the samples for 1 container)\n"
      "  --to gab-smaller  github-action-benchmark customSmallerIsBetter: CPU ns/op\n"
      "  --to bmf          Bencher Metric Format: throughput (min/max across containers) and\n"
      "                    latency (CPU ns/op)\n"
      "  --to gbench       Google Benchmark JSON (iteration rows only)\n"
      "  --to lkp          LKP-style `key: value` lines, median over repeats\n"
      "  --to junit        JUnit XML of the verify verdicts\n"
      "  --to ktap         KTAP of the verify verdicts\n"
      "  --output OUT      write to OUT instead of stdout (JSON formats atomically)\n"
      "  -h, --help        show this help\n"
      "\n"
      "Benchmark names: WORKLOAD/OWNER/depth:D/tasks:T/MODE/containers:N, with /repeat:R\n"
      "appended (gab, bmf) when the document has repeats.  Only measured points (status ok)\n"
      "are exported.\n"
      "\n"
      "Exit status: 0 on success, 1 when OUT cannot be written, 2 for bad usage or a document\n"
      "without what FORMAT needs.\n";

enum xformat
{
  XF_GAB,
  XF_GAB_SMALLER,
  XF_BMF,
  XF_GBENCH,
  XF_LKP,
  XF_JUNIT,
  XF_KTAP,
};

static const char *const format_names[]
    = { "gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap" };

struct xopts
{
  enum xformat format;
  bool have_format, help;
  const char *output, *input;
};

static int
parse (struct xopts *o, int argc, char **argv, ucb_error_t *err)
{
  static const struct option longopts[] = {
    { "to", required_argument, NULL, 't' },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  memset (o, 0, sizeof *o);
  optind = 0;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":h", longopts, NULL)) != -1)
    switch (c)
      {
      case 't':
        o->have_format = false;
        for (size_t k = 0; k < UCB_ARRAY_SIZE (format_names); k++)
          if (strcmp (optarg, format_names[k]) == 0)
            {
              o->format = (enum xformat) k;
              o->have_format = true;
            }
        if (!o->have_format)
          return ucb_usage_error (err,
                                  "invalid --to `%s` (expected gab, gab-smaller, bmf, gbench, "
                                  "lkp, junit or ktap)",
                                  optarg);
        break;
      case 'o':
        o->output = optarg;
        break;
      case 'h':
        o->help = true;
        return 0;
      case ':':
      case '?':
      default:
        return ucb_getopt_error (c, argv, err);
      }
  if (!o->have_format)
    return ucb_usage_error (err, "export needs --to FORMAT (gab, gab-smaller, bmf, gbench, lkp, "
                                 "junit or ktap)");
  if (argc - optind != 1)
    return ucb_usage_error (err, "export needs exactly one document FILE.json (got %d)",
                            argc - optind);
  o->input = argv[optind];
  return 0;
}

/* ---- reading results[] entries -------------------------------------------------------------- */

static long long
int_of (json_t *o, const char *k, long long dflt)
{
  json_t *v = json_object_get (o, k);
  return json_is_integer (v) ? json_integer_value (v) : dflt;
}

/* A summary figure, NAN when null or absent. */
static double
sum_of (json_t *r, const char *k)
{
  json_t *v = json_object_get (json_object_get (r, "summary"), k);
  return json_is_number (v) ? json_number_value (v) : NAN;
}

static bool
measured (json_t *r)
{
  return strcmp (ucb_json_str_or (r, "status", "ok"), "ok") == 0
         && json_is_array (json_object_get (r, "per_container"))
         && isfinite (sum_of (r, "per_container_ops"));
}

/* The stable name of a sweep point; `repeat` 0 leaves the repetition out. */
static char *
point_name (json_t *r, long long repeat)
{
  char *base = xasprintf ("%s/%s/depth:%lld/tasks:%lld/%s/containers:%lld",
                          ucb_json_str_or (r, "workload", "?"), ucb_json_str_or (r, "owner", "?"),
                          int_of (r, "depth", 1), int_of (r, "tasks", 1),
                          ucb_json_str_or (r, "mode", "process"), int_of (r, "containers", 0));
  char *s;

  if (repeat == 0)
    return base;
  s = xasprintf ("%s/repeat:%lld", base, repeat);
  free (base);
  return s;
}

static bool
has_repeats (json_t *doc)
{
  size_t i;
  json_t *r;

  json_array_foreach (json_object_get (doc, "results"), i, r)
  {
    if (int_of (r, "repeat", 1) > 1)
      return true;
  }
  return false;
}

/* Sample standard deviation (n - 1) of a per-container field, NAN with fewer than 2 values. */
static double
container_stddev (json_t *r, const char *k, size_t *n_out)
{
  double s = 0, ss = 0;
  size_t n = 0, i;
  json_t *c;

  json_array_foreach (json_object_get (r, "per_container"), i, c)
  {
    json_t *v = json_object_get (c, k);
    if (json_is_number (v))
      {
        s += json_number_value (v);
        n++;
      }
  }
  *n_out = n;
  if (n < 2)
    return NAN;
  json_array_foreach (json_object_get (r, "per_container"), i, c)
  {
    json_t *v = json_object_get (c, k);
    if (json_is_number (v))
      ss += (json_number_value (v) - s / (double) n) * (json_number_value (v) - s / (double) n);
  }
  return sqrt (ss / (double) (n - 1));
}

/* Min and max of a per-container field; false when no container has it. */
static bool
container_minmax (json_t *r, const char *k, double *lo, double *hi)
{
  size_t i;
  json_t *c;
  bool any = false;

  json_array_foreach (json_object_get (r, "per_container"), i, c)
  {
    json_t *v = json_object_get (c, k);
    if (!json_is_number (v))
      continue;
    if (!any || json_number_value (v) < *lo)
      *lo = json_number_value (v);
    if (!any || json_number_value (v) > *hi)
      *hi = json_number_value (v);
    any = true;
  }
  return any;
}

static size_t
sample_count (json_t *r)
{
  size_t i, n = 0;
  json_t *c;

  json_array_foreach (json_object_get (r, "per_container"), i, c) n
      += json_array_size (json_object_get (c, "samples"));
  return n;
}

/* ---- github-action-benchmark ---------------------------------------------------------------- */

static json_t *
gab_entry (json_t *r, bool smaller, bool repeats)
{
  cleanup_free char *name = point_name (r, repeats ? int_of (r, "repeat", 1) : 0);
  cleanup_free char *extra = NULL;
  json_t *o = ucb_json_obj ();
  const char *unit = smaller ? "ns/op" : "ops/s";
  const char *spread = "containers";
  size_t n;
  double sd = container_stddev (r, smaller ? "cpu_ns_per_op" : "rate_ops_per_s", &n);
  char buf[64];

  /* One container has no spread across containers: fall back to its interval samples. */
  if (!isfinite (sd) && !smaller)
    {
      json_t *v = json_object_get (
          json_object_get (json_array_get (json_object_get (r, "per_container"), 0), "ops_per_s"),
          "stddev");
      sd = json_is_number (v) ? json_number_value (v) : NAN;
      spread = "samples";
    }
  ucb_json_set (o, "name", ucb_json_str (name));
  ucb_json_set (o, "unit", ucb_json_str (unit));
  ucb_json_set (o, "value",
                ucb_json_real (sum_of (r, smaller ? "cpu_ns_per_op" : "per_container_ops")));
  if (isfinite (sd))
    {
      snprintf (buf, sizeof buf, "± %.1f", sd);
      ucb_json_set (o, "range", ucb_json_str (buf));
    }
  extra = xasprintf ("total: %.1f ops/s\ncontainers: %lld x %lld tasks\nsamples: %zu",
                     sum_of (r, "total_ops_per_s"), int_of (r, "containers", 0),
                     int_of (r, "tasks", 1), sample_count (r));
  if (isfinite (sd))
    ucb_json_set (o, "extra",
                  ucb_json_checked (json_sprintf ("%s\nrange: stddev across %s", extra, spread)));
  else
    ucb_json_set (o, "extra", ucb_json_str (extra));
  return o;
}

static json_t *
export_gab (json_t *doc, bool smaller)
{
  json_t *arr = ucb_json_arr (), *r;
  bool repeats = has_repeats (doc);
  size_t i;

  json_array_foreach (json_object_get (doc, "results"), i, r)
  {
    if (measured (r) && (!smaller || isfinite (sum_of (r, "cpu_ns_per_op"))))
      ucb_json_push (arr, gab_entry (r, smaller, repeats));
  }
  return arr;
}

/* ---- Bencher Metric Format ------------------------------------------------------------------ */

static json_t *
bmf_measure (double value, double lo, double hi, bool range)
{
  json_t *m = ucb_json_obj ();

  ucb_json_set (m, "value", ucb_json_real (value));
  if (range)
    {
      ucb_json_set (m, "lower_value", ucb_json_real (lo));
      ucb_json_set (m, "upper_value", ucb_json_real (hi));
    }
  return m;
}

static json_t *
export_bmf (json_t *doc)
{
  json_t *out = ucb_json_obj (), *r;
  bool repeats = has_repeats (doc);
  size_t i;

  json_array_foreach (json_object_get (doc, "results"), i, r)
  {
    cleanup_free char *name = NULL;
    json_t *b;
    double lo = 0, hi = 0;
    bool rng;

    if (!measured (r))
      continue;
    name = point_name (r, repeats ? int_of (r, "repeat", 1) : 0);
    b = ucb_json_obj ();
    rng = container_minmax (r, "rate_ops_per_s", &lo, &hi);
    ucb_json_set (b, "throughput", bmf_measure (sum_of (r, "per_container_ops"), lo, hi, rng));
    if (isfinite (sum_of (r, "cpu_ns_per_op")))
      {
        rng = container_minmax (r, "cpu_ns_per_op", &lo, &hi);
        ucb_json_set (b, "latency", bmf_measure (sum_of (r, "cpu_ns_per_op"), lo, hi, rng));
      }
    ucb_json_set (out, name, b);
  }
  return out;
}

/* ---- Google Benchmark ----------------------------------------------------------------------- */

static json_t *
gbench_context (json_t *doc)
{
  json_t *c = ucb_json_obj (), *host = json_object_get (doc, "host");

  ucb_json_set (c, "date",
                ucb_json_str (ucb_json_str_or (json_object_get (doc, "run"), "start_time", "")));
  ucb_json_set (c, "host_name", ucb_json_str (ucb_json_str_or (host, "hostname", "")));
  ucb_json_set (c, "executable", ucb_json_str ("ucbench"));
  ucb_json_set (c, "num_cpus", ucb_json_int (int_of (host, "cpus_online", 0)));
  ucb_json_set (c, "mhz_per_cpu", ucb_json_int (0));
  ucb_json_set (c, "cpu_scaling_enabled", json_false ());
  ucb_json_set (c, "caches", ucb_json_arr ());
  ucb_json_set (c, "library_build_type", ucb_json_str ("release"));
  ucb_json_set (c, "json_schema_version", ucb_json_int (1));
  return c;
}

/* Index of `key` in `seen` (appended when new): families and their instances, in order. */
static size_t
index_of (json_t *seen, const char *key)
{
  size_t i;
  json_t *v;

  json_array_foreach (seen, i, v)
  {
    if (strcmp (json_string_value (v), key) == 0)
      return i;
  }
  ucb_json_push (seen, ucb_json_str (key));
  return json_array_size (seen) - 1;
}

static json_t *
export_gbench (json_t *doc)
{
  json_t *out = ucb_json_obj (), *rows = ucb_json_arr (), *families = ucb_json_arr (), *r;
  json_t *instances = ucb_json_obj ();
  size_t i;

  json_array_foreach (json_object_get (doc, "results"), i, r)
  {
    cleanup_free char *name = NULL;
    json_t *o, *inst, *pc;
    long long ops = 0, reps = 0;
    size_t j, fam;
    double per = sum_of (r, "per_container_ops");

    if (!measured (r))
      continue;
    name = point_name (r, 0);
    /* A family is a workload (one BENCHMARK()); its instances are the sweep points. */
    fam = index_of (families, ucb_json_str_or (r, "workload", "?"));
    inst = json_object_get (instances, ucb_json_str_or (r, "workload", "?"));
    if (inst == NULL)
      ucb_json_set (instances, ucb_json_str_or (r, "workload", "?"), inst = ucb_json_arr ());
    json_array_foreach (json_object_get (r, "per_container"), j, pc) ops += int_of (pc, "ops", 0);
    json_array_foreach (json_object_get (doc, "results"), j, pc)
    {
      cleanup_free char *other = point_name (pc, 0);
      reps += measured (pc) && strcmp (other, name) == 0;
    }
    o = ucb_json_obj ();
    ucb_json_set (o, "name", ucb_json_str (name));
    ucb_json_set (o, "family_index", ucb_json_int ((long long) fam));
    ucb_json_set (o, "per_family_instance_index", ucb_json_int ((long long) index_of (inst, name)));
    ucb_json_set (o, "run_name", ucb_json_str (name));
    ucb_json_set (o, "run_type", ucb_json_str ("iteration"));
    ucb_json_set (o, "repetitions", ucb_json_int (reps));
    ucb_json_set (o, "repetition_index", ucb_json_int (int_of (r, "repeat", 1) - 1));
    ucb_json_set (o, "threads",
                  ucb_json_int (int_of (r, "containers", 0) * int_of (r, "tasks", 1)));
    ucb_json_set (o, "iterations", ucb_json_int (ops));
    ucb_json_set (o, "real_time", ucb_json_real (per > 0 ? 1e9 / per : NAN));
    /* Omitted rather than invented when no task could read its CPU clock. */
    if (isfinite (sum_of (r, "cpu_ns_per_op")))
      ucb_json_set (o, "cpu_time", ucb_json_real (sum_of (r, "cpu_ns_per_op")));
    ucb_json_set (o, "time_unit", ucb_json_str ("ns"));
    ucb_json_push (rows, o);
  }
  json_decref (families);
  json_decref (instances);
  ucb_json_set (out, "context", gbench_context (doc));
  ucb_json_set (out, "benchmarks", rows);
  return out;
}

/* ---- LKP ------------------------------------------------------------------------------------ */

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median of summary.`k` over the measured repeats of point `name`; NAN when all are null. */
static double
median_over_repeats (json_t *doc, const char *name, const char *k)
{
  json_t *results = json_object_get (doc, "results"), *r;
  cleanup_free double *v = xcalloc (json_array_size (results) + 1, sizeof *v);
  size_t n = 0, i;

  json_array_foreach (results, i, r)
  {
    cleanup_free char *other = NULL;
    if (!measured (r) || !isfinite (sum_of (r, k)))
      continue;
    other = point_name (r, 0);
    if (strcmp (other, name) == 0)
      v[n++] = sum_of (r, k);
  }
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
export_lkp (FILE *f, json_t *doc)
{
  static const char *const fields[]
      = { "per_container_ops", "total_ops_per_s", "scalability", "fairness", "cpu_ns_per_op" };
  json_t *seen = ucb_json_arr (), *r;
  size_t i;

  json_array_foreach (json_object_get (doc, "results"), i, r)
  {
    cleanup_free char *name = NULL, *prefix = NULL, *dpart = NULL, *tpart = NULL, *mpart = NULL;
    size_t before = json_array_size (seen);
    long long d = int_of (r, "depth", 1), t = int_of (r, "tasks", 1);
    const char *mode = ucb_json_str_or (r, "mode", "process");

    if (!measured (r))
      continue;
    name = point_name (r, 0);
    if (index_of (seen, name) < before)
      continue; /* a repeat: already printed as the median */
    /* Only what differs from the defaults, so that plain runs keep LKP-like short keys. */
    dpart = d != 1 ? xasprintf (".d%lld", d) : xstrdup ("");
    tpart = t != 1 ? xasprintf (".t%lld", t) : xstrdup ("");
    mpart = strcmp (mode, "process") != 0 ? xasprintf (".%s", mode) : xstrdup ("");
    prefix = xasprintf ("ucbench.%s.%s%s%s%s.%lld", ucb_json_str_or (r, "workload", "?"),
                        ucb_json_str_or (r, "owner", "?"), dpart, tpart, mpart,
                        int_of (r, "containers", 0));
    for (size_t k = 0; k < UCB_ARRAY_SIZE (fields); k++)
      {
        double v = median_over_repeats (doc, name, fields[k]);
        if (isfinite (v))
          fprintf (f, "%s.%s: %.10g\n", prefix, fields[k], v);
      }
  }
  json_decref (seen);
}

/* ---- verify verdicts: JUnit and KTAP -------------------------------------------------------- */

/* What the format needs from the document; a usage error naming the file otherwise. */
static int
check_input (const struct xopts *o, json_t *doc, ucb_error_t *err)
{
  size_t i, n = 0;
  json_t *r;

  if (o->format == XF_JUNIT || o->format == XF_KTAP)
    {
      if (!json_is_array (json_object_get (doc, "verify")))
        return ucb_usage_error (err,
                                "%s: no verify[] array to export as %s (a `ucbench run` "
                                "document? use `ucbench verify --output`)",
                                o->input, format_names[o->format]);
      return 0;
    }
  json_array_foreach (json_object_get (doc, "results"), i, r) n += measured (r);
  if (n == 0)
    return ucb_usage_error (err,
                            "%s: no measured results[] entry (status ok) to export as %s "
                            "(a verify document?)",
                            o->input, format_names[o->format]);
  return 0;
}

static int
write_text (const struct xopts *o, json_t *doc, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);
  cleanup_file FILE *f = NULL;

  if (m == NULL)
    ucb_oom ();
  if (o->format == XF_LKP)
    export_lkp (m, doc);
  else if (o->format == XF_JUNIT)
    ucb_export_junit (m, doc);
  else
    ucb_export_ktap (m, doc);
  if (fclose (m) != 0)
    ucb_oom ();
  if (o->output == NULL)
    {
      if (fwrite (buf, 1, len, stdout) != len || fflush (stdout) != 0)
        return ucb_make_error (err, errno, "write to stdout");
      return 0;
    }
  f = fopen (o->output, "w");
  if (f == NULL)
    return ucb_make_error (err, errno, "open `%s`", o->output);
  if (fwrite (buf, 1, len, f) != len || fflush (f) != 0)
    return ucb_make_error (err, errno, "write `%s`", o->output);
  if (fclose (steal_pointer (&f)) != 0)
    return ucb_make_error (err, errno, "close `%s`", o->output);
  return 0;
}

int
ucb_cmd_export (int argc, char **argv, ucb_error_t *err)
{
  struct xopts o;
  json_t *doc = NULL, *out = NULL;
  int ret;

  if (parse (&o, argc, argv, err) < 0)
    return -1;
  if (o.help)
    {
      fputs (ucb_export_usage, stdout);
      return 0;
    }
  if (ucb_doc_load (o.input, &doc, err) < 0)
    return -1;
  if (check_input (&o, doc, err) < 0)
    {
      json_decref (doc);
      return -1;
    }
  switch (o.format)
    {
    case XF_GAB:
    case XF_GAB_SMALLER:
      out = export_gab (doc, o.format == XF_GAB_SMALLER);
      break;
    case XF_BMF:
      out = export_bmf (doc);
      break;
    case XF_GBENCH:
      out = export_gbench (doc);
      break;
    case XF_LKP:
    case XF_JUNIT:
    case XF_KTAP:
    default:
      break;
    }
  if (out == NULL)
    ret = write_text (&o, doc, err);
  else if (o.output)
    ret = ucb_report_write_file (out, o.output, err);
  else
    ret = ucb_json_write (out, stdout, err);
  json_decref (out);
  json_decref (doc);
  return ret < 0 ? -1 : 0;
}
