/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-text.c - `ucbench compare`'s text: drawn from its JSON result (compare.c), the
 * documents named with their kernel and CPU.  Null is `-`, never nan.  A string from a document
 * (or a file name) goes through ucb_escape_controls(), as messages do: a workload "get\nppid"
 * stays on its line. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/compare-stats.h"
#include "report/compare-text.h"
#include "report/compare-usl.h"
#include "report/compare.h"

static void
print_docs (const char *what, const struct ucb_doc *docs, size_t n)
{
  for (size_t k = 0; k < n; k++)
    {
      cleanup_free char *name = ucb_escape_controls (docs[k].name);
      cleanup_free char *kernel = ucb_escape_controls (docs[k].host.kernel_release ?: "?");
      cleanup_free char *cpu = ucb_escape_controls (docs[k].host.cpu_model ?: "?");

      printf ("# %s: %s (kernel %s, %s)\n", what, name, kernel, cpu);
    }
}

/* "# only in FILE: POINT" and "# verify ID: BASE -> HEAD" lines. */
static void
print_only_and_verify (json_t *out)
{
  size_t i;
  json_t *x;

  json_array_foreach (json_object_get (out, "only_in"), i, x)
  {
    cleanup_free char *file = ucb_escape_controls (json_string_value (json_object_get (x, "file")));
    cleanup_free char *point
        = ucb_escape_controls (json_string_value (json_object_get (x, "point")));
    printf ("# only in %s: %s\n", file, point);
  }
  json_array_foreach (json_object_get (out, "verify"), i, x)
  {
    cleanup_free char *id = ucb_escape_controls (json_string_value (json_object_get (x, "id")));
    cleanup_free char *b
        = ucb_escape_controls (json_string_value (json_object_get (x, "base")) ?: "(absent)");
    cleanup_free char *h
        = ucb_escape_controls (json_string_value (json_object_get (x, "head")) ?: "(absent)");
    printf ("# verify %s: %s -> %s%s\n", id, b, h,
            json_is_true (json_object_get (x, "newly_failing")) ? "  NEWLY FAILING" : "");
  }
}

void
ucb_cmp_runs_cell (const json_t *s, char *buf, size_t n)
{
  long long u = json_integer_value (json_object_get (s, "repeats_used"));
  long long l = json_integer_value (json_object_get (s, "repeats_left_out"));
  if (l)
    snprintf (buf, n, "%lld-%lldc", u, l);
  else
    snprintf (buf, n, "%lld", u);
}

void
ucb_cmp_ratio_cell (const json_t *o, bool contended, char *buf, size_t n)
{
  double r = ucb_json_num (o, "ratio"), lo = ucb_json_num (o, "ci_low"),
         hi = ucb_json_num (o, "ci_high");
  const char *c = contended ? " c" : "";

  if (!isfinite (r))
    snprintf (buf, n, "-");
  else if (isfinite (lo) && isfinite (hi))
    snprintf (buf, n, "%.3f [%.3f, %.3f]%s", r, lo, hi, c);
  else
    snprintf (buf, n, "%.3f%s", r, c);
}

/* A number with no decimals, or "-" for null. */
static void
rate_cell (json_t *o, const char *k, char *buf, size_t n)
{
  double v = ucb_json_num (o, k);
  if (isfinite (v))
    snprintf (buf, n, "%.0f", v);
  else
    snprintf (buf, n, "-");
}

static void
append (char *buf, size_t n, const char *s)
{
  size_t at = strlen (buf);
  snprintf (buf + at, n > at ? n - at : 0, "%s", s);
}

/* " [base: starved; head: contended]": the flags of each side's repeats, "" when none. */
static void
flags_cell (json_t *b, json_t *h, char *buf, size_t n)
{
  json_t *sides[] = { b, h }, *f;
  const char *names[] = { "base: ", "head: " };
  size_t i;

  buf[0] = '\0';
  for (size_t k = 0; k < 2; k++)
    {
      json_t *arr = json_object_get (sides[k], "flags");
      if (!json_array_size (arr))
        continue;
      append (buf, n, buf[0] ? "; " : " [");
      append (buf, n, names[k]);
      json_array_foreach (arr, i, f)
      {
        append (buf, n, i ? ", " : "");
        append (buf, n, json_string_value (f));
      }
    }
  if (buf[0])
    append (buf, n, "]");
}

