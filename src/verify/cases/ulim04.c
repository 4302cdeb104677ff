/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim04.c - ULIM-04: sibling containers of the same owner share the parent level.
 *
 * Two containers A and B created by the same uid U share ns->ucounts = (init_user_ns, U)
 * (create_user_ns -> inc_user_namespaces(parent, owner euid)), so inc_rlimit_get_ucounts charges
 * one level-1 counter for both, each bounded by its own namespace's rlimit_max (59ec71575ab4;
 * before it, v5.14..5.16-rc6, siblings did not share and this case reports over-admission).
 * Both created with soft SIGPENDING 10 and raised inside: A holds 6, B queues 4 then EAGAIN;
 * an observer sleeping as U in the initial namespace reads 10 and B's own SigQ reads 4 (its
 * level 0 is (B, 0)); A drains, B queues 6 more.  Asymmetric: A created with 10 holds 8, B
 * created with 20 queues 12; the shared counter (20) is then above A's bound, so A queues 0. */
#include "config.h"

#include <errno.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

enum
{
  OBS, /* U in the initial namespace: the shared level 1 */
  A,
  B,
};

/* Symmetric variant: both created with 10. */
static const struct ucb_vstep symmetric[] = {
  { A, UCB_VOP_FILL, 6, "10/10: queued in A (created with 10)", UCB_VITEM_ADMITTED, 6 },
  { B, UCB_VOP_FILL, UCB_VTRIES (4), "10/10: queued in B while A holds 6", UCB_VITEM_ADMITTED, 4,
    "10/10: errno at the shared bound", EAGAIN },
  { OBS, UCB_VOP_SIGQ, 0, "10/10: observer SigQ (shared level 1)", UCB_VITEM_COUNTER, 10 },
  { B, UCB_VOP_SIGQ, 0, "10/10: SigQ inside B (its level 0)", UCB_VITEM_COUNTER, 4 },
  { A, UCB_VOP_DRAIN, 0, "10/10: drained from A", UCB_VITEM_EXACT, 6 },
  { B, UCB_VOP_FILL, UCB_VTRIES (6), "10/10: queued in B after A drained", UCB_VITEM_READMITTED, 6,
    "10/10: errno at the bound again", EAGAIN },
  { OBS, UCB_VOP_SIGQ, 0, "10/10: observer SigQ with B full", UCB_VITEM_COUNTER, 10 },
  { B, UCB_VOP_DRAIN, 0, NULL, UCB_VITEM_EXACT, 0 },
  { OBS, UCB_VOP_SIGQ, 0, "10/10: observer SigQ after the drains", UCB_VITEM_COUNTER, 0 },
};

/* Asymmetric variant: A created with 10, B with 20. */
static const struct ucb_vstep asymmetric[] = {
  { A, UCB_VOP_FILL, 8, "10/20: queued in A (created with 10)", UCB_VITEM_ADMITTED, 8 },
  { B, UCB_VOP_FILL, UCB_VTRIES (12), "10/20: queued in B (created with 20)", UCB_VITEM_ADMITTED,
    12, "10/20: errno at B's bound", EAGAIN },
  { OBS, UCB_VOP_SIGQ, 0, "10/20: observer SigQ (shared level 1)", UCB_VITEM_COUNTER, 20 },
  { A, UCB_VOP_FILL, UCB_VTRIES (0), "10/20: queued in A, shared 20 above its 10",
    UCB_VITEM_ADMITTED, 0, "10/20: errno in A over its bound", EAGAIN },
  { A, UCB_VOP_DRAIN, 0, NULL, UCB_VITEM_EXACT, 0 },
  { B, UCB_VOP_DRAIN, 0, NULL, UCB_VITEM_EXACT, 0 },
  { OBS, UCB_VOP_SIGQ, 0, "10/20: observer SigQ after the drains", UCB_VITEM_COUNTER, 0 },
};

static int
ulim04_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  static const rlim_t created[2][2] = { { 10, 10 }, { 10, 20 } };

  for (uid_t v = 0; v < 2; v++)
    {
      const struct ucb_vactor actors[] = {
        [OBS] = { "the observer", v, 0, 0, false },
        [A] = { "container A", v, RLIMIT_SIGPENDING, created[v][0], true },
        [B] = { "container B", v, RLIMIT_SIGPENDING, created[v][1], true },
      };

      if (v == 0 ? ucb_vscript (ctx, actors, 3, symmetric, UCB_ARRAY_SIZE (symmetric), err) < 0
                 : ucb_vscript (ctx, actors, 3, asymmetric, UCB_ARRAY_SIZE (asymmetric), err) < 0)
        return ucb_error_wrap (err, "%s", v == 0 ? "10/10" : "10/20");
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim04 = {
  .id = "ULIM-04",
  .name = "sigpending-shared-owner",
  .title = "SIGPENDING: sibling containers of one owner share the parent-level counter",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "5.16-rc7+: before 59ec71575ab4 siblings did not share the parent level",
  .checks = "ns->ucounts = (parent ns, creator euid) shared by siblings; inc_rlimit_get_ucounts "
            "level 1 vs each child's rlimit_max (59ec71575ab4)",
  .run = ulim04_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P5 } },
};
