/* cmd-compare.c - `ucbench compare BASE.json HEAD.json`: per sweep point, base vs head
 * per-container ops/s, %change and a verdict that needs both the threshold and a significant
 * Mann-Whitney U test on the samples; verify verdicts that changed; exit 1 on a regression. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/docload.h"

#define ALPHA 0.05
#define MIN_SAMPLES 3

const char ucb_compare_usage[]
    = "Usage: ucbench compare BASE.json HEAD.json [--threshold PCT] [--format text|json]\n"
      "Compare two result documents point by point (matched by workload, containers, owner,\n"
      "depth, tasks and mode): per-container ops/s of base and head, their spread, the change,\n"
      "and a verdict.  A change counts only if it exceeds the threshold and a two-sided\n"
      "Mann-Whitney U test on the per-interval samples (at least 3 a side, repeats pooled)\n"
      "gives p < 0.05.  Verify cases whose status changed are listed too.\n"
      "\n"
      "  --threshold PCT       smallest change that counts, in percent (default: 5)\n"
      "  --format text|json    an aligned table for a mail, or JSON (default: text)\n"
      "  -h, --help            show this help\n"
      "\n"
      "Exit status: 0 no regression, 1 a significant regression or a verify case that newly\n"
      "fails, 2 bad input.\n";

struct side
{
  double *v; /* per-interval per-container ops/s, pooled over repeats */
  size_t n;
  struct ucb_stats st;
};

static void
point_key (json_t *r, char *buf, size_t len)
{
  snprintf (buf, len, "%s|%lld|%s|%lld|%lld|%s",
            json_string_value (json_object_get (r, "workload")) ?: "?",
            json_integer_value (json_object_get (r, "containers")),
            json_string_value (json_object_get (r, "owner")) ?: "?",
            json_integer_value (json_object_get (r, "depth")),
            json_is_integer (json_object_get (r, "tasks"))
                ? json_integer_value (json_object_get (r, "tasks"))
                : 1,
            json_string_value (json_object_get (r, "mode")) ?: "process");
}

static bool
measured (json_t *r)
{
  const char *status = json_string_value (json_object_get (r, "status"));
  return json_is_array (json_object_get (r, "per_container"))
         && (status == NULL || strcmp (status, "ok") == 0);
}

/* Append the per-interval per-container rates of one results[] entry. */
static void
add_samples (struct side *s, json_t *r)
{
  json_t *pcs = json_object_get (r, "per_container");
  size_t n = json_array_size (pcs), k = SIZE_MAX;

  for (size_t i = 0; i < n; i++)
    {
      size_t m = json_array_size (json_object_get (json_array_get (pcs, i), "samples"));
      k = m < k ? m : k;
    }
  if (n == 0 || k == SIZE_MAX)
    return;
  s->v = xrealloc (s->v, (s->n + k) * sizeof *s->v);
  for (size_t j = 0; j < k; j++)
    {
      double sum = 0;
      for (size_t i = 0; i < n; i++)
        sum += json_number_value (json_object_get (
            json_array_get (json_object_get (json_array_get (pcs, i), "samples"), j), "ops_per_s"));
      s->v[s->n++] = sum / (double) n;
    }
}

static void
collect (json_t *doc, const char *key, struct side *s)
{
  size_t i;
  json_t *r;
  char k[512];

  memset (s, 0, sizeof *s);
  json_array_foreach (json_object_get (doc, "results"), i, r)
  {
    point_key (r, k, sizeof k);
    if (strcmp (k, key) == 0 && measured (r))
      add_samples (s, r);
  }
  ucb_stats_compute (s->v, s->n, &s->st);
}

static const char *
str_at (json_t *doc, const char *a, const char *b, const char *c)
{
  json_t *v = json_object_get (doc, a);
  if (b)
    v = json_object_get (v, b);
  if (c)
    v = json_object_get (v, c);
  return json_string_value (v);
}

