/* test-compare-stats.c - compare's interval, tests, verdict rules and "repeats needed"
 * (report/compare-stats.c) against values computed independently with scipy 1.10 (Debian
 * python3-scipy); the script is in each comment, so the test needs no scipy:
 *   la, lb = np.log(base), np.log(head); va, vb = la.var(ddof=1)/n, lb.var(ddof=1)/n;
 *   d = lb.mean()-la.mean(); se = sqrt(va+vb); df = (va+vb)**2/(va**2/(na-1)+vb**2/(nb-1));
 *   q = t.ppf(0.975, df); lo, hi = exp(d -/+ q*se); L, U = log(0.95), log(1.05);
 *   p_beyond = min(1, 2*min(t.cdf((d-L)/se, df), t.sf((d-U)/se, df)));
 *   p_inside = min(1, 2*max(t.sf((d-L)/se, df), t.cdf((d-U)/se, df))). */
#include "config.h"

#include <math.h>

#include "../tap.h"
#include "report/compare-stats.h"

static void
logs (const double *v, size_t n, double *out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = log (v[i]);
}

static void
est (const double *b, size_t nb, const double *h, size_t nh, struct ucb_cmp_est *e)
{
  double lb[8], lh[8];
  logs (b, nb, lb);
  logs (h, nh, lh);
  ucb_cmp_estimate (lb, nb, lh, nh, 0.05, 0, e);
}

static void
test_clear_regression (void)
{
  const double b[] = { 100, 102, 98 }, h[] = { 80, 82, 79 };
  struct ucb_cmp_est e;

  est (b, 3, h, 3, &e);
  tap_check (e.ok);
  tap_check_near (e.ratio, 0.8033440123710746, 1e-12);
  tap_check_near (e.lo, 0.7685860973640186, 1e-9);
  tap_check_near (e.hi, 0.8396737911677321, 1e-9);
  tap_check_near (e.df, 3.988605264100114, 1e-9);
  tap_check_near (e.p_beyond, 0.0004656118514794151, 1e-10);
  tap_check_near (e.p_inside, 1, 1e-12);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==, UCB_CMP_REGRESSION);
  /* Holm with many points can hold it back: the adjusted p decides, not the raw one. */
  tap_check_int (ucb_cmp_verdict (&e, 0.06, 1, NULL, false), ==, UCB_CMP_INCONCLUSIVE);
}

static void
test_interval_touching_threshold (void)
{
  /* -10 % but hi = 0.9539 > 0.95: the whole interval is not beyond the threshold */
  const double b[] = { 100, 102, 98 }, h[] = { 90, 93, 88.5 };
  struct ucb_cmp_est e;

  est (b, 3, h, 3, &e);
  tap_check_near (e.ratio, 0.9049282796013699, 1e-12);
  tap_check_near (e.lo, 0.8584920946086266, 1e-9);
  tap_check_near (e.hi, 0.9538762166419446, 1e-9);
  tap_check_near (e.p_beyond, 0.06220652399003337, 1e-10);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==,
                 UCB_CMP_INCONCLUSIVE);
}

static void
test_no_change (void)
{
  const double b[] = { 100, 101, 99.5, 100.4 }, h[] = { 100.2, 99.1, 100.9 };
  struct ucb_cmp_est e;

  est (b, 4, h, 3, &e);
  tap_check_near (e.ratio, 0.9984078160910391, 1e-12);
  tap_check_near (e.lo, 0.9804073943231824, 1e-9);
  tap_check_near (e.hi, 1.0167387282098426, 1e-9);
  tap_check_near (e.df, 3.420856460367886, 1e-9);
  tap_check_near (e.p_beyond, 1, 1e-12);
  tap_check_near (e.p_inside, 0.0023726398406762627, 1e-10);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==, UCB_CMP_NO_CHANGE);
}

static void
test_wide_and_needed (void)
{
  /* needed: smallest n > 3 with t.ppf(1-a/2, 2n-2)*sqrt((sa**2+sb**2)/n) < min(|d-L|, |d-U|):
   * 56 at a = 0.05, 91 at a = 0.05/4 */
  const double b[] = { 100, 106, 95 }, h[] = { 97, 103, 92 };
  struct ucb_cmp_est e;

  est (b, 3, h, 3, &e);
  tap_check_near (e.ratio, 0.97003879900908, 1e-12);
  tap_check_near (e.lo, 0.8549907640234209, 1e-9);
  tap_check_near (e.hi, 1.1005677618725738, 1e-9);
  tap_check_near (e.p_inside, 0.669932019914278, 1e-10);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==,
                 UCB_CMP_INCONCLUSIVE);
  tap_check_int (ucb_cmp_needed (&e, 0.05, 0.05), ==, 56);
  tap_check_int (ucb_cmp_needed (&e, 0.05, 0.05 / 4), ==, 91);
}

