/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweep.c - the plan's k-th point, and the CPUs its tasks are placed on. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/lists.h"
#include "core/util.h"
#include "engine/sweep.h"

size_t
ucb_sweep_size (const struct ucb_plan *o)
{
  return o->n_workloads * o->n_owners * o->n_depths * o->n_tasks * o->n_containers * o->repeat;
}

void
ucb_sweep_point (const struct ucb_plan *o, size_t k, struct ucb_point *pt)
{
  size_t i = k;
  size_t ow = i % o->n_owners;
  unsigned rep;
  size_t n, t, d, w;

  /* The owner modes take turns, repeat by repeat (docs/statistics.md, the owner contrast):
   * whatever drifts during the run hits each of them alike. */
  i /= o->n_owners;
  rep = (unsigned) (i % o->repeat);
  i /= o->repeat;
  n = i % o->n_containers;
  i /= o->n_containers;
  t = i % o->n_tasks;
  i /= o->n_tasks;
  d = i % o->n_depths;
  w = i / o->n_depths;
  *pt = (struct ucb_point){ .workload = o->workloads[w],
                            .containers = o->containers[n],
                            .owner = o->owners[ow],
                            .depth = o->depths[d],
                            .tasks = o->tasks[t],
                            .threads = o->threads,
                            .isolate = o->isolate,
                            .repeat = rep + 1,
                            .index = (unsigned) k };
}

/* --pin CPULIST: every CPU must be one this process may run on. */
static int
check_pin_list (const struct ucb_placement *p, const struct ucb_plan *o, ucb_error_t *err)
{
  for (size_t i = 0; i < o->n_pin_cpus; i++)
    if (bsearch (&o->pin_cpus[i], p->allowed, p->nallowed, sizeof *p->allowed, ucb_cmp_int) == NULL)
      {
        cleanup_free char *allowed = ucb_format_cpu_list (p->allowed, p->nallowed);
        return ucb_usage_error (err, "--pin: CPU %d is not in this process's allowed set %s",
                                o->pin_cpus[i], allowed);
      }
  return 0;
}

int
ucb_placement_init (struct ucb_placement *p, const struct ucb_plan *o, ucb_error_t *err)
{
  memset (p, 0, sizeof *p);
  p->mode = o->pin;
  if (ucb_allowed_cpus (&p->allowed, &p->nallowed, err) < 0)
    return -1;
  /* The topology is recorded whatever the mode; spread/compact/l3 cannot work without it. */
  if (ucb_topology_read ("/", p->allowed, p->nallowed, &p->topo, err) < 0)
    {
      if (o->pin == UCB_PIN_SPREAD || o->pin == UCB_PIN_COMPACT || o->pin == UCB_PIN_L3)
        {
          ucb_error_wrap (err, "--pin needs the CPU topology from sysfs");
          ucb_placement_free (p);
          return -1;
        }
      p->topo_error = xstrdup ((*err)->msg);
      ucb_error_free (err);
    }
  switch (o->pin)
    {
    case UCB_PIN_SPREAD:
    case UCB_PIN_COMPACT:
    case UCB_PIN_L3:
      p->ncpus = p->topo.ncpus;
      p->cpus = xcalloc (p->ncpus ? p->ncpus : 1, sizeof *p->cpus);
      ucb_topology_order (&p->topo, o->pin == UCB_PIN_SPREAD ? UCB_PLACE_SPREAD : UCB_PLACE_COMPACT,
                          p->cpus);
      break;
    case UCB_PIN_AUTO:
      p->cpus = xcalloc (p->nallowed, sizeof *p->cpus);
      memcpy (p->cpus, p->allowed, p->nallowed * sizeof *p->cpus);
      p->ncpus = p->nallowed;
      break;
    case UCB_PIN_LIST:
      if (check_pin_list (p, o, err) < 0)
        {
          ucb_placement_free (p);
          return -1;
        }
      p->cpus = xcalloc (o->n_pin_cpus, sizeof *p->cpus);
      memcpy (p->cpus, o->pin_cpus, o->n_pin_cpus * sizeof *p->cpus);
      p->ncpus = o->n_pin_cpus;
      break;
    case UCB_PIN_NONE:
      break;
    default:
      break;
    }
  return 0;
}

void
ucb_placement_free (struct ucb_placement *p)
{
  free (p->cpus);
  free (p->allowed);
  ucb_topology_free (&p->topo);
  free (p->topo_error);
  memset (p, 0, sizeof *p);
}

size_t
ucb_distinct_cpus (const int *task_cpu, size_t T, int *out)
{
  size_t n = 0;

  for (size_t t = 0; t < T; t++)
    {
      bool seen = task_cpu[t] < 0;
      for (size_t k = 0; k < n && !seen; k++)
        seen = out[k] == task_cpu[t];
      if (!seen)
        out[n++] = task_cpu[t];
    }
  return n;
}
