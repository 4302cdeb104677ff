/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim05.c - ULIM-05: containers of distinct owners do not share a counter.
 *
 * Container A (owner U1) and container B (owner U2), each created with soft SIGPENDING 10 and
 * raised inside: while A holds 10 queued signals, B still queues 10.  Their level-1 objects are
 * (init_user_ns, U1) and (init_user_ns, U2): nothing in common (the isolation Jann Horn
 * suggested runtimes use; contrast ULIM-04, same owner). */
#include "config.h"

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

enum
{
  A,
  B,
};

static const struct ucb_vactor actors[] = {
  [A] = { "container A", 0, RLIMIT_SIGPENDING, 10, true },
  [B] = { "container B", 1, RLIMIT_SIGPENDING, 10, true },
};

/* B starts once A is full. */
static const struct ucb_vstep steps[] = {
  { A, UCB_VOP_FILL, UCB_VTRIES (10), "queued in A (owner U1)", UCB_VITEM_ADMITTED, 10 },
  { B, UCB_VOP_START },
  { B, UCB_VOP_FILL, UCB_VTRIES (10), "queued in B (owner U2) while A is full", UCB_VITEM_ADMITTED,
    10 },
};

UCB_VSCRIPT_RUN (ulim05_run, actors, steps)

const struct ucb_vcase ucb_vcase_ulim05 = {
  .id = "ULIM-05",
  .name = "sigpending-distinct-owners",
  .title = "SIGPENDING: containers of distinct owners each get their full limit",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "ucounts (5.14+)",
  .checks = "ns->ucounts = (parent ns, creator euid): distinct owners, distinct level-1 counters",
  .run = ulim05_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 } },
};
