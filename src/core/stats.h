/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h - descriptive statistics over samples. */
#ifndef UCB_STATS_H
#define UCB_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct ucb_stats
{
  size_t n;
  double mean, median, stddev, min, max; /* NaN when n == 0; stddev NaN when n < 2 */
  double cv;                             /* stddev / mean, NaN when undefined */
};

/* Sample statistics (stddev with n - 1).  `v` is not modified. */
void ucb_stats_compute (const double *v, size_t n, struct ucb_stats *out);
double ucb_median (const double *v, size_t n);
/* Jain's fairness index (sum x)^2 / (n sum x^2): 1 = perfectly fair, 1/n = one takes all. */
double ucb_jain_index (const double *v, size_t n);

/* Student's t distribution with `df` > 0 degrees of freedom (not necessarily an integer, as
 * Welch's df): P(T <= t), and its inverse for 0 < p < 1.  NaN outside the domain. */
double ucb_t_cdf (double t, double df);
double ucb_t_quantile (double p, double df);

/* Snedecor's F with d1, d2 > 0 degrees of freedom: P(F > f), 1 for f <= 0.  NaN outside the
 * domain. */
double ucb_f_sf (double f, double d1, double d2);

/* Welch's two-sample t: the difference of the means mean(b) - mean(a), its standard error
 * sqrt(sa^2/na + sb^2/nb) and the Welch-Satterthwaite degrees of freedom.  Needs na, nb >= 2;
 * returns -1 (out untouched) otherwise.  When both variances are 0, se is 0 and df is
 * na + nb - 2. */
struct ucb_welch
{
  double diff, se, df;
};
int ucb_welch (const double *a, size_t na, const double *b, size_t nb, struct ucb_welch *out);

/* Holm's step-down adjustment of m p-values (family-wise error rate under any dependence):
 * adj[i] = max over the j-th smallest p up to p[i] of min(1, (m - j + 1) p_(j)).  NaN p-values
 * are left out of the family and stay NaN. */
void ucb_holm (const double *p, size_t m, double *adj);

/* `run --repeat auto` (docs/statistics.md): the precision of one point's level from its
 * per-repeat values.  The values of repeats marked in `skip` (contended; may be NULL) and those
 * not finite and > 0 do not count.  Over the n counted ones, the 95 % t interval of the mean of
 * the logs, mean +- h with h = t(0.975, n - 1) s / sqrt(n) -- one side of compare's Welch
 * interval -- gives ci_pct = 100 (exp(h) - 1), its upper relative half-width (the larger one);
 * NaN below 2 counted.  reached: n >= UCB_PRECISION_MIN_N and ci_pct <= pct. */
#define UCB_PRECISION_MIN_N 3
struct ucb_precision
{
  size_t counted;
  double ci_pct;
  bool reached;
};
void ucb_precision_of (const double *v, const bool *skip, size_t n, double pct,
                       struct ucb_precision *out);

#endif
