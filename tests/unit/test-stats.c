/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-stats.c - descriptive statistics, Jain's fairness index, Student's t, Welch and Holm.
 * Golden values from scipy 1.10 (Debian python3-scipy), computed once; the commands are in the
 * comments so the test needs no scipy. */
#include "config.h"

#include "../tap.h"
#include "core/stats.h"

static void
test_basic (void)
{
  const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
  struct ucb_stats s;

  ucb_stats_compute (v, 8, &s);
  tap_check_int (s.n, ==, 8);
  tap_check_near (s.mean, 5.0, 1e-12);
  tap_check_near (s.median, 4.5, 1e-12);
  tap_check_near (s.stddev, 2.138089935299395, 1e-12); /* sample stddev, n - 1 */
  tap_check_near (s.min, 2, 0);
  tap_check_near (s.max, 9, 0);
  tap_check_near (s.cv, 2.138089935299395 / 5.0, 1e-12);
}

static void
test_odd_median_and_input_untouched (void)
{
  double v[] = { 9, 1, 5 };

  tap_check_near (ucb_median (v, 3), 5, 0);
  tap_check_near (v[0], 9, 0);
}

static void
test_degenerate (void)
{
  struct ucb_stats s;
  const double one = 42;

  ucb_stats_compute (NULL, 0, &s);
  tap_check (isnan (s.mean) && isnan (s.median) && isnan (s.stddev));
  ucb_stats_compute (&one, 1, &s);
  tap_check_near (s.mean, 42, 0);
  tap_check (isnan (s.stddev));
  tap_check (isnan (s.cv));
}

static void
test_precision_large_values (void)
{
  /* Rates near 1e6 with a tiny spread: a one-pass formula loses it. */
  const double v[] = { 1000000.1, 1000000.2, 1000000.3 };
  struct ucb_stats s;

  ucb_stats_compute (v, 3, &s);
  tap_check_near (s.stddev, 0.1, 1e-6);
}

static void
test_jain (void)
{
  const double fair[] = { 3, 3, 3, 3 };
  const double hog[] = { 8, 0, 0, 0 };
  const double zero[] = { 0, 0 };

  tap_check_near (ucb_jain_index (fair, 4), 1.0, 1e-12);
  tap_check_near (ucb_jain_index (hog, 4), 0.25, 1e-12);
  tap_check (isnan (ucb_jain_index (zero, 2)));
  tap_check (isnan (ucb_jain_index (NULL, 0)));
}

/* Snedecor's F against closed forms: F(2, d) = (1 + 2f/d)^(-d/2); F(1, d) = t(d)^2;
 * F(d, 2) = 1 - (d f / (2 + d f))^(d/2). */
static void
test_f_distribution (void)
{
  tap_check_near (ucb_f_sf (3.7, 2, 20), pow (1 + 2 * 3.7 / 20, -10), 1e-12);
  tap_check_near (ucb_f_sf (244, 2, 20), pow (1 + 2 * 244.0 / 20, -10), 1e-20);
  tap_check_near (ucb_f_sf (4.0, 1, 7), 2 * (1 - ucb_t_cdf (2.0, 7)), 1e-12);
  tap_check_near (ucb_f_sf (1.3, 3, 2), 1 - pow (3 * 1.3 / (2 + 3 * 1.3), 1.5), 1e-12);
  tap_check (ucb_f_sf (0, 3, 4) == 1 && ucb_f_sf (INFINITY, 3, 4) == 0);
  tap_check (isnan (ucb_f_sf (1, 0, 4)) && isnan (ucb_f_sf (NAN, 3, 4)));
}

static void
test_t_distribution (void)
{
  /* scipy.stats.t.cdf(2.0, 4), t.cdf(-1.5, 2.5), t.cdf(0.3, 100) */
  tap_check_near (ucb_t_cdf (2.0, 4), 0.9419417382415922, 1e-12);
  tap_check_near (ucb_t_cdf (-1.5, 2.5), 0.12391822654314802, 1e-12);
  tap_check_near (ucb_t_cdf (0.3, 100), 0.6176000598498482, 1e-12);
  tap_check_near (ucb_t_cdf (0, 3), 0.5, 1e-15);
  /* scipy.stats.t.ppf(p, df) */
  tap_check_near (ucb_t_quantile (0.975, 4), 2.7764451051977987, 1e-9);
  tap_check_near (ucb_t_quantile (0.975, 2.3), 3.8071632082582774, 1e-9);
  tap_check_near (ucb_t_quantile (0.975, 30), 2.0422724563012373, 1e-9);
  tap_check_near (ucb_t_quantile (0.025, 7), -2.3646242510103, 1e-9);
  tap_check_near (ucb_t_quantile (0.9995, 3), 12.923978636637424, 1e-8);
  tap_check (isnan (ucb_t_quantile (1, 3)) && isnan (ucb_t_quantile (0.5, 0)));
  tap_check (isnan (ucb_t_cdf (1, -1)));
}