/* Host or config differences, as warnings. */
static json_t *
differences (json_t *base, json_t *head)
{
  static const char *const paths[][3] = {
    { "host", "kernel", "release" },  { "host", "cpu_model", NULL },
    { "host", "cpus_online", NULL },  { "host", "virtualization", NULL },
    { "config", "duration_s", NULL }, { "config", "interval_s", NULL },
    { "config", "warmup_s", NULL },   { "config", "isolate", NULL },
    { "config", "headroom", NULL },   { "config", "limits", NULL },
    { "config", "pin", NULL },
  };
  json_t *w = ucb_json_arr ();

  for (size_t i = 0; i < UCB_ARRAY_SIZE (paths); i++)
    {
      json_t *a = json_object_get (json_object_get (base, paths[i][0]), paths[i][1]);
      json_t *b = json_object_get (json_object_get (head, paths[i][0]), paths[i][1]);
      if (paths[i][2])
        {
          a = json_object_get (a, paths[i][2]);
          b = json_object_get (b, paths[i][2]);
        }
      if ((a || b) && !json_equal (a, b))
        {
          char *sa = a ? json_dumps (a, JSON_ENCODE_ANY | JSON_COMPACT) : xstrdup ("(none)");
          char *sb = b ? json_dumps (b, JSON_ENCODE_ANY | JSON_COMPACT) : xstrdup ("(none)");
          ucb_json_push (w, ucb_json_checked (json_sprintf (
                                "%s.%s%s%s differs: %s vs %s", paths[i][0], paths[i][1],
                                paths[i][2] ? "." : "", paths[i][2] ? paths[i][2] : "", sa, sb)));
          free (sa);
          free (sb);
        }
    }
  return w;
}

static const char *
verdict_of (const struct side *b, const struct side *h, double change, double p, double thr)
{
  if (b->n < MIN_SAMPLES || h->n < MIN_SAMPLES)
    return "too few samples";
  if (!(fabs (change) > thr) || !(p < ALPHA))
    return "no change";
  return change < 0 ? "regression" : "improvement";
}

static json_t *
side_json (const struct side *s)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "mean_ops_per_s", ucb_json_real (s->st.mean));
  ucb_json_set (o, "stddev_pct", ucb_json_real (100 * s->st.cv));
  ucb_json_set (o, "samples", ucb_json_int ((long long) s->n));
  return o;
}

/* The worst status of a verify id in a document (fail/error beat the rest). */
static const char *
verify_status (json_t *doc, const char *id)
{
  static const char *const order[] = { "error", "fail", "known-bug", "skip", "pass" };
  size_t best = UCB_ARRAY_SIZE (order), i;
  json_t *v;

  json_array_foreach (json_object_get (doc, "verify"), i, v)
  {
    const char *st = json_string_value (json_object_get (v, "status"));
    const char *vid = json_string_value (json_object_get (v, "id"));
    for (size_t k = 0; st && vid && strcmp (vid, id) == 0 && k < UCB_ARRAY_SIZE (order); k++)
      if (strcmp (st, order[k]) == 0 && k < best)
        best = k;
  }
  return best < UCB_ARRAY_SIZE (order) ? order[best] : NULL;
}

static bool
failing (const char *st)
{
  return st && (strcmp (st, "fail") == 0 || strcmp (st, "error") == 0);
}

