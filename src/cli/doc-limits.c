/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-limits.c - a results[] entry's `limits` (engine/soft-limits.h): each rlimit's soft and
 * hard limit, where the soft one came from, and the rlimit_max every user-namespace level
 * snapshots. */
#include "config.h"

#include "cli/doc.h"
#include "core/json-util.h"
#include "engine/soft-limits.h"

static json_t *
limit_json (uint64_t v)
{
  return v == UCB_LIMIT_UNLIMITED ? ucb_json_str ("unlimited") : ucb_json_int ((long long) v);
}

json_t *
ucb_emit_limits (const struct ucb_point_limits *pl, const struct ucb_point *pt, uid_t owner_uid)
{
  json_t *o = ucb_json_obj ();

  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    {
      json_t *l = ucb_json_obj (), *max = ucb_json_arr ();

      for (unsigned level = 1; level <= pt->depth; level++)
        ucb_json_push (max, limit_json (ucb_limits_rlimit_max (pl, b, level, owner_uid)));
      ucb_json_set (l, "soft", limit_json (pl->l[b].soft));
      ucb_json_set (l, "hard", limit_json (pl->l[b].hard));
      ucb_json_set (l, "source", ucb_json_str (pl->l[b].source));
      ucb_json_set (l, "rlimit_max", max);
      ucb_json_set (o, ucb_rl_name (b), l);
    }
  return o;
}
