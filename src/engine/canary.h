/* SPDX-License-Identifier: GPL-2.0-or-later */
/* canary.h - the host's own speed next to every repeat: a fixed user-space loop (no system
 * call) on each CPU of the point, just before the window and just after it.  A vCPU can run
 * slower or faster between invocations (a busy sibling hyperthread, a frequency change on the
 * physical host) without any of it showing in CPU time; the canary shows it (docs/statistics.md,
 * "host-speed canary"). */
#ifndef UCB_CANARY_H
#define UCB_CANARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* A repeat whose canary moved by more than this between before and after is flagged
 * ("speed-moved"): its one speed cannot stand for its window.  Above the canary's own noise on
 * a quiet machine: over 81 repeats of 3 quiet calibrations |change| was 0.6 % median, 6.2 % at
 * most; at 5 % one repeat in 27 was flagged (docs/statistics.md). */
#define UCB_CANARY_THRESHOLD_PCT 10.0

/* One edge (before or after the window): loops per second of the thread's own CPU time (the
 * best chunk on each CPU, averaged over the CPUs), and over wall time (every loop over the
 * whole edge, migrations included); NaN when not measured. */
struct ucb_canary_edge
{
  double rate, wall_rate;
};

struct ucb_canary
{
  int *cpus; /* the distinct CPUs measured, in first-seen order */
  size_t ncpus;
  struct ucb_canary_edge before, after;
};

/* Add the CPUs among task_cpu[0..n-1] not yet in `c` (unpinned tasks, -1, are left out). */
void ucb_canary_add_cpus (struct ucb_canary *c, const int *task_cpu, size_t n);
/* Measure one edge on every CPU of `c` (the allowed set `allowed` when it has none), the
 * calling thread pinned on each in turn, its affinity restored afterwards.  A CPU it cannot
 * move to leaves that CPU out (the rate is over the others; NaN when none).  Fails only when
 * the affinity cannot be read or restored. */
int ucb_canary_measure (struct ucb_canary *c, struct ucb_canary_edge *edge, const int *allowed,
                        size_t nallowed, ucb_error_t *err) __attribute__ ((warn_unused_result));
void ucb_canary_free (struct ucb_canary *c);

/* 100 (after - before) / before, NaN when either is unknown. */
double ucb_canary_change_pct (const struct ucb_canary *c);
/* |change| above `threshold_pct`: false when unknown. */
bool ucb_canary_moved (double change_pct, double threshold_pct);

/* The loop itself, `iters` dependent steps from `seed` (exposed for the tests). */
uint64_t ucb_canary_loop (uint64_t seed, uint64_t iters);

#endif
