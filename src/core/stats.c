/* stats.c - descriptive statistics over samples. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
ucb_median (const double *v, size_t n)
{
  cleanup_free double *s = NULL;

  if (n == 0)
    return NAN;
  s = xcalloc (n, sizeof *s);
  memcpy (s, v, n * sizeof *s);
  qsort (s, n, sizeof *s, cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

void
ucb_stats_compute (const double *v, size_t n, struct ucb_stats *out)
{
  double sum = 0, ss = 0;

  out->n = n;
  out->mean = out->median = out->stddev = out->min = out->max = out->cv = NAN;
  if (n == 0)
    return;
  out->min = out->max = v[0];
  for (size_t i = 0; i < n; i++)
    {
      sum += v[i];
      if (v[i] < out->min)
        out->min = v[i];
      if (v[i] > out->max)
        out->max = v[i];
    }
  out->mean = sum / (double) n;
  out->median = ucb_median (v, n);
  if (n < 2)
    return;
  /* Two-pass: numerically stable for rates around 1e6 with small spread. */
  for (size_t i = 0; i < n; i++)
    ss += (v[i] - out->mean) * (v[i] - out->mean);
  out->stddev = sqrt (ss / (double) (n - 1));
  if (out->mean != 0)
    out->cv = out->stddev / out->mean;
}

double
ucb_jain_index (const double *v, size_t n)
{
  double sum = 0, sq = 0;

  if (n == 0)
    return NAN;
  for (size_t i = 0; i < n; i++)
    {
      sum += v[i];
      sq += v[i] * v[i];
    }
  if (sq == 0)
    return NAN;
  return sum * sum / ((double) n * sq);
}

/* Number of arrangements with U = u for sizes (m, n): the exact null distribution, counted
 * with the recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u). */
static double
exact_mwu_p (size_t m, size_t n, double u)
{
  size_t umax = m * n;
  /* f[j][v] for the current i, j = 0..n, v = 0..umax */
  cleanup_free double *prev = xcalloc ((n + 1) * (umax + 1), sizeof *prev);
  cleanup_free double *cur = xcalloc ((n + 1) * (umax + 1), sizeof *cur);
  double total = 0, tail = 0;
  double lo = fmin (u, (double) umax - u);

  for (size_t j = 0; j <= n; j++)
    prev[j * (umax + 1)] = 1; /* i = 0: one arrangement, U = 0 */
  for (size_t i = 1; i <= m; i++)
    {
      memset (cur, 0, (n + 1) * (umax + 1) * sizeof *cur);
      cur[0] = 1; /* j = 0 */
      for (size_t j = 1; j <= n; j++)
        for (size_t v = 0; v <= i * j; v++)
          cur[j * (umax + 1) + v]
              = (v >= j ? prev[j * (umax + 1) + v - j] : 0) + cur[(j - 1) * (umax + 1) + v];
      memcpy (prev, cur, (n + 1) * (umax + 1) * sizeof *cur);
    }
  for (size_t v = 0; v <= umax; v++)
    {
      double c = prev[n * (umax + 1) + v];
      total += c;
      if ((double) v <= lo + 1e-9)
        tail += c;
    }
  return fmin (1.0, 2.0 * tail / total);
}

double
ucb_mann_whitney_p (const double *a, size_t na, const double *b, size_t nb)
{
  size_t n = na + nb;
  cleanup_free double *all = NULL;
  cleanup_free double *rank = NULL;
  double ra = 0, u, mu, sigma2, tie = 0, z;
  bool ties = false;

  if (na == 0 || nb == 0)
    return NAN;
  all = xcalloc (n, sizeof *all);
  rank = xcalloc (n, sizeof *rank);
  memcpy (all, a, na * sizeof *a);
  memcpy (all + na, b, nb * sizeof *b);
  /* Rank every value among all: the mean rank for ties. */
  for (size_t i = 0; i < n; i++)
    {
      double less = 0, equal = 0;
      for (size_t j = 0; j < n; j++)
        {
          less += all[j] < all[i];
          equal += all[j] == all[i];
        }
      rank[i] = less + (equal + 1) / 2.0;
      ties = ties || equal > 1;
    }
  for (size_t i = 0; i < na; i++)
    ra += rank[i];
  u = ra - (double) na * ((double) na + 1) / 2.0;
  if (!ties && n <= 40)
    return exact_mwu_p (na, nb, u);
  for (size_t i = 0; i < n; i++)
    {
      double t = 0;
      for (size_t j = 0; j < n; j++)
        t += all[j] == all[i];
      tie += t * t - 1; /* summed over each member: (t^3 - t) per tie group */
    }
  mu = (double) na * (double) nb / 2.0;
  sigma2 = (double) na * (double) nb / 12.0
           * (((double) n + 1) - tie / ((double) n * ((double) n - 1)));
  if (sigma2 <= 0)
    return 1.0;
  z = (fabs (u - mu) - 0.5) / sqrt (sigma2); /* continuity correction */
  if (z < 0)
    z = 0;
  return fmin (1.0, erfc (z / sqrt (2.0)));
}
