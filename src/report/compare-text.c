/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-text.c - `ucbench compare`'s text: drawn from its JSON result (compare.c), the
 * documents named with their kernel and CPU.  Each row's ops/s columns are what its ratio is
 * of, printed to enough digits that head/base of them gives the printed ratio.  By default at
 * most three lines come before the table, for a mail; -v gives the method and every note.  Null
 * is `-`, never nan.  A string from a document (or a file name) goes through
 * ucb_escape_controls(), as messages do: a workload "get\nppid" stays on its line. */
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
print_host (const struct ucb_doc *d)
{
  cleanup_free char *kernel = ucb_escape_controls (d->host.kernel_release ?: "?");
  cleanup_free char *cpu = ucb_escape_controls (d->host.cpu_model ?: "?");

  printf (" (kernel %s, %s)", kernel, cpu);
}

/* -v: a line per document. */
static void
print_docs (const char *what, const struct ucb_doc *docs, size_t n)
{
  for (size_t k = 0; k < n; k++)
    {
      cleanup_free char *name = ucb_escape_controls (docs[k].name);

      printf ("# %s: %s", what, name);
      print_host (&docs[k]);
      putchar ('\n');
    }
}

static bool
same_host (const struct ucb_doc *a, const struct ucb_doc *b)
{
  return strcmp (a->host.kernel_release ?: "?", b->host.kernel_release ?: "?") == 0
         && strcmp (a->host.cpu_model ?: "?", b->host.cpu_model ?: "?") == 0;
}

/* By default a side in a few words: "base: b1.json, b2.json (kernel K, CPU)", the kernel and
 * CPU after each run of documents that share them. */
