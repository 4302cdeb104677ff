/* SPDX-License-Identifier: GPL-2.0-or-later */
/* points.c - what the benchmark formats (gab, bmf, gbench, lkp) share: a point's name, its
 * figures and their statistics over containers and repeats. */
#include "config.h"

#include <math.h>

#include "core/stats.h"
#include "core/util.h"
#include "report/export/exporter.h"

char *
ucb_export_point_name (const struct ucb_doc_point *p)
{
  return xasprintf ("%s/%s/depth:%lld/tasks:%lld/%s/containers:%lld", p->workload, p->owner,
                    p->depth, p->tasks, p->mode, p->containers);
}

void
ucb_export_container_stats (const struct ucb_doc_point *p, bool cpu, struct ucb_stats *st)
{
  cleanup_free double *v = xcalloc (p->n_pc + 1, sizeof *v);
  size_t n = 0;

  for (size_t i = 0; i < p->n_pc; i++)
    {
      double x = cpu ? p->pc[i].cpu_ns_per_op : p->pc[i].rate_ops_per_s;
      if (isfinite (x))
        v[n++] = x;
    }
  ucb_stats_compute (v, n, st);
}

double
ucb_export_figure (const struct ucb_doc_summary *s, enum ucb_export_figure f)
{
  if (f == UCB_FIG_PER_CONTAINER)
    return s->per_container_ops;
  if (f == UCB_FIG_CPU)
    return s->cpu_ns_per_op;
  return s->total_ops_per_s > 0 ? 1e9 / s->total_ops_per_s : NAN;
}

void
ucb_export_repeat_stats (const struct ucb_doc *d, size_t g, enum ucb_export_figure f,
                         struct ucb_stats *st)
{
  cleanup_free double *v = xcalloc (d->n_points + 1, sizeof *v);
  size_t n = 0;

  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].group == g && d->points[i].measured)
      {
        double x = ucb_export_figure (&d->points[i].sum, f);
        if (isfinite (x))
          v[n++] = x;
      }
  ucb_stats_compute (v, n, st);
}

bool
ucb_export_first_of_group (const struct ucb_doc *d, bool *seen, size_t i)
{
  const struct ucb_doc_point *p = &d->points[i];

  if (!p->measured || seen[p->group])
    return false;
  seen[p->group] = true;
  return true;
}

char *
ucb_export_pair_name (const json_t *x)
{
  return xasprintf ("%s/shared-vs-distinct/depth:%lld/tasks:%lld/%s/containers:%lld",
                    json_string_value (json_object_get (x, "workload")),
                    json_integer_value (json_object_get (x, "depth")),
                    json_integer_value (json_object_get (x, "tasks")),
                    json_string_value (json_object_get (x, "mode")),
                    json_integer_value (json_object_get (x, "containers")));
}
