/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owner.h - owner uids of containers, and the check that nobody else uses them. */
#ifndef UCB_OWNER_H
#define UCB_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"
#include "engine/plan.h"

/* The owner uid of container `index` under mode `m` (default uids start at `base`). */
uid_t ucb_owner_uid (const struct ucb_owner_mode *m, uint32_t base, unsigned index);
/* Whether the mode draws from ucbench's default range (and so must be unused). */
bool ucb_owner_is_default_range (const struct ucb_owner_mode *m);
/* The same mode: kind and uids. */
bool ucb_owner_same (const struct ucb_owner_mode *a, const struct ucb_owner_mode *b);

/* Every owner uid a run with these options may use, sorted and unique; `strict` gets the
 * subset that must be unused (the default range). */
void ucb_owner_collect (const struct ucb_plan *o, uid_t **all, size_t *nall, uid_t **strict,
                        size_t *nstrict);

#endif
