/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim13.c - ULIM-13: RLIMIT_NPROC, same-owner containers share the parent level; distinct
 * owners are isolated.
 *
 * Same owner: containers A and B are both created by U with soft NPROC 10 (rlimit_max 10 each)
 * and raise their soft limit inside.  Both chains end in the one object (init_user_ns, U)
 * (ns->ucounts = inc_user_namespaces(parent, creator euid)), which is_rlimit_overlimit checks
 * against each namespace's snapshot (59ec71575ab4).  A and its 5 children hold 6; B itself is
 * the 7th, so B forks 3 (10 - 6 - 1) and then gets EAGAIN; while B is full A cannot fork either;
 * once B is gone A forks 4 (10 - 6).  Distinct owners U1 and U2, each creating a container with
 * soft 10: while U1's container holds 9 children, U2's still forks 9.
 *
 * Every fork count goes on until refused, up to the safety cap (probe-work.h), not to a fixed 64:
 * cap + 1 reads "> cap", a bypass, never a count. */
#include "config.h"

#include <errno.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

enum
{
  A, /* same owner U */
  B,
  C, /* owner U1 */
  D, /* owner U2 */
};

/* Containers created with soft NPROC 10, soft raised inside. */
static const struct ucb_vactor actors[] = {
  [A] = { "container A", 0, RLIMIT_NPROC, 10, true },
  [B] = { "container B", 0, RLIMIT_NPROC, 10, true },
  [C] = { "the container of U1", 1, RLIMIT_NPROC, 10, true },
  [D] = { "the container of U2", 2, RLIMIT_NPROC, 10, true },
};

/* Each starts once the one before it holds its children; A and B are gone before C starts. */
static const struct ucb_vstep steps[] = {
  { A, UCB_VOP_HOLD, 5, "A: children forked of 5", UCB_VITEM_ADMITTED, 5 },
  { B, UCB_VOP_START },
  { B, UCB_VOP_HOLD, UCB_VTRIES (3), "B: children forked", UCB_VITEM_ADMITTED, 3,
    "B: errno at the parent bound", EAGAIN },
  { A, UCB_VOP_COUNT, 1, NULL, UCB_VITEM_EXACT, 0, "A: fork while B is full", EAGAIN },
  { B, UCB_VOP_STOP },
  { A, UCB_VOP_COUNT, UCB_VTRIES (4), "A: more children once B is gone", UCB_VITEM_READMITTED, 4,
    "A: errno at the shared bound", EAGAIN },
  { A, UCB_VOP_STOP },
  { C, UCB_VOP_START },
  { C, UCB_VOP_HOLD, UCB_VTRIES (9), "owner U1: children forked", UCB_VITEM_ADMITTED, 9,
    "owner U1: errno at the parent bound", EAGAIN },
  { D, UCB_VOP_START },
  { D, UCB_VOP_HOLD, UCB_VTRIES (9), "owner U2 (U1 full): children forked", UCB_VITEM_ADMITTED, 9,
    "owner U2 (U1 full): errno at the parent bound", EAGAIN },
};

UCB_VSCRIPT_RUN (ulim13_run, actors, steps)

const struct ucb_vcase ucb_vcase_ulim13 = {
  .id = "ULIM-13",
  .name = "nproc-siblings",
  .title = "NPROC: same-owner containers share the parent level; distinct owners do not",
  .rlimit = UCB_RL_NPROC,
  .depends = "59ec71575ab4 (5.16-rc7): before it siblings did not share",
  .checks = "ns->ucounts = (parent ns, creator euid) shared by sibling namespaces; "
            "is_rlimit_overlimit level 1 vs each namespace's rlimit_max (59ec71575ab4)",
  .run = ulim13_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P5 } },
};
