/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usl.h - Gunther's Universal Scalability Law fitted to per-container throughput: pure
 * computation, no document (docs/statistics.md, "The scalability model").
 *
 * Per container, X(N) = lambda / D(N), D(N) = 1 + sigma (N - 1) + kappa N (N - 1): lambda the
 * throughput of one container alone, sigma the contention (a serialised share), kappa the
 * coherency cost (a shared cache line bounced between N containers: N (N - 1) transfers).  The
 * fit is least squares on the logarithms (the noise of a run is multiplicative), over every
 * observation given (each repeat one), with sigma, kappa >= 0.  The 95 % intervals are profile
 * likelihood intervals with Student's t (F(1, df)) critical value: the values the data do not
 * reject at 5 %, constraint included; the unit test tests/unit/test-usl.c measures their
 * coverage.  With repeats, a lack-of-fit F test asks whether the law's shape fits the means of
 * the N; when it does not, the means, not the repeats, are the evidence about the shape: the
 * intervals take the lack-of-fit mean square and its df (docs/statistics.md). */
#ifndef UCB_USL_H
#define UCB_USL_H

#include <stdbool.h>
#include <stddef.h>

/* The level of the lack-of-fit test and of "a loss with N is real" (docs/statistics.md). */
#define UCB_USL_ALPHA 0.05

/* Why a fit was refused (ucb_usl_fit's return value), with a sentence in `why`. */
enum ucb_usl_status
{
  UCB_USL_OK = 0,
  UCB_USL_BAD_VALUE,  /* an N below 1, or an ops/s that is not finite and > 0 */
  UCB_USL_FEW_LEVELS, /* fewer than 3 distinct N: three parameters need three levels */
  UCB_USL_NO_DF,      /* no observation left over for the noise (n <= 3) */
  UCB_USL_DEGENERATE, /* the fit did not converge, or its parameters are not determined */
};

/* An estimate and its 95 % interval; lo, hi infinite where the data bound it on one side only. */
struct ucb_usl_interval
{
  double est, lo, hi;
};

struct ucb_usl_fit
{
  size_t n_obs, n_levels;
  double df;        /* residual degrees of freedom: observations - 3 */
  double theta[3];  /* log lambda, sigma, kappa */
  double cov[3][3]; /* Wald covariance ms (J'J)^-1 of theta: step sizes */
  double rss, s;    /* residual sum of squares and SD, of the log ops/s */
  /* Lack of fit: F(df_lack, df_pure) of the level means' misfit (RSS - pure) / df_lack over
   * the repeats' own scatter about their N's mean, pure / df_pure; df_lack = distinct N - 3,
   * df_pure = observations - distinct N.  lof_tested false when either df is 0 or the repeats
   * do not scatter; lof_rejected when tested and lof_p < UCB_USL_ALPHA. */
  bool lof_tested, lof_rejected;
  double lof_f, lof_p, df_lack, df_pure;
  /* What the intervals use: the variance of a log ops/s, its df and t(0.975, idf): rss / df
   * and df, or the lack-of-fit mean square and df_lack when lof_rejected. */
  double ms, idf, tq;
  bool sigma_at_0, kappa_at_0; /* the constraint is active: the estimate is 0 */
  /* The p-value of sigma = kappa = 0 (no loss with N): F(2, idf), the RSS against that of a
   * flat line over ms; conservative under the constraint. */
  double p_flat;
  struct ucb_usl_interval lambda, sigma, kappa;
  double *u, *v, *y; /* N - 1, N (N - 1), log ops/s per observation (the profiles refit) */
};

/* Fit the `m` observations (container count n[i], per-container ops/s x[i]).  UCB_USL_OK and
 * `out` filled (ucb_usl_free() it), or the reason it was refused, said in `why`. */
enum ucb_usl_status ucb_usl_fit (const double *n, const double *x, size_t m,
                                 struct ucb_usl_fit *out, char *why, size_t why_len);
void ucb_usl_free (struct ucb_usl_fit *f);

/* The fitted per-container ops/s at `n`. */
double ucb_usl_value (const struct ucb_usl_fit *f, double n);

/* At container count `n`: per-container ops/s X(n) and the scale X(n) / lambda, each with the
 * 95 % profile interval of the fitted curve (not of one more run, which scatters by s more). */
struct ucb_usl_pred
{
  double n;
  struct ucb_usl_interval x, scale;
};
void ucb_usl_predict (const struct ucb_usl_fit *f, double n, struct ucb_usl_pred *out);

/* What the intervals establish about the loss with N: "contention", "coherency", "contention
 * and coherency" (the interval of each cost named excludes 0), "unidentified" (both reach 0,
 * yet no loss is rejected: p_flat < UCB_USL_ALPHA) or "not established". */
const char *ucb_usl_loss (const struct ucb_usl_fit *f);

#endif
