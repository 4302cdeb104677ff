/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf.h - hardware and software counters per task with perf_event_open (--perf). */
#ifndef UCB_PERF_H
#define UCB_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

enum ucb_perf_event
{
  UCB_PERF_CYCLES,
  UCB_PERF_INSTRUCTIONS,
  UCB_PERF_CACHE_MISSES,
  UCB_PERF_HITM, /* loads that hit a line modified in another core's cache (the PMU's alias) */
  UCB_PERF_CONTEXT_SWITCHES,
  UCB_PERF_CPU_MIGRATIONS,
  UCB_PERF_NEVENTS
};

struct ucb_perf_probe
{
  bool available[UCB_PERF_NEVENTS];
  char reason[UCB_PERF_NEVENTS][200]; /* why not, when not available */
  bool hardware;                      /* at least one hardware event works */
  char hardware_reason[200];
  int paranoid; /* kernel.perf_event_paranoid, -99 when unreadable */
  /* Raw encoding of the HITM event, from the PMU's sysfs alias. */
  unsigned hitm_type;
  unsigned long long hitm_config;
  char hitm_alias[64];
};

/* Which events this host counts: each is opened once on the caller. */
void ucb_perf_probe (struct ucb_perf_probe *p);
const char *ucb_perf_event_name (enum ucb_perf_event e);

/* Counters of one group of tasks (a container): every available event on every tid. */
struct ucb_perf_set
{
  size_t ntids;
  int *fd;                            /* ntids x UCB_PERF_NEVENTS, -1 = not counting */
  char reason[UCB_PERF_NEVENTS][200]; /* why an available event could not be opened here */
};

/* Opening fails for one event (permissions on another uid's task): that event is marked
 * with a reason and the others carry on.  Only running out of fds is an error. */
int ucb_perf_open (struct ucb_perf_set *s, const struct ucb_perf_probe *p, const pid_t *tids,
                   size_t ntids, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Sum over the tids of each event, scaled by enabled/running time (multiplexing); NaN where
 * the event is not counted. */
void ucb_perf_read (const struct ucb_perf_set *s, double sums[UCB_PERF_NEVENTS]);
void ucb_perf_close (struct ucb_perf_set *s);

/* The thread ids of process `pid` except `pid` itself (the tasks of a --threads container,
 * whose main thread only waits). */
pid_t *ucb_perf_threads_of (pid_t pid, size_t *n);

#endif
