/* stats.h - descriptive statistics over samples. */
#ifndef UCB_STATS_H
#define UCB_STATS_H

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

/* Two-sided Mann-Whitney U test of samples a and b: the p-value (exact distribution when both
 * samples are small and free of ties, else the normal approximation with tie correction);
 * NaN when either side is empty. */
double ucb_mann_whitney_p (const double *a, size_t na, const double *b, size_t nb);

#endif
