/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usl-report.c - `ucbench model FILE`: the USL fit of every series of a document (usl-doc.c),
 * or of a table of the user's own numbers read as one (model-table.c), as the ucbench-model/1
 * JSON and the table drawn from it, its chart (plot-usl.c), each to stdout or written
 * atomically. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/model-table.h"
#include "report/plot-usl.h"
#include "report/output.h"
#include "report/usl-doc.h"
#include "report/usl-report.h"

#define METHOD_TEXT                                                                                \
  "X(N) = lambda / (1 + sigma (N-1) + kappa N (N-1)) per container; least squares on log ops/s "   \
  "with sigma, kappa >= 0; 95% profile likelihood intervals"

static json_t *
method_json (void)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "model", ucb_json_str ("usl"));
  ucb_json_set (o, "fit",
                ucb_json_str ("least squares on log per-container ops/s, every "
                              "repeat one observation, sigma >= 0, kappa >= 0"));
  ucb_json_set (o, "interval", ucb_json_str ("profile-likelihood-t"));
  ucb_json_set (o, "level", ucb_json_real (0.95));
  ucb_json_set (o, "points",
                ucb_json_str ("repeats whose tasks each had a CPU of their own, "
                              "not contended, not starved"));
  return o;
}

/* The warning for --predict N = n when a fitted series does not measure it, or NULL; one per N,
 * whatever their number: each prediction beyond the data holds only on the same condition. */
static json_t *
extrapolation_warning (const struct ucb_usl_model *m, unsigned n)
{
  for (size_t i = 0; i < m->n; i++)
    {
      const struct ucb_usl_series *s = &m->s[i];
      bool above;

      if (s->status != UCB_USL_OK || !ucb_usl_extrapolates (s, n))
        continue;
      above = (long long) n > s->levels[s->n_levels - 1].containers;
      return ucb_json_fmt ("N=%u lies %s N fitted (%lld): the prediction extrapolates the law, "
                           "and holds only while nothing but the same contention and coherency "
                           "costs grows with N (no other lock, no memory bandwidth limit, no "
                           "second socket); its interval is the fit's, not that of what else "
                           "may change",
                           n, above ? "beyond the largest" : "below the smallest",
                           above ? s->levels[s->n_levels - 1].containers : s->levels[0].containers);
    }
  return NULL;
}

/* The warnings of the model: series fitted on an assumption, predictions that extrapolate. */
static json_t *
warnings_json (const struct ucb_doc *d, const struct ucb_usl_model *m, const unsigned *pred,
               size_t n_pred)
{
  json_t *w = ucb_json_arr ();
  bool assumed = false;

  for (size_t i = 0; i < m->n; i++)
    assumed = assumed || m->s[i].assumed;
  if (assumed)
    ucb_json_push (
        w, ucb_json_fmt ("`%s` says neither whether its tasks got their CPU (no contention) nor "
                         "how many CPUs it had: every measured repeat is used, as if each task "
                         "had a CPU of its own",
                         d->name));
  for (size_t k = 0; k < n_pred; k++)
    {
      bool seen = false;
      json_t *x;

      for (size_t j = 0; j < k; j++)
        seen = seen || pred[j] == pred[k];
      x = seen ? NULL : extrapolation_warning (m, pred[k]);
      if (x)
        ucb_json_push (w, x);
    }
  return w;
}

static json_t *
model_json (const struct ucb_doc *d, const struct ucb_usl_model *m, const struct ucb_model_args *a)
{
  json_t *o = ucb_json_obj (), *series = ucb_json_arr ();

  for (size_t i = 0; i < m->n; i++)
    ucb_json_push (series, ucb_usl_series_json (&m->s[i], a->predict, a->n_predict));
  ucb_json_set (o, "schema", ucb_json_str ("ucbench-model/1"));
  ucb_json_set (o, "document", ucb_json_str (d->name));
  ucb_json_set (o, "method", method_json ());
  ucb_json_set (o, "predict", ucb_json_arr ());
  for (size_t k = 0; k < a->n_predict; k++)
    ucb_json_push (json_object_get (o, "predict"), ucb_json_int (a->predict[k]));
  ucb_json_set (o, "warnings", warnings_json (d, m, a->predict, a->n_predict));
  ucb_json_set (o, "series", series);
  ucb_json_set (o, "fitted", ucb_json_int ((long long) (m->n - m->refused)));
  ucb_json_set (o, "refused", ucb_json_int ((long long) m->refused));
  return o;
}

/* ---- the table ------------------------------------------------------------------------------ */

/* How a number is shown: ops/s, a parameter, a scale. */
enum shown
{
  OPS,
  PARAM,
  SCALE,
};

static void
show (char *buf, size_t n, double v, enum shown how)
{
  if (!isfinite (v))
    snprintf (buf, n, "unbounded");
  else if (how == OPS)
    snprintf (buf, n, "%.0f", v);
  else if (how == PARAM)
    snprintf (buf, n, "%.3g", v == 0 ? 0.0 : v); /* no -0 */
  else
    snprintf (buf, n, "%.3f", v);
}

