/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.h - one sweep point: spawn the containers, measure, stop, clean up. */
#ifndef UCB_RUNNER_H
#define UCB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "core/error.h"
#include "engine/canary.h"
#include "engine/measure.h"
#include "engine/plan.h"
#include "engine/rlimits.h"
#include "engine/runtime.h"
#include "host/perf.h"
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

struct ucb_container_result
{
  unsigned index;
  uid_t owner_uid;
  unsigned depth;
  int *cpu;                 /* per task: pinned CPU, -1 when not pinned */
  pid_t *task_pid;          /* per task, as seen from ucbench (threads share their process's) */
  uid_t task_uid;           /* real uid of the tasks as seen from ucbench */
  uint64_t userns_ino;      /* inode of the tasks' user namespace (0 when unknown) */
  uint64_t seccomp_load_ns; /* seccomp_load() in the container init, 0 = none */
  bool caps_applied;        /* the --caps sequence ran in the container init */
  json_t *cgroup;           /* the container's cgroup paths, NULL without --cgroup */
  bool perf_on;
  double perf[UCB_PERF_NEVENTS];           /* counts over the measured window, NaN = not counted */
  char perf_reason[UCB_PERF_NEVENTS][200]; /* why an available event was not counted here */
};

struct ucb_point_result
{
  struct ucb_point pt;
  struct ucb_container_result *c; /* pt.containers entries */
  struct ucb_samples samples;     /* one column per task (container-major); row 0 = warm-up end */
  struct ucb_slot *initial;       /* every task's slot at the start of the window (errnos) */
  struct ucb_slot *final;         /* ... and at its end */
  struct ucb_point_limits limits;
  uint64_t start_ns;          /* start barrier released */
  double setup_s;             /* fork to all-ready */
  double idle_pct, steal_pct; /* whole machine during the measurement, NaN if unknown */
  long long nivcsw; /* the tasks' involuntary context switches over the window, -1 unknown */
  double contention_threshold; /* the plan's; 0 = UCB_CONTENTION_THRESHOLD */
  uint64_t interval_ns;        /* the readings' period: reading k was due at row 0 + k periods */
  const char *sched_policy;    /* ucbench's own while it sampled ("SCHED_FIFO", ...) */
  const char *sched_reason;    /* why it is not real-time, NULL when it is (static strings) */
  double teardown_s;           /* final reading to every process reaped */
  struct ucb_canary canary;    /* the host's speed just before and just after the window */
};

/* The sweep: every combination of the list-valued options, in a stable order (the last
 * varying fastest): workload, depth, tasks, containers, repetition, owner.  The owner modes
 * take turns within each repetition (repeat r of shared, of distinct, then repeat r + 1), so
 * drift hits them alike (the owner contrast); containers vary just outside repetitions, so
 * each series' 1-container baseline is measured next to it. */
size_t ucb_sweep_size (const struct ucb_plan *o);
void ucb_sweep_point (const struct ucb_plan *o, size_t k, struct ucb_point *pt);

/* The distinct CPUs among task_cpu[0..T-1], in first-seen order, into out (room for T);
 * unpinned tasks (-1) are left out. */
size_t ucb_distinct_cpus (const int *task_cpu, size_t T, int *out);

int ucb_placement_init (struct ucb_placement *p, const struct ucb_plan *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_placement_free (struct ucb_placement *p);

/* `rt` may be NULL: containers with namespaces only. */
int ucb_run_point (const struct ucb_plan *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
                   const struct ucb_point *pt, struct ucb_point_result *res, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_point_result_free (struct ucb_point_result *res);

#endif
