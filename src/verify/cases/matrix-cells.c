/* SPDX-License-Identifier: GPL-2.0-or-later */
/* matrix-cells.c - the generic cells of the property matrix (docs/verify.md "The matrix"), made
 * at start-up: every (rlimit, level, property) of P1-P5, P8 and P9 that is no hand-written case's
 * primary cell, from the rlimit-ops table (src/verify/rlimit-ops.c: its checks and needs) and the
 * property table below (slug, title, checks, depends, levels, runner).  Their ids come from one
 * alias table, so that a new rlimit is an rlimit-ops row and its numbers here. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "verify/cells.h"

typedef int (*cell_runner) (struct ucb_vctx *ctx, const struct ucb_rlops *ops,
                            enum ucb_vlevel level, ucb_error_t *err);

/* P3: the charger's own releases first, then the releases by other hands. */
static int
run_p3 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level, ucb_error_t *err)
{
  int r = ucb_vcell_p3 (ctx, ops, level, err);

  if (r == 0 && !ctx->res->skip[0])
    r = ops->ipc ? ucb_vcell_p3_other_ipc (ctx, ops, level, err)
                 : ucb_vcell_p3_other_task (ctx, ops, level, err);
  return r;
}

/* P9 refuses at the own and the parent level in one case. */
static int
run_p9 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level, ucb_error_t *err)
{
  (void) level;
  return ucb_vcell_p9 (ctx, ops, err);
}

#define LV(l) (1u << UCB_VLEVEL_##l)
#define ALL (LV (OWN) | LV (PARENT) | LV (GRANDPARENT))

/* Indexed by property; a property without a slug has no generic cells (P6, P7). */
static const struct vprop
{
  const char *slug, *title, *checks, *depends;
  unsigned levels; /* a cell per level (LV bits) */
  bool one_case;   /* one case of all its levels' cells (P9), named without a level */
  cell_runner run;
} props[UCB_VPROPS] = {
  [UCB_VPROP_P1] = {
    .slug = "exact-bound", .levels = ALL, .run = ucb_vcell_p1,
    .title = "exactly the bound admitted, then the refusal's errno",
    .checks = "the bound is exact at that level (new > max fails)",
    .depends = "59ec71575ab4 (5.16-rc7) for parent levels; 8f2f9c4d82f2 (5.17-rc5) for NPROC",
  },
  [UCB_VPROP_P2] = {
    .slug = "refusal-clean", .levels = ALL, .run = ucb_vcell_p2,
    .title = "after a refusal 8 more are refused, counts unchanged, one released = one more",
    .checks = "a refusal undoes exactly what it charged, on every level",
    .depends = "432dc0654c61 (6.12-rc7, and stable backports) for SIGPENDING parent refusals; "
               "59ec71575ab4",
  },
  [UCB_VPROP_P3] = {
    .slug = "release-restores", .levels = ALL, .run = run_p3,
    .title = "8 rounds identical; an exit, other hands and teardown release it all",
    .checks = "every release path uncharges every level of the ucounts that was charged, whoever "
              "ends the charge (the charger, another uid's last close or detach, a thread or "
              "reaper of another uid, an IPC namespace's teardown)",
    .depends = "ucounts rlimits (5.14+); 59ec71575ab4",
  },
  [UCB_VPROP_P4] = {
    .slug = "unlimited", .levels = ALL, .run = ucb_vcell_p4,
    .title = "RLIM_INFINITY admits a large count; the finite bound beside it holds",
    .checks = "RLIM_INFINITY (own soft, or rlimit_max clamped to LONG_MAX) never refuses",
    .depends = "set_userns_rlimit_max clamps to LONG_MAX (de399236e240, 6.1); 5c2a956c3eea "
               "(5.18) MEMLOCK",
  },
  [UCB_VPROP_P5] = {
    .slug = "independent", .levels = ALL, .run = ucb_vcell_p5,
    .title = "siblings: own limits apart, the shared bound binds the sum",
    .checks = "each level is compared with its own bound only",
    .depends = "59ec71575ab4 (5.16-rc7): parent levels use the child ns's snapshot",
  },
  [UCB_VPROP_P8] = {
    .slug = "race-exact", .levels = ALL, .run = ucb_vcell_p8,
    .title = "racing tasks keep the bound and lose no update; at bound - 1 one of c at once is "
             "admitted",
    .checks = "every level's counter moves by one atomic add or sub (atomic_long_add_return), so "
              "no update is lost when tasks of one (user ns, uid) charge and release at once on "
              "several CPUs (NPROC: fork and exit, and commit_creds of a set*uid); the bound is "
              "checked after the add (MSGQUEUE, MEMLOCK: under mq_lock, shmlock_user_lock), never "
              "on a count read before it",
    .depends = "ucounts rlimits (5.14+); 59ec71575ab4 for parent levels",
  },
  [UCB_VPROP_P9] = {
    .slug = "nothing-pinned", .levels = LV (OWN) | LV (PARENT), .one_case = true, .run = run_p9,
    .title = "refusals, releases and exits, repeated past a namespace allowance: nothing pinned",
    .checks = "every get_ucounts of a charge, refusal or release path has its put_ucounts: a "
              "ucounts holds its user namespace (get_user_ns), which stays counted in "
              "UCOUNT_USER_NAMESPACES",
    .depends = "ucounts rlimits (5.14+); per-namespace max_user_namespaces (4.9+); the namespace "
               "is freed asynchronously (free_user_ns from a work item)",
  },
};

