/* SPDX-License-Identifier: GPL-2.0-or-later */
/* matrix-cells.c - ULIM-12 and ULIM-21 ... ULIM-87: the generic cells of the property matrix,
 * one case per (rlimit, level, property) among P1-P5 that no hand-written case covers, and every
 * cell of P8 (exact under concurrency) and P9 (nothing pinned) (docs/verify.md "The matrix").  Each
 * is a table entry: the runners are src/verify/cells.c and cells-unlimited-levels.c, the rlimits'
 * charge and release src/verify/rlimit-ops.c. */
#include "config.h"

#include "core/error.h"
#include "verify/cells.h"

/* The run() of every generic cell: the runner of its one cell's property, for its rlimit at
 * its level. */
static int
cell_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  const struct ucb_vcell *cell = &ctx->c->cells[0];
  const struct ucb_rlops *ops;
  const char *why;
  int r;

  if ((unsigned) ctx->c->rlimit >= UCB_RLS)
    return ucb_make_error (err, 0, "internal: %s has no rlimit", ctx->c->id);
  ops = &ucb_rlops[ctx->c->rlimit];
  why = ucb_rlops_unsupported (ops);
  ucb_vcell_check_reset ();
  if (*why)
    {
      ucb_vskip (ctx->res, "%s", why);
      return 0;
    }
  if (ucb_vcell_tells_kernels (ops, cell->level, cell->prop)
      && ucb_vcell_which_kernel (ctx, ops, err) < 0)
    return -1;
  if (cell->prop == UCB_VPROP_P1)
    r = ucb_vcell_p1 (ctx, ops, cell->level, err);
  else if (cell->prop == UCB_VPROP_P2)
    r = ucb_vcell_p2 (ctx, ops, cell->level, err);
  else if (cell->prop == UCB_VPROP_P3)
    {
      /* The charger's own releases first, then the releases by other hands. */
      r = ucb_vcell_p3 (ctx, ops, cell->level, err);
      if (r == 0 && !ctx->res->skip[0])
        r = ops->ipc ? ucb_vcell_p3_other_ipc (ctx, ops, cell->level, err)
                     : ucb_vcell_p3_other_task (ctx, ops, cell->level, err);
    }
  else if (cell->prop == UCB_VPROP_P4)
    r = ucb_vcell_p4 (ctx, ops, cell->level, err);
  else if (cell->prop == UCB_VPROP_P5)
    r = ucb_vcell_p5 (ctx, ops, cell->level, err);
  else if (cell->prop == UCB_VPROP_P8)
    r = ucb_vcell_p8 (ctx, ops, cell->level, err);
  else if (cell->prop == UCB_VPROP_P9)
    r = ucb_vcell_p9 (ctx, ops, err);
  else
    return ucb_make_error (err, 0, "internal: %s is no generic cell", ctx->c->id);
  /* A count at the cap says "at least the cap": said apart from any count. */
  if (r == 0 && !ctx->res->skip[0])
    ucb_vobserve (ctx->res, "fills that reached the cap, unrefused", UCB_VITEM_EXACT, 0,
                  ucb_rlagent_capped ());
  return r;
}

#define LV_OWN "own"
#define LV_PARENT "parent"
#define LV_GRANDPARENT "grandparent"

#define SLUG_P1 "exact-bound"
#define SLUG_P2 "refusal-clean"
#define SLUG_P3 "release-restores"
#define SLUG_P4 "unlimited"
#define SLUG_P5 "independent"
#define SLUG_P8 "race-exact"
#define SLUG_P9 "nothing-pinned"

#define TITLE_P1 "exactly the bound admitted, then the refusal's errno"
#define TITLE_P2 "after a refusal 8 more are refused, counts unchanged, one released = one more"
#define TITLE_P3 "8 rounds identical; an exit, other hands and teardown release it all"
#define TITLE_P4 "RLIM_INFINITY admits a large count; the finite bound beside it holds"
#define TITLE_P5 "siblings: own limits apart, the shared bound binds the sum"
#define TITLE_P8                                                                                   \
  "racing tasks keep the bound and lose no update; at bound - 1 one of c at once is admitted"
#define TITLE_P9 "refusals, releases and exits, repeated past a namespace allowance: nothing pinned"

