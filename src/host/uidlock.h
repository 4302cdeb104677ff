/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uidlock.h - one owner per uid range: the lock a run or a verify holds on its uids for as long
 * as it lives, and the claim of a range (free, safe, locked) that both commands make. */
#ifndef UCB_UIDLOCK_H
#define UCB_UIDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "host/users.h"

/* The lock file: byte U of it stands for uid U.  Root's: the directory 0755, the file 0600. */
#define UCB_UIDLOCK_DIR "/run/ucbench"
#define UCB_UIDLOCK_FILE "uids.lock"

/* Open (making them) `dir` and its lock file (mode 0600: whoever can open it can hold locks):
 * the fd (O_CLOEXEC), -1 with `err` when either is not safe to use (a symbolic link, not a
 * directory or a regular file, owned by a user neither root nor us, group- or world-writable:
 * root must not let another user choose what it opens), or -2 with `*why` where no lock can be
 * had here (the directory cannot be made or the file opened: a read-only /run, a caller with
 * CAP_SETUID that is not root; the directory belongs to a uid this user namespace does not
 * map: the host's /run seen from a container, whose uids are not the host's anyway). */
int ucb_uidlock_open (const char *dir, char **why, ucb_error_t *err);

/* Who holds a lock that a try met. */
struct ucb_uidlock_holder
{
  pid_t pid;            /* 0 where its pid is not visible here (another pid namespace) */
  uint64_t first, last; /* the uids its lock covers */
};
/* Take [first, last] on the lock file `fd` (a write lock, never waiting): 0 held (till this
 * process ends, or ucb_uidlock_drop), 1 another process holds part of it (`*h` says which),
 * -1 with `err`. */
int ucb_uidlock_take (int fd, uint64_t first, uint64_t last, struct ucb_uidlock_holder *h,
                      ucb_error_t *err);
void ucb_uidlock_drop (int fd, uint64_t first, uint64_t last);

/* What a command claims: `width` uids from `base` (run: its shared and distinct owners; verify:
 * 100 per case), and the `fixed` uids (sorted; run's explicit --owner uids).  The range must
 * follow ucb_uid_range_conflict's rule, be held by no other ucbench, and used by no process; a
 * `movable` one (the default base, no --uid-base given) moves on to the next range that is,
 * in steps of `width`.  The fixed uids are the user's choice: only locked. */
struct ucb_uid_claim
{
  const char *what;   /* "owner uid range", "case uid range": in messages */
  const char *option; /* "--uid-base": what the user changes */
  uint64_t base;      /* in: the first uid asked for; out: the first claimed */
  uint64_t width;     /* 0: no range (explicit owners only) */
  uint64_t highest;   /* the highest uid the range may reach */
  bool movable;
  /* A process of the range refuses it only when it is movable (moved past): each of verify's
   * cases is an error for a process of its own uids instead. */
  bool procs_per_case;
  const uid_t *fixed;
  size_t nfixed;
  const char *lock_dir;             /* NULL: UCB_UIDLOCK_DIR */
  const struct ucb_id_files *files; /* NULL: the host's */
  char *moved;                      /* out: why the range is not the one asked for (NULL: it is) */
  char *unlocked;                   /* out: why no lock is held (NULL: held, or none needed) */
};
/* Claim: 0, the lock held for the rest of this process's life (taken only with CAP_SETUID and
 * CAP_SETGID: without them every owner is the caller's own uid, no range to share), or -1
 * with `err` naming the conflict and what is valid (exit status 1: a range held or in use is
 * the host's state, as an owner uid in use always was).  Call it once per process. */
int ucb_uids_claim (struct ucb_uid_claim *c, ucb_error_t *err);
void ucb_uid_claim_free (struct ucb_uid_claim *c);

#endif
