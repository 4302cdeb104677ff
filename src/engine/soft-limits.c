/* SPDX-License-Identifier: GPL-2.0-or-later */
/* soft-limits.c - the soft limits a point's owners set (--limit, --headroom), and what they mean at
 * every user-namespace level (kernel-ucounts.md §1.5). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "core/util.h"
#include "engine/soft-limits.h"
#include "engine/spawn.h"
#include "engine/sweep.h"
#include "engine/workload.h"

static uint64_t
from_rlim (rlim_t v)
{
  return v == RLIM_INFINITY ? UCB_LIMIT_UNLIMITED : (uint64_t) v;
}

int
ucb_limits_check (const struct ucb_plan *o, ucb_error_t *err)
{
  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    {
      struct rlimit rl;
      if (!o->limits[b].set)
        continue;
      if (getrlimit (ucb_rl_resource (b), &rl) < 0)
        return ucb_make_error (err, errno, "getrlimit(%s)", ucb_rl_name (b));
      if (o->limits[b].value > from_rlim (rl.rlim_max))
        {
          char want[24];

          /* As the user wrote it: "unlimited", not 2^64 - 1. */
          if (o->limits[b].value == UCB_LIMIT_UNLIMITED)
            snprintf (want, sizeof want, "unlimited");
          else
            snprintf (want, sizeof want, "%llu", (unsigned long long) o->limits[b].value);
          return ucb_usage_error (err,
                                  "--limit %s=%s is above the hard limit %llu: limits can only be "
                                  "lowered without CAP_SYS_RESOURCE (raise the hard limit "
                                  "first, e.g. with prlimit as root that has it)",
                                  ucb_rl_name (b), want, (unsigned long long) rl.rlim_max);
        }
    }
  return 0;
}

/* How many tasks share the most shared counter: every container of one owner uid. */
static uint64_t
containers_per_owner (const struct ucb_point *pt)
{
  switch (pt->owner.kind)
    {
    case UCB_OWNER_DISTINCT:
      return 1;
    case UCB_OWNER_RANGE:
      {
        uint64_t span = (uint64_t) pt->owner.hi - pt->owner.lo + 1;
        return (pt->containers + span - 1) / span;
      }
    case UCB_OWNER_SHARED:
    case UCB_OWNER_UID:
    case UCB_OWNER_ROOT:
    case UCB_OWNER_SELF:
    default:
      return pt->containers;
    }
}

/* Peak use of the workload's counter at the most shared level, for --headroom near. */
static uint64_t
near_value (const struct ucb_point *pt, enum ucb_rl rl)
{
  uint64_t per_owner = containers_per_owner (pt);
  uint64_t v = per_owner * pt->tasks * pt->workload->peak;

  /* NPROC also counts the container's own processes at that level (spawn.c builds them). */
  if (rl == UCB_RL_NPROC)
    v += per_owner
         * (uint64_t) ucb_container_processes (pt->depth, pt->tasks, pt->threads,
                                               pt->depth > 0 ? pt->isolate : 0);
  return v;
}

int
ucb_limits_for_point (const struct ucb_plan *o, const struct ucb_point *pt,
                      struct ucb_point_limits *pl, ucb_error_t *err)
{
  memset (pl, 0, sizeof *pl);
  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    {
      unsigned bit = UCB_RLIM_BIT (b);
      struct rlimit rl;
      uint64_t soft;
      const char *source = "host";

      if (getrlimit (ucb_rl_resource (b), &rl) < 0)
        return ucb_make_error (err, errno, "getrlimit(%s)", ucb_rl_name (b));
      soft = from_rlim (rl.rlim_cur);
      if (o->limits[b].set)
        {
          soft = o->limits[b].value;
          source = "limit";
        }
      else if ((pt->workload->rlimits & bit) && o->headroom == UCB_HEADROOM_NEAR)
        {
          soft = near_value (pt, b);
          source = "headroom near";
        }
      else if ((pt->workload->rlimits & bit) && o->headroom == UCB_HEADROOM_FAR)
        {
          soft = from_rlim (rl.rlim_max);
          source = "headroom far";
        }
      if (soft > from_rlim (rl.rlim_max))
        return ucb_make_error (err, 0,
                               "%s needs RLIMIT_%s=%llu for %u containers x %u tasks, above the "
                               "hard limit %llu; run fewer, or raise the hard limit",
                               source, ucb_rl_name (b), (unsigned long long) soft, pt->containers,
                               pt->tasks, (unsigned long long) rl.rlim_max);
      pl->l[b].soft = soft;
      pl->l[b].hard = from_rlim (rl.rlim_max);
      pl->l[b].source = source;
      if (strcmp (source, "host") != 0) /* inherited limits need no setrlimit */
        pl->set[pl->nset++] = (struct ucb_soft_limit){
          .resource = ucb_rl_resource (b),
          .name = ucb_rl_name (b),
          .soft = soft == UCB_LIMIT_UNLIMITED ? RLIM_INFINITY : soft,
        };
    }
  return 0;
}

uint64_t
ucb_limits_rlimit_max (const struct ucb_point_limits *pl, enum ucb_rl b, unsigned level,
                       uid_t owner_uid)
{
  /* Level 1's rlimit_max is the owner's soft limit at clone(); deeper levels are created by
   * uid 0 of a user namespace, which is not exempt, with the same (inherited) soft limit.
   * Only an NPROC snapshot taken by real uid 0 in the initial namespace is infinite
   * (enforced_nproc_rlimit). */
  return b == UCB_RL_NPROC && level == 1 && owner_uid == 0 ? UCB_LIMIT_UNLIMITED : pl->l[b].soft;
}
