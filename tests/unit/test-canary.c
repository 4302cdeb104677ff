/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-canary.c - the host-speed canary (engine/canary.h): the loop is the chain it says, a
 * measurement gives positive finite rates and leaves the thread's affinity as it found it, the
 * CPUs are the distinct pinned ones; the speed-moved rule on synthetic values; and the model's
 * reading of `canary` (the flag, the rate compare divides by, older documents without it). */
#include "config.h"

#include <math.h>
#include <sched.h>

#include <jansson.h>

#include "../tap.h"
#include "core/util.h"
#include "engine/canary.h"
#include "report/model.h"

static void
test_loop (void)
{
  uint64_t x = 7;

  for (int i = 0; i < 3; i++)
    x = x * 6364136223846793005ull + 1442695040888963407ull;
  tap_check (ucb_canary_loop (7, 3) == x);
  tap_check (ucb_canary_loop (7, 0) == 7);
}

static void
test_cpus (void)
{
  struct ucb_canary c = { 0 };
  const int a[] = { 1, -1, 1, 0 }, b[] = { 0, 3 };

  ucb_canary_add_cpus (&c, a, 4);
  ucb_canary_add_cpus (&c, b, 2);
  tap_check_int (c.ncpus, ==, 3);
  tap_check_int (c.cpus[0], ==, 1);
  tap_check_int (c.cpus[1], ==, 0);
  tap_check_int (c.cpus[2], ==, 3);
  ucb_canary_free (&c);
  tap_check (c.cpus == NULL && c.ncpus == 0);
}

/* The allowed set, then a measurement on it (unpinned: c has no CPUs) and on its first CPU. */
static void
test_measure (void)
{
  cpu_set_t before, after;
  int allowed[CPU_SETSIZE];
  size_t n = 0;
  struct ucb_canary c = { 0 }, one = { 0 };
  ucb_error_t err = NULL;

  tap_check_int (sched_getaffinity (0, sizeof before, &before), ==, 0);
  for (int i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET (i, &before))
      allowed[n++] = i;
  tap_check_int (ucb_canary_measure (&c, &c.before, allowed, n, &err), ==, 0);
  tap_check_int (ucb_canary_measure (&c, &c.after, allowed, n, &err), ==, 0);
  tap_check (isfinite (c.before.rate) && c.before.rate > 0);
  tap_check (isfinite (c.after.rate) && c.after.rate > 0);
  tap_check (isfinite (c.before.wall_rate) && c.before.wall_rate > 0);
  tap_check (isfinite (ucb_canary_change_pct (&c)));
  tap_check_int (c.ncpus, ==, n); /* unpinned: the allowed set is what was measured */
  tap_check_int (sched_getaffinity (0, sizeof after, &after), ==, 0);
  tap_check (CPU_EQUAL (&before, &after));

  ucb_canary_add_cpus (&one, allowed, 1);
  tap_check_int (ucb_canary_measure (&one, &one.before, allowed, n, &err), ==, 0);
  tap_check (one.before.rate > 0 && one.ncpus == 1);
  tap_check_int (sched_getaffinity (0, sizeof after, &after), ==, 0);
  tap_check (CPU_EQUAL (&before, &after));
  /* A CPU it cannot go to is left out: only such CPUs, the rate is unknown, no error. */
  one.cpus[0] = -5;
  tap_check_int (ucb_canary_measure (&one, &one.after, allowed, n, &err), ==, 0);
  tap_check (isnan (one.after.rate) && isnan (ucb_canary_change_pct (&one)));
  tap_check_int (sched_getaffinity (0, sizeof after, &after), ==, 0);
  tap_check (CPU_EQUAL (&before, &after));
  if (err)
    ucb_error_free (&err);
  ucb_canary_free (&c);
  ucb_canary_free (&one);
}

static void
test_moved (void)
{
  struct ucb_canary c = { .before = { 100, 100 }, .after = { 94, 94 } };

  tap_check_near (ucb_canary_change_pct (&c), -6, 1e-9);
  tap_check (ucb_canary_moved (ucb_canary_change_pct (&c), 5));
  c.after.rate = 105; /* exactly at the threshold: not beyond it */
  tap_check (!ucb_canary_moved (ucb_canary_change_pct (&c), 5));
  c.after.rate = 105.5;
  tap_check (ucb_canary_moved (ucb_canary_change_pct (&c), 5));
  c.after.rate = NAN;
  tap_check (isnan (ucb_canary_change_pct (&c)));
  tap_check (!ucb_canary_moved (NAN, 5));
}

/* A minimal results[] entry, with `canary` (a JSON object text) or none. */
static json_t *
entry (const char *canary)
{
  char *s = xasprintf (
      "[{\"workload\":\"getppid\",\"containers\":1,\"owner\":\"shared\",\"depth\":0,\"tasks\":1,"
      "\"mode\":\"process\",\"repeat\":1,\"status\":\"ok\",\"per_container\":[{\"ops\":100,"
      "\"rate_ops_per_s\":100,\"cpu_ns_per_op\":10,\"ops_per_s\":{\"stddev\":1},\"samples\":[]}],"
      "\"summary\":{\"total_ops_per_s\":100,\"per_container_ops\":100,\"scalability\":null,"
      "\"fairness\":1,\"cv\":0,\"cpu_ns_per_op\":10,\"failed_ops\":0}%s%s}]",
      canary ? ",\"canary\":" : "", canary ? canary : "");
  json_t *j = json_loads (s, 0, NULL);
  free (s);
  return j;
}

static void
test_model (void)
{
  struct ucb_doc d;
  char flags[UCB_POINT_FLAGS_MAX];
  json_t *j = entry ("{\"before\":400,\"after\":100,\"change_pct\":-75,\"moved\":true}");

  tap_require (j && ucb_doc_built (j, &d));
  tap_check (d.points[0].canary.known && d.points[0].canary.moved);
  tap_check_near (ucb_doc_canary_rate (&d.points[0].canary), 200, 1e-9); /* geometric mean */
  tap_check (ucb_point_flags (&d.points[0], flags, sizeof flags));
  tap_check_str (flags, "speed-moved");
  ucb_doc_free (&d);
  json_decref (j);

  j = entry ("{\"before\":null,\"after\":300,\"moved\":false}"); /* one edge: that one */
  tap_require (j && ucb_doc_built (j, &d));
  tap_check_near (ucb_doc_canary_rate (&d.points[0].canary), 300, 1e-9);
  tap_check (!ucb_point_flags (&d.points[0], flags, sizeof flags));
  ucb_doc_free (&d);
  json_decref (j);

  j = entry (NULL); /* an older document: no canary, no flag, no rate */
  tap_require (j && ucb_doc_built (j, &d));
  tap_check (!d.points[0].canary.known && !d.points[0].canary.moved);
  tap_check (isnan (ucb_doc_canary_rate (&d.points[0].canary)));
  ucb_doc_free (&d);
  json_decref (j);
}

static const struct tap_test tests[] = {
  { "the loop: the MMIX LCG chain, n steps", test_loop },
  { "CPUs: the distinct pinned ones, in first-seen order", test_cpus },
  { "measure: positive finite rates, the affinity restored, a bad CPU left out", test_measure },
  { "moved: beyond the threshold either way, not at it, not when unknown", test_moved },
  { "model: canary read, speed-moved flag, the rate (geometric mean), older documents",
    test_model },
};

TAP_MAIN (tests)
