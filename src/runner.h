/* runner.h - one sweep point: spawn the containers, measure, stop, clean up. */
#ifndef UCB_RUNNER_H
#define UCB_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "measure.h"
#include "options.h"

struct ucb_workload;

struct ucb_point
{
  const struct ucb_workload *workload;
  unsigned containers;
  struct ucb_owner_mode owner;
  unsigned depth;
  unsigned tasks;  /* per container */
  unsigned repeat; /* 1-based repetition index */
};

/* Task placement: `cpus` of every task, or none (the allowed set is recorded). */
struct ucb_placement
{
  enum ucb_pin_mode mode;
  int *cpus; /* pin targets (auto: the allowed set; list: the user's list) */
  size_t ncpus;
  int *allowed; /* sched_getaffinity at start */
  size_t nallowed;
};

struct ucb_container_result
{
  unsigned index;
  uid_t owner_uid;
  unsigned depth;
  int cpu;             /* pinned CPU, -1 when not pinned */
  pid_t task_pid;      /* as seen from ucbench */
  uid_t task_uid;      /* real uid of the task as seen from ucbench */
  uint64_t userns_ino; /* inode of the task's user namespace (0 when unknown) */
  int last_errno;      /* errno of the task's last failed op, 0 if none */
};

struct ucb_point_result
{
  struct ucb_point pt;
  struct ucb_container_result *c; /* pt.containers entries */
  struct ucb_samples samples;     /* one column per task; row 0 = end of warm-up */
  uint64_t start_ns;              /* start barrier released */
  double setup_s;                 /* fork to all-ready */
  double idle_pct, steal_pct;     /* whole machine during the measurement, NaN if unknown */
};

int ucb_placement_init (struct ucb_placement *p, const struct ucb_run_options *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_placement_free (struct ucb_placement *p);

int ucb_run_point (const struct ucb_run_options *o, const struct ucb_placement *pl,
                   const struct ucb_point *pt, struct ucb_point_result *res, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_point_result_free (struct ucb_point_result *res);

#endif
