/* l3.c - the scaling-by-L3-domain table of --pin l3 (the AppArmor seed's table), drawn from
 * the document's results[].placement. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "core/json-util.h"
#include "core/util.h"
#include "report/report.h"

json_t *
ucb_report_l3_table (json_t *results)
{
  json_t *rows = ucb_json_arr (), *r;
  size_t i;

  /* One row per measured point, in sweep order: the seed's "Config | Cache Domains |
   * scaling eff" table, per series. */
  json_array_foreach (results, i, r)
  {
    json_t *pl = json_object_get (r, "placement"), *sum = json_object_get (r, "summary");
    json_t *row;

    if (!json_is_object (pl) || !json_is_integer (json_object_get (pl, "l3_domains")))
      continue;
    row = ucb_json_obj ();
    ucb_json_set (row, "workload", json_incref (json_object_get (r, "workload")));
    ucb_json_set (row, "owner", json_incref (json_object_get (r, "owner")));
    ucb_json_set (row, "depth", json_incref (json_object_get (r, "depth")));
    ucb_json_set (row, "tasks", json_incref (json_object_get (r, "tasks")));
    ucb_json_set (row, "mode", json_incref (json_object_get (r, "mode")));
    ucb_json_set (row, "containers", json_incref (json_object_get (r, "containers")));
    ucb_json_set (row, "repeat", json_incref (json_object_get (r, "repeat")));
    ucb_json_set (row, "l3_domains", json_incref (json_object_get (pl, "l3_domains")));
    ucb_json_set (row, "cores", json_incref (json_object_get (pl, "cores")));
    ucb_json_set (row, "cpus", json_incref (json_object_get (pl, "cpus")));
    ucb_json_set (row, "per_container_ops",
                  json_incref (json_object_get (sum, "per_container_ops")));
    {
      json_t *s = json_object_get (sum, "scalability");
      ucb_json_set (row, "scaling_efficiency_pct",
                    json_is_number (s) ? ucb_json_real (json_number_value (s) * 100) : NULL);
    }
    ucb_json_push (rows, row);
  }
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

    if (json_is_number (eff))
      snprintf (e, sizeof e, "%.0f%%", json_number_value (eff));
    if (json_is_number (pc))
      snprintf (p, sizeof p, "%.0f", json_number_value (pc));
    fprintf (f, "%-9s %-9s %5lld %5lld %5lld %5lld %10lld %14s %10s\n",
             json_string_value (json_object_get (r, "workload")),
             json_string_value (json_object_get (r, "owner")),
             json_integer_value (json_object_get (r, "depth")),
             json_integer_value (json_object_get (r, "containers")),
             json_integer_value (json_object_get (r, "cpus")),
             json_integer_value (json_object_get (r, "cores")),
             json_integer_value (json_object_get (r, "l3_domains")), p, e);
  }
}