#define CHECKS_SIGPENDING                                                                          \
  "sig_get_ucounts -> inc_rlimit_get_ucounts (walk up iter->ns->ucounts, max = rlimit_max of "     \
  "the child ns, level 0 vs task_rlimit), dec_rlimit_put_ucounts at dequeue and exit"
#define CHECKS_MSGQUEUE                                                                            \
  "mqueue_get_inode inc_rlimit_ucounts(MSGQUEUE, bytes) vs own soft and rlimit_max, EMFILE; "      \
  "dec_rlimit_ucounts in mqueue_evict_inode (unlink + last close)"
#define CHECKS_MEMLOCK                                                                             \
  "user_shm_lock inc_rlimit_ucounts(MEMLOCK, pages) vs soft >> PAGE_SHIFT and rlimit_max "         \
  "(bytes: ULIM-19), ENOMEM; user_shm_unlock at shm_destroy"
#define CHECKS_NPROC                                                                               \
  "copy_creds inc_rlimit_ucounts + copy_process is_rlimit_overlimit on every level, EAGAIN; "      \
  "bad_fork_cleanup_count, release_task"

#define CHECKS_P1 "the bound is exact at that level (new > max fails)"
#define CHECKS_P2 "a refusal undoes exactly what it charged, on every level"
#define CHECKS_P3                                                                                  \
  "every release path uncharges every level of the ucounts that was charged, whoever ends the "    \
  "charge (the charger, another uid's last close or detach, a thread or reaper of another uid, "   \
  "an IPC namespace's teardown)"
#define CHECKS_P4 "RLIM_INFINITY (own soft, or rlimit_max clamped to LONG_MAX) never refuses"
#define CHECKS_P5 "each level is compared with its own bound only"
#define CHECKS_P8                                                                                  \
  "every level's counter moves by one atomic add or sub (atomic_long_add_return), so no update "   \
  "is lost when tasks of one (user ns, uid) charge and release at once on several CPUs "           \
  "(NPROC: fork and exit, and commit_creds of a set*uid); the bound is checked after the add "     \
  "(MSGQUEUE, MEMLOCK: under mq_lock, shmlock_user_lock), never on a count read before it"
#define CHECKS_P9                                                                                  \
  "every get_ucounts of a charge, refusal or release path has its put_ucounts: a ucounts "         \
  "holds its user namespace (get_user_ns), which stays counted in UCOUNT_USER_NAMESPACES"

#define DEPENDS_P1 "59ec71575ab4 (5.16-rc7) for parent levels; 8f2f9c4d82f2 (5.17-rc5) for NPROC"
#define DEPENDS_P2                                                                                 \
  "432dc0654c61 (6.12-rc7, and stable backports) for SIGPENDING parent refusals; 59ec71575ab4"
#define DEPENDS_P3 "ucounts rlimits (5.14+); 59ec71575ab4"
#define DEPENDS_P4                                                                                 \
  "set_userns_rlimit_max clamps to LONG_MAX (de399236e240, 6.1); 5c2a956c3eea (5.18) MEMLOCK"
#define DEPENDS_P5 "59ec71575ab4 (5.16-rc7): parent levels use the child ns's snapshot"
#define DEPENDS_P8 "ucounts rlimits (5.14+); 59ec71575ab4 for parent levels"
#define DEPENDS_P9                                                                                 \
  "ucounts rlimits (5.14+); per-namespace max_user_namespaces (4.9+); the namespace is freed "     \
  "asynchronously (free_user_ns from a work item)"

/* Besides UCB_VNEEDS_PROBES: private IPC namespaces of init_user_ns (an agent at depth 0)
 * need CAP_SYS_ADMIN. */
#define NEEDS_SIGPENDING 0
#define NEEDS_NPROC 0
#define NEEDS_MSGQUEUE UCB_VCAP (CAP_SYS_ADMIN)
#define NEEDS_MEMLOCK UCB_VCAP (CAP_SYS_ADMIN)

