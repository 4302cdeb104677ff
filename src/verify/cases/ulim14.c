/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim14.c - ULIM-14: RLIMIT_NPROC exemptions: real kuid 0 and CAP_SYS_ADMIN in init_user_ns,
 * not a container root with a non-zero kuid.
 *
 * copy_process refuses a fork whose is_rlimit_overlimit(task_ucounts(p), NPROC, ...) is true
 * unless p->real_cred->user == INIT_USER or the forking task has capable(CAP_SYS_RESOURCE) or
 * capable(CAP_SYS_ADMIN) (both in init_user_ns).  (a) ruid 0 with soft = hard = 1 and its
 * effective capabilities dropped: 20 forks succeed (INIT_USER alone exempts).  (b) root in a
 * container of its own (map `0 0 1`) with soft 1: 20 forks succeed (kuid 0 in any namespace, no
 * capability in init_user_ns there).  (c) ruid U / euid 0 (setresuid(U, 0, 0) keeps
 * CAP_SYS_ADMIN) with soft 2: 10 forks succeed; after setresuid(U, U, U) drops the capabilities
 * the next fork gets EAGAIN (U holds 11 tasks).  (d) a root-created container whose maps
 * (written by the parent, as ranges need) send 0..49 inside to U..U+49 outside; the child
 * becomes uid 0 inside (kuid U, full capabilities in its namespace only) with soft 2: 1 child,
 * then EAGAIN (level 0 (ns, U) against the own soft limit; rlimit_max[NPROC] of a root-created
 * namespace is infinite, enforced_nproc_rlimit, 0ac983f51203).
 *
 * (d) forks until refused, up to the safety cap (probe-work.h), not to a fixed 64: cap + 1 reads
 * "> cap"; (a)-(c) count as many forks as they expect to succeed (exemptions, not bounds). */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

#define MAP_FIRST 10 /* the range container maps 0.. inside to uid_base + 10 .. */
#define MAP_WIDTH 50

static const struct ucb_rlops *const nproc = &ucb_rlops[UCB_RL_NPROC];

/* Clear the effective capability set (permitted kept): capable() then fails everywhere. */
static int
drop_effective_caps (void)
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

  if (syscall (SYS_capget, &hdr, data) < 0)
    return -1;
  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
    data[i].effective = 0;
  return (int) syscall (SYS_capset, &hdr, data);
}

/* (a) ruid 0, soft = hard = 1, no effective capability: the forks of *arg (20). */
static int
sub_root (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct rlimit one = { 1, 1 };

  if (setrlimit (RLIMIT_NPROC, &one) < 0)
    return ucb_make_error (err, errno, "setrlimit(NPROC, 1, 1)");
  if (drop_effective_caps () < 0)
    return ucb_make_error (err, errno, "capset (drop the effective set)");
  return ucb_vcount (arg, o, err);
}

/* (b) root's own container, map `0 0 1`, soft 1 (the spec), forks 20; (d) a container root,
 * soft 2, forks up to UCB_VTRIES (1) (within the held table): ucb_vcount. */
_Static_assert(UCB_VTRIES (1) <= UCB_RL_HELD_MAX, "(d)'s children fit the held table");

/* (c) ruid U / euid 0 with soft 2 (the spec): CAP_SYS_ADMIN exempts, until the euid is
 * dropped. */
static int
sub_cap_admin (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  uid_t uid = getuid ();
  struct ucb_rlheld kids = { .n = 0 };
  int refused, r = -1;
  long n;

  (void) arg;
  n = ucb_rlops_fill (nproc, &kids, 10, false, &refused);
  if (setresuid (uid, uid, uid) < 0 || prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    ucb_make_error (err, errno, "setresuid(%u) with %ld children", (unsigned) uid, n);
  else
    {
      ucb_rlops_fill (nproc, &kids, 1, false, &o->errnum);
      r = 0;
    }
  ucb_rlops_release (nproc, &kids, -1);
  o->v[0] = n;
  return r;
}

static int
ulim14_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the probe (a) ruid 0" };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;
  struct ucb_vcount twenty = { nproc, NULL, 20 }, all = { nproc, NULL, UCB_VTRIES (1) };

  if (ucb_probe_run (&spec, sub_root, &twenty, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "(a) ruid 0, soft=hard 1: forks of 20", UCB_VITEM_ADMITTED, 20, o.v[0]);
  spec = (struct ucb_probe_spec){ .what = "the probe (b) root container",
                                  .resource = RLIMIT_NPROC,
                                  .soft = 1,
                                  .userns = CLONE_NEWUSER };
  if (ucb_probe_run (&spec, ucb_vcount, &twenty, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "(b) root container, soft 1: forks of 20", UCB_VITEM_ADMITTED, 20, o.v[0]);
  spec = (struct ucb_probe_spec){ .what = "the probe (c) ruid U/euid 0",
                                  .ruid = ctx->uid_base,
                                  .resource = RLIMIT_NPROC,
                                  .soft = 2 };
  if (ucb_probe_run (&spec, sub_cap_admin, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (r, "(c) ruid U/euid 0, soft 2: forks of 10", UCB_VITEM_ADMITTED, 10, o.v[0], 0,
                     "(c) fork after dropping euid 0", EAGAIN, o.errnum);

  /* (d) container root with kuid U */
  spec = (struct ucb_probe_spec){ .what = "the probe (d)",
                                  .resource = RLIMIT_NPROC,
                                  .userns = CLONE_NEWUSER,
                                  .map_first = ctx->uid_base + MAP_FIRST,
                                  .map_width = MAP_WIDTH,
                                  .soft_inside = 2 };
  if (ucb_probe_run (&spec, ucb_vcount, &all, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (r, "(d) container root kuid U, soft 2", UCB_VITEM_ADMITTED, 1, o.v[0],
                     all.tries, "(d) errno of the 2nd fork", EAGAIN, o.errnum);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim14 = {
  .id = "ULIM-14",
  .name = "nproc-exemptions",
  .title = "NPROC: real kuid 0 and CAP_SYS_ADMIN exempt; a container root with kuid U does not",
  .rlimit = UCB_RL_NPROC,
  .depends = "a55d07294f1e (5.17): ucounts keyed by the real uid",
  .checks = "copy_process: real_cred->user != INIT_USER && !capable(CAP_SYS_RESOURCE) && "
            "!capable(CAP_SYS_ADMIN) (init_user_ns); enforced_nproc_rlimit (0ac983f51203)",
  /* (c) CAP_SYS_ADMIN exempts; (b) a root container: mapping uid 0 needs CAP_SETFCAP. */
  .needs_caps = UCB_VCAP (CAP_SYS_ADMIN) | UCB_VCAP (CAP_SETFCAP),
  .needs_init_root = true,
  .run = ulim14_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P7 } },
};
