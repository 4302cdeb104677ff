/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim15.c - ULIM-15: RLIMIT_NPROC, a root-created namespace has rlimit_max = infinity; set*uid
 * only flags, execve refuses.
 *
 * (a) root with soft NPROC 3 creates a user namespace whose maps (written by the parent, as
 * ranges need) send 0..49 inside to U..U+49 outside; the child becomes uid 0 inside (kuid U, not
 * exempt) and sets soft 50.  create_user_ns stored enforced_nproc_rlimit() = RLIM_INFINITY, not
 * the creator's 3, because the creator had uid 0 in init_user_ns (0ac983f51203): level 1, the
 * host root's busy object (init_user_ns, 0), is not bounded, and only the own soft limit counts:
 * 49 children, then EAGAIN.  (b) root with soft 2 calls setresuid(V, V, V) while V already has 2
 * tasks: flag_nproc_exceeded (c923a8e7edb0) tests is_rlimit_overlimit on V's object *before*
 * commit_creds moves the caller's charge there (2 > 2 is false), so setresuid succeeds and so
 * does the following execve; with 3 tasks the test is true, PF_NPROC_EXCEEDED is set,
 * setresuid still succeeds, and do_execveat_common refuses with EAGAIN (V now holds 4 > 2).
 *
 * (a) forks until refused, up to the safety cap (probe-work.h), not to a fixed 64 (which was
 * barely above its 49): cap + 1 reads "> cap", a bypass, never a count. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

#define MAP_FIRST 10 /* the range container maps 0.. inside to uid_base + 10 .. */
#define MAP_WIDTH 50
#define V_OFFSET 1 /* (b): V = uid_base + 1 */
#define TRUE_PATH "/bin/true"

/* (b) soft 2 (the spec), setresuid(V, V, V), execv(TRUE_PATH): reports the setresuid errno,
 * then ends with the execve errno (-1: not attempted) unless the program ran. */
static int
setuid_then_exec (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  uid_t v = *(const uid_t *) arg;
  char *const argv[] = { (char *) TRUE_PATH, NULL };

  if (setgroups (0, NULL) < 0 || setresgid (v, v, v) < 0)
    return ucb_make_error (err, errno, "setgroups/setresgid(%u)", (unsigned) v);
  o->v[0] = setresuid (v, v, v) < 0 ? errno : 0;
  if (ucb_probe_report (o, err) < 0)
    return -1;
  o->errnum = -1;
  if (o->v[0] == 0)
    {
      execv (TRUE_PATH, argv);
      o->errnum = errno;
    }
  return 0;
}

/* One setresuid/execve probe: *su the setresuid errno, *ex the execve's (0: the program ran). */
static int
setuid_exec_probe (uid_t v, int *su, int *ex, ucb_error_t *err)
{
  struct ucb_probe_spec spec = {
    .what = "the setresuid/execve probe", .resource = RLIMIT_NPROC, .soft = 2, .execs = true
  };
  struct ucb_probe p = UCB_PROBE_NONE;
  struct ucb_probe_out o;
  int r;

  if (ucb_probe_start_report (&p, &spec, setuid_then_exec, &v, &o, err) < 0)
    return -1;
  *su = (int) o.v[0];
  r = ucb_probe_finish (&p, &o, err);
  if (r < 0)
    return -1;
  *ex = r == 1 ? 0 : o.errnum;
  return 0;
}

static int
sub_execve (struct ucb_vctx *ctx, ucb_error_t *err)
{
  uid_t v = ctx->uid_base + V_OFFSET;
  struct ucb_probe obs[3] = { UCB_PROBE_NONE, UCB_PROBE_NONE, UCB_PROBE_NONE };
  int su, ex, ret = -1;

  for (int i = 0; i < 2; i++)
    if (ucb_vobserver (&obs[i], v, err) < 0)
      goto out;
  if (setuid_exec_probe (v, &su, &ex, err) < 0)
    goto out;
  ucb_vobserve (ctx->res, "(b) setresuid(V), V has 2 tasks", UCB_VITEM_ERRNO, 0, su);
  ucb_vobserve (ctx->res, "(b) execve, V had 2 tasks", UCB_VITEM_ERRNO, 0, ex);
  if (ucb_vobserver (&obs[2], v, err) < 0 || setuid_exec_probe (v, &su, &ex, err) < 0)
    goto out;
  ucb_vobserve (ctx->res, "(b) setresuid(V), V has 3 tasks", UCB_VITEM_ERRNO, 0, su);
  ucb_vobserve (ctx->res, "(b) execve, V had 3 tasks", UCB_VITEM_ERRNO, EAGAIN, ex);
  ret = 0;
out:
  for (int i = 0; i < 3; i++)
    ucb_probe_kill (&obs[i]);
  return ret;
}

/* (a): fork until refused (its tries fit the held table). */
_Static_assert(UCB_VTRIES (49) <= UCB_RL_HELD_MAX, "(a)'s children fit the held table");

static int
ulim15_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the probe (a)",
                                 .resource = RLIMIT_NPROC,
                                 .soft = 3,
                                 .userns = CLONE_NEWUSER,
                                 .map_first = ctx->uid_base + MAP_FIRST,
                                 .map_width = MAP_WIDTH,
                                 .soft_inside = 50 };
  struct ucb_vcount forks = { &ucb_rlops[UCB_RL_NPROC], NULL, UCB_VTRIES (49) };
  struct ucb_probe_out o;

  if (access (TRUE_PATH, X_OK) < 0)
    {
      ucb_vskip (ctx->res, "%s is missing: sub-check (b) needs a program to execve", TRUE_PATH);
      return 0;
    }

  /* (a) root-created container, creator soft 3, own soft 50 as kuid U */
  if (ucb_probe_run (&spec, ucb_vcount, &forks, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (ctx->res, "(a) root-created ns (creator soft 3), own 50", UCB_VITEM_ADMITTED,
                     49, o.v[0], UCB_VTRIES (49), "(a) errno at the own limit", EAGAIN, o.errnum);
  return sub_execve (ctx, err);
}

const struct ucb_vcase ucb_vcase_ulim15 = {
  .id = "ULIM-15",
  .name = "nproc-root-creator-setuid",
  .title = "NPROC: a root-created namespace is unbounded at level 1; set*uid flags, execve refuses",
  .rlimit = UCB_RL_NPROC,
  .depends = "0ac983f51203 (5.17): enforced_nproc_rlimit; execve check of PF_NPROC_EXCEEDED",
  .checks = "create_user_ns enforced_nproc_rlimit = RLIM_INFINITY for a root creator "
            "(0ac983f51203); flag_nproc_exceeded before the charge moves (c923a8e7edb0), "
            "PF_NPROC_EXCEEDED -> EAGAIN in do_execveat_common",
  /* (a) the creator is root of the initial namespace: rlimit_max = infinity. */
  .needs_init_root = true,
  .run = ulim15_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P7 }, { UCB_VLEVEL_OWN, UCB_VPROP_P7 } },
};