static void
test_too_few_and_contended (void)
{
  const double b[] = { 100 }, h[] = { 50, 51, 49 };
  struct ucb_cmp_est e;

  est (b, 1, h, 3, &e);
  tap_check (!e.ok && isnan (e.p_beyond) && isnan (e.ratio));
  tap_check_int (ucb_cmp_verdict (&e, NAN, NAN, NULL, false), ==, UCB_CMP_ONE_REPEAT);
  tap_check_int (ucb_cmp_verdict (&e, NAN, NAN, NULL, true), ==, UCB_CMP_CONTENDED);
  tap_check_str (ucb_cmp_verdict_name (UCB_CMP_ONE_REPEAT), "inconclusive (1 repeat)");
  tap_check_str (ucb_cmp_verdict_name (UCB_CMP_CONTENDED), "inconclusive (contended)");
  tap_check_int (ucb_cmp_needed (&e, 0.05, 0.05), ==, 0);
}

static void
test_metrics_must_agree (void)
{
  const double b[] = { 100, 102, 98 }, h[] = { 80, 82, 79 };
  const double cb[] = { 200, 201, 199 }, up[] = { 250, 252, 249 }, flat[] = { 199, 202, 200 };
  struct ucb_cmp_est ops, cpu;

  est (b, 3, h, 3, &ops);
  est (cb, 3, up, 3, &cpu); /* each op costs 25 % more CPU: the slowdown is the work's */
  tap_check_int (ucb_cmp_verdict (&ops, ops.p_beyond, ops.p_inside, &cpu, false), ==,
                 UCB_CMP_REGRESSION);
  est (cb, 3, flat, 3, &cpu); /* the same CPU per op: the task got less CPU */
  tap_check_int (ucb_cmp_verdict (&ops, ops.p_beyond, ops.p_inside, &cpu, false), ==,
                 UCB_CMP_DISAGREE);
  est (h, 3, b, 3, &ops);   /* improvement of ops/s ... */
  est (cb, 3, up, 3, &cpu); /* ... while each op costs more */
  tap_check_int (ucb_cmp_verdict (&ops, ops.p_beyond, ops.p_inside, &cpu, false), ==,
                 UCB_CMP_DISAGREE);
  est (up, 3, cb, 3, &cpu);
  tap_check_int (ucb_cmp_verdict (&ops, ops.p_beyond, ops.p_inside, &cpu, false), ==,
                 UCB_CMP_IMPROVEMENT);
}

static void
test_no_spread (void)
{
  /* identical runs: se 0, the interval a point; a document against itself is no change */
  const double b[] = { 100, 100, 100 }, h[] = { 80, 80, 80 };
  struct ucb_cmp_est e;

  est (b, 3, b, 3, &e);
  tap_check (e.ok && e.se == 0);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==, UCB_CMP_NO_CHANGE);
  est (b, 3, h, 3, &e);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==, UCB_CMP_REGRESSION);
}

static void
test_drift (void)
{
  /* one document a side, drift = log1p(0.03) added: v = va+vb+2*drift**2, se = sqrt(v),
   * df = v**2/(va**2/(na-1)+vb**2/(nb-1)) (the known term has infinite df); needed documents:
   * smallest n >= 2 with t.ppf(0.975, 2n-2)*sqrt((2*drift**2+(sa**2+sb**2)/3)/n) < dist */
  const double b[] = { 100, 102, 98 }, h[] = { 80, 82, 79 }, h10[] = { 90, 93, 88.5 };
  double lb[3], lh[3];
  struct ucb_cmp_est e;

  logs (b, 3, lb);
  logs (h, 3, lh);
  ucb_cmp_estimate (lb, 3, lh, 3, 0.05, log1p (0.03), &e);
  tap_check_near (e.se, 0.044728718350611554, 1e-12);
  tap_check_near (e.df, 248.99809540807965, 1e-6);
  tap_check_near (e.lo, 0.7356012323380154, 1e-9);
  tap_check_near (e.hi, 0.8773253412875031, 1e-9);
  tap_check_near (e.p_beyond, 0.0002209558124351052, 1e-10);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==, UCB_CMP_REGRESSION);
  logs (h10, 3, lh);
  ucb_cmp_estimate (lb, 3, lh, 3, 0.05, log1p (0.03), &e);
  tap_check_near (e.lo, 0.8266707607342225, 1e-9);
  tap_check_near (e.hi, 0.9905941157214494, 1e-9);
  tap_check_near (e.p_beyond, 0.2898558470664011, 1e-10);
  tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==,
                 UCB_CMP_INCONCLUSIVE);
  tap_check_int (ucb_cmp_needed (&e, 0.05, 0.05), ==, 5); /* documents, not repeats */
}

static const struct tap_test tests[] = {
  { "one document a side: the assumed drift widens the interval", test_drift },
  { "a clear -20 %: interval, p-values, regression; Holm can hold it", test_clear_regression },
  { "-10 % whose interval reaches past 0.95: inconclusive", test_interval_touching_threshold },
  { "within +-5 %: no change (TOST p)", test_no_change },
  { "a wide interval: inconclusive, repeats needed", test_wide_and_needed },
  { "one run a side: inconclusive (1 repeat) or (contended)", test_too_few_and_contended },
  { "CPU ns/op must confirm the sign of ops/s", test_metrics_must_agree },
  { "no spread: a point interval", test_no_spread },
};

TAP_MAIN (tests)
