/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h - CPU topology from sysfs (cores, L3 domains, NUMA nodes) and placement orders. */
#ifndef UCB_TOPOLOGY_H
#define UCB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct ucb_cpu_topo
{
  int cpu;         /* logical CPU number */
  int package;     /* physical_package_id, -1 when unknown */
  int core;        /* dense core index (0..ncores-1): SMT siblings share it */
  int smt;         /* 0 for the lowest-numbered sibling of its core, 1.. for the others */
  int l3;          /* dense L3-domain index (0..nl3-1): CPUs that share an L3 cache */
  int node;        /* NUMA node, 0 when the host has no node directory */
  bool core_known; /* core from sysfs (sibling list or core_id), not a core of its own */
};

struct ucb_topology
{
  struct ucb_cpu_topo *cpu; /* the allowed CPUs, ascending by cpu */
  size_t ncpus, ncores, nl3, nnodes;
  /* "cache" (cache/index*, level 3), "package" (no L3 info: one domain per package) or
   * "none" (no L3 info and no package: one domain) */
  const char *l3_source;
  /* node/nodeN directories, CPU-less nodes too; -1 without the node directory (no
   * CONFIG_NUMA) */
  long nodes_listed;
};

/* The CPUs this process may run on (sched_getaffinity), ascending; sized for hosts beyond
 * CPU_SETSIZE.  *cpus is allocated (never NULL on success). */
int ucb_allowed_cpus (int **cpus, size_t *n, ucb_error_t *err) __attribute__ ((warn_unused_result));

/* Describe the `allowed` CPUs (any order; duplicates are ignored).  `sysroot` is "" or "/" for
 * the real host, else a directory holding sys/devices/system/{cpu,node} (the tests build such
 * trees).  Dense indices follow the lowest CPU number of each group.  Smt ranks count only
 * described CPUs: the lowest allowed sibling of a core is smt 0.  Absent files fall back (own
 * core, package -1, L3 per package, node 0); malformed content is an error naming the file.
 * On failure `t` is left empty. */
int ucb_topology_read (const char *sysroot, const int *allowed, size_t nallowed,
                       struct ucb_topology *t, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The same for every online CPU of the host (cpu/online), allowed to this process or not: what
 * `ucbench info` reports. */
int ucb_topology_read_online (const char *sysroot, struct ucb_topology *t, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_topology_free (struct ucb_topology *t);

/* The entry of `cpu`, or NULL if it is not described. */
const struct ucb_cpu_topo *ucb_topology_cpu (const struct ucb_topology *t, int cpu);

enum ucb_place_order
{
  /* One task per L3 domain round-robin: every smt 0 CPU before any smt 1 CPU; within a tier,
   * domains interleave NUMA nodes (first domain of node 0, of node 1, then the second ...) and
   * each domain gives its CPUs in core order. */
  UCB_PLACE_SPREAD,
  /* Fill a domain before the next (domains in node order): its smt 0 CPUs ascending, then its
   * smt 1 CPUs, ... */
  UCB_PLACE_COMPACT,
};

/* Fill out[0..ncpus-1] with the CPU order tasks use: task k runs on out[k % ncpus].  The order
 * is a permutation of the described CPUs. */
void ucb_topology_order (const struct ucb_topology *t, enum ucb_place_order mode, int *out);

/* Distinct L3 domains / cores / NUMA nodes among cpus[0..n-1] (CPUs not described are
 * ignored). */
size_t ucb_topology_count_l3 (const struct ucb_topology *t, const int *cpus, size_t n);
size_t ucb_topology_count_cores (const struct ucb_topology *t, const int *cpus, size_t n);
size_t ucb_topology_count_nodes (const struct ucb_topology *t, const int *cpus, size_t n);

#endif
