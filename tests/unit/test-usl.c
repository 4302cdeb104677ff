/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-usl.c - the Universal Scalability Law fit (report/usl.c) and the model of a document
 * (report/usl-doc.c): exact recovery of noise-free data, the coverage of the 95 % intervals over
 * synthetic sweeps with known lambda, sigma, kappa and lognormal noise (a fixed seed; the rates
 * are printed, and docs/statistics.md quotes them), the lack-of-fit test on USL and non-USL
 * shapes, the seed's published signal1 tables (tests/golden/usl-signal1-*.json) whole and held
 * out, and the refusals.  UCB_USL_SWEEPS sets the sweeps per case (default 300; 200 for the
 * lack of fit). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../tap.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/doc-file.h"
#include "report/usl-doc.h"
#include "report/usl.h"

/* ---- a deterministic generator: xorshift64*, Box-Muller ------------------------------------- */

static uint64_t rng_state;

static double
uniform (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return ((double) ((rng_state * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static double
gauss (void)
{
  return sqrt (-2 * log (uniform ())) * cos (2 * M_PI * uniform ());
}

static double
usl (double lambda, double sigma, double kappa, double n)
{
  return lambda / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

static bool
covers (const struct ucb_usl_interval *iv, double truth)
{
  return iv->lo <= truth && truth <= iv->hi;
}

/* ---- exact data ----------------------------------------------------------------------------- */

static void
test_noise_free (void)
{
  const double n[] = { 1, 1, 4, 4, 8, 8, 16, 16, 32, 32, 64, 64 };
  double x[12];
  struct ucb_usl_fit f;
  struct ucb_usl_pred p;
  char why[300];

  for (size_t i = 0; i < 12; i++)
    x[i] = usl (380000, 0.02, 3e-4, n[i]);
  tap_check_int (ucb_usl_fit (n, x, 12, &f, why, sizeof why), ==, UCB_USL_OK);
  tap_check_near (f.lambda.est / 380000, 1, 1e-6);
  tap_check_near (f.sigma.est / 0.02, 1, 1e-5);
  tap_check_near (f.kappa.est / 3e-4, 1, 1e-5);
  tap_check (f.s < 1e-6 && f.p_flat < 1e-6);
  tap_check_near (ucb_usl_value (&f, 384) / usl (380000, 0.02, 3e-4, 384), 1, 1e-5);
  /* X(1) is lambda: the pivot profile and lambda's profile give one interval. */
  ucb_usl_predict (&f, 1, &p);
  tap_check_near (p.x.est, f.lambda.est, 1e-6 * f.lambda.est);
  tap_check_near (p.scale.est, 1, 0);
  ucb_usl_free (&f);
}

/* ---- coverage ------------------------------------------------------------------------------- */

struct scase
{
  const char *name;
  double lambda, sigma, kappa, noise; /* noise: the SD of the log of a run's value */
  size_t reps, n_levels;
  double levels[8], pred;
  bool interior; /* sigma and kappa several standard errors from 0: coverage two-sided */
};

/* What `c` is, the truth, the noise, the design, where to predict; interior or near a bound. */
#define CASE(name, l, s, k, noise, reps, pred, interior, ...)                                      \
  {                                                                                                \
    name, l, s, k, noise, reps, UCB_ARRAY_SIZE (((double[]){ __VA_ARGS__ })), { __VA_ARGS__ },     \
        pred, interior                                                                             \
  }

static const struct scase cases[] = {
  CASE ("stock-like, 3 repeats, 3%", 380000, 0.02, 3e-4, 0.03, 3, 384, true, 1, 4, 8, 16, 32, 64),
  CASE ("one repeat (the seed's design), 3%", 380000, 0.03, 1e-4, 0.03, 1, 384, true, 1, 4, 8, 16,
        32, 64),
  CASE ("kappa = 0 (on the bound), 3 repeats, 2%", 1e6, 0.05, 0, 0.02, 3, 64, false, 1, 2, 4, 8, 16,
        32),
  CASE ("small N, kappa near 0, 4 repeats, 4%", 2e5, 0.1, 1e-3, 0.04, 4, 16, false, 1, 2, 3, 4, 6,
        8),
  CASE ("sigma near 0, 5 repeats, 5%", 5e5, 1e-3, 2e-3, 0.05, 5, 32, false, 1, 2, 4, 8, 16),
};

enum
{
  Q_LAMBDA,
  Q_SIGMA,
  Q_KAPPA,
  Q_X,
  Q_SCALE,
  Q_WALD_SIGMA,
  Q_WALD_KAPPA,
  N_Q,
};
static const char *const q_names[N_Q]
    = { "lambda", "sigma", "kappa", "X(pred)", "scale(pred)", "wald sigma", "wald kappa" };

/* One synthetic sweep of case `c`: which quantities its intervals covered (hit[]); false when
 * the fit was refused. */
static bool
one_sweep (const struct scase *c, bool *hit)
{
  double n[64], x[64], tx = usl (c->lambda, c->sigma, c->kappa, c->pred);
  size_t m = 0;
  struct ucb_usl_fit f;
  struct ucb_usl_pred p;
  char why[300];

  for (size_t j = 0; j < c->n_levels; j++)
    for (size_t r = 0; r < c->reps; r++, m++)
      {
        n[m] = c->levels[j];
        x[m] = usl (c->lambda, c->sigma, c->kappa, n[m]) * exp (c->noise * gauss ());
      }
  if (ucb_usl_fit (n, x, m, &f, why, sizeof why) != UCB_USL_OK)
    return false;
  ucb_usl_predict (&f, c->pred, &p);
  hit[Q_LAMBDA] = covers (&f.lambda, c->lambda);
  hit[Q_SIGMA] = covers (&f.sigma, c->sigma);
  hit[Q_KAPPA] = covers (&f.kappa, c->kappa);
  hit[Q_X] = covers (&p.x, tx);
  hit[Q_SCALE] = covers (&p.scale, tx / c->lambda);
  hit[Q_WALD_SIGMA] = fabs (f.theta[1] - c->sigma) <= f.tq * sqrt (f.cov[1][1]);
  hit[Q_WALD_KAPPA] = fabs (f.theta[2] - c->kappa) <= f.tq * sqrt (f.cov[2][2]);
  ucb_usl_free (&f);
  return true;
}

static void
test_coverage (void)
{
  const char *env = getenv ("UCB_USL_SWEEPS");
  size_t sweeps = env && atoi (env) >= 50 ? (size_t) atoi (env) : 300;
  size_t total[N_Q] = { 0 }, n_total = 0;

  rng_state = 0x5eed0f05c0ffee11ull;
  for (size_t k = 0; k < UCB_ARRAY_SIZE (cases); k++)
    {
      const struct scase *c = &cases[k];
      size_t count[N_Q] = { 0 }, n = 0, refused = 0;
      /* Three binomial standard deviations of a 95 % rate over n sweeps. */
      double tol;

      for (size_t s = 0; s < sweeps; s++)
        {
          bool hit[N_Q];
          if (!one_sweep (c, hit))
            {
              refused++;
              continue;
            }
          n++;
          for (size_t q = 0; q < N_Q; q++)
            count[q] += hit[q];
        }
      tap_check_int (refused, ==, 0);
      tol = 3 * sqrt (0.95 * 0.05 / (double) (n ? n : 1));
      printf ("# coverage, %s (lambda %g, sigma %g, kappa %g), %zu sweeps, X at N=%g:", c->name,
              c->lambda, c->sigma, c->kappa, n, c->pred);
      for (size_t q = 0; q < N_Q; q++)
        {
          printf (" %s %.3f%s", q_names[q], (double) count[q] / (double) n,
                  q + 1 < N_Q ? "," : "\n");
          total[q] += count[q];
        }
      /* The Wald rates are shown for comparison: not the method, not checked.  Near a bound
       * the constraint can only widen an interval: one-sided there. */
      for (size_t q = 0; q < Q_WALD_SIGMA; q++)
        {
          double rate = (double) count[q] / (double) n;
          if (rate < 0.95 - tol || (c->interior && rate > 0.95 + tol))
            tap_fail (__FILE__, __LINE__, "%s: %s covered in %.3f of %zu, not 0.95 +- %.3f",
                      c->name, q_names[q], rate, n, tol);
        }
      n_total += n;
    }
  printf ("# coverage over all %zu sweeps:", n_total);
  for (size_t q = 0; q < N_Q; q++)
    printf (" %s %.3f%s", q_names[q], (double) total[q] / (double) n_total,
            q + 1 < N_Q ? "," : "\n");
}

/* ---- lack of fit ---------------------------------------------------------------------------- */

/* A true shape at each N, sampled with 5 repeats and lognormal noise; `held` an N beyond the
 * fitted ones, whose true value the prediction there must hold unless it is refused. */
struct lcase
{
  const char *name;
  size_t n_levels;
  double n[8], x[8];
  double noise, held_n, held_x;
  bool usl; /* the shape is the law's: the test must reject at about its level, no more */
};

static const struct lcase lcases[] = {
  /* The law itself (380000, 0.02, 3e-4), filled in below. */
  { .name = "a USL curve, N 1..64, 5 repeats, 2%",
    .n_levels = 7,
    .n = { 1, 2, 4, 8, 16, 32, 64 },
    .noise = 0.02,
    .usl = true },
  /* The seed's stock table taken as the truth, fitted up to N = 32 (the reviewer's case). */
  { .name = "the seed's stock shape, N 1..32, 5 repeats, 1%",
    .n_levels = 5,
    .n = { 1, 4, 8, 16, 32 },
    .x = { 380068, 353204, 308948, 306453, 180659 },
    .noise = 0.01,
    .held_n = 64,
    .held_x = 129152 },
  /* A step: a second cost that appears at some N, which the law cannot take. */
  { .name = "a step at N = 16, 5 repeats, 2%",
    .n_levels = 6,
    .n = { 1, 2, 4, 8, 16, 32 },
    .x = { 1e6, 1e6, 1e6, 1e6, 5e5, 5e5 },
    .noise = 0.02,
    .held_n = 64,
    .held_x = 5e5 },
};

/* Sweeps of case `c`: how many the test rejected, the mean p, and how many held-out
 * predictions were confident (not refused: the shape was not rejected) and missed. */
static void
lof_sweeps (const struct lcase *c, size_t sweeps, size_t *rejected, double *mean_p, size_t *missed)
{
  double n[64] = { 0 }, x[64] = { 0 }, truth[8] = { 0 };
  char why[300];

  *rejected = *missed = 0;
  *mean_p = 0;
  if (c->n_levels > UCB_ARRAY_SIZE (truth) || 5 * c->n_levels > UCB_ARRAY_SIZE (n))
    {
      tap_fail (__FILE__, __LINE__, "%s: %zu levels, at most 8", c->name, c->n_levels);
      return;
    }
  for (size_t j = 0; j < c->n_levels; j++)
    truth[j] = c->usl ? usl (380000, 0.02, 3e-4, c->n[j]) : c->x[j];
  for (size_t k = 0; k < sweeps; k++)
    {
      struct ucb_usl_fit f;
      struct ucb_usl_pred p;
      size_t m = 0;

      for (size_t j = 0; j < c->n_levels; j++)
        for (size_t r = 0; r < 5; r++, m++)
          n[m] = c->n[j], x[m] = truth[j] * exp (c->noise * gauss ());
      if (ucb_usl_fit (n, x, m, &f, why, sizeof why) != UCB_USL_OK || !f.lof_tested)
        {
          tap_fail (__FILE__, __LINE__, "%s: refused or untested: %s", c->name, why);
          return;
        }
      *rejected += f.lof_rejected;
      *mean_p += f.lof_p / (double) sweeps;
      if (c->held_n > 0 && !f.lof_rejected)
        {
          ucb_usl_predict (&f, c->held_n, &p);
          *missed += !covers (&p.x, c->held_x);
        }
      ucb_usl_free (&f);
    }
}

/* On a USL curve the test rejects at about its level (0.05, within 3 binomial SDs); on a shape
 * the law cannot take it rejects nearly always, and a prediction beyond the N fitted is either
 * refused (rejected) or holds the truth: never a confident interval that misses, bar 5 %. */
static void
test_lack_of_fit (void)
{
  const char *env = getenv ("UCB_USL_SWEEPS");
  size_t sweeps = env && atoi (env) >= 50 ? (size_t) atoi (env) : 200;
  double tol = 3 * sqrt (0.05 * 0.95 / (double) sweeps);

  rng_state = 0x1ac0f0f17ull;
  for (size_t k = 0; k < UCB_ARRAY_SIZE (lcases); k++)
    {
      const struct lcase *c = &lcases[k];
      size_t rejected, missed;
      double mean_p, rate;

      lof_sweeps (c, sweeps, &rejected, &mean_p, &missed);
      rate = (double) rejected / (double) sweeps;
      printf ("# lack of fit, %s, %zu sweeps: rejected %.3f, mean p %.3g, confident and missed "
              "N=%g: %zu\n",
              c->name, sweeps, rate, mean_p, c->held_n, missed);
      if (c->usl && fabs (rate - 0.05) > tol)
        tap_fail (__FILE__, __LINE__, "%s: rejected in %.3f, not 0.05 +- %.3f", c->name, rate, tol);
      if (!c->usl && rate < 0.95)
        tap_fail (__FILE__, __LINE__, "%s: rejected in only %.3f", c->name, rate);
      if ((double) missed > 0.05 * (double) sweeps)
        tap_fail (__FILE__, __LINE__, "%s: %zu confident predictions at N=%g missed", c->name,
                  missed, c->held_n);
    }
}

/* Hold-out on the seed's table `golden`: fitted up to N = hi, each larger N it has predicted;
 * the interval holds the measured value, or the prediction is refused.  The errors are printed
 * (docs/statistics.md quotes them). */
static void
holdout (const char *golden, long long hi)
{
  const char *srcdir = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/tests/golden/%s", srcdir ? srcdir : "..", golden);
  cleanup_json json_t *doc = NULL, *all = NULL;
  ucb_error_t err = NULL;
  json_t *res, *kept = ucb_json_arr (), *r;
  struct ucb_doc d;
  struct ucb_usl_model m;
  size_t i;

  if (ucb_doc_read (path, &doc, &err) < 0 || (res = json_object_get (doc, "results")) == NULL)
    {
      tap_fail (__FILE__, __LINE__, "%s: %s", golden, err ? err->msg : "no results");
      ucb_error_free (&err);
      json_decref (kept);
      return;
    }
  all = json_incref (res);
  json_array_foreach (res, i, r)
  {
    if (json_integer_value (json_object_get (r, "containers")) <= hi)
      ucb_json_push (kept, json_incref (r));
  }
  json_object_set_new (doc, "results", kept);
  if (ucb_doc_load (doc, golden, UCB_DOC_RUN, &d, &err) < 0)
    {
      tap_fail (__FILE__, __LINE__, "%s: %s", golden, err->msg);
      ucb_error_free (&err);
      return;
    }
  ucb_usl_model_of (&d, 1, &m);
  tap_check_int (m.s[0].status, ==, UCB_USL_OK);
  json_array_foreach (all, i, r)
  {
    long long n = json_integer_value (json_object_get (r, "containers"));
    double x = ucb_json_num (json_object_get (r, "summary"), "per_container_ops");
    cleanup_free char *refused = NULL;
    struct ucb_usl_pred p;

    if (n <= hi || m.s[0].status != UCB_USL_OK)
      continue;
    refused = ucb_usl_prediction_refusal (&m.s[0], n);
    ucb_usl_predict (&m.s[0].fit, (double) n, &p);
    printf ("# hold-out %s, fitted N <= %lld: N=%lld measured %.0f, predicted %.0f [%.0f, %.0f] "
            "(%+.0f%%), %s\n",
            golden, hi, n, x, p.x.est, p.x.lo, p.x.hi, 100 * (p.x.est / x - 1),
            refused            ? "refused"
            : covers (&p.x, x) ? "inside"
                               : "OUTSIDE");
    tap_check (refused || covers (&p.x, x));
  }
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);
}

static void
test_holdout (void)
{
  holdout ("usl-signal1-stock.json", 16);
  holdout ("usl-signal1-stock.json", 32);
  holdout ("usl-signal1-rlimit-cache.json", 16);
  holdout ("usl-signal1-rlimit-cache.json", 32);
}

/* ---- the seed's published tables ------------------------------------------------------------ */

static bool
open_golden (const char *name, struct ucb_doc *d)
{
  const char *srcdir = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/tests/golden/%s", srcdir ? srcdir : "..", name);
  ucb_error_t err = NULL;
  int r = ucb_doc_open (path, UCB_DOC_RUN, d, &err);

  if (r < 0)
    tap_fail (__FILE__, __LINE__, "%s", err->msg);
  ucb_error_free (&err);
  return r == 0;
}

static void
test_golden_stock (void)
{
  struct ucb_doc d;
  struct ucb_usl_model m;
  const struct ucb_usl_series *s;
  struct ucb_usl_pred p;

  if (!open_golden ("usl-signal1-stock.json", &d))
    return;
  ucb_usl_model_of (&d, 1, &m);
  tap_check_int (m.n, ==, 1);
  s = &m.s[0];
  tap_check_int (s->status, ==, UCB_USL_OK);
  tap_check (s->assumed && s->m == 6 && s->n_levels == 6);
  if (s->status == UCB_USL_OK)
    {
      const struct ucb_usl_fit *f = &s->fit;
      printf ("# stock: lambda %.0f [%.0f, %.0f], sigma %.4g [%.4g, %.4g], kappa %.4g [%.4g, "
              "%.4g], residual SD %.4f, p(no loss) %.3g\n",
              f->lambda.est, f->lambda.lo, f->lambda.hi, f->sigma.est, f->sigma.lo, f->sigma.hi,
              f->kappa.est, f->kappa.lo, f->kappa.hi, f->s, f->p_flat);
      /* Reproduces the table within its residual: each point within t(0.975, df) s. */
      for (size_t j = 0; j < s->n_levels; j++)
        if (fabs (log (s->levels[j].median / s->levels[j].fitted)) > f->tq * f->s)
          tap_fail (__FILE__, __LINE__, "N=%lld: %.0f measured, %.0f fitted, beyond %.3f",
                    s->levels[j].containers, s->levels[j].median, s->levels[j].fitted,
                    f->tq * f->s);
      tap_check (f->s < 0.15);
      /* Throughput falls with N: no loss (sigma = kappa = 0) is rejected. */
      tap_check (f->p_flat < 0.05);
      tap_check (f->lambda.lo < 380068 && 380068 < f->lambda.hi);
      ucb_usl_predict (f, 384, &p);
      printf ("# stock at N=384: %.0f [%.0f, %.0f], scale %.3f [%.3f, %.3f]\n", p.x.est, p.x.lo,
              p.x.hi, p.scale.est, p.scale.lo, p.scale.hi);
      tap_check (p.x.lo < p.x.est && p.x.est < p.x.hi && p.x.hi < 129152);
    }
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);
}

static void
test_golden_patched (void)
{
  struct ucb_doc d;
  struct ucb_usl_model m;

  if (!open_golden ("usl-signal1-rlimit-cache.json", &d))
    return;
  ucb_usl_model_of (&d, 1, &m);
  tap_check_int (m.n, ==, 1);
  tap_check_int (m.s[0].status, ==, UCB_USL_OK);
  if (m.s[0].status == UCB_USL_OK)
    {
      const struct ucb_usl_fit *f = &m.s[0].fit;
      printf ("# rlimit cache: lambda %.0f [%.0f, %.0f], sigma %.4g [%.4g, %.4g], kappa %.4g "
              "[%.4g, %.4g], residual SD %.4f, p(no loss) %.3g\n",
              f->lambda.est, f->lambda.lo, f->lambda.hi, f->sigma.est, f->sigma.lo, f->sigma.hi,
              f->kappa.est, f->kappa.lo, f->kappa.hi, f->s, f->p_flat);
      /* Indistinguishable from no loss: both intervals hold 0. */
      tap_check (f->sigma.lo == 0 && f->kappa.lo == 0);
      tap_check (f->p_flat > 0.05 && f->s < 0.01);
    }
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);
}

/* ---- refusals ------------------------------------------------------------------------------- */

static void
check_refused (const double *n, const double *x, size_t m, enum ucb_usl_status want,
               const char *needle)
{
  struct ucb_usl_fit f;
  char why[300];
  enum ucb_usl_status st = ucb_usl_fit (n, x, m, &f, why, sizeof why);

  tap_check_int (st, ==, want);
  if (st == UCB_USL_OK)
    ucb_usl_free (&f);
  else if (strstr (why, needle) == NULL)
    tap_fail (__FILE__, __LINE__, "refusal `%s` lacks `%s`", why, needle);
}

static void
test_refusals (void)
{
  const double two_n[] = { 1, 1, 2, 2, 2 }, two_x[] = { 5, 5.1, 4, 4.1, 4.2 };
  const double three_n[] = { 1, 2, 4 }, three_x[] = { 5, 4, 3 };
  const double bad_n[] = { 1, 2, 4, 8 }, zero_x[] = { 5, 0, 3, 2 }, nan_x[] = { 5, NAN, 3, 2 };
  const double low_n[] = { 0, 2, 4, 8 }, ok_x[] = { 5, 4, 3, 2 };

  check_refused (two_n, two_x, 5, UCB_USL_FEW_LEVELS, "fewer than 3 distinct container counts");
  check_refused (three_n, three_x, 3, UCB_USL_NO_DF, "nothing to measure the noise by");
  check_refused (bad_n, zero_x, 4, UCB_USL_BAD_VALUE, "not a positive number");
  check_refused (bad_n, nan_x, 4, UCB_USL_BAD_VALUE, "not a positive number");
  check_refused (low_n, ok_x, 4, UCB_USL_BAD_VALUE, "below 1");
  check_refused (NULL, NULL, 0, UCB_USL_FEW_LEVELS, "fewer than 3");
}

/* A 2-CPU document (examples/run-small.json: N = 1, 2) with N = 4 added: refused, naming the
 * N it has, the CPUs and why N = 4 is left out; with contention saying N = 2 was contended,
 * only N = 1 remains. */
static void
test_two_cpus (void)
{
  const char *srcdir = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/examples/run-small.json", srcdir ? srcdir : "..");
  cleanup_json json_t *doc = NULL;
  ucb_error_t err = NULL;
  struct ucb_doc d;
  struct ucb_usl_model m;
  json_t *res, *four;

  if (ucb_doc_read (path, &doc, &err) < 0)
    {
      tap_fail (__FILE__, __LINE__, "%s", err->msg);
      ucb_error_free (&err);
      return;
    }
  res = json_object_get (doc, "results");
  four = json_deep_copy (json_array_get (res, 1));
  json_object_set_new (four, "containers", json_integer (4));
  json_array_append_new (res, four);
  tap_check_int (ucb_doc_load (doc, "two.json", UCB_DOC_RUN, &d, &err), ==, 0);
  ucb_usl_model_of (&d, 1, &m);
  tap_check_int (m.n, ==, 1);
  tap_check_int (m.refused, ==, 1);
  tap_check_str (m.s[0].reason, "needs at least 3 distinct container counts where each task "
                                "had a CPU of its own; this document has N=1,2 (2 CPUs); left "
                                "out: N=4 (4 tasks on 2 CPUs)");
  tap_check (!m.s[0].assumed);
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);

  json_object_set_new (json_array_get (res, 1), "contention",
                       json_pack ("{s:b, s:b}", "contended", 1, "owns_cpu", 1));
  tap_check_int (ucb_doc_load (doc, "two.json", UCB_DOC_RUN, &d, &err), ==, 0);
  ucb_usl_model_of (&d, 1, &m);
  tap_check (m.s[0].reason
             && strstr (m.s[0].reason, "this document has N=1 (2 CPUs); left out: "
                                       "N=2 (contended"));
  ucb_usl_model_free (&m);
  ucb_doc_free (&d);
  ucb_error_free (&err);
}

static const struct tap_test tests[] = {
  { "noise-free data: the parameters recovered, X(1) = lambda", test_noise_free },
  { "95% intervals cover the true values at about the nominal rate (synthetic sweeps)",
    test_coverage },
  { "the seed's stock signal1 table: fitted within its residual, a loss with N, N=384",
    test_golden_stock },
  { "the rlimit-cache table: sigma and kappa indistinguishable from 0", test_golden_patched },
  { "lack of fit: rejected at its level on a USL curve, nearly always on shapes it cannot take",
    test_lack_of_fit },
  { "hold-out on the seed's tables: each prediction holds the measured value, or is refused",
    test_holdout },
  { "refusals: too few container counts, no residual, bad values", test_refusals },
  { "a 2-CPU document: refused, naming its N, its CPUs and what was left out", test_two_cpus },
};

TAP_MAIN (tests)
