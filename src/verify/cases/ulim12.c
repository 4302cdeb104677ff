/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim12.c - ULIM-12: RLIMIT_NPROC, the parent level bounds a container; no charge leaks.
 *
 * U with soft NPROC 5 creates a user namespace (create_user_ns: rlimit_max[NPROC] =
 * enforced_nproc_rlimit() = 5, U not being root) and raises its soft limit inside to the hard
 * limit.  U itself is one task at level 1 (init_user_ns, U) (commit_creds moved its charge up
 * the new chain at unshare), so 4 children fork and the 5th gets EAGAIN: copy_creds charges every
 * level (inc_rlimit_ucounts), copy_process refuses when is_rlimit_overlimit finds level 1 above
 * the namespace's snapshot (59ec71575ab4; total <= limit since 8f2f9c4d82f2).  Then 50 rounds
 * of {reap every child, fork until refused}: each round admits exactly 4 again, so the refused
 * forks (bad_fork_cleanup_count: dec_rlimit_ucounts on all levels) and release_task leave no
 * charge behind on either level.
 *
 * Every fork count goes on until refused, up to the safety cap (probe-work.h), not to a fixed 64:
 * a round of cap + 1 reads "> cap", a bypass, never a count; such a round ends the rounds (each
 * further one would run to the cap too, which an emulated kernel has no time for).  The first
 * count is reported, and recorded, before the rounds: a case stopped by its time limit is
 * judged on it. */
#include "config.h"

#include <errno.h>
#include <sched.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

#define ROUNDS 50

enum
{
  FORKED,
  REFUSED,
  LO,
  HI,
  EAGAIN_ROUNDS,
};

static int
probe (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct ucb_vrange range;
  int refused;

  (void) arg;
  if ((o->v[FORKED] = ucb_vfork_count (UCB_VTRIES (4), &refused, err)) < 0)
    return -1;
  o->v[REFUSED] = refused;
  if (ucb_probe_report (o, err) < 0
      || ucb_vrounds (ROUNDS, ucb_vfork_count, UCB_VTRIES (4), &range, err) < 0)
    return -1;
  o->v[LO] = range.lo;
  o->v[HI] = range.hi;
  o->v[EAGAIN_ROUNDS] = range.eagain;
  return 0;
}

static int
ulim12_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .uid = ctx->uid_base,
                                 .resource = RLIMIT_NPROC,
                                 .soft = 5,
                                 .userns = CLONE_NEWUSER,
                                 .soft_inside = RLIM_INFINITY };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe p = UCB_PROBE_NONE;
  struct ucb_probe_out o;

  if (ucb_probe_start_report (&p, &spec, probe, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (r, "children forked in the container", UCB_VITEM_ADMITTED, 4, o.v[FORKED],
                     UCB_VTRIES (4), "errno at the parent bound", EAGAIN, o.v[REFUSED]);
  if (ucb_probe_finish (&p, &o, err) < 0)
    return -1;
  ucb_vobserve_count (r, "fewest children in 50 refork rounds", UCB_VITEM_ADMITTED, 4, o.v[LO],
                      UCB_VTRIES (4));
  ucb_vobserve_count (r, "most children in 50 refork rounds", UCB_VITEM_ADMITTED, 4, o.v[HI],
                      UCB_VTRIES (4));
  ucb_vobserve (r, "refork rounds refused with EAGAIN", UCB_VITEM_EXACT, ROUNDS,
                o.v[EAGAIN_ROUNDS]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim12 = {
  .id = "ULIM-12",
  .name = "nproc-parent-bound",
  .title = "NPROC: a container is bound by its creator's soft limit; 50 refork rounds identical",
  .rlimit = UCB_RL_NPROC,
  .depends = "8f2f9c4d82f2 (5.17-rc5), 59ec71575ab4 (5.16-rc7)",
  .checks = "create_user_ns enforced_nproc_rlimit snapshot; copy_creds inc_rlimit_ucounts + "
            "is_rlimit_overlimit level 1 (59ec71575ab4, 8f2f9c4d82f2); bad_fork_cleanup_count "
            "and release_task uncharge",
  .run = ulim12_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P1 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P3 } },
};
