/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe-work.h - what the hand-written cases' probes do inside besides charging: read SigQ and
 * CapEff, tell uid 0 of the initial namespace, count user namespaces (probe.h runs them).  Their
 * charges and releases of an rlimit go through rlimit-ops.h (ucb_rlops_fill, ucb_rlops_release,
 * ucb_rlops_count), as the agents' do. */
#ifndef UCB_PROBE_WORK_H
#define UCB_PROBE_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "verify/probe.h"
#include "verify/rlimit-ops.h"

/* True counts: a probe counts what the kernel admits up to a safety cap far above the
 * expectation (a kernel that never refuses must still let the case end).  It tries
 * cap + 1 units, so a count of cap + 1 reads "> cap": more than the cap allowed to see, never a
 * true count; the expectation is kept, so the verdict is over-admission (docs/verify.md). */
#define UCB_VCOUNT_CAP(expected) ((expected) + 256)
#define UCB_VTRIES(expected) (UCB_VCOUNT_CAP (expected) + 1)

/* A probe function (probe.h): charges of `ops` (each a `shape`; NULL: the unit) until
 * refused, at most `tries`, then released (ucb_rlops_count): out->v[0] the count, out->errnum
 * the refusal that ended it. */
struct ucb_vcount
{
  const struct ucb_rlops *ops;
  const struct ucb_rlshape *shape;
  long tries;
};
int ucb_vcount (void *arg, struct ucb_probe_out *out, ucb_error_t *err);

/* SigQ of a process: the level-0 SIGPENDING counter of its (user ns, uid); -1 if unreadable. */
long ucb_vsigq (pid_t pid);

/* Whether capability `cap` is in a process's effective set (CapEff); -1 if unreadable. */
int ucb_vcap_effective (pid_t pid, int cap);

/* Are we uid 0 of the initial user namespace (the NPROC exemptions are about it)? */
bool ucb_vroot_of_init_userns (void);

/* ---- user namespaces: the per-namespace maximum, its asynchronous release (ULIM-20, P9) ---- */

/* How long a user namespace may stay counted (UCOUNT_USER_NAMESPACES of its creator) after its
 * last task was reaped: free_user_ns runs from a work item, and an IPC namespace that holds one
 * is freed from another, after an RCU grace period.  10 s: an emulated kernel (QEMU TCG) on a
 * loaded host runs those work items late; a correct kernel returns in milliseconds, so only a
 * pinned namespace ever waits it out. */
#define UCB_VUSERNS_FREED_NS 10000000000ull

/* Write /proc/sys/user/`file` of our user namespace (its root may: set_permissions checks
 * CAP_SYS_RESOURCE there), refused while we are still in the namespace whose inode is `outer`
 * (the case process's: never the table of the namespace ucbench runs in). */
int ucb_vuserns_sysctl (ino_t outer, const char *file, long long value, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* setns(fd, CLONE_NEWUSER): enter the user namespace of `fd` (its owner's tasks may). */
int ucb_vuserns_join (int fd, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* ucb_userns_enter (host/userns.h), a refusal with ENOSPC retried for up to `wait_ns`: room
 * that a freed namespace leaves comes back asynchronously. */
int ucb_vuserns_enter (int extra_flags, uint64_t wait_ns, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* A probe function (probe.h): how many user namespaces the namespace it joins allows, nested
 * one in the other (each counts at every level up to it): up to `want`, each ENOSPC retried
 * until `wait_ns` passed since the start, then up to `max` without waiting.  out->v[0] is the
 * count (they go with the probe), out->errnum the refusal of the unshare that ended it (ENOSPC
 * at a maximum, EUSERS at 32 levels; 0: `max` reached). */
struct ucb_vnest
{
  int join; /* > 0: an fd of the user namespace to enter first (ucb_vuserns_join) */
  long want, max;
  uint64_t wait_ns;
};
int ucb_vnest (void *arg, struct ucb_probe_out *out, ucb_error_t *err);

#endif