static void
print_row (json_t *x)
{
  json_t *b = json_object_get (x, "base"), *h = json_object_get (x, "head");
  bool c = json_is_true (json_object_get (x, "ratio_from_contended"));
  char ci[40], cpu[40], mb[24], mh[24], rb[24], rh[24], runs[56], p[16] = "-", v[64];
  char fl[4 * UCB_POINT_FLAGS_MAX + 32];
  cleanup_free char *w = ucb_escape_controls (json_string_value (json_object_get (x, "workload")));
  cleanup_free char *o = ucb_escape_controls (json_string_value (json_object_get (x, "owner")));
  cleanup_free char *m = ucb_escape_controls (json_string_value (json_object_get (x, "mode")));

  ucb_cmp_ratio_cell (x, c, ci, sizeof ci);
  ucb_cmp_ratio_cell (json_object_get (x, "cpu_ns_per_op"), c, cpu, sizeof cpu);
  rate_cell (b, "median_ops_per_s", mb, sizeof mb);
  rate_cell (h, "median_ops_per_s", mh, sizeof mh);
  flags_cell (b, h, fl, sizeof fl);
  ucb_cmp_runs_cell (b, rb, sizeof rb);
  ucb_cmp_runs_cell (h, rh, sizeof rh);
  snprintf (runs, sizeof runs, "%s/%s%s", rb, rh,
            strcmp (json_string_value (json_object_get (x, "unit")), "document") == 0 ? "d" : "");
  if (isfinite (ucb_json_num (x, "p_beyond_adj")))
    snprintf (p, sizeof p, "%.3f", ucb_json_num (x, "p_beyond_adj"));
  if (json_is_integer (json_object_get (x, "needed")))
    snprintf (v, sizeof v, "inconclusive (~%lld %s a side)",
              json_integer_value (json_object_get (x, "needed")),
              strcmp (json_string_value (json_object_get (x, "needed_unit")), "document") == 0
                  ? "documents"
                  : "repeats");
  else
    snprintf (v, sizeof v, "%s", json_string_value (json_object_get (x, "verdict")));
  printf ("%-9s %-9s %5lld %5lld %-7s %5lld %12s %12s  %-22s %-22s %-9s %6s  %s%s\n", w, o,
          json_integer_value (json_object_get (x, "depth")),
          json_integer_value (json_object_get (x, "tasks")), m,
          json_integer_value (json_object_get (x, "containers")), mb, mh, ci, cpu, runs, p, v, fl);
}

/* The legend of the marks the rows use, only when one does. */
static void
print_marks (json_t *points)
{
  bool c = false, f = false;
  size_t i;
  json_t *x;

  json_array_foreach (points, i, x)
  {
    c = c || json_is_true (json_object_get (x, "ratio_from_contended"));
    f = f || json_array_size (json_object_get (json_object_get (x, "base"), "flags"))
        || json_array_size (json_object_get (json_object_get (x, "head"), "flags"));
  }
  if (c)
    printf ("# c: the ratio of every repeat, contended ones too: too few were left without them "
            "for an interval; shown, it decides nothing\n");
  if (f)
    printf ("# [side: flags]: the flags of that side's repeats of the point (e.g. contended: "
            "the tasks lacked CPU; starved: a container did too few ops to measure)\n");
}

void
ucb_compare_print_text (json_t *out, const struct ucb_doc *base, size_t n_base,
                        const struct ucb_doc *head, size_t n_head)
{
  size_t i;
  json_t *x;

  print_docs ("base", base, n_base);
  print_docs ("head", head, n_head);
  json_array_foreach (json_object_get (out, "warnings"), i, x)
  {
    /* Differences quote the documents' host and config values. */
    cleanup_free char *note = ucb_escape_controls (json_string_value (x));
    printf ("# note: %s\n", note);
  }
  printf ("# method: ratio head/base of per-container ops/s, 95%% Welch t interval on the log "
          "of per-run values;\n#   regression/improvement when the interval lies beyond "
          "1 -/+ %.1f%% with Holm-adjusted p < %.2f over the table (docs/statistics.md)\n",
          ucb_json_num (json_object_get (out, "method"), "threshold_pct"), UCB_COMPARE_ALPHA);
  printf ("# runs b/h: repeats used a side (-Nc: N contended left out; d: the document is the "
          "unit); p adj: Holm-adjusted p of the change beyond the threshold; -: none\n");
  print_marks (json_object_get (out, "points"));
  if (strcmp (json_string_value (json_object_get (json_object_get (out, "method"), "normalize")),
              "canary")
      == 0)
    printf ("# normalize canary: ratios are of each repeat's ops/s / its host-speed canary (CPU "
            "ns/op x canary); the ops/s columns are raw\n");
  if (json_is_string (json_object_get (out, "caveat")))
    printf ("# caveat: %s\n", json_string_value (json_object_get (out, "caveat")));
  printf ("%-9s %-9s %5s %5s %-7s %5s %12s %12s  %-22s %-22s %-9s %6s  %s\n", "workload", "owner",
          "depth", "tasks", "mode", "N", "base ops/s", "head ops/s", "ratio [95% CI]",
          "CPU ns/op ratio", "runs b/h", "p adj", "verdict");
  json_array_foreach (json_object_get (out, "points"), i, x) print_row (x);
  print_only_and_verify (out);
  ucb_compare_usl_print (json_object_get (out, "scalability"));
  printf ("# %lld regression(s), %lld newly failing verify case(s)\n",
          json_integer_value (json_object_get (out, "regressions")),
          json_integer_value (json_object_get (out, "newly_failing")));
}
