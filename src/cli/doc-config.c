/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-config.c - the document's `config`: every run option as resolved. */
#include "config.h"

#include "cli/doc.h"
#include "core/json-util.h"
#include "core/util.h"
#include "engine/soft-limits.h"
#include "engine/workload.h"

json_t *
ucb_emit_config (const struct ucb_run_options *o, const struct ucb_placement *pl,
                 const struct ucb_runtime *rt)
{
  json_t *c = ucb_json_obj (), *w = ucb_json_arr (), *n = ucb_json_arr (), *ow = ucb_json_arr (),
         *d = ucb_json_arr (), *pin = ucb_json_obj ();

  for (size_t i = 0; i < o->plan.n_workloads; i++)
    ucb_json_push (w, ucb_json_str (o->plan.workloads[i]->name));
  for (size_t i = 0; i < o->plan.n_containers; i++)
    ucb_json_push (n, ucb_json_int (o->plan.containers[i]));
  for (size_t i = 0; i < o->plan.n_owners; i++)
    {
      cleanup_free char *name = ucb_owner_mode_name (&o->plan.owners[i]);
      ucb_json_push (ow, ucb_json_str (name));
    }
  for (size_t i = 0; i < o->plan.n_depths; i++)
    ucb_json_push (d, ucb_json_int (o->plan.depths[i]));
  ucb_json_set (c, "workloads", w);
  ucb_json_set (c, "containers", n);
  ucb_json_set (c, "baseline_added", json_boolean (o->baseline_added));
  ucb_json_set (c, "owners", ow);
  ucb_json_set (c, "depths", d);
  {
    json_t *t = ucb_json_arr (), *lim = ucb_json_obj ();
    cleanup_free char *iso = ucb_isolate_name (o->plan.isolate);

    for (size_t i = 0; i < o->plan.n_tasks; i++)
      ucb_json_push (t, ucb_json_int (o->plan.tasks[i]));
    for (enum ucb_rl b = 0; b < UCB_RLS; b++)
      if (o->plan.limits[b].set)
        ucb_json_set (lim, ucb_rl_name (b), ucb_emit_limit_value (o->plan.limits[b].value));
    ucb_json_set (c, "tasks", t);
    ucb_json_set (c, "mode", ucb_json_str (o->plan.threads ? "thread" : "process"));
    ucb_json_set (c, "limits", lim);
    ucb_json_set (c, "headroom", ucb_json_str (ucb_headroom_names[o->plan.headroom]));
    ucb_json_set (c, "isolate", ucb_json_checked (json_sprintf ("user%s%s", *iso ? "," : "", iso)));
  }
  ucb_json_set (c, "duration_s", ucb_json_real (o->plan.duration));
  ucb_json_set (c, "warmup_s", ucb_json_real (o->plan.warmup));
  ucb_json_set (c, "interval_s", ucb_json_real (o->plan.interval));
  if (o->plan.repeat_auto)
    {
      /* max_time_s: as given, or the default the run worked out after its first round */
      ucb_json_set (c, "repeat", ucb_json_str ("auto"));
      ucb_json_set (c, "precision_pct", ucb_json_real (o->plan.precision_pct));
      ucb_json_set (c, "max_time_s", ucb_json_real (o->plan.max_time_s));
    }
  else
    ucb_json_set (c, "repeat", ucb_json_int (o->plan.repeat));
  ucb_json_set (c, "contention_threshold", ucb_json_real (o->plan.contention_threshold));
  ucb_json_set (c, "uid_base", ucb_json_int (o->plan.uid_base));
  ucb_json_set (pin, "mode", ucb_json_str (ucb_pin_mode_name (o->plan.pin)));
  ucb_json_set (pin, "cpus", ucb_json_int_array (pl->cpus, pl->ncpus));
  ucb_json_set (pin, "allowed", ucb_json_int_array (pl->allowed, pl->nallowed));
  ucb_json_set (pin, "topology", ucb_emit_topology (pl));
  ucb_json_set (c, "pin", pin);
  ucb_json_set (c, "runtime", rt ? ucb_emit_runtime_config (rt) : NULL);
  ucb_json_set (c, "output", ucb_json_str (o->output));
  ucb_json_set (c, "format", ucb_json_str (ucb_format_name (o->format)));
  ucb_json_set (c, "quiet", json_boolean (o->quiet));
  return c;
}
