/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.c - `ucbench model FILE`: the USL fit of every series of a document (usl-doc.c),
 * or of a table of the user's own numbers read as one (table.c), as the ucbench-model/1
 * JSON and the table drawn from it, its chart (plot.c), each to stdout or written
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
#include "report/model/parts.h"
#include "report/output.h"
#include "report/usl-doc.h"
#include "report/model/model.h"

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

/* A number as the JSON has it: NaN for none (null), whatever its sign. */
static double
num (double v)
{
  return isfinite (v) ? v : NAN;
}

/* "v [lo, hi]"; an end the data leave open is "unbounded". */
static void
interval_cell (const struct ucb_usl_interval *iv, enum shown how, char *buf, size_t n)
{
  char e[32], lo[32], hi[32];

  show (e, sizeof e, iv->est, how);
  show (lo, sizeof lo, iv->lo, how);
  show (hi, sizeof hi, iv->hi, how);
  snprintf (buf, n, "%s [%s, %s]", e, lo, hi);
}

static void
print_levels (FILE *f, const struct ucb_usl_series *s)
{
  fprintf (f, "  %8s %14s %14s %9s %8s\n", "N", "median ops/s", "fitted ops/s", "residual",
           "repeats");
  for (size_t j = 0; j < s->n_levels; j++)
    {
      const struct ucb_usl_level *l = &s->levels[j];
      fprintf (f, "  %8lld %14.0f %14.0f %8.1f%% %8lld\n", l->containers, num (l->median),
               num (l->fitted), num (100 * (l->median / l->fitted - 1)), (long long) l->repeats);
    }
}

/* The lack-of-fit line: its F, or why there is none. */
static void
print_lack_of_fit (FILE *f, const struct ucb_usl_series *s)
{
  const struct ucb_usl_fit *t = &s->fit;

  if (!t->lof_tested)
    fprintf (f, "  lack of fit: not testable: %s\n",
             s->m == s->n_levels ? "one repeat per N, so the residual holds the noise and any "
                                   "misfit of the shape alike"
             : s->n_levels <= 3  ? "3 container counts, which the curve can pass through"
                                 : "the repeats at each N are equal");
  else if (t->lof_rejected)
    fprintf (f,
             "  lack of fit: F(%lld, %lld) = %.3g, p = %.2g: the law's shape misses the means of "
             "the N beyond their repeats' scatter; the intervals are those of the means "
             "(lack-of-fit mean square, df %lld), and nothing is predicted beyond the N "
             "measured\n",
             (long long) t->df_lack, (long long) t->df_pure, num (t->lof_f), num (t->lof_p),
             (long long) t->df_lack);
  else
    fprintf (f,
             "  lack of fit: F(%lld, %lld) = %.3g, p = %.2g: the shape fits the means of the N "
             "within their repeats' scatter\n",
             (long long) t->df_lack, (long long) t->df_pure, num (t->lof_f), num (t->lof_p));
}

