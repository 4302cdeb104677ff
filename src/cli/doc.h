/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc.h - writing the result document (doc-*.c): the engine's results and the plan as its
 * JSON; the one place that knows both the engine's types and the document (report/ knows
 * only the document). */
#ifndef UCB_CLI_DOC_H
#define UCB_CLI_DOC_H

#include <jansson.h>

#include "cli/options.h"
#include "engine/contention.h"
#include "engine/runner.h"

/* One results[] entry from a measured point (pure: no I/O). */
json_t *ucb_emit_point (const struct ucb_point_result *r, const struct ucb_placement *pl);
/* Each results[] entry (borrowed) beside its point and total: the figures drawn across points
 * come from these C values (scalability), not from the document. */
struct ucb_measured
{
  struct ucb_point_total *p;
  json_t **entry;
  size_t n;
};
/* `total`: ucb_point_total_ops(), NaN for a point never run. */
void ucb_measured_add (struct ucb_measured *m, const struct ucb_point *pt, double total,
                       json_t *entry);
/* summary.scalability of every entry (engine/contention.h ucb_scalability); null stays null. */
void ucb_measured_scalability (const struct ucb_measured *m);
void ucb_measured_free (struct ucb_measured *m);
/* A results[] entry for a point that was not run (an unsupported workload), with `reason`. */
json_t *ucb_emit_skipped (const struct ucb_point *pt, const char *reason);
/* `config`: every run option as resolved; `rt` (NULL: none) adds config.runtime. */
json_t *ucb_emit_config (const struct ucb_run_options *o, const struct ucb_placement *pl,
                         const struct ucb_runtime *rt);
/* ["SIGPENDING", ...]: the rlimits of the set `bits` (UCB_RLIM_*), as `list` and results[]
 * name what a workload charges. */
json_t *ucb_emit_rlimits (unsigned bits);
/* doc-limits.c: a limit as the document writes it everywhere: an integer, or "unlimited" for
 * RLIM_INFINITY (and anything above INT64_MAX). */
json_t *ucb_emit_limit_value (uint64_t v);
/* doc-limits.c: a results[] entry's `limits` (engine/soft-limits.h): {"SIGPENDING": {"soft",
 * "hard", "source", "rlimit_max": [level 1 .. depth]}, ...}, the own (level 0) soft limit and
 * the rlimit_max each namespace snapshots at its creation. */
json_t *ucb_emit_limits (const struct ucb_point_limits *pl, const struct ucb_point *pt,
                         uid_t owner_uid);
/* doc-limits.c: a results[] entry's `memory`: container 0's private memory and processes,
 * ucbench's peak RSS at the point's end. */
json_t *ucb_emit_memory (const struct ucb_point_result *r);
/* doc-runtime.c: what --pin, --cgroup, --seccomp, --caps and --perf add.  config.runtime:
 * cgroup, seccomp, caps and perf as used. */
json_t *ucb_emit_runtime_config (const struct ucb_runtime *rt);
/* config.runtime.cgroup, and a container's `cgroup` (NULL for NULL: no groups). */
json_t *ucb_emit_cgroup (const struct ucb_cgroup *cg);
json_t *ucb_emit_cgroup_container (const struct ucb_cgroup_container_info *ci);
/* config.runtime.seccomp less its `source`: every field of `st`, under snake_case keys. */
json_t *ucb_emit_seccomp_stats (const struct ucb_seccomp_stats *st);
/* config.runtime.perf and host.perf: which events this host counts ($defs/perf_probe of the
 * schema). */
json_t *ucb_emit_perf_probe (const struct ucb_perf_probe *p);
json_t *ucb_emit_topology (const struct ucb_placement *pl);
void ucb_emit_task_topology (json_t *task, const struct ucb_placement *pl, int cpu);
void ucb_emit_container_extras (json_t *o, const struct ucb_container_result *c, uint64_t ops);
/* doc-host.c: the `host` object of `ucbench info` and of run and verify documents, from
 * host/hostinfo.h's struct, its `ceiling` (engine/ceiling.h) read now; ucb_host_object() probes
 * this host (ucb_host_collect) for it. */
struct ucb_hostinfo;
json_t *ucb_emit_host (const struct ucb_hostinfo *h);
int ucb_host_object (json_t **out, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* doc-canary.c: the entry's `canary` (engine/canary.h). */
void ucb_emit_canary (json_t *o, const struct ucb_point_result *r);
void ucb_emit_point_extras (json_t *o, json_t *sum, const struct ucb_point_result *r,
                            const struct ucb_placement *pl, const uint64_t *container_ops);

#endif
