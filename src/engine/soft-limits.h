/* SPDX-License-Identifier: GPL-2.0-or-later */
/* soft-limits.h - the soft limits a point's owners set (--limit, --headroom), and what they mean at
 * every user-namespace level. */
#ifndef UCB_SOFT_LIMITS_H
#define UCB_SOFT_LIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "engine/plan.h"
#include "engine/spawn.h"

struct ucb_point;

/* For each of the four ucounts rlimits (index: enum ucb_rl). */
struct ucb_point_limits
{
  struct
  {
    uint64_t soft;      /* in force for the owner when it creates the namespaces */
    uint64_t hard;      /* ucbench's hard limit (the owner cannot raise it) */
    const char *source; /* "host", "limit", "headroom near", "headroom far" */
  } l[UCB_RLS];
  struct ucb_soft_limit set[UCB_RLS]; /* what the owner must apply */
  size_t nset;
};

/* Check --limit against this host's hard limits once, before anything starts: raising a hard
 * limit needs CAP_SYS_RESOURCE, which the caller may lack. */
int ucb_limits_check (const struct ucb_plan *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Resolve the limits of one point: explicit --limit values, plus --headroom for the counter of
 * the point's workload (near: the counter reaches the limit exactly at its peak use at the
 * most shared level; far: soft = hard). */
int ucb_limits_for_point (const struct ucb_plan *o, const struct ucb_point *pt,
                          struct ucb_point_limits *pl, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The rlimit_max the user namespace at `level` (1 .. the point's depth) snapshots at its
 * creation for rlimit `b` (UCB_LIMIT_UNLIMITED: unlimited), when the owner is `owner_uid`. */
uint64_t ucb_limits_rlimit_max (const struct ucb_point_limits *pl, enum ucb_rl b, unsigned level,
                                uid_t owner_uid);

#endif
