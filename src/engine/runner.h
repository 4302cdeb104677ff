/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.h - one sweep point: spawn the containers, measure, stop, clean up. */
#ifndef UCB_RUNNER_H
#define UCB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "engine/canary.h"
#include "engine/footprint.h"
#include "engine/measure.h"
#include "engine/plan.h"
#include "engine/soft-limits.h"
#include "engine/runtime.h"
#include "engine/sweep.h"
#include "host/cgroup/cgroup.h"
#include "host/perf.h"

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
  struct ucb_cgroup_container_info *cgroup; /* its groups, NULL without --cgroup */
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
  /* Per task: its process's CPU clock at the window's first and last readings (cpu_ns 0 when
   * unknown: threads share one process clock). */
  struct ucb_kclock *kclock[2];
  long long nivcsw; /* the tasks' involuntary context switches over the window, -1 unknown */
  double contention_threshold; /* the plan's; 0 = UCB_CONTENTION_THRESHOLD */
  uint64_t interval_ns;        /* the readings' period: reading k was due at row 0 + k periods */
  const char *sched_policy;    /* ucbench's own while it sampled ("SCHED_FIFO", ...) */
  const char *sched_reason;    /* why it is not real-time, NULL when it is (static strings) */
  double teardown_s;           /* final reading to every process reaped */
  struct ucb_footprint memory; /* container 0's, at the end of the window */
  uint64_t peak_rss_kib;       /* ucbench's own peak so far, at the point's end */
  struct ucb_canary canary;    /* the host's speed just before and just after the window */
};

/* `rt` may be NULL: containers with namespaces only. */
int ucb_run_point (const struct ucb_plan *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
                   const struct ucb_point *pt, struct ucb_point_result *res, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_point_result_free (struct ucb_point_result *res);

#endif