/* The stable ULIM numbers: [rlimit][property] own, parent, grandparent (P9: its one case); 0
 * where a hand-written case is the cell.  Data, never a cell's place in the tables: old ids keep
 * selecting their cells whatever is added.  NPROC parent P1 kept the id of the hand-written case
 * it replaced (whose refork rounds are P3's: ULIM-64). */
#define P(n) [UCB_VPROP_P##n]
static const unsigned char ulim[UCB_RLS][UCB_VPROPS][3] = {
  [UCB_RL_SIGPENDING] = {
    P (2) = { 21, 22, 23 }, P (3) = { 24, 25, 26 }, P (4) = { 27, 28, 29 },
    P (5) = { 30, 31, 32 }, P (8) = { 72, 73, 74 }, P (9) = { 84 },
  },
  [UCB_RL_MSGQUEUE] = {
    P (1) = { 0, 0, 33 }, P (2) = { 34, 35, 36 }, P (3) = { 37, 38, 39 }, P (4) = { 40, 41, 42 },
    P (5) = { 43, 44, 45 }, P (8) = { 75, 76, 77 }, P (9) = { 85 },
  },
  [UCB_RL_MEMLOCK] = {
    P (1) = { 0, 0, 46 }, P (2) = { 47, 48, 49 }, P (3) = { 50, 51, 52 }, P (4) = { 53, 54, 55 },
    P (5) = { 56, 57, 58 }, P (8) = { 78, 79, 80 }, P (9) = { 86 },
  },
  [UCB_RL_NPROC] = {
    P (1) = { 0, 12, 59 }, P (2) = { 60, 61, 62 }, P (3) = { 63, 64, 65 }, P (4) = { 66, 67, 68 },
    P (5) = { 69, 70, 71 }, P (8) = { 81, 82, 83 }, P (9) = { 87 },
  },
};

unsigned
ucb_vcell_ulim (enum ucb_rl rl, enum ucb_vlevel level, enum ucb_vprop prop)
{
  if ((unsigned) rl >= UCB_RLS || (unsigned) prop >= UCB_VPROPS || level < UCB_VLEVEL_OWN
      || level > UCB_VLEVEL_GRANDPARENT)
    return 0;
  return ulim[rl][prop][level - UCB_VLEVEL_OWN];
}

