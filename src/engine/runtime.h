/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runtime.h - what a run adds to its containers beyond namespaces (cgroups, capabilities,
 * seccomp) and observes in them (hardware counters): set up once per run, used per point. */
#ifndef UCB_RUNTIME_H
#define UCB_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "engine/plan.h"
#include "host/perf.h"
#include "host/seccomp.h"

struct ucb_cgroup;
struct ucb_container_spec;

/* Per container, in a shared mapping: what its init measured while confining itself. */
struct ucb_container_rec
{
  uint64_t seccomp_load_ns; /* 0 = no filter loaded */
  int32_t caps_applied;     /* 1 once the capability sequence ran */
  int32_t reserved;
};

struct ucb_runtime
{
  const struct ucb_runtime_options *opt;
  struct ucb_cgroup *cg;  /* NULL without --cgroup */
  struct ucb_seccomp *sc; /* NULL without --seccomp */
  struct ucb_seccomp_stats sc_stats;
  bool caps_on; /* --caps drop or LIST */
  struct ucb_perf_probe perf;
  bool perf_on; /* --perf */
  /* Set per point by the runner: the shared records of its containers. */
  struct ucb_container_rec *rec;
};

/* Build the seccomp filter (profile errors surface here, before any container), probe the
 * perf events and open the cgroup parent with its janitor. */
int ucb_runtime_open (struct ucb_runtime *rt, const struct ucb_plan *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_runtime_close (struct ucb_runtime *rt);

/* The spawn hooks (struct ucb_container_spec's owner_hook/init_hook; arg = the runtime). */
int ucb_runtime_owner_hook (void *arg, const struct ucb_container_spec *spec, ucb_error_t *err);
int ucb_runtime_init_hook (void *arg, const struct ucb_container_spec *spec, ucb_error_t *err);

/* Whether the containers' inits set no-new-privs (--caps or --seccomp).  The rest of what the
 * run used (config.runtime of the document) is in the fields above. */
bool ucb_runtime_no_new_privs (const struct ucb_runtime *rt);

#endif
