/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-canary.c - a results[] entry's `canary`: the host's speed before and after the window
 * (engine/canary.h), whether it moved, and the CPUs it ran on. */
#include "config.h"

#include <math.h>

#include "cli/doc.h"
#include "core/json-util.h"

void
ucb_emit_canary (json_t *o, const struct ucb_point_result *r)
{
  const struct ucb_canary *c = &r->canary;
  double change = ucb_canary_change_pct (c);
  json_t *j = ucb_json_obj ();

  ucb_json_set (j, "unit", ucb_json_str ("loops/s"));
  ucb_json_set (j, "cpus", ucb_json_int_array (c->cpus, c->ncpus));
  ucb_json_set (j, "before", ucb_json_real (c->before.rate));
  ucb_json_set (j, "after", ucb_json_real (c->after.rate));
  ucb_json_set (j, "before_wall", ucb_json_real (c->before.wall_rate));
  ucb_json_set (j, "after_wall", ucb_json_real (c->after.wall_rate));
  ucb_json_set (j, "change_pct", ucb_json_real (change));
  ucb_json_set (j, "threshold_pct", ucb_json_real (UCB_CANARY_THRESHOLD_PCT));
  ucb_json_set (j, "moved", json_boolean (ucb_canary_moved (change, UCB_CANARY_THRESHOLD_PCT)));
  ucb_json_set (o, "canary", j);
}