/* "v [lo, hi]"; an end the data leave open is "unbounded". */
static void
interval_cell (json_t *iv, enum shown how, char *buf, size_t n)
{
  char e[32], lo[32], hi[32];

  show (e, sizeof e, ucb_json_num (iv, "estimate"), how);
  show (lo, sizeof lo, ucb_json_num (iv, "ci_low"), how);
  show (hi, sizeof hi, ucb_json_num (iv, "ci_high"), how);
  snprintf (buf, n, "%s [%s, %s]", e, lo, hi);
}

static void
print_levels (FILE *f, json_t *levels)
{
  size_t i;
  json_t *l;

  fprintf (f, "  %8s %14s %14s %9s %8s\n", "N", "median ops/s", "fitted ops/s", "residual",
           "repeats");
  json_array_foreach (levels, i, l)
  {
    fprintf (f, "  %8lld %14.0f %14.0f %8.1f%% %8lld\n",
             json_integer_value (json_object_get (l, "containers")),
             ucb_json_num (l, "median_ops_per_s"), ucb_json_num (l, "fitted_ops_per_s"),
             ucb_json_num (l, "residual_pct"), json_integer_value (json_object_get (l, "repeats")));
  }
}

/* The lack-of-fit line: its F, or why there is none. */
static void
print_lack_of_fit (FILE *f, json_t *s)
{
  json_t *lof = json_object_get (s, "lack_of_fit");
  long long obs = json_integer_value (json_object_get (s, "observations"));
  long long n_lv = (long long) json_array_size (json_object_get (s, "levels"));

  if (!json_is_object (lof))
    fprintf (f, "  lack of fit: not testable: %s\n",
             obs == n_lv ? "one repeat per N, so the residual holds the noise and any misfit of "
                           "the shape alike"
             : n_lv <= 3 ? "3 container counts, which the curve can pass through"
                         : "the repeats at each N are equal");
  else if (json_is_true (json_object_get (lof, "rejected")))
    fprintf (f,
             "  lack of fit: F(%lld, %lld) = %.3g, p = %.2g: the law's shape misses the means of "
             "the N beyond their repeats' scatter; the intervals are those of the means "
             "(lack-of-fit mean square, df %lld), and nothing is predicted beyond the N "
             "measured\n",
             json_integer_value (json_object_get (lof, "df_lack")),
             json_integer_value (json_object_get (lof, "df_pure")), ucb_json_num (lof, "f"),
             ucb_json_num (lof, "p"), json_integer_value (json_object_get (lof, "df_lack")));
  else
    fprintf (f,
             "  lack of fit: F(%lld, %lld) = %.3g, p = %.2g: the shape fits the means of the N "
             "within their repeats' scatter\n",
             json_integer_value (json_object_get (lof, "df_lack")),
             json_integer_value (json_object_get (lof, "df_pure")), ucb_json_num (lof, "f"),
             ucb_json_num (lof, "p"));
}

/* What the intervals establish about the loss with N (usl.h, ucb_usl_loss). */
static void
print_loss (FILE *f, json_t *s)
{
  const char *loss = json_string_value (json_object_get (s, "loss"));

  if (strcmp (loss, "unidentified") == 0)
    fprintf (f,
             "  loss with N: real (p = %.2g), its kind not identified: the intervals of sigma and "
             "kappa both reach 0 (either cost alone fits)\n",
             ucb_json_num (s, "p_flat"));
  else if (strcmp (loss, "not established") == 0)
    fprintf (f, "  loss with N: not established (p = %.2g)\n", ucb_json_num (s, "p_flat"));
  else if (strcmp (loss, "contention") == 0)
    fprintf (f, "  loss with N: contention (sigma's interval excludes 0); coherency not "
                "established\n");
  else if (strcmp (loss, "coherency") == 0)
    fprintf (f, "  loss with N: coherency (kappa's interval excludes 0); contention not "
                "established\n");
  else
    fprintf (f, "  loss with N: contention and coherency (both intervals exclude 0)\n");
}

static void
print_predictions (FILE *f, json_t *s)
{
  char c[112], sc[112];
  size_t i;
  json_t *p;

  json_array_foreach (json_object_get (s, "predictions"), i, p)
  {
    long long n = json_integer_value (json_object_get (p, "containers"));
    if (json_is_string (json_object_get (p, "reason")))
      {
        fprintf (f, "  predicted at N=%lld: refused: %s\n", n,
                 json_string_value (json_object_get (p, "reason")));
        continue;
      }
    interval_cell (json_object_get (p, "ops_per_s"), OPS, c, sizeof c);
    interval_cell (json_object_get (p, "scale"), SCALE, sc, sizeof sc);
    fprintf (f, "  predicted at N=%lld: %s ops/s per container; scale %s%s\n", n, c, sc,
             json_is_true (json_object_get (p, "extrapolated")) ? "  (extrapolated)" : "");
  }
}