static json_t *
compare_verify (json_t *base, json_t *head, size_t *newly_failing)
{
  json_t *arr = ucb_json_arr (), *v;
  size_t i;

  *newly_failing = 0;
  json_array_foreach (json_object_get (head, "verify"), i, v)
  {
    const char *id = json_string_value (json_object_get (v, "id"));
    const char *sb, *sh;
    json_t *o;
    bool dup = false;

    for (size_t j = 0; j < i && id; j++)
      dup = dup
            || strcmp (json_string_value (json_object_get (
                           json_array_get (json_object_get (head, "verify"), j), "id"))
                           ?: "",
                       id)
                   == 0;
    if (id == NULL || dup)
      continue;
    sb = verify_status (base, id);
    sh = verify_status (head, id);
    if (sb && sh && strcmp (sb, sh) == 0)
      continue;
    o = ucb_json_obj ();
    ucb_json_set (o, "id", ucb_json_str (id));
    ucb_json_set (o, "base", ucb_json_str (sb));
    ucb_json_set (o, "head", ucb_json_str (sh));
    ucb_json_set (o, "newly_failing", json_boolean (failing (sh) && !failing (sb)));
    *newly_failing += failing (sh) && !failing (sb);
    ucb_json_push (arr, o);
  }
  return arr;
}

static int
parse (int argc, char **argv, double *thr, enum ucb_format *fmt, bool *help, ucb_error_t *err)
{
  static const struct option longopts[] = {
    { "threshold", required_argument, NULL, 't' },
    { "format", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  *thr = 5;
  *fmt = UCB_FORMAT_TEXT;
  *help = false;
  optind = 0;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":h", longopts, NULL)) != -1)
    switch (c)
      {
      case 't':
        if (ucb_parse_seconds (optarg, 0, 1000, thr) < 0)
          return ucb_usage_error (err, "invalid --threshold `%s`: a percentage from 0 to 1000",
                                  optarg);
        break;
      case 'f':
        if (ucb_parse_format (optarg, fmt, err) < 0)
          return -1;
        break;
      case 'h':
        *help = true;
        return 0;
      case ':':
      case '?':
      default:
        return ucb_getopt_error (c, argv, err);
      }
  if (argc - optind != 2)
    return ucb_usage_error (err, "compare needs two documents, BASE.json and HEAD.json (got %d)",
                            argc - optind);
  return 0;
}

static void
print_text (json_t *out, const char *bpath, const char *hpath, json_t *base, json_t *head)
{
  size_t i;
  json_t *x;

  printf ("# base: %s (kernel %s, %s)\n# head: %s (kernel %s, %s)\n", bpath,
          str_at (base, "host", "kernel", "release") ?: "?",
          str_at (base, "host", "cpu_model", NULL) ?: "?", hpath,
          str_at (head, "host", "kernel", "release") ?: "?",
          str_at (head, "host", "cpu_model", NULL) ?: "?");
  json_array_foreach (json_object_get (out, "warnings"), i, x)
      printf ("# warning: %s\n", json_string_value (x));
  printf ("# test: two-sided Mann-Whitney U on per-interval per-container ops/s, p < %.2f, "
          "threshold %.1f%%; ±%% shown above 2%%\n",
          ALPHA, json_number_value (json_object_get (out, "threshold_pct")));
  printf ("%-9s %-9s %5s %5s %-7s %5s %13s %6s %13s %6s %8s %7s  %s\n", "workload", "owner",
          "depth", "tasks", "mode", "N", "base ops/s", "±%", "head ops/s", "±%", "%change", "p",
          "verdict");
  json_array_foreach (json_object_get (out, "points"), i, x)
  {
    json_t *b = json_object_get (x, "base"), *h = json_object_get (x, "head");
    double bs = json_number_value (json_object_get (b, "stddev_pct"));
    double hs = json_number_value (json_object_get (h, "stddev_pct"));
    char bsd[16] = "", hsd[16] = "", pv[16] = "-";

    if (bs > 2)
      snprintf (bsd, sizeof bsd, "%.1f", bs);
    if (hs > 2)
      snprintf (hsd, sizeof hsd, "%.1f", hs);
    if (json_is_number (json_object_get (x, "p_value")))
      snprintf (pv, sizeof pv, "%.3f", json_number_value (json_object_get (x, "p_value")));
    printf ("%-9s %-9s %5lld %5lld %-7s %5lld %13.0f %6s %13.0f %6s %+7.1f%% %7s  %s\n",
            json_string_value (json_object_get (x, "workload")),
            json_string_value (json_object_get (x, "owner")),
            json_integer_value (json_object_get (x, "depth")),
            json_integer_value (json_object_get (x, "tasks")),
            json_string_value (json_object_get (x, "mode")),
            json_integer_value (json_object_get (x, "containers")),
            json_number_value (json_object_get (b, "mean_ops_per_s")), bsd,
            json_number_value (json_object_get (h, "mean_ops_per_s")), hsd,
            json_number_value (json_object_get (x, "change_pct")), pv,
            json_string_value (json_object_get (x, "verdict")));
  }
  json_array_foreach (json_object_get (out, "only_in"), i, x)
      printf ("# only in %s: %s\n", json_string_value (json_object_get (x, "file")),
              json_string_value (json_object_get (x, "point")));
  json_array_foreach (json_object_get (out, "verify"), i, x)
      printf ("# verify %s: %s -> %s%s\n", json_string_value (json_object_get (x, "id")),
              json_string_value (json_object_get (x, "base")) ?: "(absent)",
              json_string_value (json_object_get (x, "head")) ?: "(absent)",
              json_is_true (json_object_get (x, "newly_failing")) ? "  NEWLY FAILING" : "");
  printf ("# %lld regression(s), %lld newly failing verify case(s)\n",
          json_integer_value (json_object_get (out, "regressions")),
          json_integer_value (json_object_get (out, "newly_failing")));
}

