/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-runtime.c - the parts of the result document that --pin, --cgroup, --seccomp, --caps
 * and --perf add: config.runtime (engine/runtime.h and the host modules' structs), topology and
 * placement, per-container confinement, counters per op. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doc.h"
#include "core/json-util.h"
#include "core/util.h"
#include "host/caps.h"

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

/* config.runtime.cgroup: {layout, pid, cpuset, pids_max, set{}, hierarchies[{name, version,
 * backend, mount, controllers[], parent, group}], subtree_control_changes[{dir, controller}],
 * moved_self}. */
static json_t *
cgroup_hierarchy (const struct ucb_cgroup *cg, size_t i)
{
  struct ucb_cgroup_hier_info h;
  json_t *j = ucb_json_obj (), *ctrls = ucb_json_arr ();

  ucb_cgroup_hier_info (cg, i, &h);
  for (size_t k = 0; k < h.ncontrollers; k++)
    ucb_json_push (ctrls, ucb_json_str (h.controllers[k]));
  ucb_json_set (j, "name", ucb_json_str (h.name));
  ucb_json_set (j, "version", ucb_json_int (h.version));
  ucb_json_set (j, "backend", ucb_json_str (h.backend));
  ucb_json_set (j, "mount", ucb_json_str (h.mount));
  ucb_json_set (j, "controllers", ctrls);
  ucb_json_set (j, "parent", ucb_json_str (h.parent));
  ucb_json_set (j, "group", ucb_json_str (h.group));
  return j;
}

json_t *
ucb_emit_cgroup (const struct ucb_cgroup *cg)
{
  struct ucb_cgroup_info in;
  json_t *o = ucb_json_obj (), *hs = ucb_json_arr (), *ch = ucb_json_arr (), *set = ucb_json_obj ();

  ucb_cgroup_info (cg, &in);
  for (size_t i = 0; i < in.nhier; i++)
    ucb_json_push (hs, cgroup_hierarchy (cg, i));
  for (size_t i = 0; i < in.nchanges; i++)
    {
      const char *dir, *ctrl;

      ucb_cgroup_change_info (cg, i, &dir, &ctrl);
      ucb_json_push (ch,
                     ucb_json_checked (json_pack ("{s:s, s:s}", "dir", dir, "controller", ctrl)));
    }
  for (size_t i = 0; i < in.nset; i++)
    ucb_json_set (set, in.set_file[i], ucb_json_str (in.set_value[i]));
  ucb_json_set (o, "layout", ucb_json_str (ucb_cg_layout_name (in.layout)));
  ucb_json_set (o, "pid", ucb_json_int (in.pid));
  ucb_json_set (o, "cpuset", json_boolean (in.cpuset));
  ucb_json_set (o, "pids_max", in.pids_max ? ucb_json_int ((long long) in.pids_max) : NULL);
  ucb_json_set (o, "set", set);
  ucb_json_set (o, "hierarchies", hs);
  ucb_json_set (o, "subtree_control_changes", ch);
  ucb_json_set (o, "moved_self", ucb_json_str (in.moved_self));
  return o;
}

json_t *
ucb_emit_cgroup_container (const struct ucb_cgroup_container_info *ci)
{
  json_t *o, *groups;

  if (ci == NULL)
    return NULL;
  o = ucb_json_obj ();
  groups = ucb_json_obj ();
  for (size_t i = 0; i < ci->ngroups; i++)
    ucb_json_set (groups, ci->hier[i], ucb_json_str (ci->group[i]));
  ucb_json_set (o, "index", ucb_json_int (ci->index));
  ucb_json_set (o, "groups", groups);
  ucb_json_set (o, "cpuset_cpus", ucb_json_str (ci->cpuset_cpus));
  return o;
}

json_t *
ucb_emit_seccomp_stats (const struct ucb_seccomp_stats *st)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "profile", ucb_json_str (st->profile));
  ucb_json_set (o, "default_action", ucb_json_str (st->default_action));
  ucb_json_set (o, "default_errno", ucb_json_int (st->default_errno));
  ucb_json_set (o, "entries", ucb_json_int (st->entries));
  ucb_json_set (o, "entries_used", ucb_json_int (st->entries_used));
  ucb_json_set (o, "entries_skipped", ucb_json_int (st->entries_skipped));
  ucb_json_set (o, "names", ucb_json_int (st->names));
  ucb_json_set (o, "names_unknown", ucb_json_int (st->names_unknown));
  ucb_json_set (o, "rules", ucb_json_int (st->rules));
  ucb_json_set (o, "arches", ucb_json_int (st->arches));
  ucb_json_set (o, "optimize", ucb_json_int (st->optimize));
  ucb_json_set (o, "bpf_insns", ucb_json_int (st->bpf_insns));
  return o;
}

json_t *
ucb_emit_perf_probe (const struct ucb_perf_probe *p)
{
  json_t *o = ucb_json_obj (), *ev = ucb_json_obj ();

  ucb_json_set (o, "available", json_boolean (p->hardware));
  ucb_json_set (o, "reason", p->hardware ? json_null () : ucb_json_str (p->hardware_reason));
  ucb_json_set (o, "perf_event_paranoid", p->paranoid == -99 ? NULL : ucb_json_int (p->paranoid));
  for (int e = 0; e < UCB_PERF_NEVENTS; e++)
    {
      json_t *one = ucb_json_obj ();
      ucb_json_set (one, "available", json_boolean (p->available[e]));
      ucb_json_set (one, "reason", p->available[e] ? json_null () : ucb_json_str (p->reason[e]));
      if (e == UCB_PERF_HITM && p->available[e])
        ucb_json_set (one, "alias", ucb_json_str (p->hitm_alias));
      ucb_json_set (ev, ucb_perf_event_name ((enum ucb_perf_event) e), one);
    }
  ucb_json_set (o, "events", ev);
  return o;
}

json_t *
ucb_emit_runtime_config (const struct ucb_runtime *rt)
{
  json_t *o = ucb_json_obj (), *caps = ucb_json_obj (), *sc;
  const struct ucb_runtime_options *opt = rt->opt;

  ucb_json_set (o, "cgroup", rt->cg ? ucb_emit_cgroup (rt->cg) : json_null ());
  if (rt->sc)
    {
      sc = ucb_emit_seccomp_stats (&rt->sc_stats);
      ucb_json_set (sc, "source", ucb_json_str (opt->seccomp));
    }
  else
    sc = json_null ();
  ucb_json_set (o, "seccomp", sc);
  ucb_json_set (caps, "mode",
                ucb_json_str (opt->caps.mode == UCB_CAPS_KEEP   ? "keep"
                              : opt->caps.mode == UCB_CAPS_DROP ? "drop"
                                                                : "list"));
  if (opt->caps.mode == UCB_CAPS_KEEP)
    ucb_json_set (caps, "keep", json_null ());
  else
    {
      cleanup_free char *names = ucb_caps_names (opt->caps.keep, opt->caps.nkeep);
      ucb_json_set (caps, "keep", ucb_json_str (names));
    }
  ucb_json_set (o, "no_new_privs", json_boolean (ucb_runtime_no_new_privs (rt)));
  ucb_json_set (o, "caps", caps);
  ucb_json_set (o, "perf", rt->perf_on ? ucb_emit_perf_probe (&rt->perf) : json_null ());
  return o;
}

void
ucb_emit_container_extras (json_t *o, const struct ucb_container_result *c, uint64_t ops)
{
  ucb_json_set (o, "cgroup", ucb_emit_cgroup_container (c->cgroup));
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