#define CELL(num, rl, RL, LV, PR)                                                                  \
  const struct ucb_vcase ucb_vcase_ulim##num = {                                                   \
    .id = "ULIM-" #num,                                                                            \
    .name = rl "-" LV_##LV "-" SLUG_##PR,                                                          \
    .title = #RL ", " LV_##LV " level: " TITLE_##PR,                                               \
    .rlimit = UCB_RL_##RL,                                                                         \
    .checks = CHECKS_##RL "; " CHECKS_##PR,                                                        \
    .depends = DEPENDS_##PR,                                                                       \
    .needs_caps = NEEDS_##RL,                                                                      \
    .run = cell_run,                                                                               \
    .cells = { { UCB_VLEVEL_##LV, UCB_VPROP_##PR } },                                              \
  };
/* P9: one case per rlimit, refusals at the own and the parent level. */
#define CELL9(num, rl, RL)                                                                         \
  const struct ucb_vcase ucb_vcase_ulim##num = {                                                   \
    .id = "ULIM-" #num,                                                                            \
    .name = rl "-" SLUG_P9,                                                                        \
    .title = #RL ": " TITLE_P9,                                                                    \
    .rlimit = UCB_RL_##RL,                                                                         \
    .checks = CHECKS_##RL "; " CHECKS_P9,                                                          \
    .depends = DEPENDS_P9,                                                                         \
    .needs_caps = NEEDS_##RL,                                                                      \
    .run = cell_run,                                                                               \
    .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P9 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P9 } },            \
  };
#define CELLS3(a, b, c, rl, RL, PR)                                                                \
  CELL (a, rl, RL, OWN, PR) CELL (b, rl, RL, PARENT, PR) CELL (c, rl, RL, GRANDPARENT, PR)

/* SIGPENDING: P1 is ULIM-01, 02, 03. */
CELLS3 (21, 22, 23, "sigpending", SIGPENDING, P2)
CELLS3 (24, 25, 26, "sigpending", SIGPENDING, P3)
CELLS3 (27, 28, 29, "sigpending", SIGPENDING, P4)
CELLS3 (30, 31, 32, "sigpending", SIGPENDING, P5)
/* MSGQUEUE: P1 own is ULIM-16, parent ULIM-17. */
CELL (33, "msgqueue", MSGQUEUE, GRANDPARENT, P1)
CELLS3 (34, 35, 36, "msgqueue", MSGQUEUE, P2)
CELLS3 (37, 38, 39, "msgqueue", MSGQUEUE, P3)
CELLS3 (40, 41, 42, "msgqueue", MSGQUEUE, P4)
CELLS3 (43, 44, 45, "msgqueue", MSGQUEUE, P5)
/* MEMLOCK: P1 own is ULIM-18, parent ULIM-19. */
CELL (46, "memlock", MEMLOCK, GRANDPARENT, P1)
CELLS3 (47, 48, 49, "memlock", MEMLOCK, P2)
CELLS3 (50, 51, 52, "memlock", MEMLOCK, P3)
CELLS3 (53, 54, 55, "memlock", MEMLOCK, P4)
CELLS3 (56, 57, 58, "memlock", MEMLOCK, P5)
/* NPROC: P1 own is ULIM-11.  The parent row keeps the id of the hand-written case it replaced
 * (that case's refork rounds are P3's: ULIM-64). */
CELL (12, "nproc", NPROC, PARENT, P1)
CELL (59, "nproc", NPROC, GRANDPARENT, P1)
CELLS3 (60, 61, 62, "nproc", NPROC, P2)
CELLS3 (63, 64, 65, "nproc", NPROC, P3)
CELLS3 (66, 67, 68, "nproc", NPROC, P4)
CELLS3 (69, 70, 71, "nproc", NPROC, P5)
/* P8, every rlimit and level. */
CELLS3 (72, 73, 74, "sigpending", SIGPENDING, P8)
CELLS3 (75, 76, 77, "msgqueue", MSGQUEUE, P8)
CELLS3 (78, 79, 80, "memlock", MEMLOCK, P8)
CELLS3 (81, 82, 83, "nproc", NPROC, P8)
/* P9, every rlimit. */
CELL9 (84, "sigpending", SIGPENDING)
CELL9 (85, "msgqueue", MSGQUEUE)
CELL9 (86, "memlock", MEMLOCK)
CELL9 (87, "nproc", NPROC)
