/* owner.h - owner uids of containers, and the check that nobody else uses them. */
#ifndef UCB_OWNER_H
#define UCB_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"
#include "cli/options.h"

/* The owner uid of container `index` under mode `m` (default uids start at `base`). */
uid_t ucb_owner_uid (const struct ucb_owner_mode *m, uint32_t base, unsigned index);
/* Whether the mode draws from ucbench's default range (and so must be unused). */
bool ucb_owner_is_default_range (const struct ucb_owner_mode *m);

/* Find users of `uids`: a running process with any of them as real, effective, saved or fs
 * uid, or a passwd entry.  Returns the number found and describes the first in `*who`. */
size_t ucb_owner_find_users (const uid_t *uids, size_t n, char **who);

/* Every owner uid a run with these options may use, sorted and unique; `strict` gets the
 * subset that must be unused (the default range). */
void ucb_owner_collect (const struct ucb_run_options *o, uid_t **all, size_t *nall, uid_t **strict,
                        size_t *nstrict);

/* Becoming another uid needs CAP_SETUID/CAP_SETGID: say so before anything starts. */
/* CAP_SETUID and CAP_SETGID in the effective set: owner modes other than self work. */
bool ucb_owner_can_set_ids (void);
int ucb_owner_check_privilege (const uid_t *uids, size_t n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
