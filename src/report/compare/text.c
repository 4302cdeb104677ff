/* SPDX-License-Identifier: GPL-2.0-or-later */
/* text.c - `ucbench compare`'s text: drawn from its result (compare.c), the documents named with
 * their kernel and CPU.  Each row's ops/s columns are what its ratio is of, printed to enough
 * digits that head/base of them gives the printed ratio.  By default at most three lines come
 * before the table, for a mail; -v gives the method and every note.  Null is `-`, never nan.  A
 * string from a document (or a file name) goes through ucb_escape_controls(), as messages do: a
 * workload "get\nppid" stays on its line. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/compare-stats.h"
#include "report/compare/compare.h"
#include "report/compare/parts.h"

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
print_only_and_verify (const struct ucb_cmp_result *res)
{
  for (size_t i = 0; i < res->n_only; i++)
    {
      cleanup_free char *file = ucb_escape_controls (res->only[i].file);
      cleanup_free char *point = ucb_escape_controls (res->only[i].point);
      printf ("# only in %s: %s\n", file, point);
    }
  for (size_t i = 0; i < res->n_cases; i++)
    {
      const struct ucb_cmp_case *c = &res->cases[i];
      cleanup_free char *id = ucb_escape_controls (c->id);
      cleanup_free char *b = ucb_escape_controls (c->base_not_run ? "not run" : c->base ?: "(absent)");
      cleanup_free char *h = ucb_escape_controls (c->head_not_run ? "not run" : c->head ?: "(absent)");
      printf ("# verify %s: %s -> %s%s\n", id, b, h, c->newly_failing ? "  NEWLY FAILING" : "");
    }
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
rate_cells (const struct ucb_cmp_row *x, char *cb, char *ch, size_t n)
{
  double vb = x->gm_b, vh = x->gm_h, ratio = x->t.ops.ratio;
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
flags_cell (const struct ucb_cmp_row *x, char *buf, size_t n)
{
  const char *sides[] = { x->flags_b, x->flags_h }, *names[] = { "base: ", "head: " };

  buf[0] = '\0';
  for (size_t k = 0; k < 2; k++)
    {
      if (!sides[k][0])
        continue;
      append (buf, n, buf[0] ? "; " : " [");
      append (buf, n, names[k]);
      for (const char *f = sides[k]; *f; f++) /* "a,b" (add_flags()) as "a, b" */
        append (buf, n, *f == ',' ? ", " : (char[]){ *f, '\0' });
    }
  if (buf[0])
    append (buf, n, "]");
}

static void
print_row (const struct ucb_cmp_row *x)
{
  const struct ucb_doc_point *r = x->r;
  const struct ucb_cmp_est *e = &x->t.ops, *u = &x->t.cpu;
  bool c = x->t.from_contended;
  char ci[40], cpu[40], mb[24], mh[24], rb[24], rh[24], runs[56], p[16] = "-", v[64];
  char fl[4 * UCB_POINT_FLAGS_MAX + 32];
  cleanup_free char *w = ucb_escape_controls (r->workload);
  cleanup_free char *o = ucb_escape_controls (r->owner);
  cleanup_free char *m = ucb_escape_controls (r->mode);

  ucb_cmp_ratio_text (e->ratio, e->lo, e->hi, c, ci, sizeof ci);
  ucb_cmp_ratio_text (u->ratio, u->lo, u->hi, c, cpu, sizeof cpu);
  rate_cells (x, mb, mh, sizeof mb);
  flags_cell (x, fl, sizeof fl);
  ucb_cmp_runs_text ((long long) x->used_b, (long long) x->left_b, rb, sizeof rb);
  ucb_cmp_runs_text ((long long) x->used_h, (long long) x->left_h, rh, sizeof rh);
  snprintf (runs, sizeof runs, "%s/%s%s", rb, rh, x->invocation ? "d" : "");
  if (isfinite (x->adj_b))
    snprintf (p, sizeof p, "%.3f", x->adj_b);
  if (x->needed)
    snprintf (v, sizeof v, "inconclusive (~%lld %s a side)", (long long) x->needed,
              x->needed_documents ? "documents" : "repeats");
  else
    snprintf (v, sizeof v, "%s", ucb_cmp_verdict_name (x->verdict));
  printf ("%-9s %-9s %5lld %5lld %-7s %5lld %12s %12s  %-22s %-22s %-9s %6s  %s%s\n", w, o,
          r->depth, r->tasks, m, r->containers, mb, mh, ci, cpu, runs, p, v, fl);
}

