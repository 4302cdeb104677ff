/* test-stats.c - descriptive statistics and Jain's fairness index. */
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

static void
test_mann_whitney (void)
{
  const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
  const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
  const double mixed_a[] = { 1, 4, 5, 8 }, mixed_b[] = { 2, 3, 6, 7 };
  double big_a[30], big_b[30];

  /* exact: complete separation of 3 and 3 is 2/20, of 5 and 5 is 2/252 */
  tap_check_near (ucb_mann_whitney_p (a3, 3, b3, 3), 0.1, 1e-12);
  tap_check_near (ucb_mann_whitney_p (b3, 3, a3, 3), 0.1, 1e-12);
  tap_check_near (ucb_mann_whitney_p (a5, 5, b5, 5), 2.0 / 252, 1e-12);
  /* interleaved samples: no evidence */
  tap_check (ucb_mann_whitney_p (mixed_a, 4, mixed_b, 4) > 0.5);
  /* large samples (normal approximation): a shift of the whole range separates */
  for (int i = 0; i < 30; i++)
    {
      big_a[i] = 100 + i;
      big_b[i] = 200 + i;
    }
  tap_check (ucb_mann_whitney_p (big_a, 30, big_b, 30) < 1e-9);
  tap_check (ucb_mann_whitney_p (big_a, 30, big_a, 30) > 0.9); /* all ties across */
  tap_check (isnan (ucb_mann_whitney_p (a3, 0, b3, 3)));
}

static const struct tap_test tests[] = {
  { "Mann-Whitney U: exact small samples, approximation, ties", test_mann_whitney },
  { "mean, median, sample stddev, min, max, cv", test_basic },
  { "median of odd n; input not reordered", test_odd_median_and_input_untouched },
  { "empty and single-sample input", test_degenerate },
  { "stddev keeps precision at 1e6", test_precision_large_values },
  { "Jain's index: fair, one hog, undefined", test_jain },
};

TAP_MAIN (tests)
