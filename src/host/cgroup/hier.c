/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hier.c - `run --cgroup`: the hierarchy that holds each controller, the parents ucbench creates
 * its group under, and creating and removing a group in either version. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/util.h"
#include "host/cgroup/internal.h"
#include "host/cgroup/layout.h"

static struct ucb_cg_hier *
new_hier (struct ucb_cgroup *cg)
{
  cg->h = xrealloc (cg->h, (cg->nh + 1) * sizeof *cg->h);
  memset (&cg->h[cg->nh], 0, sizeof *cg->h);
  return &cg->h[cg->nh++];
}

/* The v1 hierarchy holding `ctrl`, added on first use; 1 when no v1 hierarchy has it. */
static int
use_v1 (struct ucb_cgroup *cg, const char *self, const char *ctrl, ucb_error_t *err)
{
  cleanup_free char *ctrls = NULL, *path = NULL, *mp = NULL, *root = NULL;
  struct ucb_cg_hier *h;

  if (!ucb_cg_find_line (self, ctrl, &ctrls, &path))
    return 1;
  for (size_t i = 0; i < cg->nh; i++)
    if (cg->h[i].version == 1 && strcmp (cg->h[i].name, ctrls) == 0)
      {
        ucb_cg_ctrl_add (&cg->h[i].ctrls, &cg->h[i].nctrls, ctrl);
        return 0;
      }
  if (!ucb_cg_find_mount (NULL, ctrl, &mp, &root))
    return ucb_make_error (err, 0, "--cgroup: the cgroup v1 hierarchy of %s is not mounted", ctrl);
  h = new_hier (cg);
  h->version = 1;
  h->name = steal_pointer (&ctrls);
  h->mount = steal_pointer (&mp);
  ucb_cg_ctrl_add (&h->ctrls, &h->nctrls, ctrl);
  h->parent_rel = ucb_cg_rel_to_mount (path, root);
  if (h->parent_rel == NULL)
    return ucb_make_error (err, 0, "--cgroup: ucbench's cgroup %s is not under the mount %s", path,
                           h->mount);
  return 0;
}

/* The unified hierarchy, added on first use; `ctrl` (if any) must be in its root's
 * cgroup.controllers. */
static int
use_v2 (struct ucb_cgroup *cg, const char *self, const char *ctrl, ucb_error_t *err)
{
  const char *mount = ucb_cg_v2_mount (cg->layout);
  cleanup_free char *avail_path = NULL, *avail = NULL, *path = NULL, *mp = NULL, *root = NULL;
  struct ucb_cg_hier *h = NULL;

  if (mount == NULL) /* the callers ask only on unified and hybrid layouts */
    return ucb_make_error (err, 0, "--cgroup: no unified hierarchy on this %s layout",
                           ucb_cg_layout_name (cg->layout));
  avail_path = xasprintf ("%s/cgroup.controllers", mount);

  for (size_t i = 0; i < cg->nh; i++)
    if (cg->h[i].version == 2)
      h = &cg->h[i];
  if (ctrl)
    {
      if (ucb_read_file (avail_path, &avail, err) < 0)
        return -1;
      if (!ucb_cg_list_has (avail, strlen (avail), ctrl, ' ') && cg->layout == UCB_CG_UNIFIED)
        return ucb_make_error (err, 0,
                               "controller %s is not available in the unified hierarchy "
                               "(cgroup.controllers: %s); it may be bound to a v1 hierarchy",
                               ctrl, *avail ? avail : "none");
      if (!ucb_cg_list_has (avail, strlen (avail), ctrl, ' '))
        return ucb_make_error (err, 0,
                               "controller %s is not available: no cgroup v1 hierarchy has it and "
                               "the unified hierarchy has only `%s` (hybrid layout)",
                               ctrl, *avail ? avail : "none");
    }
  if (h == NULL)
    {
      if (!ucb_cg_find_line (self, NULL, NULL, &path))
        return ucb_make_error (err, 0, "--cgroup: /proc/self/cgroup has no cgroup v2 (0::) line");
      if (!ucb_cg_find_mount (mount, NULL, &mp, &root))
        root = xstrdup ("/");
      h = new_hier (cg);
      h->version = 2;
      h->name = xstrdup ("unified");
      h->mount = xstrdup (mount);
      h->parent_rel = ucb_cg_rel_to_mount (path, root);
      if (h->parent_rel == NULL)
        return ucb_make_error (err, 0, "--cgroup: ucbench's cgroup %s is not under the mount %s",
                               path, mount);
    }
  if (ctrl)
    ucb_cg_ctrl_add (&h->ctrls, &h->nctrls, ctrl);
  return 0;
}

/* Each controller to the hierarchy that has it: v1 first on legacy/hybrid (libcgroup), the
 * unified hierarchy for what only it has; everything in the unified one on a pure v2 host. */
