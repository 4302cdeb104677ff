/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-runtime.c - the parts of the result document that --pin, --cgroup, --seccomp, --caps
 * and --perf add: topology and placement, per-container confinement, counters per op. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doc.h"
#include "core/json-util.h"
#include "core/util.h"

json_t *
ucb_emit_topology (const struct ucb_placement *pl)
{
  const struct ucb_topology *t = &pl->topo;
  json_t *o = ucb_json_obj (), *cpus;

  if (t->ncpus == 0)
    {
      ucb_json_set (o, "error", ucb_json_str (pl->topo_error));
      return o;
    }
  cpus = ucb_json_arr ();
  ucb_json_set (o, "l3_source", ucb_json_str (t->l3_source));
  ucb_json_set (o, "cpus", ucb_json_int ((long long) t->ncpus));
  ucb_json_set (o, "cores", ucb_json_int ((long long) t->ncores));
  ucb_json_set (o, "l3_domains", ucb_json_int ((long long) t->nl3));
  ucb_json_set (o, "nodes", ucb_json_int ((long long) t->nnodes));
  for (size_t i = 0; i < t->ncpus; i++)
    {
      json_t *c = ucb_json_obj ();
      ucb_json_set (c, "cpu", ucb_json_int (t->cpu[i].cpu));
      ucb_json_set (c, "package", t->cpu[i].package >= 0 ? ucb_json_int (t->cpu[i].package) : NULL);
      ucb_json_set (c, "core", ucb_json_int (t->cpu[i].core));
      ucb_json_set (c, "smt", ucb_json_int (t->cpu[i].smt));
      ucb_json_set (c, "l3", ucb_json_int (t->cpu[i].l3));
      ucb_json_set (c, "node", ucb_json_int (t->cpu[i].node));
      ucb_json_push (cpus, c);
    }
  ucb_json_set (o, "map", cpus);
  return o;
}

void
ucb_emit_task_topology (json_t *task, const struct ucb_placement *pl, int cpu)
{
  const struct ucb_cpu_topo *c = cpu >= 0 ? ucb_topology_cpu (&pl->topo, cpu) : NULL;

  ucb_json_set (task, "core", c ? ucb_json_int (c->core) : NULL);
  ucb_json_set (task, "l3", c ? ucb_json_int (c->l3) : NULL);
  ucb_json_set (task, "node", c ? ucb_json_int (c->node) : NULL);
}

/* Counts over the window divided by the ops in it; null where not counted. */
static json_t *
perf_per_op (const double *counts, double ops, const char (*reason)[200])
{
  json_t *o = ucb_json_obj ();

  for (int e = 0; e < UCB_PERF_NEVENTS; e++)
    {
      cleanup_free char *key = xasprintf ("%s_per_op", ucb_perf_event_name (e));
      ucb_json_set (o, key, ucb_json_real (ops > 0 ? counts[e] / ops : NAN));
      if (reason && reason[e][0])
        {
          cleanup_free char *rk = xasprintf ("%s_reason", ucb_perf_event_name (e));
          ucb_json_set (o, rk, ucb_json_str (reason[e]));
        }
    }
  return o;
}

void
ucb_emit_container_extras (json_t *o, const struct ucb_container_result *c, uint64_t ops)
{
  ucb_json_set (o, "cgroup", c->cgroup ? json_incref (c->cgroup) : NULL);
  ucb_json_set (o, "seccomp_load_us",
                c->seccomp_load_ns ? ucb_json_real ((double) c->seccomp_load_ns / 1e3) : NULL);
  ucb_json_set (o, "caps_applied", json_boolean (c->caps_applied));
  ucb_json_set (o, "perf", c->perf_on ? perf_per_op (c->perf, (double) ops, c->perf_reason) : NULL);
}

void
ucb_emit_point_extras (json_t *o, json_t *sum, const struct ucb_point_result *r,
                         const struct ucb_placement *pl, const uint64_t *container_ops)
{
  size_t n = r->pt.containers, T = r->pt.tasks, nc;
  cleanup_free int *all = xcalloc (n * T + 1, sizeof *all);
  cleanup_free int *cpus = xcalloc (n * T + 1, sizeof *cpus);
  json_t *place = ucb_json_obj ();
  bool perf = false;
  double counts[UCB_PERF_NEVENTS] = { 0 }, ops = 0;

  for (size_t i = 0; i < n; i++)
    memcpy (all + i * T, r->c[i].cpu, T * sizeof *all);
  nc = ucb_distinct_cpus (all, n * T, cpus);
  ucb_json_set (place, "pinned", json_boolean (nc > 0));
  ucb_json_set (place, "cpus", ucb_json_int ((long long) nc));
  ucb_json_set (place, "cores",
                nc && pl->topo.ncpus
                    ? ucb_json_int ((long long) ucb_topology_count_cores (&pl->topo, cpus, nc))
                    : NULL);
  ucb_json_set (place, "l3_domains",
                nc && pl->topo.ncpus
                    ? ucb_json_int ((long long) ucb_topology_count_l3 (&pl->topo, cpus, nc))
                    : NULL);
  ucb_json_set (place, "nodes",
                nc && pl->topo.ncpus
                    ? ucb_json_int ((long long) ucb_topology_count_nodes (&pl->topo, cpus, nc))
                    : NULL);
  ucb_json_set (o, "placement", place);

  for (size_t i = 0; i < n; i++)
    if (r->c[i].perf_on)
      {
        perf = true;
        ops += (double) container_ops[i];
        for (int e = 0; e < UCB_PERF_NEVENTS; e++)
          counts[e] += r->c[i].perf[e]; /* NaN in one container makes the total NaN: right */
      }
  ucb_json_set (sum, "perf", perf ? perf_per_op (counts, ops, NULL) : NULL);
}
