/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim01.c - ULIM-01: RLIMIT_SIGPENDING at the task's own level.
 *
 * As a fresh uid U in the initial namespace with soft SIGPENDING 5: five RT signals queue, the
 * sixth gets EAGAIN (sig_get_ucounts -> inc_rlimit_get_ucounts, level 0 against the task's own
 * soft limit, "new value > max" so exactly `limit` fit); SigQ reads 5; draining returns it to 0
 * and the same five fit again (no charge leaks on the refused sixth). */
#include "config.h"

#include <errno.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

static const struct ucb_vactor actors[] = {
  { NULL, 0, RLIMIT_SIGPENDING, 5, false },
};

static const struct ucb_vstep steps[] = {
  { 0, UCB_VOP_FILL, UCB_VTRIES (5), "queued before the refusal", UCB_VITEM_ADMITTED, 5,
    "errno of the 6th sigqueue", EAGAIN },
  { 0, UCB_VOP_SIGQ, 0, "SigQ when full", UCB_VITEM_COUNTER, 5 },
  { 0, UCB_VOP_DRAIN, 0, "signals drained", UCB_VITEM_EXACT, 5 },
  { 0, UCB_VOP_SIGQ, 0, "SigQ after the drain", UCB_VITEM_COUNTER, 0 },
  { 0, UCB_VOP_FILL, UCB_VTRIES (5), "queued again after the drain", UCB_VITEM_READMITTED, 5 },
};

UCB_VSCRIPT_RUN (ulim01_run, actors, steps)

const struct ucb_vcase ucb_vcase_ulim01 = {
  .id = "ULIM-01",
  .name = "sigpending-own-level",
  .title = "SIGPENDING: exactly the own soft limit queues, then EAGAIN; SigQ back to 0",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "ucounts-based SIGPENDING (5.14+); same on every such kernel",
  .checks = "sig_get_ucounts/inc_rlimit_get_ucounts level 0 vs task_rlimit(SIGPENDING); "
            "dec_rlimit_put_ucounts on dequeue",
  .run = ulim01_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};
