/* SPDX-License-Identifier: GPL-2.0-or-later */
/* userns.h - the user-namespace probe, the hints for clone() refusals, and the one way to
 * become a uid and to give a user namespace its id maps (spawn.c and the verify probes). */
#ifndef UCB_USERNS_H
#define UCB_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"

/* Try unshare(CLONE_NEWUSER) in a throwaway child, the only reliable probe (the sysctls that
 * restrict it differ by distribution).  0 = it works, > 0 = the errno, < 0 = the child was
 * killed by signal -r (e.g. a seccomp filter), INT_MIN = fork failed. */
int ucb_userns_probe (void);

/* Explain a clone()/unshare()/fork() errno with what to change; returns a static string. */
const char *ucb_clone_hint (int errnum);

/* Become uid/gid as a container owner does: setgroups(0) (refused, and harmless, inside a
 * user namespace whose setgroups is "deny"), setresgid, setresuid, then PR_SET_DUMPABLE (a uid
 * change makes us non-dumpable, which would leave our children's id maps root-owned).  The
 * credential change clears PR_SET_PDEATHSIG: the caller re-arms it. */
int ucb_userns_become (uid_t uid, gid_t gid, ucb_error_t *err) __attribute__ ((warn_unused_result));

/* Write the id maps of the user namespace of `pid` (0: ourselves): `count` ids from 0 inside to
 * `uid`.. and `gid`.. outside.  With `deny_setgroups` (what an unprivileged writer must do
 * first; ENOENT is a kernel older than 3.19, without the file) `setgroups` is set to "deny"; a
 * writer with CAP_SETGID in the parent namespace may leave it allowed. */
int ucb_userns_write_maps (pid_t pid, uid_t uid, gid_t gid, unsigned count, bool deny_setgroups,
                           ucb_error_t *err) __attribute__ ((warn_unused_result));

/* unshare(CLONE_NEWUSER | extra_flags) and map 0 inside to our own ids outside (setgroups
 * denied): a container of our uid, whose root we are. */
int ucb_userns_enter (int extra_flags, ucb_error_t *err) __attribute__ ((warn_unused_result));

#endif