/* Points of `a` missing from `b`, as {"file", "point"} entries of `into`. */
static void
only_in (json_t *a, json_t *b, const char *file, json_t *into)
{
  size_t i, j;
  json_t *r, *s;
  char ka[512], kb[512];

  json_array_foreach (json_object_get (a, "results"), i, r)
  {
    bool found = false, seen = false;
    if (!measured (r))
      continue;
    point_key (r, ka, sizeof ka);
    for (j = 0; j < i && !seen; j++)
      {
        point_key (json_array_get (json_object_get (a, "results"), j), kb, sizeof kb);
        seen = strcmp (ka, kb) == 0;
      }
    json_array_foreach (json_object_get (b, "results"), j, s)
    {
      point_key (s, kb, sizeof kb);
      found = found || (strcmp (ka, kb) == 0 && measured (s));
    }
    if (!found && !seen)
      {
        json_t *o = ucb_json_obj ();
        ucb_json_set (o, "file", ucb_json_str (file));
        ucb_json_set (o, "point", ucb_json_str (ka));
        ucb_json_push (into, o);
      }
  }
}

/* Documents from the kernel matrix ran under QEMU's TCG: their timings are emulated, so
 * comparing them would compare the emulator (tests/kernels/boot.py labels them). */
static int
refuse_emulated (const char *path, json_t *doc, ucb_error_t *err)
{
  json_t *km = json_object_get (doc, "kernel_matrix");

  if (json_is_true (json_object_get (km, "emulated_timing")))
    return ucb_usage_error (err,
                            "`%s` was measured under emulation (%s): its timings cannot be "
                            "compared; compare runs made on real hardware",
                            path, ucb_json_str_or (km, "where", "qemu-tcg"));
  return 0;
}

