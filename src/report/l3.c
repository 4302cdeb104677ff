/* SPDX-License-Identifier: GPL-2.0-or-later */
/* l3.c - the scaling-by-L3-domain table of --pin l3 (the AppArmor seed's table), drawn from
 * the document's results[].placement. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/model.h"
#include "report/report.h"

static json_t *
l3_row (const struct ucb_doc_point *p)
{
  return ucb_json_checked (
      json_pack ("{s:s, s:s, s:I, s:I, s:s, s:I, s:I, s:O, s:O?, s:O?, s:o, s:o}", "workload",
                 p->workload, "owner", p->owner, "depth", (json_int_t) p->depth, "tasks",
                 (json_int_t) p->tasks, "mode", p->mode, "containers", (json_int_t) p->containers,
                 "repeat", (json_int_t) p->repeat, "l3_domains", p->l3_domains, "cores", p->cores,
                 "cpus", p->cpus, "per_container_ops", ucb_json_real (p->sum.per_container_ops),
                 "scaling_efficiency_pct", ucb_json_real (p->sum.scalability * 100)));
}

json_t *
ucb_report_l3_table (json_t *results)
{
  json_t *rows = ucb_json_arr ();
  struct ucb_doc d;

  if (!ucb_doc_built (results, &d))
    return rows;
  /* One row per point with a placement, in sweep order: the seed's "Config | Cache Domains |
   * scaling eff" table, per series. */
  for (size_t i = 0; i < d.n_points; i++)
    if (d.points[i].l3)
      ucb_json_push (rows, l3_row (&d.points[i]));
  ucb_doc_free (&d);
  return rows;
}

void
ucb_report_l3_text (FILE *f, json_t *rows)
{
  size_t i;
  json_t *r;

  if (json_array_size (rows) == 0)
    return;
  fprintf (f, "\nScaling by L3 cache domain (--pin l3):\n");
  fprintf (f, "%-9s %-9s %5s %5s %5s %5s %10s %14s %10s\n", "workload", "owner", "depth", "N",
           "cpus", "cores", "L3 domains", "ops/s/cont", "scale eff");
  json_array_foreach (rows, i, r)
  {
    json_t *eff = json_object_get (r, "scaling_efficiency_pct");
    json_t *pc = json_object_get (r, "per_container_ops");
    char e[32] = "-", p[32] = "-";
    cleanup_free char *w
        = ucb_escape_controls (json_string_value (json_object_get (r, "workload")));
    cleanup_free char *o = ucb_escape_controls (json_string_value (json_object_get (r, "owner")));

    if (json_is_number (eff))
      snprintf (e, sizeof e, "%.0f%%", json_number_value (eff));
    if (json_is_number (pc))
      snprintf (p, sizeof p, "%.0f", json_number_value (pc));
    fprintf (f, "%-9s %-9s %5lld %5lld %5lld %5lld %10lld %14s %10s\n", w, o,
             json_integer_value (json_object_get (r, "depth")),
             json_integer_value (json_object_get (r, "containers")),
             json_integer_value (json_object_get (r, "cpus")),
             json_integer_value (json_object_get (r, "cores")),
             json_integer_value (json_object_get (r, "l3_domains")), p, e);
  }
}
