/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim02.c - ULIM-02: the parent level bounds a container by its creator's snapshot.
 *
 * U with soft SIGPENDING 5 creates a user namespace (create_user_ns stores rlimit_max = 5),
 * then raises its soft limit inside to the hard limit.  Still only five RT signals queue: the
 * level-1 counter (init_user_ns, U) is checked against the namespace's rlimit_max (9e05e5c7ee87
 * semantics; 59ec71575ab4 fixed the max used).  SigQ inside reads 5 (level 0), and an observer
 * sleeping as U in the initial namespace reads 5 too (level 1).  After the drain both read 0. */
#include "config.h"

#include <errno.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

enum
{
  OBSERVER, /* U in the initial namespace: level 1 */
  PROBE,    /* U's container */
};

static const struct ucb_vactor actors[] = {
  [OBSERVER] = { "the observer", 0, 0, 0, false },
  [PROBE] = { NULL, 0, RLIMIT_SIGPENDING, 5, true },
};

static const struct ucb_vstep steps[] = {
  { PROBE, UCB_VOP_FILL, UCB_VTRIES (5), "queued in the container", UCB_VITEM_ADMITTED, 5,
    "errno at the parent bound", EAGAIN },
  { PROBE, UCB_VOP_SIGQ, 0, "SigQ inside (level 0)", UCB_VITEM_COUNTER, 5 },
  { OBSERVER, UCB_VOP_SIGQ, 0, "observer SigQ (level 1)", UCB_VITEM_COUNTER, 5 },
  { PROBE, UCB_VOP_DRAIN, 0, NULL, UCB_VITEM_EXACT, 0 },
  { PROBE, UCB_VOP_SIGQ, 0, "SigQ inside after the drain", UCB_VITEM_COUNTER, 0 },
  { OBSERVER, UCB_VOP_SIGQ, 0, "observer SigQ after the drain", UCB_VITEM_COUNTER, 0 },
};

UCB_VSCRIPT_RUN (ulim02_run, actors, steps)

const struct ucb_vcase ucb_vcase_ulim02 = {
  .id = "ULIM-02",
  .name = "sigpending-parent-bound",
  .title = "SIGPENDING: a container is bound by its creator's soft limit at creation",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "5.16-rc7+ (59ec71575ab4 fixed the max used at parent levels; before it the leaf is "
             "still bound)",
  .checks = "create_user_ns set_userns_rlimit_max(SIGPENDING); inc_rlimit_get_ucounts level 1 "
            "vs get_userns_rlimit_max (59ec71575ab4)",
  .run = ulim02_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P1 } },
};