int
ucb_cmd_compare (int argc, char **argv, ucb_error_t *err)
{
  json_t *base = NULL, *head = NULL, *out, *points, *r, *only;
  double thr;
  enum ucb_format fmt;
  bool help;
  size_t regressions = 0, newly = 0, i;
  int ret;

  if (parse (argc, argv, &thr, &fmt, &help, err) < 0)
    return -1;
  if (help)
    {
      fputs (ucb_compare_usage, stdout);
      return 0;
    }
  if (ucb_doc_load (argv[optind], &base, err) < 0)
    return -1;
  if (ucb_doc_load (argv[optind + 1], &head, err) < 0)
    {
      json_decref (base);
      return -1;
    }
  if (refuse_emulated (argv[optind], base, err) < 0
      || refuse_emulated (argv[optind + 1], head, err) < 0)
    {
      json_decref (base);
      json_decref (head);
      return -1;
    }
  out = ucb_json_obj ();
  points = ucb_json_arr ();
  json_array_foreach (json_object_get (head, "results"), i, r)
  {
    char key[512], k2[512];
    struct side b, h;
    double change, p;
    const char *verdict;
    json_t *o;
    bool seen = false;

    if (!measured (r))
      continue;
    point_key (r, key, sizeof key);
    for (size_t j = 0; j < i && !seen; j++)
      {
        point_key (json_array_get (json_object_get (head, "results"), j), k2, sizeof k2);
        seen = strcmp (key, k2) == 0; /* a repeat: pooled with the first */
      }
    if (seen)
      continue;
    collect (base, key, &b);
    if (b.n == 0)
      {
        free (b.v);
        continue; /* only in head: listed below */
      }
    collect (head, key, &h);
    change = 100.0 * (h.st.mean - b.st.mean) / b.st.mean;
    p = ucb_mann_whitney_p (b.v, b.n, h.v, h.n);
    verdict = verdict_of (&b, &h, change, p, thr);
    regressions += strcmp (verdict, "regression") == 0;
    o = ucb_json_obj ();
    ucb_json_set (o, "workload", json_incref (json_object_get (r, "workload")));
    ucb_json_set (o, "containers", json_incref (json_object_get (r, "containers")));
    ucb_json_set (o, "owner", json_incref (json_object_get (r, "owner")));
    ucb_json_set (o, "depth", json_incref (json_object_get (r, "depth")));
    ucb_json_set (o, "tasks",
                  ucb_json_int (json_is_integer (json_object_get (r, "tasks"))
                                    ? json_integer_value (json_object_get (r, "tasks"))
                                    : 1));
    ucb_json_set (o, "mode",
                  ucb_json_str (json_string_value (json_object_get (r, "mode")) ?: "process"));
    ucb_json_set (o, "base", side_json (&b));
    ucb_json_set (o, "head", side_json (&h));
    ucb_json_set (o, "change_pct", ucb_json_real (change));
    ucb_json_set (o, "p_value", ucb_json_real (p));
    ucb_json_set (o, "verdict", ucb_json_str (verdict));
    ucb_json_push (points, o);
    free (b.v);
    free (h.v);
  }
  only = ucb_json_arr ();
  only_in (base, head, argv[optind], only);
  only_in (head, base, argv[optind + 1], only);
  ucb_json_set (out, "schema", ucb_json_str ("ucbench-compare/1"));
  ucb_json_set (out, "base", ucb_json_str (argv[optind]));
  ucb_json_set (out, "head", ucb_json_str (argv[optind + 1]));
  ucb_json_set (out, "test", ucb_json_str ("mann-whitney-u"));
  ucb_json_set (out, "alpha", ucb_json_real (ALPHA));
  ucb_json_set (out, "min_samples", ucb_json_int (MIN_SAMPLES));
  ucb_json_set (out, "threshold_pct", ucb_json_real (thr));
  ucb_json_set (out, "warnings", differences (base, head));
  ucb_json_set (out, "points", points);
  ucb_json_set (out, "only_in", only);
  ucb_json_set (out, "verify", compare_verify (base, head, &newly));
  ucb_json_set (out, "regressions", ucb_json_int ((long long) regressions));
  ucb_json_set (out, "newly_failing", ucb_json_int ((long long) newly));
  ret = 0;
  if (fmt == UCB_FORMAT_JSON)
    ret = ucb_json_write (out, stdout, err);
  else
    print_text (out, argv[optind], argv[optind + 1], base, head);
  json_decref (out);
  json_decref (base);
  json_decref (head);
  if (ret < 0)
    return -1;
  return regressions || newly ? UCB_EXIT_FAILURE : 0;
}
