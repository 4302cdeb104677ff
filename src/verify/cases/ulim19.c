/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim19.c - ULIM-19: the parent-level RLIMIT_MEMLOCK bound, in pages against bytes.
 *
 * U with soft MEMLOCK 16 bytes creates a user (and IPC) namespace, raises its soft limit inside
 * to the hard limit and SHM_LOCKs one-page segments.  Intended: the namespace's bound is 16 B =
 * 0 pages, so the first lock fails with ENOMEM.  Every kernel read so far (5.14 .. 7.0-rc) stores
 * rlimit_max[MEMLOCK] in bytes (create_user_ns) but compares the page counter with it
 * (inc_rlimit_ucounts in user_shm_lock): 16 one-page locks succeed and the 17th fails, a bound
 * PAGE_SIZE times looser.  That is reported as `known-bug`; a fixed kernel gets `pass`. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

#define SOFT_BYTES 16
/* The count is capped far above the known bug's 16 (UCB_VTRIES). */
#define LOCKS UCB_VTRIES (SOFT_BYTES)

_Static_assert(LOCKS <= UCB_RL_HELD_MAX, "the locks fit the held table");

static int
ulim19_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  long page = sysconf (_SC_PAGESIZE);
  struct ucb_probe_spec spec = { .uid = ctx->uid_base,
                                 .resource = RLIMIT_MEMLOCK,
                                 .soft = SOFT_BYTES,
                                 .userns = CLONE_NEWUSER | CLONE_NEWIPC,
                                 .soft_inside = RLIM_INFINITY };
  /* The ops' unit: a one-page segment made and SHM_LOCKed, removed at once (the count's
   * release): the IPC namespace would destroy them too, but asynchronously, and until then
   * their pages stay charged to U, which a repeat of the case reuses.  IPC_RMID of a locked,
   * unattached segment destroys it at once (shm_destroy unlocks it). */
  struct ucb_vcount locks = { &ucb_rlops[UCB_RL_MEMLOCK], NULL, LOCKS };
  struct ucb_probe_out o;

  if (ucb_probe_run (&spec, ucb_vcount, &locks, &o, err) < 0)
    return -1;
  ucb_vobserve_bug_count (ctx->res, UCB_VBUG_MEMLOCK_UNITS,
                          "one-page SHM_LOCKs under a 16-byte parent bound", UCB_VITEM_ADMITTED,
                          SOFT_BYTES / page, o.v[0], SOFT_BYTES, LOCKS);
  ucb_vobserve (ctx->res, "errno of the refused SHM_LOCK", UCB_VITEM_ERRNO, ENOMEM, o.errnum);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim19 = {
  .id = "ULIM-19",
  .name = "memlock-parent-units",
  .title = "MEMLOCK: the parent bound (rlimit_max, bytes) is compared with a page counter",
  .rlimit = UCB_RL_MEMLOCK,
  .depends
  = "every kernel since the 5.14 conversion (unfixed as of 7.0-rc): known-bug; pass once fixed",
  .checks = "create_user_ns set_userns_rlimit_max(MEMLOCK, rlimit bytes) vs user_shm_lock "
            "inc_rlimit_ucounts(MEMLOCK, pages): known bug, intended bound in pages",
  .run = ulim19_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P1 } },
};
