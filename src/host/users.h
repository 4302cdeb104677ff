/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.h - users of uids on this host, and the privilege to become another uid. */
#ifndef UCB_USERS_H
#define UCB_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/error.h"

/* Largest uid ucbench accepts: (uid_t) -1 is "no uid". */
#define UCB_MAX_UID 4294967294u

/* qsort/bsearch comparator of uid_t. */
int ucb_cmp_uid (const void *a, const void *b);

/* Find users of `uids` (sorted): a running process with any of them as real, effective, saved
 * or fs uid, or an entry of /etc/passwd.  Returns the number found and describes the first in
 * `*who`.  The local accounts only: /etc/passwd is read as a file, not through NSS (a static
 * binary cannot load the host's NSS modules), so LDAP or sssd users are not seen. */
size_t ucb_uids_find_users (const uid_t *uids, size_t n, char **who);
/* The entries of a passwd(5) file whose uid is in `uids` (sorted): how many, the first described
 * in `*who` ("uid U belongs to user `name`", NULL when none; `who` may be NULL).  Comments,
 * empty lines, NIS "+"/"-" lines and lines without a name or a numeric uid are no entries. */
size_t ucb_passwd_find_users (FILE *f, const uid_t *uids, size_t n, char **who);

/* CAP_SETUID and CAP_SETGID in the effective set: owner modes other than self work. */
bool ucb_can_set_ids (void);
/* Becoming another uid needs CAP_SETUID/CAP_SETGID: say so before anything starts. */
int ucb_check_set_ids (const uid_t *uids, size_t n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
