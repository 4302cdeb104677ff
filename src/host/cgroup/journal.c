/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.c - `run --cgroup`: the changes ucbench is about to make, in memory it shares with the
 * janitor.  Each entry is written before its change and published by the count (release), so
 * the janitor (acquire) never sees half an entry, and every change it may have to undo is
 * listed. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "core/util.h"
#include "host/cgroup/internal.h"

static size_t
journal_bytes (size_t cap)
{
  return sizeof (struct ucb_cg_journal) + cap * sizeof (struct ucb_cg_jentry);
}

struct ucb_cg_journal *
ucb_cg_journal_new (size_t cap, ucb_error_t *err)
{
  /* MAP_SHARED, made before the janitor is forked: its copy is this memory, not a snapshot. */
  void *p
      = mmap (NULL, journal_bytes (cap), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  struct ucb_cg_journal *j;

  if (p == MAP_FAILED)
    {
      ucb_make_error (err, errno, "map the cgroup journal");
      return NULL;
    }
  j = p;
  j->cap = cap;
  return j;
}

void
ucb_cg_journal_free (struct ucb_cg_journal *j)
{
  if (j)
    munmap (j, journal_bytes (j->cap));
}

static int
journal_put (struct ucb_cg_journal *j, enum ucb_cg_jkind kind, const char *path, const char *ctrl,
             bool v2, bool shared, ucb_error_t *err)
{
  size_t n = __atomic_load_n (&j->n, __ATOMIC_RELAXED);
  struct ucb_cg_jentry *e;

  /* A change that is not in the journal must not be made: refuse it instead. */
  if (n >= j->cap)
    return ucb_make_error (err, ENOSPC, "cgroup journal: no room for %s", path);
  if (strlen (path) >= sizeof e->path || (ctrl && strlen (ctrl) >= sizeof e->ctrl))
    return ucb_make_error (err, ENAMETOOLONG, "cgroup journal: %s", path);
  e = &j->e[n];
  memset (e, 0, sizeof *e);
  e->kind = kind;
  e->v2 = v2;
  e->shared = shared;
  strcpy (e->path, path);
  if (ctrl)
    strcpy (e->ctrl, ctrl);
  __atomic_store_n (&j->n, n + 1, __ATOMIC_RELEASE);
  return (int) n;
}

int
ucb_cg_journal_add (struct ucb_cg_journal *j, enum ucb_cg_jkind kind, const char *path,
                    const char *ctrl, bool v2, ucb_error_t *err)
{
  return journal_put (j, kind, path, ctrl, v2, false, err);
}

int
ucb_cg_journal_add_shared (struct ucb_cg_journal *j, const char *path, const char *ctrl,
                           ucb_error_t *err)
{
  return journal_put (j, UCB_CG_J_ENABLE, path, ctrl, true, true, err);
}

void
ucb_cg_journal_unshare (struct ucb_cg_journal *j, int index)
{
  if (index >= 0 && (size_t) index < __atomic_load_n (&j->n, __ATOMIC_RELAXED))
    __atomic_store_n (&j->e[index].shared, false, __ATOMIC_RELEASE);
}

void
ucb_cg_journal_retract (struct ucb_cg_journal *j, int index)
{
  if (index >= 0 && (size_t) index < __atomic_load_n (&j->n, __ATOMIC_RELAXED))
    __atomic_store_n (&j->e[index].kind, UCB_CG_J_NONE, __ATOMIC_RELEASE);
}

size_t
ucb_cg_journal_count (const struct ucb_cg_journal *j)
{
  return j ? __atomic_load_n (&j->n, __ATOMIC_ACQUIRE) : 0;
}
