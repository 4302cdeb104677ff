/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-repeat-auto.c - the --repeat auto policy (engine/repeat-auto.c) on a clock of its own:
 * rounds in sweep order, owner modes in turns, the precision, the time, the limits. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../tap.h"
#include "run-args.h"
#include "cli/options.h"
#include "core/util.h"
#include "engine/repeat-auto.h"

static uint64_t fake_ns;

static uint64_t
fake_now (void)
{
  return fake_ns;
}

/* What a repeat measures in a test: its ops, whether contended or never run, and how long. */
typedef double (*ops_fn) (size_t k, size_t repeat);

/* Runs the policy to the end: every repeat takes `secs` of the fake clock; the order of the
 * points handed out goes into order[] (room for `room`).  Returns how many were handed out. */
static size_t
drive (struct ucb_repeat_auto *s, ops_fn ops, bool contended, size_t skip_k, double secs,
       size_t *order, size_t room)
{
  size_t k, n = 0;
  double elapsed;

  while (ucb_repeat_auto_next (s, &k, &elapsed))
    {
      tap_check_int (s->p[k].pt.repeat, ==, s->p[k].n + 1);
      tap_check_near (elapsed, (double) fake_ns / 1e9, 1e-9);
      fake_ns += (uint64_t) (secs * 1e9);
      if (n < room)
        order[n] = k;
      n++;
      ucb_repeat_auto_record (s, k, k == skip_k, ops (k, s->p[k].n + 1), contended);
    }
  return n;
}

/* The policy over the points of `args`, on the fake clock; false when they do not parse. */
static bool
start (struct ucb_repeat_auto *s, struct ucb_run_options *o, const char *args)
{
  if (parse (o, args) < 0)
    return false;
  ucb_repeat_auto_init (s, &o->plan);
  fake_ns = 0;
  s->now = fake_now;
  return true;
}

static double
steady (size_t k, size_t repeat)
{
  (void) k;
  (void) repeat;
  return 1000;
}

/* Point 0 steady, point 1 noisy for its first 8 repeats. */
static double
one_noisy (size_t k, size_t repeat)
{
  return k == 1 && repeat <= 8 ? (repeat % 2 ? 1000 : 1500) : 1000;
}

static double
noisy (size_t k, size_t repeat)
{
  (void) k;
  return repeat % 2 ? 1000 : 2000;
}

static void
test_steady_three (void)
{
  struct ucb_run_options o;
  struct ucb_repeat_auto s;
  size_t order[16];
  cleanup_free char *note = NULL;

  tap_require (start (&s, &o, "--repeat auto --precision 1 --containers 1 --owner self"));
  tap_check_int (drive (&s, steady, false, SIZE_MAX, 1, order, 16), ==, UCB_PRECISION_MIN_N);
  tap_check (s.p[0].prec.reached);
  tap_check (!s.out_of_time);
  note = ucb_repeat_auto_note (&s);
  tap_check (strstr (note, "1 of 1 points reached ±1 %") != NULL);
  ucb_repeat_auto_free (&s);
  ucb_run_options_free (&o);
}

/* The owner modes of a point go on together until each is done; then the next point. */
static void
test_owners_in_turns (void)
{
  struct ucb_run_options o;
  struct ucb_repeat_auto s;
  size_t order[256], n, n01;

  tap_require (start (
      &s, &o,
      "--repeat auto --precision 10 --containers 1,2 --owner shared,distinct --no-baseline"));
  tap_require (s.np == 4);
  n = drive (&s, one_noisy, false, SIZE_MAX, 1, order, 256);
  n01 = s.p[0].n + s.p[1].n;
  tap_check_int (s.p[0].n, ==, s.p[1].n); /* the steady one waits for its partner */
  tap_check (s.p[1].n > 8);
  tap_check (s.p[0].prec.reached && s.p[1].prec.reached);
  tap_check_int (s.p[2].n, ==, UCB_PRECISION_MIN_N);
  tap_check_int (s.p[3].n, ==, UCB_PRECISION_MIN_N);
  tap_check_int (n, ==, n01 + 2 * UCB_PRECISION_MIN_N);
  /* rounds in sweep order: 0 1 2 3, 0 1 2 3, 0 1 2 3, then 0 1 alone */
  for (size_t i = 0; i < 12 && i < n; i++)
    tap_check_int (order[i], ==, i % 4);
  for (size_t i = 12; i < n && i < 256; i++)
    tap_check_int (order[i], ==, i % 2);
  ucb_repeat_auto_free (&s);
  ucb_run_options_free (&o);
}

