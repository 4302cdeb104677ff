/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owner.c - owner uids of containers, and the check that nobody else uses them.
 *
 * Containers made by a uid that real processes also use would share ucounts with them and
 * measure someone else's signals; so the default range must be free, and is checked. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/owner.h"
#include "host/users.h"

uid_t
ucb_owner_uid (const struct ucb_owner_mode *m, uint32_t base, unsigned index)
{
  switch (m->kind)
    {
    case UCB_OWNER_SHARED:
      return base;
    case UCB_OWNER_DISTINCT:
      return base + index;
    case UCB_OWNER_ROOT:
      return 0;
    case UCB_OWNER_SELF:
      return getuid ();
    case UCB_OWNER_UID:
      return m->lo;
    case UCB_OWNER_RANGE:
      return m->lo + index % (m->hi - m->lo + 1u);
    default:
      return (uid_t) -1;
    }
}

bool
ucb_owner_same (const struct ucb_owner_mode *a, const struct ucb_owner_mode *b)
{
  return a->kind == b->kind && a->lo == b->lo && a->hi == b->hi;
}

bool
ucb_owner_is_default_range (const struct ucb_owner_mode *m)
{
  return m->kind == UCB_OWNER_SHARED || m->kind == UCB_OWNER_DISTINCT;
}

static size_t
sort_unique (uid_t *v, size_t n)
{
  size_t k = 0;

  if (n == 0)
    return 0; /* v may be NULL, which qsort must not see */
  qsort (v, n, sizeof *v, ucb_cmp_uid);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[k - 1] != v[i])
      v[k++] = v[i];
  return k;
}

static void
append_uids (const struct ucb_plan *o, const struct ucb_owner_mode *m, uid_t **v, size_t *n)
{
  unsigned maxc = 0;

  /* Your own uid: of course in use, and needs no privilege. */
  if (m->kind == UCB_OWNER_SELF)
    return;
  for (size_t j = 0; j < o->n_containers; j++)
    if (o->containers[j] > maxc)
      maxc = o->containers[j];
  for (unsigned i = 0; i < maxc; i++)
    {
      uid_t u = ucb_owner_uid (m, o->uid_base, i);
      if (u == 0)
        continue;
      *v = xrealloc (*v, (*n + 1) * sizeof **v);
      (*v)[(*n)++] = u;
      if (m->kind == UCB_OWNER_SHARED || m->kind == UCB_OWNER_UID)
        break;
    }
}

void
ucb_owner_collect (const struct ucb_plan *o, uid_t **all, size_t *nall, uid_t **strict,
                   size_t *nstrict)
{
  *all = *strict = NULL;
  *nall = *nstrict = 0;
  for (size_t i = 0; i < o->n_owners; i++)
    {
      append_uids (o, &o->owners[i], all, nall);
      if (ucb_owner_is_default_range (&o->owners[i]))
        append_uids (o, &o->owners[i], strict, nstrict);
    }
  *nall = sort_unique (*all, *nall);
  *nstrict = sort_unique (*strict, *nstrict);
}
