/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweep.h - the points of a sweep (the plan's k-th point) and where their tasks run (the
 * placement): what the runner is handed, apart from running it. */
#ifndef UCB_SWEEP_H
#define UCB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "engine/plan.h"
#include "host/topology.h"

struct ucb_workload;

struct ucb_point
{
  const struct ucb_workload *workload;
  unsigned containers;
  struct ucb_owner_mode owner;
  unsigned depth;
  unsigned tasks;  /* per container */
  bool threads;    /* tasks are threads of one process per container */
  int isolate;     /* CLONE_NEW* besides the user namespace (used at depth >= 1) */
  unsigned repeat; /* 1-based repetition index */
  unsigned index;  /* 0-based position in the sweep */
};

/* The sweep: every combination of the list-valued options, in a stable order (the last
 * varying fastest): workload, depth, tasks, containers, repetition, owner.  The owner modes
 * take turns within each repetition (repeat r of shared, of distinct, then repeat r + 1), so
 * drift hits them alike (the owner contrast); containers vary just outside repetitions, so
 * each series' 1-container baseline is measured next to it. */
size_t ucb_sweep_size (const struct ucb_plan *o);
void ucb_sweep_point (const struct ucb_plan *o, size_t k, struct ucb_point *pt);

/* Task placement: `cpus` of every task, or none (the allowed set is recorded). */
struct ucb_placement
{
  enum ucb_pin_mode mode;
  int *cpus; /* pin targets (auto: the allowed set; list: the user's list) */
  size_t ncpus;
  int *allowed; /* sched_getaffinity at start */
  size_t nallowed;
  struct ucb_topology topo; /* of the allowed CPUs; topo.ncpus == 0 when sysfs could not say */
  char *topo_error;         /* why not, then */
};

int ucb_placement_init (struct ucb_placement *p, const struct ucb_plan *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_placement_free (struct ucb_placement *p);

/* The distinct CPUs among task_cpu[0..T-1], in first-seen order, into out (room for T);
 * unpinned tasks (-1) are left out. */
size_t ucb_distinct_cpus (const int *task_cpu, size_t T, int *out);

#endif
