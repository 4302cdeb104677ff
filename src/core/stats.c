/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* Continued fraction of the regularized incomplete beta function I_x(a, b) (modified Lentz). */
static double
betacf (double a, double b, double x)
{
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1), h;

  d = 1 / (fabs (d) < tiny ? tiny : d);
  h = d;
  for (int m = 1; m <= 300; m++)
    {
      double m2 = 2.0 * m, aa, del;
      aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
      d = 1 + aa * d;
      d = 1 / (fabs (d) < tiny ? tiny : d);
      c = 1 + aa / c;
      c = fabs (c) < tiny ? tiny : c;
      h *= d * c;
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
      d = 1 + aa * d;
      d = 1 / (fabs (d) < tiny ? tiny : d);
      c = 1 + aa / c;
      c = fabs (c) < tiny ? tiny : c;
      del = d * c;
      h *= del;
      if (fabs (del - 1) < 1e-15)
        break;
    }
  return h;
}

/* I_x(a, b), the symmetry relation choosing the side where the fraction converges fast. */
static double
incbeta (double a, double b, double x)
{
  double bt;

  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  bt = exp (lgamma (a + b) - lgamma (a) - lgamma (b) + a * log (x) + b * log1p (-x));
  if (x < (a + 1) / (a + b + 2))
    return bt * betacf (a, b, x) / a;
  return 1 - bt * betacf (b, a, 1 - x) / b;
}

double
ucb_t_cdf (double t, double df)
{
  double tail;

  if (!(df > 0) || isnan (t))
    return NAN;
  if (isinf (t))
    return t > 0 ? 1 : 0;
  tail = 0.5 * incbeta (df / 2, 0.5, df / (df + t * t)); /* P(T > |t|) */
  return t > 0 ? 1 - tail : tail;
}

double
ucb_t_quantile (double p, double df)
{
  double lo = -1, hi = 1;

  if (!(df > 0) || !(p > 0 && p < 1))
    return NAN;
  if (p == 0.5)
    return 0;
  /* Bracket, then bisect: the cdf is monotone, and 200 halvings reach double precision. */
  while (ucb_t_cdf (lo, df) > p)
    lo *= 2;
  while (ucb_t_cdf (hi, df) < p)
    hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-14 * fmax (1, fabs (lo)); i++)
    {
      double mid = (lo + hi) / 2;
      if (ucb_t_cdf (mid, df) < p)
        lo = mid;
      else
        hi = mid;
    }
  return (lo + hi) / 2;
}

double
ucb_f_sf (double f, double d1, double d2)
{
  if (!(d1 > 0) || !(d2 > 0) || isnan (f))
    return NAN;
  if (f <= 0)
    return 1;
  if (isinf (f))
    return 0;
  /* P(F > f) = I_x(d2/2, d1/2), x = d2 / (d2 + d1 f): small x for large f, the accurate side. */
  return incbeta (d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

int
ucb_welch (const double *a, size_t na, const double *b, size_t nb, struct ucb_welch *out)
{
  struct ucb_stats sa, sb;
  double va, vb;

  if (na < 2 || nb < 2)
    return -1;
  ucb_stats_compute (a, na, &sa);
  ucb_stats_compute (b, nb, &sb);
  va = sa.stddev * sa.stddev / (double) na;
  vb = sb.stddev * sb.stddev / (double) nb;
  out->diff = sb.mean - sa.mean;
  out->se = sqrt (va + vb);
  if (va + vb > 0)
    out->df = (va + vb) * (va + vb) / (va * va / ((double) na - 1) + vb * vb / ((double) nb - 1));
  else
    out->df = (double) (na + nb - 2);
  return 0;
}

void
ucb_holm (const double *p, size_t m, double *adj)
{
  cleanup_free size_t *ord = xcalloc (m + 1, sizeof *ord);
  size_t k = 0, fam;
  double run = 0;

  for (size_t i = 0; i < m; i++)
    {
      adj[i] = NAN;
      if (!isnan (p[i]))
        ord[k++] = i;
    }
  fam = k;
  /* Insertion sort by p: families are a table's points, tens at most. */
  for (size_t i = 1; i < fam; i++)
    for (size_t j = i; j > 0 && p[ord[j]] < p[ord[j - 1]]; j--)
      {
        size_t x = ord[j];
        ord[j] = ord[j - 1];
        ord[j - 1] = x;
      }
  for (size_t j = 0; j < fam; j++)
    {
      double v = fmin (1.0, (double) (fam - j) * p[ord[j]]);
      run = fmax (run, v);
      adj[ord[j]] = run;
    }
}

void
ucb_precision_of (const double *v, const bool *skip, size_t n, double pct,
                  struct ucb_precision *out)
{
  cleanup_free double *lv = xcalloc (n + 1, sizeof *lv);
  struct ucb_stats s;
  size_t k = 0;
  double h;

  for (size_t i = 0; i < n; i++)
    if (!(skip && skip[i]) && isfinite (v[i]) && v[i] > 0)
      lv[k++] = log (v[i]);
  *out = (struct ucb_precision){ .counted = k, .ci_pct = NAN };
  if (k < 2)
    return;
  ucb_stats_compute (lv, k, &s);
  h = ucb_t_quantile (0.975, (double) k - 1) * s.stddev / sqrt ((double) k);
  out->ci_pct = 100 * expm1 (h);
  out->reached = k >= UCB_PRECISION_MIN_N && out->ci_pct <= pct;
}
