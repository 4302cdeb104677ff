/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched.h - the harness's own scheduling: its readings on time however many tasks run. */
#ifndef UCB_SCHED_H
#define UCB_SCHED_H

#include <stdbool.h>

/* What ucb_sched_raise() changed, for ucb_sched_restore(). */
struct ucb_sched_saved
{
  bool raised;
  int policy;   /* before */
  int priority; /* before (sched_priority) */
};

/* Run the calling thread at SCHED_FIFO priority 1 (or at the real-time policy it already has)
 * with SCHED_RESET_ON_FORK (every process it forks starts as SCHED_OTHER again), so a sampler that
 * sleeps between readings wakes on its deadline even when thousands of tasks share the CPUs: under
 * SCHED_OTHER it is one of N + 1 equal tasks and gets 1/(N + 1) of the machine.  Returns NULL when
 * raised, else why not (a static string: unprivileged, no CAP_SYS_NICE and RLIMIT_RTPRIO 0). */
const char *ucb_sched_raise (struct ucb_sched_saved *s);
/* Back to what the thread ran with before ucb_sched_raise(); a no-op when it did not raise. */
void ucb_sched_restore (struct ucb_sched_saved *s);
/* The calling thread's policy now: "SCHED_FIFO", "SCHED_RR", "SCHED_OTHER", ... */
const char *ucb_sched_policy_name (void);

#endif