static void
test_welch (void)
{
  /* a, b = log([100,102,98]), log([90,93,88.5]); d = b.mean()-a.mean(); va, vb = var/n (ddof 1);
   * df = (va+vb)**2/(va**2/2+vb**2/2); checked against scipy.stats.ttest_ind(b, a,
   * equal_var=False): statistic == d/se, pvalue == 2*t.sf(|d/se|, df) */
  double a[] = { log (100), log (102), log (98) }, b[] = { log (90), log (93), log (88.5) };
  struct ucb_welch w = { 42, 42, 42 };

  tap_check_int (ucb_welch (a, 3, b, 3, &w), ==, 0);
  tap_check_near (w.diff, -0.09989958748184335, 1e-12);
  tap_check_near (w.se, 0.018586477320874803, 1e-12);
  tap_check_near (w.df, 3.8025957176668856, 1e-9);
  tap_check_int (ucb_welch (a, 1, b, 3, &w), ==, -1);   /* no variance from one run */
  tap_check_near (w.diff, -0.09989958748184335, 1e-12); /* untouched */
  tap_check_int (ucb_welch (a, 3, a, 3, &w), ==, 0);
  tap_check_near (w.diff, 0, 1e-15);
}

static void
test_holm (void)
{
  /* Holm by hand (scipy 1.10 has none): sorted p_(j), running max of min(1, (m-j+1) p_(j)) */
  const double p[] = { 0.01, 0.04, 0.03, 0.005 }, q[] = { 0.5, 0.001, 0.02 };
  const double r[] = { 0.2, NAN, 0.01 };
  double adj[4];

  ucb_holm (p, 4, adj);
  tap_check_near (adj[0], 0.03, 1e-15);
  tap_check_near (adj[1], 0.06, 1e-15); /* 2 x 0.03 carried: monotone */
  tap_check_near (adj[2], 0.06, 1e-15);
  tap_check_near (adj[3], 0.02, 1e-15);
  ucb_holm (q, 3, adj);
  tap_check_near (adj[0], 0.5, 1e-15);
  tap_check_near (adj[1], 0.003, 1e-15);
  tap_check_near (adj[2], 0.04, 1e-15);
  ucb_holm (r, 3, adj); /* NaN is out of the family: m = 2 */
  tap_check_near (adj[0], 0.2, 1e-15);
  tap_check (isnan (adj[1]));
  tap_check_near (adj[2], 0.02, 1e-15);
}

/* The stopping rule of `run --repeat auto`.  Hand-computed (python3 math/statistics):
 * 100 * expm1(t * stdev(logs) / sqrt(n)) with t = scipy.stats.t.ppf(0.975, n - 1). */
static void
test_precision (void)
{
  const double three[] = { 100, 102, 98 };
  const double four[] = { 1000, 1001, 999, 1000.5 };
  /* the 5th, contended, would widen it; a 0 (no ops) and a NaN do not count either */
  const double mixed[] = { 1000, 1001, 999, 1000.5, 500, 0, NAN };
  const bool skip[] = { false, false, false, false, true, false, false };
  struct ucb_precision p;

  ucb_precision_of (three, NULL, 3, 6, &p); /* t(0.975, 2) = 4.302652729749464 */
  tap_check_int (p.counted, ==, 3);
  tap_check_near (p.ci_pct, 5.094547191857038, 1e-6);
  tap_check (p.reached);
  ucb_precision_of (three, NULL, 3, 5, &p); /* not reached: 5.09 > 5 */
  tap_check (!p.reached);
  ucb_precision_of (four, NULL, 4, 0.2, &p); /* t(0.975, 3) = 3.182446305284263 */
  tap_check_int (p.counted, ==, 4);
  tap_check_near (p.ci_pct, 0.13597380607181006, 1e-7);
  tap_check (p.reached);
  ucb_precision_of (mixed, skip, 7, 0.2, &p);
  tap_check_int (p.counted, ==, 4);
  tap_check_near (p.ci_pct, 0.13597380607181006, 1e-7);
  tap_check (p.reached);
  ucb_precision_of (mixed, NULL, 7, 0.2, &p); /* the contended one counted: far wider */
  tap_check_int (p.counted, ==, 5);
  tap_check (p.ci_pct > 20);
  tap_check (!p.reached);
  /* n < 3: an interval exists at n = 2 (t(0.975, 1) = 12.706), but it never stops */
  ucb_precision_of (four, NULL, 2, 50, &p);
  tap_check_int (p.counted, ==, 2);
  tap_check_near (p.ci_pct, 100 * expm1 (12.706204736174707 * log (1001.0 / 1000) / 2), 1e-6);
  tap_check (p.ci_pct < 50);
  tap_check (!p.reached);
  ucb_precision_of (four, NULL, 1, 50, &p);
  tap_check (isnan (p.ci_pct) && !p.reached);
  ucb_precision_of (four, NULL, 0, 50, &p);
  tap_check (p.counted == 0 && isnan (p.ci_pct) && !p.reached);
}

static const struct tap_test tests[] = {
  { "--repeat auto: CI half-width, contended left out, n >= 3", test_precision },
  { "Student's t: cdf and quantile against scipy", test_t_distribution },
  { "Snedecor's F: survival function against closed forms", test_f_distribution },
  { "Welch: difference, standard error, df against scipy", test_welch },
  { "Holm: step-down adjustment, monotone, NaN left out", test_holm },
  { "mean, median, sample stddev, min, max, cv", test_basic },
  { "median of odd n; input not reordered", test_odd_median_and_input_untouched },
  { "empty and single-sample input", test_degenerate },
  { "stddev keeps precision at 1e6", test_precision_large_values },
  { "Jain's index: fair, one hog, undefined", test_jain },
};

TAP_MAIN (tests)
