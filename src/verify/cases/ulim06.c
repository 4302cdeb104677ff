/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim06.c - ULIM-06: host tasks of the owner consume the headroom of its containers.
 *
 * A host task H of uid U charges level 0 (init_user_ns, U), which is the level-1 object of every
 * container U creates (ns->ucounts); inc_rlimit_get_ucounts checks it there against the
 * container's rlimit_max (59ec71575ab4; before it, v5.14..5.16-rc6, the container ignored the
 * host's charges and this case reports over-admission).  H (soft 1000) holds 8; a container C
 * created by U with soft 10 and raised inside queues 2, then EAGAIN.  H's SigQ reads 10 (8 + 2),
 * C's own SigQ 2.  H still queues 990 more (its level 0 only: 1000 - 10), C then gets 0; once H
 * drains, C gets its remaining 8.  Everything drained: both SigQs read 0. */
#include "config.h"

#include <errno.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

enum
{
  H, /* U's host task, soft 1000 */
  C, /* U's container, created with 10 */
};

static const struct ucb_vactor actors[] = {
  [H] = { "the host task", 0, RLIMIT_SIGPENDING, 1000, false },
  [C] = { "the container", 0, RLIMIT_SIGPENDING, 10, true },
};

static const struct ucb_vstep steps[] = {
  { H, UCB_VOP_FILL, 8, "queued by the host task (soft 1000)", UCB_VITEM_ADMITTED, 8 },
  { C, UCB_VOP_FILL, UCB_VTRIES (2), "queued in the container (created with 10)",
    UCB_VITEM_ADMITTED, 2, "errno at the container's parent bound", EAGAIN },
  { H, UCB_VOP_SIGQ, 0, "host SigQ: host 8 + container 2", UCB_VITEM_COUNTER, 10 },
  { C, UCB_VOP_SIGQ, 0, "SigQ inside the container", UCB_VITEM_COUNTER, 2 },
  { H, UCB_VOP_FILL, UCB_VTRIES (990), "queued by the host task after that", UCB_VITEM_ADMITTED,
    990, "errno at the host's own limit", EAGAIN },
  { H, UCB_VOP_SIGQ, 0, "host SigQ at its own limit", UCB_VITEM_COUNTER, 1000 },
  { C, UCB_VOP_FILL, UCB_VTRIES (0), "queued in the container, host full", UCB_VITEM_ADMITTED, 0,
    "errno in the container, host full", EAGAIN },
  { H, UCB_VOP_DRAIN, 0, "drained by the host task", UCB_VITEM_EXACT, 998 },
  { C, UCB_VOP_FILL, UCB_VTRIES (8), "queued in the container after the host drained",
    UCB_VITEM_READMITTED, 8 },
  { C, UCB_VOP_DRAIN, 0, "drained in the container", UCB_VITEM_EXACT, 10 },
  { H, UCB_VOP_SIGQ, 0, "host SigQ after the drains", UCB_VITEM_COUNTER, 0 },
  { C, UCB_VOP_SIGQ, 0, "SigQ inside the container after the drain", UCB_VITEM_COUNTER, 0 },
};

UCB_VSCRIPT_RUN (ulim06_run, actors, steps)

const struct ucb_vcase ucb_vcase_ulim06 = {
  .id = "ULIM-06",
  .name = "sigpending-host-owner",
  .title = "SIGPENDING: the owner's host tasks consume its containers' headroom",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "5.16-rc7+: before 59ec71575ab4 the container was not bound by host usage",
  .checks = "(init_user_ns, U) is the host task's level 0 and the container's level 1 "
            "(ns->ucounts); inc_rlimit_get_ucounts vs rlimit_max (59ec71575ab4)",
  .run = ulim06_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P5 } },
};