/* The run() of every generic cell: its property's runner, for its rlimit at its level. */
static int
cell_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  const struct ucb_vcell *cell = &ctx->c->cells[0];
  const struct vprop *p = (unsigned) cell->prop < UCB_VPROPS ? &props[cell->prop] : NULL;
  const struct ucb_rlops *ops;
  const char *why;
  int r;

  if ((unsigned) ctx->c->rlimit >= UCB_RLS || p == NULL || p->run == NULL)
    return ucb_make_error (err, 0, "internal: %s is no generic cell", ctx->c->id);
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
  r = p->run (ctx, ops, cell->level, err);
  /* A count at the cap says "at least the cap": said apart from any count. */
  if (r == 0 && !ctx->res->skip[0])
    ucb_vobserve (ctx->res, "fills that reached the cap, unrefused", UCB_VITEM_EXACT, 0,
                  ucb_rlagent_capped ());
  return r;
}

/* Whether a hand-written case of `hand` is the cell (its primary one: the cells it also
 * observes keep their generic case). */
static bool
hand_written (const struct ucb_vcase *const *hand, enum ucb_rl rl, enum ucb_vlevel level,
              enum ucb_vprop prop)
{
  for (size_t k = 0; hand[k]; k++)
    if (hand[k]->rlimit == rl && hand[k]->cells[0].level == level && hand[k]->cells[0].prop == prop)
      return true;
  return false;
}

/* One generic case of rlimit `rl` and property `p`, with the cells of `levels`. */
static struct ucb_vcase *
make_case (unsigned num, enum ucb_rl rl, const struct vprop *p, unsigned levels)
{
  struct ucb_vcase *c = xcalloc (1, sizeof *c);
  cleanup_free char *slug = xstrdup (ucb_rl_name (rl));
  size_t n = 0;

  for (char *s = slug; *s; s++)
    *s = (char) tolower ((unsigned char) *s);
  for (enum ucb_vlevel l = UCB_VLEVEL_OWN; l <= UCB_VLEVEL_GRANDPARENT; l++)
    if (levels & (1u << l))
      c->cells[n++] = (struct ucb_vcell){ l, (enum ucb_vprop) (p - props) };
  c->id = xasprintf ("ULIM-%02u", num);
  if (p->one_case)
    {
      c->name = xasprintf ("%s-%s", slug, p->slug);
      c->title = xasprintf ("%s: %s", ucb_rl_name (rl), p->title);
    }
  else
    {
      const char *lv = ucb_vlevel_name (c->cells[0].level);
      c->name = xasprintf ("%s-%s-%s", slug, lv, p->slug);
      c->title = xasprintf ("%s, %s level: %s", ucb_rl_name (rl), lv, p->title);
    }
  c->rlimit = rl;
  c->checks = xasprintf ("%s; %s", ucb_rlops[rl].checks, p->checks);
  c->depends = p->depends;
  c->needs_caps = ucb_rlops[rl].needs_caps;
  c->run = cell_run;
  return c;
}

size_t
ucb_vcells_make (const struct ucb_vcase *const *hand, const struct ucb_vcase **out, size_t max)
{
  size_t n = 0;

  for (enum ucb_rl rl = 0; rl < UCB_RLS; rl++)
    for (enum ucb_vprop p = UCB_VPROP_P1; p < UCB_VPROPS; p++)
      for (enum ucb_vlevel l = UCB_VLEVEL_OWN; l <= UCB_VLEVEL_GRANDPARENT; l++)
        {
          unsigned num = ucb_vcell_ulim (rl, l, p);
          /* A cell without a number is not made: test-matrix finds it uncovered. */
          if (!props[p].slug || !(props[p].levels & (1u << l)) || hand_written (hand, rl, l, p)
              || !num || n == max)
            continue;
          out[n++] = make_case (num, rl, &props[p], props[p].one_case ? props[p].levels : 1u << l);
          if (props[p].one_case)
            break;
        }
  return n;
}