int
ucb_cg_resolve_hierarchies (struct ucb_cgroup *cg, char **need, size_t nneed, ucb_error_t *err)
{
  cleanup_free char *self = NULL;

  if (ucb_read_file ("/proc/self/cgroup", &self, err) < 0)
    return -1;
  if (cg->layout == UCB_CG_UNIFIED)
    {
      if (use_v2 (cg, self, NULL, err) < 0)
        return -1;
      for (size_t i = 0; i < nneed; i++)
        if (use_v2 (cg, self, need[i], err) < 0)
          return -1;
      return 0;
    }
  for (size_t i = 0; i < nneed; i++)
    {
      int r = use_v1 (cg, self, need[i], err);
      if (r < 0)
        return -1;
      if (r == 0)
        continue;
      if (cg->layout == UCB_CG_LEGACY)
        return ucb_make_error (err, 0,
                               "controller %s is not available: no cgroup v1 hierarchy has it "
                               "(legacy layout)",
                               need[i]);
      if (use_v2 (cg, self, need[i], err) < 0)
        return -1;
    }
#ifndef HAVE_CGROUP
  for (size_t i = 0; i < cg->nh; i++)
    if (cg->h[i].version == 1)
      return ucb_make_error (err, 0,
                             "--cgroup on this %s cgroup layout needs libcgroup for the v1 "
                             "hierarchy of %s, and this ucbench was built without it: install "
                             "libcgroup-dev and rebuild",
                             ucb_cg_layout_name (cg->layout), cg->h[i].ctrls[0]);
#endif
  return 0;
}

static bool
delegated (const char *dir)
{
  static const char *const names[] = { "trusted.delegate", "user.delegate" };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (names); i++)
    {
      char v[8];
      ssize_t n = getxattr (dir, names[i], v, sizeof v);
      if (n == 1 && v[0] == '1')
        return true;
    }
  return false;
}

/* --cgroup=PARENT: relative to the hierarchy root, or absolute under a mount point in use. */
int
ucb_cg_resolve_parent (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
{
  cleanup_free char *rel = NULL;
  size_t best = 0;

  if (parent[0] == '/')
    for (size_t i = 0; i < cg->nh; i++)
      {
        size_t n = strlen (cg->h[i].mount);
        if (n > best && strncmp (parent, cg->h[i].mount, n) == 0
            && (parent[n] == '/' || parent[n] == '\0'))
          best = n;
      }
  rel = ucb_cg_norm_rel (parent + best);
  if (rel == NULL)
    return ucb_usage_error (err, "--cgroup=%s: PARENT must not contain `..`", parent);
  for (size_t i = 0; i < cg->nh; i++)
    {
      free (cg->h[i].parent_rel);
      cg->h[i].parent_rel = xstrdup (rel);
    }
  return 0;
}

int
ucb_cg_check_parents (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
{
  bool systemd = access ("/run/systemd/system", F_OK) == 0;

  for (size_t i = 0; i < cg->nh; i++)
    {
      struct ucb_cg_hier *h = &cg->h[i];
      cleanup_free char *dir = ucb_cg_dir_of (h->mount, h->parent_rel);
      struct stat st;

      if (stat (dir, &st) < 0 || !S_ISDIR (st.st_mode))
        {
          if (parent)
            return ucb_usage_error (err,
                                    "--cgroup=%s: no such cgroup %s in the %s hierarchy; PARENT "
                                    "must exist",
                                    parent, dir, h->name);
          return ucb_make_error (err, ENOTDIR, "ucbench's own cgroup %s", dir);
        }
      if (faccessat (AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
        return ucb_cg_access_error (err, dir);
      /* Do not write into systemd's tree outside a delegated subtree. */
      if (h->version == 2 && systemd && parent == NULL && !delegated (dir))
        return ucb_make_error (err, 0,
                               "--cgroup: ucbench's cgroup %s belongs to systemd and is not "
                               "delegated; run under `systemd-run --scope -p Delegate=yes "
                               "ucbench ...` or pass --cgroup=PARENT naming an empty delegated "
                               "group",
                               dir);
    }
  return 0;
}

int
ucb_cg_hier_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                    size_t nkv, ucb_error_t *err)
{
  return h->version == 1 ? ucb_cg1_create (h, rel, kv, nkv, err)
                         : ucb_cg2_create (h, rel, kv, nkv, err);
}

/* Remove one empty group; processes still inside after a point are killed (the backstop) and
 * EBUSY retried for UCB_CG_REMOVE_RETRY_MS. */
int
ucb_cg_hier_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
{
  cleanup_free char *dir = ucb_cg_dir_of (h->mount, rel);
  uint64_t t0 = ucb_now_ns ();

  for (;;)
    {
      int r;
      if (h->version == 1)
        r = ucb_cg1_remove (h, rel, err);
      else if (rmdir (dir) == 0 || errno == ENOENT)
        r = 0;
      else
        r = ucb_make_error (err, errno, "remove cgroup %s", dir);
      if (r == 0)
        return 0;
      if ((*err)->code != EBUSY || ucb_cg_ms_since (t0) > UCB_CG_REMOVE_RETRY_MS)
        return -1;
      ucb_error_free (err);
      ucb_cg_kill_tree (dir, h->version == 2);
      ucb_cg_sleep_ms (10);
    }
}
