/* SPDX-License-Identifier: GPL-2.0-or-later */
/* v1.c - the v1 hierarchies through libcgroup 2.0.2: create a group with values, delete. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "host/cgroup/internal.h"

#ifdef HAVE_CGROUP
#include <libcgroup.h>

/* ECGOTHER means "see cgroup_get_last_errno()", and cgroup_strerror() may then say "Success":
 * report both numbers. */
static int
lcg_error (ucb_error_t *err, int rc, const char *what)
{
  if (rc == ECGOTHER)
    {
      int e = cgroup_get_last_errno ();
      return ucb_make_error (err, e, "%s: libcgroup error %d (ECGOTHER), errno %d", what, rc, e);
    }
  return ucb_make_error (err, 0, "%s: libcgroup error %d: %s", what, rc, cgroup_strerror (rc));
}

int
ucb_cg1_init (ucb_error_t *err)
{
  static bool done;
  int rc;

  if (done)
    return 0;
  rc = cgroup_init ();
  if (rc != 0)
    return lcg_error (err, rc, "cgroup_init");
  done = true;
  return 0;
}

/* A libcgroup group `rel` (its names are relative to the hierarchy root, pitfall 4) with every
 * controller ucbench uses in this hierarchy. */
static struct cgroup *
new_group (const struct ucb_cg_hier *h, const char *rel, struct cgroup_controller **cc)
{
  struct cgroup *g = cgroup_new_cgroup (rel[0] == '/' ? rel + 1 : rel);

  if (g == NULL)
    ucb_oom ();
  for (size_t i = 0; i < h->nctrls; i++)
    {
      cc[i] = cgroup_add_controller (g, h->ctrls[i]);
      if (cc[i] == NULL)
        ucb_oom ();
    }
  return g;
}

int
ucb_cg1_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                size_t nkv, ucb_error_t *err)
{
  cleanup_free struct cgroup_controller **cc = xcalloc (h->nctrls, sizeof *cc);
  cleanup_free char *dir = xasprintf ("%s%s", h->mount, rel);
  cleanup_free char *what = NULL;
  struct cgroup *g;
  struct stat st;
  int rc;

  /* libcgroup's mkdir accepts an existing directory; another run's group is not ours. */
  if (stat (dir, &st) == 0)
    return ucb_make_error (err, EEXIST, "create cgroup %s", dir);
  g = new_group (h, rel, cc);
  what = xasprintf ("create cgroup %s:%s", h->name, rel);
  for (size_t k = 0; k < nkv; k++)
    {
      size_t len = strcspn (kv[k].file, ".");
      for (size_t i = 0; i < h->nctrls; i++)
        if (strlen (h->ctrls[i]) == len && strncmp (h->ctrls[i], kv[k].file, len) == 0)
          {
            char *more = xasprintf ("%s%s %s=%s", what, k ? "," : " with", kv[k].file, kv[k].value);
            free (what);
            what = more;
            if (cgroup_add_value_string (cc[i], kv[k].file, kv[k].value) != 0)
              ucb_oom ();
            break;
          }
    }
  rc = cgroup_create_cgroup (g, 1);
  if (rc != 0)
    {
      lcg_error (err, rc, what);
      /* The directory may exist with a value not written: take it away again. */
      cgroup_delete_cgroup_ext (g, CGFLAG_DELETE_EMPTY_ONLY);
    }
  cgroup_free (&g);
  return rc != 0 ? -1 : 0;
}

int
ucb_cg1_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
{
  cleanup_free struct cgroup_controller **cc = xcalloc (h->nctrls, sizeof *cc);
  cleanup_free char *what = xasprintf ("remove cgroup %s:%s", h->name, rel);
  struct cgroup *g = new_group (h, rel, cc);
  /* EMPTY_ONLY: a process left inside must not be moved up into ucbench-<pid> and escape. */
  int rc = cgroup_delete_cgroup_ext (g, CGFLAG_DELETE_EMPTY_ONLY);

  cgroup_free (&g);
  if (rc == ECGNONEMPTY)
    return ucb_make_error (err, EBUSY, "%s", what);
  if (rc != 0)
    return lcg_error (err, rc, what);
  return 0;
}

#else /* !HAVE_CGROUP */

static int
no_libcgroup (ucb_error_t *err)
{
  return ucb_make_error (err, 0,
                         "--cgroup needs libcgroup for cgroup v1 hierarchies, and this ucbench "
                         "was built without it: install libcgroup-dev and rebuild");
}

int
ucb_cg1_init (ucb_error_t *err)
{
  return no_libcgroup (err);
}

int
ucb_cg1_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                size_t nkv, ucb_error_t *err)
{
  (void) h;
  (void) rel;
  (void) kv;
  (void) nkv;
  return no_libcgroup (err);
}

int
ucb_cg1_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
{
  (void) h;
  (void) rel;
  return no_libcgroup (err);
}

#endif