/* The legend of the marks the rows use, only when one does. */
static void
print_marks (const struct ucb_cmp_result *res)
{
  bool c = false, f = false;

  for (size_t i = 0; i < res->n_rows; i++)
    {
      const struct ucb_cmp_row *x = &res->rows[i];
      c = c || x->t.from_contended;
      f = f || x->flags_b[0] || x->flags_h[0];
    }
  if (c)
    printf ("# c: the ratio of every repeat, contended ones too: too few were left without them "
            "for an interval; shown, it decides nothing\n");
  if (f)
    printf ("# [side: flags]: the flags of that side's repeats of the point (e.g. contended: "
            "the tasks lacked CPU; starved: a container did too few ops to measure)\n");
}

/* The i-th of compare's warnings (each difference's sentence first), escaped. */
static char *
warning (const struct ucb_cmp_result *res, size_t i)
{
  return ucb_escape_controls (json_string_value (json_array_get (res->warnings, i)));
}

/* -v: every document, every note, the method and the legend. */
static void
print_header_full (const struct ucb_cmp_result *res)
{
  print_docs ("base", res->base, res->n_base);
  print_docs ("head", res->head, res->n_head);
  for (size_t i = 0; i < json_array_size (res->warnings); i++)
    {
      /* Differences quote the documents' host and config values. */
      cleanup_free char *note = warning (res, i);
      printf ("# note: %s\n", note);
    }
  printf ("# method: ratio head/base of the geometric means of per-container ops/s (the ops/s "
          "columns), 95%% Welch t interval on the log of per-run values;\n#   "
          "regression/improvement when the interval lies beyond 1 -/+ %.1f%% with Holm-adjusted "
          "p < %.2f over the table (docs/statistics.md)\n",
          res->threshold_pct, UCB_COMPARE_ALPHA);
  printf ("# runs b/h: repeats used a side (-Nc: N contended left out; d: the document is the "
          "unit, its value the geometric mean of its repeats); p adj: Holm-adjusted p of the "
          "change beyond the threshold; -: none\n");
  if (res->canary)
    printf ("# normalize canary: ratios are of each repeat's ops/s / its host-speed canary (CPU "
            "ns/op x canary); the ops/s columns are base's as measured and head's at base's host "
            "speed (times base's geometric mean canary)\n");
  if (res->caveat)
    printf ("# caveat: %s\n", res->caveat);
}

/* By default one "# note:" line of what limits the reading, when anything does: the caveat in
 * short, the keys that differ (their values under -v) and any other warning in full. */
static void
print_limits (const struct ucb_cmp_result *res)
{
  json_t *diff = res->differences;
  const char *sep = "# note: ";
  size_t i;

  if (res->caveat)
    {
      if (res->drift_pct > 0)
        printf ("%sfewer than 2 documents a side: the drift between invocations is assumed, "
                "%.1f%% a side (--drift)",
                sep, res->drift_pct);
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
  /* the warnings after the differences' sentences */
  for (; i < json_array_size (res->warnings); i++)
    {
      cleanup_free char *w = warning (res, i);
      printf ("%s%s", sep, w);
      sep = "; ";
    }
  if (sep[0] == ';')
    putchar ('\n');
}

/* By default: the documents, what the columns are (when there is a row), what limits the
 * reading; no more than three lines, so that the numbers come first in a mail. */
static void
print_header (const struct ucb_cmp_result *res)
{
  fputs ("# ", stdout);
  print_side ("base", res->base, res->n_base);
  printf ("; ");
  print_side ("head", res->head, res->n_head);
  putchar ('\n');
  if (res->n_rows)
    printf ("# ops/s: per container, the geometric mean of a side's runs%s; ratio: head/base of "
            "them, 95%% interval; verdicts at 1 -/+ %.1f%%, Holm over the table (-v: method, "
            "legend)\n",
            res->canary ? ", head's at base's host speed (--normalize canary)" : "",
            res->threshold_pct);
  print_limits (res);
}

void
ucb_compare_print_text (const struct ucb_cmp_result *res, bool verbose)
{
  if (verbose)
    print_header_full (res);
  else
    print_header (res);
  printf ("%-9s %-9s %5s %5s %-7s %5s %12s %12s  %-22s %-22s %-9s %6s  %s\n", "workload", "owner",
          "depth", "tasks", "mode", "N", "base ops/s", "head ops/s", "ratio [95% CI]",
          "CPU ns/op ratio", "runs b/h", "p adj", "verdict");
  for (size_t i = 0; i < res->n_rows; i++)
    print_row (&res->rows[i]);
  print_marks (res);
  print_only_and_verify (res);
  ucb_compare_usl_print (&res->usl);
  printf ("# %zu regression(s), %zu newly failing verify case(s)\n", res->regressions,
          res->newly_failing);
}
