/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.h - users of uids on this host, and the privilege to become another uid. */
#ifndef UCB_USERS_H
#define UCB_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/error.h"

/* Largest uid ucbench accepts: (uid_t) -1 is "no uid". */
#define UCB_MAX_UID 4294967294u
/* The start of the login range without a login.defs(5) that sets UID_MIN (shadow's default). */
#define UCB_UID_MIN_DEFAULT 1000u

/* The files that say which ids are someone's: the host's by default (ucb_id_files_host), other
 * paths in the tests.  A file that cannot be read holds no id. */
struct ucb_id_files
{
  const char *login_defs, *passwd, *group, *subuid, *subgid;
};
extern const struct ucb_id_files ucb_id_files_host; /* /etc/login.defs, /etc/passwd, ... */

/* qsort/bsearch comparator of uid_t. */
int ucb_cmp_uid (const void *a, const void *b);

/* login.defs(5): the value of `key` ("UID_MIN"), the last line that sets it ("KEY VALUE",
 * blanks between; decimal, 0x hex or 0 octal as shadow reads it; a value in double quotes too).
 * False when no line does: comments, blank lines, other keys and values that are no number are
 * skipped. */
bool ucb_login_defs_value (FILE *f, const char *key, unsigned long *value);
/* passwd(5) or group(5) ("name:password:ID:..."): the entries whose id lies in [first, last]:
 * how many; the first's name (allocated) and id in *name and *id (either may be NULL).  Comments,
 * empty lines, NIS "+"/"-" lines and lines without a name or a numeric id are no entries. */
size_t ucb_idfile_find (FILE *f, uint64_t first, uint64_t last, char **name, unsigned long *id);
/* subuid(5) or subgid(5) ("owner:start:count"): the ranges that overlap [first, last]: how
 * many; the first's owner (allocated), start and count (any may be NULL).  Comments, blank
 * lines, a count of 0 and lines without two numbers after the owner are no ranges. */
size_t ucb_subid_find (FILE *f, uint64_t first, uint64_t last, char **owner, unsigned long *start,
                       unsigned long *count);
/* The start of the login range: UID_MIN of login.defs, or GID_MIN where that is higher (an
 * owner's gid is its uid), UCB_UID_MIN_DEFAULT for either that it does not set; *key names
 * the key that decided ("UID_MIN", "GID_MIN"), *set whether the file set it (either may be
 * NULL). */
unsigned long ucb_uid_min (const struct ucb_id_files *f, const char **key, bool *set);
/* The rule for fresh owner uids (run's shared and distinct owners, verify's cases), one for
 * both commands: [first, last] (and the same gids) must lie at or above the login range's
 * start and hold no account (passwd), group (group) or subordinate id (subuid, subgid).  True
 * when it does not: *why names the first conflict found, *past the first uid above it (where
 * a range that moves on tries next).  `files` NULL: the host's. */
bool ucb_uid_range_conflict (const struct ucb_id_files *files, uint64_t first, uint64_t last,
                             char **why, uint64_t *past);
/* What the rule allows, for messages: "from 1000 (UID_MIN of /etc/login.defs) to 4294967294,
 * clear of the ids of /etc/passwd, /etc/group, /etc/subuid and /etc/subgid". */
char *ucb_uid_valid_text (const struct ucb_id_files *files, uint64_t highest);

/* Running processes (zombies aside) with a uid in [first, last] (real, effective, saved or
 * fs): how many, the first described in `*who` ("uid U is used by running process P", NULL
 * when none; `who` may be NULL).  Never this process; with `foreign_only` none of its
 * descendants either (a case's or a point's own processes), only those that are not ours. */
size_t ucb_uid_range_procs (uid_t first, uid_t last, bool foreign_only, char **who);

/* CAP_SETUID and CAP_SETGID in the effective set: owner modes other than self work. */
bool ucb_can_set_ids (void);
/* Becoming another uid needs CAP_SETUID/CAP_SETGID: say so before anything starts. */
int ucb_check_set_ids (const uid_t *uids, size_t n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