static void
print_fitted (FILE *f, json_t *s)
{
  char c[112];

  interval_cell (json_object_get (s, "lambda"), OPS, c, sizeof c);
  fprintf (f, "  lambda  %-40s ops/s, one container alone\n", c);
  interval_cell (json_object_get (s, "sigma"), PARAM, c, sizeof c);
  fprintf (f, "  sigma   %-40s contention (a serialised share)\n", c);
  interval_cell (json_object_get (s, "kappa"), PARAM, c, sizeof c);
  fprintf (f, "  kappa   %-40s coherency (a cache line bounced between containers)\n", c);
  fprintf (f,
           "  residual %.1f%% (SD of log ops/s %.4f, df %lld); no loss with N (sigma = kappa "
           "= 0): p = %.2g\n",
           ucb_json_num (s, "residual_pct"), ucb_json_num (s, "residual_sd_log"),
           json_integer_value (json_object_get (s, "df")), ucb_json_num (s, "p_flat"));
  print_lack_of_fit (f, s);
  print_loss (f, s);
  print_levels (f, json_object_get (s, "levels"));
  print_predictions (f, s);
}

static void
print_text (FILE *f, json_t *out, const struct ucb_doc *d, const struct ucb_usl_model *m)
{
  size_t i;
  json_t *w, *s;
  /* A document's strings (and its file name) stay on their line: control characters escaped. */
  cleanup_free char *file = ucb_escape_controls (d->name);
  cleanup_free char *kernel = ucb_escape_controls (d->host.kernel_release ?: "?");
  cleanup_free char *cpu = ucb_escape_controls (d->host.cpu_model ?: "?");

  fprintf (f, "# model of %s", file);
  if (d->host.kernel_release || d->host.cpu_model)
    fprintf (f, " (kernel %s, %s)", kernel, cpu);
  fputc ('\n', f);
  fprintf (f, "# method: %s (docs/statistics.md)\n", METHOD_TEXT);
  fprintf (f, "# points: the repeats whose tasks each had a CPU of their own, not contended or "
              "starved\n");
  json_array_foreach (json_object_get (out, "warnings"), i, w)
  {
    cleanup_free char *text = ucb_escape_controls (json_string_value (w));
    fprintf (f, "# warning: %s\n", text);
  }
  json_array_foreach (json_object_get (out, "series"), i, s)
  {
    cleanup_free char *raw = ucb_usl_series_name (&m->s[i]);
    cleanup_free char *name = ucb_escape_controls (raw);
    size_t n_lv = json_array_size (json_object_get (s, "levels"));
    if (json_is_string (json_object_get (s, "reason")))
      {
        cleanup_free char *why
            = ucb_escape_controls (json_string_value (json_object_get (s, "reason")));
        fprintf (f, "%s: refused: %s\n", name, why);
        continue;
      }
    fprintf (f, "%s: fitted over %zu container counts (%lld observations)\n", name, n_lv,
             json_integer_value (json_object_get (s, "observations")));
    print_fitted (f, s);
  }
  fprintf (f, "# %lld series fitted, %lld refused\n",
           json_integer_value (json_object_get (out, "fitted")),
           json_integer_value (json_object_get (out, "refused")));
}

/* ---- output --------------------------------------------------------------------------------- */

/* `text` to `path`, or stdout when NULL. */
static int
emit (const char *buf, size_t len, const char *path, ucb_error_t *err)
{
  if (path)
    return ucb_report_write_bytes (buf, len, path, err);
  if (fwrite (buf, 1, len, stdout) != len || fflush (stdout) != 0)
    return ucb_make_error (err, errno, "write to stdout");
  return 0;
}

static int
write_result (json_t *out, const struct ucb_doc *d, const struct ucb_usl_model *m,
              const struct ucb_model_args *a, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *f;

  if (a->json && a->output)
    return ucb_report_write_file (out, a->output, err);
  if (a->json)
    return ucb_json_write (out, stdout, err);
  f = open_memstream (&buf, &len);
  if (f == NULL)
    ucb_oom ();
  print_text (f, out, d, m);
  if (fclose (f) != 0)
    ucb_oom ();
  return emit (buf, len, a->output, err);
}

static int
write_plot (const struct ucb_doc *d, const struct ucb_usl_model *m, const struct ucb_model_args *a,
            ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  if (f == NULL)
    ucb_oom ();
  ucb_usl_plot_svg (f, m, a->predict, a->n_predict, d->name);
  if (fclose (f) != 0)
    ucb_oom ();
  return ucb_report_write_bytes (buf, len, a->plot, err);
}

int
ucb_model (const struct ucb_model_args *a, ucb_error_t *err)
{
  struct ucb_doc d;
  struct ucb_usl_model m;
  json_t *out;
  int ret;

  if (ucb_model_input_open (a->input, &d, err) < 0)
    return -1;
  if (d.n_points == 0)
    {
      ucb_doc_free (&d);
      return ucb_usage_error (err, "`%s`: no results[] entry: nothing to model", a->input);
    }
  ucb_usl_model_of (&d, 1, &m);
  out = model_json (&d, &m, a);
  ret = write_result (out, &d, &m, a, err);
  if (ret == 0 && a->plot)
    ret = write_plot (&d, &m, a, err);
  if (ret == 0 && m.refused)
    ret = UCB_EXIT_FAILURE;
  json_decref (out);
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);
  return ret;
}
