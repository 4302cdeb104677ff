/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-sweep.c - the sweep is the full Cartesian product, in a stable documented order. */
#include "config.h"

#include "../tap.h"
#include "run-args.h"
#include "cli/options.h"
#include "core/util.h"
#include "engine/sweep.h"
#include "engine/workload.h"

static void
test_product (void)
{
  struct ucb_run_options o;
  size_t n;
  unsigned seen[2][2][2][2][3][2] = { { { { { { 0 } } } } } };

  tap_check_int (parse (&o, "--workload signal,getppid --owner shared,distinct --depth 0,3 "
                            "--tasks 1,2 --containers 1,4,8 --repeat 2"),
                 ==, 0);
  n = ucb_sweep_size (&o.plan);
  tap_check_int (n, ==, 2 * 2 * 2 * 2 * 3 * 2);
  for (size_t k = 0; k < n; k++)
    {
      struct ucb_point pt;
      int w, ow, d, t, c, r;

      ucb_sweep_point (&o.plan, k, &pt);
      w = pt.workload == o.plan.workloads[1];
      ow = pt.owner.kind == UCB_OWNER_DISTINCT;
      d = pt.depth == 3;
      t = pt.tasks == 2;
      c = pt.containers == 1 ? 0 : pt.containers == 4 ? 1 : 2;
      r = (int) pt.repeat - 1;
      tap_check (r == 0 || r == 1);
      tap_check_int (pt.index, ==, k);
      if (r == 0 || r == 1)
        seen[w][ow][d][t][c][r]++;
    }
  /* every combination exactly once */
  for (size_t i = 0; i < sizeof seen / sizeof (unsigned); i++)
    tap_check_int (((unsigned *) seen)[i], ==, 1);
  ucb_run_options_free (&o);
}

static void
test_order (void)
{
  struct ucb_run_options o;
  struct ucb_point a, b;

  tap_check_int (parse (&o, "--workload signal,getppid --owner shared,root --depth 1,2 --tasks "
                            "1,3 --containers 2,5 --repeat 2 --no-baseline"),
                 ==, 0);
  /* owner fastest, then repetitions, containers, tasks, depth, workload */
  ucb_sweep_point (&o.plan, 0, &a);
  ucb_sweep_point (&o.plan, 1, &b);
  tap_check_int (a.owner.kind, ==, UCB_OWNER_SHARED);
  tap_check_int (b.owner.kind, ==, UCB_OWNER_ROOT);
  tap_check_int (a.repeat, ==, 1);
  tap_check_int (b.repeat, ==, 1);
  tap_check_int (a.containers, ==, b.containers);
  ucb_sweep_point (&o.plan, 2, &b);
  tap_check_int (b.repeat, ==, 2);
  tap_check_int (b.owner.kind, ==, UCB_OWNER_SHARED);
  tap_check_int (b.containers, ==, 2);
  ucb_sweep_point (&o.plan, 4, &b);
  tap_check_int (b.containers, ==, 5);
  tap_check_int (b.tasks, ==, 1);
  tap_check_int (b.repeat, ==, 1);
  ucb_sweep_point (&o.plan, 8, &b);
  tap_check_int (b.tasks, ==, 3);
  tap_check_int (b.containers, ==, 2);
  ucb_sweep_point (&o.plan, 16, &b);
  tap_check_int (b.depth, ==, 2);
  tap_check_int (b.tasks, ==, 1);
  tap_check_str (b.workload->name, "signal");
  ucb_sweep_point (&o.plan, 32, &b);
  tap_check_str (b.workload->name, "getppid");
  tap_check_int (b.owner.kind, ==, UCB_OWNER_SHARED);
  tap_check_int (b.depth, ==, 1);
  ucb_sweep_point (&o.plan, 63, &b);
  tap_check_str (b.workload->name, "getppid");
  tap_check_int (b.owner.kind, ==, UCB_OWNER_ROOT);
  tap_check_int (b.depth, ==, 2);
  tap_check_int (b.tasks, ==, 3);
  tap_check_int (b.containers, ==, 5);
  tap_check_int (b.repeat, ==, 2);
  ucb_run_options_free (&o);
}

/* The owner contrast's design (docs/statistics.md): at every point, repeat r of each owner
 * mode in turn, then repeat r + 1, so a drift during the run hits both alike; every pair of
 * points in run order either differs in owner only or moves on to the next repeat. */
static void
test_owners_interleave (void)
{
  struct ucb_run_options o;
  size_t n;
  unsigned last_rep = 0;
  const char *want = "SDSDSDSDSDSDSDSDSDSD"; /* shared, distinct, ... */

  tap_check_int (parse (&o, "--workload signal --owner shared,distinct --containers 1,2 "
                            "--repeat 5"),
                 ==, 0);
  n = ucb_sweep_size (&o.plan);
  tap_check_int (n, ==, 2 * 2 * 5);
  for (size_t k = 0; k < n; k++)
    {
      struct ucb_point pt;

      ucb_sweep_point (&o.plan, k, &pt);
      tap_check_int (want[k], ==, pt.owner.kind == UCB_OWNER_SHARED ? 'S' : 'D');
      /* repeats 1..5 of containers=1, then of containers=2, each taken by both owners */
      tap_check_int (pt.containers, ==, k < 10 ? 1 : 2);
      tap_check_int (pt.repeat, ==, (k % 10) / 2 + 1);
      if (k % 2 == 1)
        tap_check_int (pt.repeat, ==, last_rep);
      last_rep = pt.repeat;
    }
  ucb_run_options_free (&o);
  /* one owner: the order of before (repeats one after another) */
  tap_check_int (parse (&o, "--workload signal --owner shared --containers 1,2 --repeat 3"), ==, 0);
  for (size_t k = 0; k < ucb_sweep_size (&o.plan); k++)
    {
      struct ucb_point pt;
      ucb_sweep_point (&o.plan, k, &pt);
      tap_check_int (pt.repeat, ==, k % 3 + 1);
      tap_check_int (pt.containers, ==, k < 3 ? 1 : 2);
    }
  ucb_run_options_free (&o);
}

static void
test_point_carries_mode (void)
{
  struct ucb_run_options o;
  struct ucb_point p;

  tap_check_int (parse (&o, "--threads --tasks 4 --isolate user,ipc,pid --containers 2"), ==, 0);
  ucb_sweep_point (&o.plan, 0, &p);
  tap_check (p.threads);
  tap_check_int (p.tasks, ==, 4);
  tap_check_int (p.isolate, ==, CLONE_NEWIPC | CLONE_NEWPID);
  ucb_run_options_free (&o);
}

static const struct tap_test tests[] = {
  { "the sweep is the whole Cartesian product, each point once", test_product },
  { "stable order: owner fastest, then repeat, containers, tasks, depth, workload", test_order },
  { "owner modes take turns repeat by repeat (the owner contrast)", test_owners_interleave },
  { "points carry threads, tasks and isolation", test_point_carries_mode },
};

TAP_MAIN (tests)