/* What the intervals establish about the loss with N (usl.h, ucb_usl_loss). */
static void
print_loss (FILE *f, const struct ucb_usl_fit *t)
{
  const char *loss = ucb_usl_loss (t);

  if (strcmp (loss, "unidentified") == 0)
    fprintf (f,
             "  loss with N: real (p = %.2g), its kind not identified: the intervals of sigma and "
             "kappa both reach 0 (either cost alone fits)\n",
             num (t->p_flat));
  else if (strcmp (loss, "not established") == 0)
    fprintf (f, "  loss with N: not established (p = %.2g)\n", num (t->p_flat));
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
print_predictions (FILE *f, const struct ucb_usl_series *s, const struct ucb_model_args *a)
{
  char c[112], sc[112];

  for (size_t k = 0; k < a->n_predict; k++)
    {
      cleanup_free char *why = ucb_usl_prediction_refusal (s, a->predict[k]);
      struct ucb_usl_pred p;

      if (why)
        {
          fprintf (f, "  predicted at N=%u: refused: %s\n", a->predict[k], why);
          continue;
        }
      ucb_usl_predict (&s->fit, a->predict[k], &p);
      interval_cell (&p.x, OPS, c, sizeof c);
      interval_cell (&p.scale, SCALE, sc, sizeof sc);
      fprintf (f, "  predicted at N=%u: %s ops/s per container; scale %s%s\n", a->predict[k], c, sc,
               ucb_usl_extrapolates (s, a->predict[k]) ? "  (extrapolated)" : "");
    }
}

static void
print_fitted (FILE *f, const struct ucb_usl_series *s, const struct ucb_model_args *a)
{
  char c[112];

  interval_cell (&s->fit.lambda, OPS, c, sizeof c);
  fprintf (f, "  lambda  %-40s ops/s, one container alone\n", c);
  interval_cell (&s->fit.sigma, PARAM, c, sizeof c);
  fprintf (f, "  sigma   %-40s contention (a serialised share)\n", c);
  interval_cell (&s->fit.kappa, PARAM, c, sizeof c);
  fprintf (f, "  kappa   %-40s coherency (a cache line bounced between containers)\n", c);
  fprintf (f,
           "  residual %.1f%% (SD of log ops/s %.4f, df %lld); no loss with N (sigma = kappa "
           "= 0): p = %.2g\n",
           num (100 * expm1 (s->fit.s)), num (s->fit.s), (long long) s->fit.df,
           num (s->fit.p_flat));
  print_lack_of_fit (f, s);
  print_loss (f, &s->fit);
  print_levels (f, s);
  print_predictions (f, s, a);
}

/* The table, from the model itself (the JSON is another view of it). */
static void
print_text (FILE *f, const struct ucb_doc *d, const struct ucb_usl_model *m,
            const struct ucb_model_args *a)
{
  cleanup_json json_t *warnings = warnings_json (d, m, a->predict, a->n_predict);
  size_t i;
  json_t *w;
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
  json_array_foreach (warnings, i, w)
  {
    cleanup_free char *text = ucb_escape_controls (json_string_value (w));
    fprintf (f, "# warning: %s\n", text);
  }
  for (i = 0; i < m->n; i++)
    {
      const struct ucb_usl_series *s = &m->s[i];
      cleanup_free char *raw = ucb_usl_series_name (s);
      cleanup_free char *name = ucb_escape_controls (raw);
      if (s->reason)
        {
          cleanup_free char *why = ucb_escape_controls (s->reason);
          fprintf (f, "%s: refused: %s\n", name, why);
          continue;
        }
      fprintf (f, "%s: fitted over %zu container counts (%zu observations)\n", name, s->n_levels,
               s->m);
      print_fitted (f, s, a);
    }
  fprintf (f, "# %zu series fitted, %zu refused\n", m->n - m->refused, m->refused);
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
write_result (const struct ucb_doc *d, const struct ucb_usl_model *m,
              const struct ucb_model_args *a, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *f;

  if (a->json)
    {
      cleanup_json json_t *out = model_json (d, m, a);
      return a->output ? ucb_report_write_file (out, a->output, err)
                       : ucb_json_write (out, stdout, err);
    }
  f = open_memstream (&buf, &len);
  if (f == NULL)
    ucb_oom ();
  print_text (f, d, m, a);
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
  int ret;

  if (ucb_model_input_open (a->input, &d, err) < 0)
    return -1;
  if (d.n_points == 0)
    {
      ucb_doc_free (&d);
      return ucb_usage_error (err, "`%s`: no results[] entry: nothing to model", a->input);
    }
  ucb_usl_model_of (&d, 1, &m);
  ret = write_result (&d, &m, a, err);
  if (ret == 0 && a->plot)
    ret = write_plot (&d, &m, a, err);
  if (ret == 0 && m.refused)
    ret = UCB_EXIT_FAILURE;
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);
  return ret;
}
