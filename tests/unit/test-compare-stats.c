/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include "core/util.h"
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

/* One estimate and its verdict against scipy: the unit values a side and the assumed drift,
 * then what scipy says; a 0 is not checked (no case expects exactly 0). */
struct scipy_case
{
  const char *what;
  double b[4], h[4];
  size_t nb, nh;
  double drift;
  double ratio, lo, hi, df, se, p_beyond, p_inside;
  enum ucb_cmp_verdict verdict;
  int needed[2]; /* units a side that would settle it, at a = 0.05 and 0.05/4 */
};

static const struct scipy_case cases[] = {
  { .what = "a clear -20 %",
    .b = { 100, 102, 98 },
    .h = { 80, 82, 79 },
    .nb = 3,
    .nh = 3,
    .ratio = 0.8033440123710746,
    .lo = 0.7685860973640186,
    .hi = 0.8396737911677321,
    .df = 3.988605264100114,
    .p_beyond = 0.0004656118514794151,
    .p_inside = 1,
    .verdict = UCB_CMP_REGRESSION },
  /* -10 % but hi = 0.9539 > 0.95: the whole interval is not beyond the threshold */
  { .what = "-10 % reaching past 0.95",
    .b = { 100, 102, 98 },
    .h = { 90, 93, 88.5 },
    .nb = 3,
    .nh = 3,
    .ratio = 0.9049282796013699,
    .lo = 0.8584920946086266,
    .hi = 0.9538762166419446,
    .p_beyond = 0.06220652399003337,
    .verdict = UCB_CMP_INCONCLUSIVE },
  { .what = "within +-5 %",
    .b = { 100, 101, 99.5, 100.4 },
    .h = { 100.2, 99.1, 100.9 },
    .nb = 4,
    .nh = 3,
    .ratio = 0.9984078160910391,
    .lo = 0.9804073943231824,
    .hi = 1.0167387282098426,
    .df = 3.420856460367886,
    .p_beyond = 1,
    .p_inside = 0.0023726398406762627,
    .verdict = UCB_CMP_NO_CHANGE },
  /* needed: smallest n > 3 with t.ppf(1-a/2, 2n-2)*sqrt((sa**2+sb**2)/n) < min(|d-L|, |d-U|) */
  { .what = "a wide interval",
    .b = { 100, 106, 95 },
    .h = { 97, 103, 92 },
    .nb = 3,
    .nh = 3,
    .ratio = 0.97003879900908,
    .lo = 0.8549907640234209,
    .hi = 1.1005677618725738,
    .p_inside = 0.669932019914278,
    .verdict = UCB_CMP_INCONCLUSIVE,
    .needed = { 56, 91 } },
  /* One document a side, drift = log1p(0.03) added: v = va+vb+2*drift**2, se = sqrt(v),
   * df = v**2/(va**2/(na-1)+vb**2/(nb-1)) (the known term has infinite df); needed documents:
   * smallest n >= 2 with t.ppf(0.975, 2n-2)*sqrt((2*drift**2+(sa**2+sb**2)/3)/n) < dist */
  { .what = "-20 % with the drift",
    .b = { 100, 102, 98 },
    .h = { 80, 82, 79 },
    .nb = 3,
    .nh = 3,
    .drift = 0.03,
    .lo = 0.7356012323380154,
    .hi = 0.8773253412875031,
    .df = 248.99809540807965,
    .se = 0.044728718350611554,
    .p_beyond = 0.0002209558124351052,
    .verdict = UCB_CMP_REGRESSION },
  { .what = "-10 % with the drift",
    .b = { 100, 102, 98 },
    .h = { 90, 93, 88.5 },
    .nb = 3,
    .nh = 3,
    .drift = 0.03,
    .lo = 0.8266707607342225,
    .hi = 0.9905941157214494,
    .p_beyond = 0.2898558470664011,
    .verdict = UCB_CMP_INCONCLUSIVE,
    .needed = { 5 } /* documents, not repeats */ },
};

static void
scipy_estimate (const struct scipy_case *c, struct ucb_cmp_est *e)
{
  double lb[4], lh[4];

  logs (c->b, c->nb, lb);
  logs (c->h, c->nh, lh);
  ucb_cmp_estimate (lb, c->nb, lh, c->nh, 0.05, c->drift ? log1p (c->drift) : 0, e);
}

/* `want` unless it is 0 (not checked). */
#define check_near(got, want, eps)                                                                 \
  do                                                                                               \
    if ((want) != 0)                                                                               \
      tap_check_near (got, want, eps);                                                             \
  while (0)

static void
test_scipy (void)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (cases); i++)
    {
      const struct scipy_case *c = &cases[i];
      int before = tap_failed_checks;
      struct ucb_cmp_est e;

      scipy_estimate (c, &e);
      tap_check (e.ok);
      check_near (e.ratio, c->ratio, 1e-12);
      check_near (e.lo, c->lo, 1e-9);
      check_near (e.hi, c->hi, 1e-9);
      /* With the drift's known term df is large, and known to fewer places. */
      check_near (e.df, c->df, c->drift ? 1e-6 : 1e-9);
      check_near (e.se, c->se, 1e-12);
      check_near (e.p_beyond, c->p_beyond, 1e-10);
      check_near (e.p_inside, c->p_inside, 1e-10);
      tap_check_int (ucb_cmp_verdict (&e, e.p_beyond, e.p_inside, NULL, false), ==, c->verdict);
      if (c->needed[0])
        tap_check_int (ucb_cmp_needed (&e, 0.05, 0.05), ==, c->needed[0]);
      if (c->needed[1])
        tap_check_int (ucb_cmp_needed (&e, 0.05, 0.05 / 4), ==, c->needed[1]);
      if (tap_failed_checks != before)
        printf ("# in case %zu: %s\n", i, c->what);
    }
}

static void
test_holm (void)
{
  struct ucb_cmp_est e;

  /* Holm with many points can hold it back: the adjusted p decides, not the raw one. */
  scipy_estimate (&cases[0], &e);
  tap_check_int (ucb_cmp_verdict (&e, 0.06, 1, NULL, false), ==, UCB_CMP_INCONCLUSIVE);
}

static void
test_too_few_and_contended (void)
{
  const double b[] = { 100 }, h[] = { 50, 51, 49 };
  struct ucb_cmp_est e;

  est (b, 1, h, 3, &e);
  tap_check (!e.ok && isnan (e.p_beyond) && isnan (e.lo) && isnan (e.hi));
  check_near (e.ratio, cbrt (50.0 * 51 * 49) / 100, 1e-12); /* of the geometric means */
  est (b, 0, h, 3, &e);
  tap_check (!e.ok && isnan (e.ratio));
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

static const struct tap_test tests[] = {
  { "interval, df, p-values, verdict and units needed as scipy has them, drift or not",
    test_scipy },
  { "a clear -20 %: Holm's adjusted p can hold it back", test_holm },
  { "one run a side: inconclusive (1 repeat) or (contended)", test_too_few_and_contended },
  { "CPU ns/op must confirm the sign of ops/s", test_metrics_must_agree },
  { "no spread: a point interval", test_no_spread },
};

TAP_MAIN (tests)
