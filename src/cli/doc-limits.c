/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-limits.c - a results[] entry's `limits` (engine/soft-limits.h): each rlimit's soft and
 * hard limit, where the soft one came from, and the rlimit_max every user-namespace level
 * snapshots; and its `memory` (engine/footprint.h), what the point held. */
#include "config.h"

#include "cli/doc.h"
#include "core/json-util.h"
#include "engine/runner.h"
#include "engine/soft-limits.h"

json_t *
ucb_emit_limit_value (uint64_t v)
{
  /* RLIM_INFINITY is UCB_LIMIT_UNLIMITED; nothing above INT64_MAX fits a JSON integer. */
  if (v == UCB_LIMIT_UNLIMITED || v > (uint64_t) INT64_MAX)
    return ucb_json_str ("unlimited");
  return ucb_json_int ((long long) v);
}

json_t *
ucb_emit_limits (const struct ucb_point_limits *pl, const struct ucb_point *pt, uid_t owner_uid)
{
  json_t *o = ucb_json_obj ();

  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    {
      json_t *l = ucb_json_obj (), *max = ucb_json_arr ();

      for (unsigned level = 1; level <= pt->depth; level++)
        ucb_json_push (max, ucb_emit_limit_value (ucb_limits_rlimit_max (pl, b, level, owner_uid)));
      ucb_json_set (l, "soft", ucb_emit_limit_value (pl->l[b].soft));
      ucb_json_set (l, "hard", ucb_emit_limit_value (pl->l[b].hard));
      ucb_json_set (l, "source", ucb_json_str (pl->l[b].source));
      ucb_json_set (l, "rlimit_max", max);
      ucb_json_set (o, ucb_rl_name (b), l);
    }
  return o;
}

json_t *
ucb_emit_memory (const struct ucb_point_result *r)
{
  json_t *o = ucb_json_obj ();

  /* null when no process of container 0 could be read (gone, or /proc hidden) */
  ucb_json_set (o, "container_kib",
                r->memory.processes ? ucb_json_int ((long long) r->memory.kib) : json_null ());
  ucb_json_set (o, "container_processes", ucb_json_int ((long long) r->memory.processes));
  ucb_json_set (o, "ucbench_peak_rss_kib", ucb_json_int ((long long) r->peak_rss_kib));
  return o;
}