static void
print_side (const char *what, const struct ucb_doc *docs, size_t n)
{
  printf ("%s: ", what);
  for (size_t k = 0; k < n; k++)
    {
      cleanup_free char *name = ucb_escape_controls (docs[k].name);

      printf ("%s%s", k ? ", " : "", name);
      if (k + 1 == n || !same_host (&docs[k], &docs[k + 1]))
        print_host (&docs[k]);
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
    cleanup_free char *b = ucb_escape_controls (
        json_is_true (json_object_get (x, "base_not_run"))
            ? "not run"
            : json_string_value (json_object_get (x, "base")) ?: "(absent)");
    cleanup_free char *h = ucb_escape_controls (
        json_is_true (json_object_get (x, "head_not_run"))
            ? "not run"
            : json_string_value (json_object_get (x, "head")) ?: "(absent)");
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

/* A number with `dec` decimals, or "-" for null. */
static void
rate_cell (double v, int dec, char *buf, size_t n)
{
  if (isfinite (v))
    snprintf (buf, n, "%.*f", dec, v);
  else
    snprintf (buf, n, "-");
}

/* The ops/s cells of a row: each side's geometric mean, the statistic its ratio is of.  Without
 * decimals from 1000 up (4 significant digits below), and with more only where head/base of the
 * printed numbers would not round to the printed ratio, so that a reader who divides them gets
 * the ratio the row prints. */
static void
rate_cells (json_t *b, json_t *h, double ratio, char *cb, char *ch, size_t n)
{
  double vb = ucb_json_num (b, "geomean_ops_per_s"), vh = ucb_json_num (h, "geomean_ops_per_s");
  double lo = fmin (vb, vh);
  int dec = lo > 0 && lo < 1000 ? (int) fmin (9, 3 - floor (log10 (lo))) : 0, last = dec + 6;
  char want[32], got[32];

  snprintf (want, sizeof want, "%.3f", ratio);
  for (;; dec++)
    {
      rate_cell (vb, dec, cb, n);
      rate_cell (vh, dec, ch, n);
      snprintf (got, sizeof got, "%.3f", strtod (ch, NULL) / strtod (cb, NULL));
      if (!isfinite (ratio) || strcmp (got, want) == 0 || dec >= last)
        return;
    }
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
  rate_cells (b, h, ucb_json_num (x, "ratio"), mb, mh, sizeof mb);
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

/* Whether the ratios are of canary-normalised values (--normalize canary). */
static bool
normalized (json_t *out)
{
  const char *n
      = json_string_value (json_object_get (json_object_get (out, "method"), "normalize"));
  return n && strcmp (n, "canary") == 0;
}

/* -v: every document, every note, the method and the legend. */
static void
print_header_full (json_t *out, const struct ucb_doc *base, size_t n_base,
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
  printf ("# method: ratio head/base of the geometric means of per-container ops/s (the ops/s "
          "columns), 95%% Welch t interval on the log of per-run values;\n#   "
          "regression/improvement when the interval lies beyond 1 -/+ %.1f%% with Holm-adjusted "
          "p < %.2f over the table (docs/statistics.md)\n",
          ucb_json_num (json_object_get (out, "method"), "threshold_pct"), UCB_COMPARE_ALPHA);
  printf ("# runs b/h: repeats used a side (-Nc: N contended left out; d: the document is the "
          "unit, its value the geometric mean of its repeats); p adj: Holm-adjusted p of the "
          "change beyond the threshold; -: none\n");
  if (normalized (out))
    printf ("# normalize canary: ratios are of each repeat's ops/s / its host-speed canary (CPU "
            "ns/op x canary); the ops/s columns are base's as measured and head's at base's host "
            "speed (times base's geometric mean canary)\n");
  if (json_is_string (json_object_get (out, "caveat")))
    printf ("# caveat: %s\n", json_string_value (json_object_get (out, "caveat")));
}

/* By default one "# note:" line of what limits the reading, when anything does: the caveat in
 * short, the keys that differ (their values under -v) and any other warning in full. */
static void
print_limits (json_t *out)
{
  json_t *diff = json_object_get (out, "differences"), *warn = json_object_get (out, "warnings");
  double drift = ucb_json_num (json_object_get (out, "method"), "drift_pct");
  const char *sep = "# note: ";
  size_t i;

  if (json_is_string (json_object_get (out, "caveat")))
    {
      if (drift > 0)
        printf ("%sfewer than 2 documents a side: the drift between invocations is assumed, "
                "%.1f%% a side (--drift)",
                sep, drift);
      else
        printf ("%sfewer than 2 documents a side and --drift 0: the verdicts are about these "
                "invocations only",
                sep);
      sep = "; ";
    }
  for (i = 0; i < json_array_size (diff); i++)
    {
      cleanup_free char *key = ucb_escape_controls (
          json_string_value (json_object_get (json_array_get (diff, i), "key")));
      printf ("%s%s%s", i ? ", " : sep, i ? "" : "the documents differ in ", key);
    }
  if (i)
    {
      printf (" (-v: how)");
      sep = "; ";
    }
  /* warnings[] holds the sentence of each difference first, then the others (compare.c) */
  for (; i < json_array_size (warn); i++)
    {
      cleanup_free char *w = ucb_escape_controls (json_string_value (json_array_get (warn, i)));
      printf ("%s%s", sep, w);
      sep = "; ";
    }
  if (sep[0] == ';')
    putchar ('\n');
}

/* By default: the documents, what the columns are (when there is a row), what limits the
 * reading; no more than three lines, so that the numbers come first in a mail. */
static void
print_header (json_t *out, const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
              size_t n_head)
{
  fputs ("# ", stdout);
  print_side ("base", base, n_base);
  printf ("; ");
  print_side ("head", head, n_head);
  putchar ('\n');
  if (json_array_size (json_object_get (out, "points")))
    printf ("# ops/s: per container, the geometric mean of a side's runs%s; ratio: head/base of "
            "them, 95%% interval; verdicts at 1 -/+ %.1f%%, Holm over the table (-v: method, "
            "legend)\n",
            normalized (out) ? ", head's at base's host speed (--normalize canary)" : "",
            ucb_json_num (json_object_get (out, "method"), "threshold_pct"));
  print_limits (out);
}

void
ucb_compare_print_text (json_t *out, const struct ucb_doc *base, size_t n_base,
                        const struct ucb_doc *head, size_t n_head, bool verbose)
{
  size_t i;
  json_t *x;

  if (verbose)
    print_header_full (out, base, n_base, head, n_head);
  else
    print_header (out, base, n_base, head, n_head);
  printf ("%-9s %-9s %5s %5s %-7s %5s %12s %12s  %-22s %-22s %-9s %6s  %s\n", "workload", "owner",
          "depth", "tasks", "mode", "N", "base ops/s", "head ops/s", "ratio [95% CI]",
          "CPU ns/op ratio", "runs b/h", "p adj", "verdict");
  json_array_foreach (json_object_get (out, "points"), i, x) print_row (x);
  print_marks (json_object_get (out, "points"));
  print_only_and_verify (out);
  ucb_compare_usl_print (json_object_get (out, "scalability"));
  printf ("# %lld regression(s), %lld newly failing verify case(s)\n",
          json_integer_value (json_object_get (out, "regressions")),
          json_integer_value (json_object_get (out, "newly_failing")));
}
