/* stats.c - descriptive statistics over samples. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

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