/* --max-time: after the first round, a repeat starts only when it is expected to end in time. */
static void
test_max_time (void)
{
  struct ucb_run_options o;
  struct ucb_repeat_auto s;
  size_t order[16];
  cleanup_free char *note = NULL;

  tap_require (
      start (&s, &o, "--repeat auto --precision 1 --containers 1,2 --owner self --max-time 10"));
  /* round 1: 0 and 1 (6 s); round 2: 0 (6 + 3 <= 10), not 1 (9 + 3 > 10); round 3: none */
  tap_check_int (drive (&s, noisy, false, SIZE_MAX, 3, order, 16), ==, 3);
  tap_check_int (order[0], ==, 0);
  tap_check_int (order[1], ==, 1);
  tap_check_int (order[2], ==, 0);
  tap_check (s.out_of_time);
  tap_check_near (s.max_time_s, 10, 1e-9);
  note = ucb_repeat_auto_note (&s);
  tap_check (strstr (note, "0 of 2 points reached") != NULL);
  tap_check (strstr (note, "--max-time 10 s was spent first") != NULL);
  ucb_repeat_auto_free (&s);
  ucb_run_options_free (&o);
}

/* Without --max-time: UCB_AUTO_MAX_ROUNDS times the first round, known once it ended. */
static void
test_default_max_time (void)
{
  struct ucb_run_options o;
  struct ucb_repeat_auto s;
  size_t k, n = 0;
  double elapsed;

  tap_require (start (&s, &o, "--repeat auto --precision 1 --containers 1,2 --owner self"));
  while (ucb_repeat_auto_next (&s, &k, &elapsed))
    {
      tap_check (n >= 2 || s.max_time_s == 0); /* not known in round 1 */
      fake_ns += 2000000000ull;
      ucb_repeat_auto_record (&s, k, false, noisy (k, s.p[k].n + 1), false);
      n++;
    }
  tap_check_near (s.max_time_s, UCB_AUTO_MAX_ROUNDS * 4.0, 1e-9);
  tap_check (s.out_of_time);
  tap_check_int (n, ==, 20); /* 2 s repeats started at 0, 2, ... 38 s; none at 40 s */
  ucb_repeat_auto_free (&s);
  ucb_run_options_free (&o);
}

/* A point never run is done at once; contended repeats do not count, up to the most repeats. */
static void
test_skipped_and_contended (void)
{
  struct ucb_run_options o;
  struct ucb_repeat_auto s;
  size_t order[8];
  cleanup_free char *note = NULL;

  tap_require (start (&s, &o, "--repeat auto --precision 1 --containers 1,2 --owner self"));
  tap_check_int (drive (&s, steady, true, 0, 0, order, 8), ==, 1 + UCB_MAX_REPEAT);
  tap_check (s.p[0].skipped);
  tap_check_int (s.p[0].n, ==, 1);
  tap_check_int (s.p[1].n, ==, UCB_MAX_REPEAT);
  tap_check_int (s.p[1].prec.counted, ==, 0);
  tap_check (!s.out_of_time);
  note = ucb_repeat_auto_note (&s);
  tap_check (strstr (note, "0 of 1 points reached") != NULL);
  tap_check (strstr (note, "no interval after 1000 repeats (0 counted") != NULL);
  tap_check (strstr (note, "; 1000 repeats a point is the most") != NULL);
  ucb_repeat_auto_free (&s);
  ucb_run_options_free (&o);
}

static const struct tap_test tests[] = {
  { "steady values reach the precision after UCB_PRECISION_MIN_N repeats", test_steady_three },
  { "owner modes repeat in turns until each is done, in rounds", test_owners_in_turns },
  { "--max-time: no repeat starts that would end after it", test_max_time },
  { "no --max-time: ten times the first round", test_default_max_time },
  { "a skipped point is done; contended repeats do not count", test_skipped_and_contended },
};

TAP_MAIN (tests)
