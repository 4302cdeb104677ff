/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.c - `run --cgroup`: the options, ucbench-<pid> and c<i> in each hierarchy. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/lists.h"
#include "core/util.h"
#include "host/cgroup/cgroup.h"
#include "host/cgroup/internal.h"

/* ---- options ---- */

/* --cgroup-set FILE=VALUE: FILE is CONTROLLER.NAME, a plain file name of a controller. */
static int
parse_set (struct ucb_cgroup *cg, const struct ucb_cgroup_opts *o, ucb_error_t *err)
{
  cg->set_file = xcalloc (o->nset, sizeof (char *));
  cg->set_value = xcalloc (o->nset, sizeof (char *));
  for (size_t i = 0; i < o->nset; i++)
    {
      const char *s = o->set[i], *eq = strchr (s, '=');
      size_t flen = eq ? (size_t) (eq - s) : 0, clen = strcspn (s, ".=");

      if (eq == NULL || flen == 0 || eq[1] == '\0' || strchr (eq, '\n'))
        return ucb_usage_error (err, "--cgroup-set `%s`: expected FILE=VALUE, e.g. pids.max=64", s);
      if (strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != flen
          || clen == 0 || clen + 1 >= flen || s[clen] != '.')
        return ucb_usage_error (err,
                                "--cgroup-set `%s`: FILE must be a controller file name "
                                "CONTROLLER.NAME (no `/`), e.g. memory.max",
                                s);
      if (clen == 6 && strncmp (s, "cgroup", 6) == 0)
        return ucb_usage_error (err,
                                "--cgroup-set `%s`: cgroup.* files are ucbench's own; set "
                                "controller files only",
                                s);
      cg->set_file[i] = xasprintf ("%.*s", (int) flen, s);
      cg->set_value[i] = xstrdup (eq + 1);
      cg->nset = i + 1;
      for (size_t j = 0; j < i; j++)
        if (strcmp (cg->set_file[j], cg->set_file[i]) == 0)
          return ucb_usage_error (err, "--cgroup-set %s is given twice", cg->set_file[i]);
      if (o->pids_max && strcmp (cg->set_file[i], "pids.max") == 0)
        return ucb_usage_error (err, "--pids-max and --cgroup-set pids.max: give only one");
      if (o->cpuset
          && (strcmp (cg->set_file[i], "cpuset.cpus") == 0
              || strcmp (cg->set_file[i], "cpuset.mems") == 0))
        return ucb_usage_error (err, "--cpuset sets %s itself: drop --cgroup-set %s",
                                cg->set_file[i], cg->set_file[i]);
    }
  return 0;
}

int
ucb_cgroup_check_opts (const struct ucb_cgroup_opts *o, ucb_error_t *err)
{
  struct ucb_cgroup tmp;
  int r;

  memset (&tmp, 0, sizeof tmp);
  r = parse_set (&tmp, o, err);
  for (size_t i = 0; i < tmp.nset; i++)
    {
      free (tmp.set_file[i]);
      free (tmp.set_value[i]);
    }
  free (tmp.set_file);
  free (tmp.set_value);
  return r;
}

static bool
hier_has (const struct ucb_cg_hier *h, const char *ctrl)
{
  return ucb_cg_ctrl_listed (h->ctrls, h->nctrls, ctrl);
}

/* Create ucbench-<pid> in one hierarchy; v1 cpuset needs cpus and mems before any task joins
 * (pitfall 6): copy the parent's. */
static int
create_parent_group (struct ucb_cgroup *cg, struct ucb_cg_hier *h, ucb_error_t *err)
{
  cleanup_free char *name = xasprintf ("ucbench-%d", (int) cg->pid);
  cleanup_free char *pdir = ucb_cg_dir_of (h->mount, h->parent_rel);
  cleanup_free char *subtree = NULL;
  struct ucb_cg_kv kv[2];
  size_t nkv = 0;
  cleanup_close int turn = -1;
  int jx;

  h->group_rel = ucb_cg_join_rel (h->parent_rel, name);
  h->group_dir = ucb_cg_dir_of (h->mount, h->group_rel);
  if (h->version == 2)
    {
      /* Concurrent runs take turns until the group exists: its own +controllers make a disable
       * above fail (EBUSY) while it does (share.c). */
      if (h->nctrls)
        {
          turn = ucb_cg2_take_turn (cg, h, err);
          if (turn < 0)
            return -1;
        }
      if (ucb_cg2_enable (cg, h, err) < 0)
        return -1;
      if (h->nctrls)
        {
          subtree = xstrdup ("");
          for (size_t i = 0; i < h->nctrls; i++)
            {
              char *s = xasprintf ("%s%s+%s", subtree, i ? " " : "", h->ctrls[i]);
              free (subtree);
              subtree = s;
            }
          kv[nkv++] = (struct ucb_cg_kv){ "cgroup.subtree_control", subtree };
        }
    }
  else
    {
      if (ucb_cg1_init (err) < 0)
        return -1;
      if (hier_has (h, "cpuset"))
        {
          cleanup_free char *cpus_path = xasprintf ("%s/cpuset.cpus", pdir);
          cleanup_free char *mems_path = xasprintf ("%s/cpuset.mems", pdir);
          if (ucb_read_file (cpus_path, &h->cpuset_cpus, err) < 0
              || ucb_read_file (mems_path, &h->cpuset_mems, err) < 0)
            return -1;
          if (*h->cpuset_cpus == '\0' || *h->cpuset_mems == '\0')
            return ucb_make_error (
                err, 0, "--cpuset: the parent cpuset %s has no CPUs or memory nodes", pdir);
          kv[nkv++] = (struct ucb_cg_kv){ "cpuset.cpus", h->cpuset_cpus };
          kv[nkv++] = (struct ucb_cg_kv){ "cpuset.mems", h->cpuset_mems };
        }
    }
  /* Another process's group (a pid namespace elsewhere) is not ours: not in the journal. */
  if (access (h->group_dir, F_OK) == 0)
    return ucb_make_error (err, EEXIST, "create cgroup %s", h->group_dir);
  jx = ucb_cg_journal_add (cg->journal, UCB_CG_J_GROUP, h->group_dir, NULL, h->version == 2, err);
  if (jx < 0)
    return -1;
  if (ucb_cg_hier_create (h, h->group_rel, kv, nkv, err) < 0)
    {
      if ((*err)->code == EEXIST)
        ucb_cg_journal_retract (cg->journal, jx);
      return -1;
    }
  h->created = true;
  for (size_t i = 0; i < cg->nset; i++)
    {
      size_t clen = strcspn (cg->set_file[i], ".");
      cleanup_free char *ctrl = xasprintf ("%.*s", (int) clen, cg->set_file[i]);
      cleanup_free char *file = NULL;
      if (!hier_has (h, ctrl))
        continue;
      file = xasprintf ("%s/%s", h->group_dir, cg->set_file[i]);
      if (access (file, F_OK) < 0)
        return ucb_usage_error (err,
                                "--cgroup-set %s=%s: no file %s in the %s hierarchy (cgroup v%d; "
                                "v1 and v2 names differ, e.g. memory.limit_in_bytes / memory.max)",
                                cg->set_file[i], cg->set_value[i], cg->set_file[i], h->name,
                                h->version);
    }
  return 0;
}

/* ---- the API ---- */

/* At most one entry per group, leaf, turn and controller at each level above a v2 group. */
static size_t
journal_capacity (const struct ucb_cgroup *cg)
{
  size_t n = cg->nh + 2;

  for (size_t i = 0; i < cg->nh; i++)
    {
      size_t levels = 1;
      for (const char *p = cg->h[i].parent_rel; *p; p++)
        levels += *p == '/';
      n += levels * cg->h[i].nctrls;
    }
  return n;
}

int
ucb_cgroup_open (const struct ucb_cgroup_opts *o, struct ucb_cgroup **out, ucb_error_t *err)
{
  struct ucb_cgroup *cg = xcalloc (1, sizeof *cg);
  char **need = NULL;
  size_t nneed = 0;
  int rc = -1;

  cg->pid = getpid ();
  cg->janitor_fd = -1;
  cg->cpuset = o->cpuset;
  cg->pids_max = o->pids_max;
  cg->own_parent = o->parent == NULL;
  if (parse_set (cg, o, err) < 0)
    goto out;
  cg->layout = ucb_cgroup_detect ();
  if (cg->layout == UCB_CG_NONE)
    {
      ucb_make_error (err, 0, "--cgroup: no cgroup filesystem at /sys/fs/cgroup");
      goto out;
    }
  /* pids is the membership and the backstop in v1; v2 groups are members without it. */
  if (cg->layout != UCB_CG_UNIFIED || o->pids_max)
    ucb_cg_ctrl_add (&need, &nneed, "pids");
  if (o->cpuset)
    ucb_cg_ctrl_add (&need, &nneed, "cpuset");
  for (size_t i = 0; i < cg->nset; i++)
    {
      cleanup_free char *ctrl
          = xasprintf ("%.*s", (int) strcspn (cg->set_file[i], "."), cg->set_file[i]);
      ucb_cg_ctrl_add (&need, &nneed, ctrl);
    }
  if (ucb_cg_resolve_hierarchies (cg, need, nneed, err) < 0
      || (o->parent && ucb_cg_resolve_parent (cg, o->parent, err) < 0)
      || ucb_cg_check_parents (cg, o->parent, err) < 0)
    goto out;
  /* The janitor first, then the changes, each journaled before it is made: a kill at any
   * point leaves it something complete to undo (issue 16). */
  cg->journal = ucb_cg_journal_new (journal_capacity (cg), err);
  if (cg->journal == NULL || ucb_cg_janitor_start (cg, err) < 0)
    goto out;
  for (size_t i = 0; i < cg->nh; i++)
    if (create_parent_group (cg, &cg->h[i], err) < 0)
      goto out;
  *out = steal_pointer (&cg);
  rc = 0;
out:
  ucb_free_items (need, nneed);
  ucb_cgroup_close (&cg);
  return rc;
}

/* cpuset.cpus: `cpus` may repeat and come in any order. */
static char *
cpu_list (const int *cpus, size_t n)
{
  cleanup_free int *v = xcalloc (n, sizeof *v);
  size_t m = 0;

  memcpy (v, cpus, n * sizeof *v);
  qsort (v, n, sizeof *v, ucb_cmp_int);
  for (size_t i = 0; i < n; i++)
    if (m == 0 || v[m - 1] != v[i])
      v[m++] = v[i];
  return ucb_format_cpu_list (v, m);
}

static void
container_free (struct ucb_cgroup *cg, struct ucb_cg_container *c)
{
  for (size_t i = 0; c->rel && i < cg->nh; i++)
    {
      free (c->rel[i]);
      free (c->procs[i]);
    }
  free (c->rel);
  free (c->procs);
  free (c->cpus);
  memset (c, 0, sizeof *c);
}

int
ucb_cgroup_create (struct ucb_cgroup *cg, unsigned index, const int *cpus, size_t ncpus,
                   ucb_error_t *err)
{
  cleanup_free char *name = xasprintf ("c%u", index);
  cleanup_free char *pids = xasprintf ("%" PRIu64, cg->pids_max);
  cleanup_free struct ucb_cg_kv *kv = xcalloc (cg->nset + 3, sizeof *kv);
  struct ucb_cg_container *c;

  if (index >= cg->nc)
    {
      cg->c = xrealloc (cg->c, (index + 1) * sizeof *cg->c);
      memset (&cg->c[cg->nc], 0, (index + 1 - cg->nc) * sizeof *cg->c);
      cg->nc = index + 1;
    }
  c = &cg->c[index];
  if (c->created)
    return ucb_make_error (err, EEXIST, "container cgroup %s", name);
  for (size_t i = 0; i < ncpus; i++)
    if (cpus[i] < 0)
      return ucb_make_error (err, 0, "container cgroup %s: CPU %d out of range", name, cpus[i]);
  c->cpus = cg->cpuset && ncpus ? cpu_list (cpus, ncpus) : NULL;
  c->rel = xcalloc (cg->nh, sizeof (char *));
  c->procs = xcalloc (cg->nh, sizeof (char *));
  for (size_t i = 0; i < cg->nh; i++)
    {
      const struct ucb_cg_hier *h = &cg->h[i];
      cleanup_free char *dir = NULL;
      size_t nkv = 0;

      if (cg->cpuset && hier_has (h, "cpuset") && (c->cpus || h->version == 1))
        kv[nkv++] = (struct ucb_cg_kv){ "cpuset.cpus", c->cpus ? c->cpus : h->cpuset_cpus };
      if (cg->cpuset && hier_has (h, "cpuset") && h->version == 1)
        kv[nkv++] = (struct ucb_cg_kv){ "cpuset.mems", h->cpuset_mems };
      if (cg->pids_max && hier_has (h, "pids"))
        kv[nkv++] = (struct ucb_cg_kv){ "pids.max", pids };
      for (size_t k = 0; k < cg->nset; k++)
        {
          cleanup_free char *ctrl
              = xasprintf ("%.*s", (int) strcspn (cg->set_file[k], "."), cg->set_file[k]);
          if (hier_has (h, ctrl))
            kv[nkv++] = (struct ucb_cg_kv){ cg->set_file[k], cg->set_value[k] };
        }
      c->rel[i] = ucb_cg_join_rel (h->group_rel, name);
      if (ucb_cg_hier_create (h, c->rel[i], kv, nkv, err) < 0)
        {
          ucb_error_t e2 = NULL;
          while (i-- > 0)
            if (ucb_cg_hier_remove (&cg->h[i], c->rel[i], &e2) < 0)
              ucb_error_free (&e2);
          container_free (cg, c);
          return -1;
        }
      dir = ucb_cg_dir_of (h->mount, c->rel[i]);
      c->procs[i] = xasprintf ("%s/cgroup.procs", dir);
    }
  c->created = true;
  return 0;
}

int
ucb_cgroup_attach_self (const struct ucb_cgroup *cg, unsigned index, ucb_error_t *err)
{
  const struct ucb_cg_container *c = index < cg->nc ? &cg->c[index] : NULL;
  char buf[24], *p = buf + sizeof buf;
  pid_t pid = getpid ();

  if (c == NULL || !c->created)
    return ucb_make_error (err, 0, "attach to container cgroup c%u: it was not created", index);
  /* No snprintf/malloc: this runs in a fork of ucbench. */
  for (unsigned long v = (unsigned long) pid; p == buf + sizeof buf || v; v /= 10)
    *--p = (char) ('0' + v % 10);
  for (size_t i = 0; i < cg->nh; i++)
    {
      int fd = open (c->procs[i], O_WRONLY | O_CLOEXEC);
      if (fd < 0 || ucb_write_all (fd, p, (size_t) (buf + sizeof buf - p)) < 0)
        {
          int e = errno;
          if (fd >= 0)
            close (fd);
          return ucb_make_error (err, e, "move pid %d into %s", (int) pid, c->procs[i]);
        }
      close (fd);
    }
  return 0;
}

int
ucb_cgroup_remove_containers (struct ucb_cgroup *cg, ucb_error_t *err)
{
  int rc = 0;

  for (size_t j = cg->nc; j-- > 0;)
    {
      struct ucb_cg_container *c = &cg->c[j];
      bool all = true;
      if (!c->created)
        continue;
      for (size_t i = cg->nh; i-- > 0;)
        {
          ucb_error_t e = NULL;
          if (c->rel[i] == NULL)
            continue;
          if (ucb_cg_hier_remove (&cg->h[i], c->rel[i], &e) < 0)
            {
              all = false;
              if (rc == 0 && err)
                {
                  ucb_error_free (err);
                  *err = steal_pointer (&e);
                }
              rc = -1;
              ucb_error_free (&e);
              continue;
            }
          free (c->rel[i]);
          c->rel[i] = NULL;
        }
      if (all)
        container_free (cg, c);
    }
  return rc;
}

pid_t
ucb_cgroup_janitor_pid (const struct ucb_cgroup *cg)
{
  return cg ? cg->janitor : 0;
}

/* Our own cleanup: true when nothing is left for the janitor. */
static bool
teardown (struct ucb_cgroup *cg)
{
  ucb_error_t e = NULL;
  bool ok = true, out;

  if (ucb_cgroup_remove_containers (cg, &e) < 0)
    {
      ok = false;
      ucb_error_free (&e);
    }
  for (size_t i = cg->nh; i-- > 0;)
    if (cg->h[i].created)
      {
        if (ucb_cg_hier_remove (&cg->h[i], cg->h[i].group_rel, &e) < 0)
          {
            ok = false;
            ucb_error_free (&e);
            continue;
          }
        cg->h[i].created = false;
      }
  /* The controllers (the last run out disables them), then back into X; the leaf goes once
   * the janitor has left it. */
  if (ucb_cg2_release (cg->journal, cg->self_moved, &out) > 0)
    ok = false;
  if (out)
    cg->self_moved = false;
  return ok;
}

void
ucb_cgroup_close (struct ucb_cgroup **pcg)
{
  struct ucb_cgroup *cg = pcg ? *pcg : NULL;

  if (cg == NULL)
    return;
  *pcg = NULL;
  if (getpid () == cg->pid)
    {
      /* "D": nothing is left for the janitor.  Without it, it does the job itself. */
      if (teardown (cg) && cg->janitor_fd >= 0 && send (cg->janitor_fd, "D", 1, MSG_NOSIGNAL) < 0)
        {
          /* it is gone already */
        }
      if (cg->janitor_fd >= 0)
        close (cg->janitor_fd);
      if (cg->janitor > 0)
        while (waitpid (cg->janitor, NULL, 0) < 0 && errno == EINTR)
          ;
      if (cg->self_leaf && (!cg->self_moved || ucb_cg2_leave_leaf (cg->self_from) == 0))
        ucb_cg2_remove_leaf (cg->self_leaf);
    }
  else if (cg->janitor_fd >= 0)
    close (cg->janitor_fd); /* in a fork of ucbench (an owner that unwinds): the memory only */
  for (size_t j = 0; j < cg->nc; j++)
    container_free (cg, &cg->c[j]);
  free (cg->c);
  for (size_t i = 0; i < cg->nh; i++)
    {
      struct ucb_cg_hier *h = &cg->h[i];
      ucb_free_items (h->ctrls, h->nctrls);
      free (h->name);
      free (h->mount);
      free (h->parent_rel);
      free (h->group_rel);
      free (h->group_dir);
      free (h->cpuset_cpus);
      free (h->cpuset_mems);
    }
  free (cg->h);
  for (size_t i = 0; i < cg->nchanges; i++)
    {
      free (cg->changes[i].dir);
      free (cg->changes[i].ctrl);
    }
  free (cg->changes);
  ucb_free_items (cg->set_file, cg->nset);
  ucb_free_items (cg->set_value, cg->nset);
  free (cg->self_from);
  free (cg->self_leaf);
  free (cg->self_rel);
  ucb_cg_journal_free (cg->journal);
  free (cg);
}

/* ---- what was set up, for the document ---- */

void
ucb_cgroup_info (const struct ucb_cgroup *cg, struct ucb_cgroup_info *out)
{
  *out = (struct ucb_cgroup_info){
    .layout = cg->layout,
    .pid = cg->pid,
    .cpuset = cg->cpuset,
    .pids_max = cg->pids_max,
    .set_file = (const char *const *) cg->set_file,
    .set_value = (const char *const *) cg->set_value,
    .nset = cg->nset,
    .nhier = cg->nh,
    .nchanges = cg->nchanges,
    .moved_self = cg->self_rel,
  };
}

void
ucb_cgroup_hier_info (const struct ucb_cgroup *cg, size_t i, struct ucb_cgroup_hier_info *out)
{
  const struct ucb_cg_hier *h = &cg->h[i];

  *out = (struct ucb_cgroup_hier_info){
    .name = h->name,
    .version = h->version,
    .backend = h->version == 1 ? "libcgroup" : "cgroupfs",
    .mount = h->mount,
    .controllers = (const char *const *) h->ctrls,
    .ncontrollers = h->nctrls,
    .parent = h->parent_rel,
    .group = h->group_rel,
  };
}

void
ucb_cgroup_change_info (const struct ucb_cgroup *cg, size_t i, const char **dir,
                        const char **controller)
{
  *dir = cg->changes[i].dir;
  *controller = cg->changes[i].ctrl;
}

struct ucb_cgroup_container_info *
ucb_cgroup_container_info (const struct ucb_cgroup *cg, unsigned index)
{
  const struct ucb_cg_container *c = index < cg->nc ? &cg->c[index] : NULL;
  struct ucb_cgroup_container_info *ci;

  if (c == NULL || !c->created)
    return NULL;
  ci = xcalloc (1, sizeof *ci);
  ci->index = index;
  ci->ngroups = cg->nh;
  ci->hier = xcalloc (cg->nh + 1, sizeof *ci->hier);
  ci->group = xcalloc (cg->nh + 1, sizeof *ci->group);
  for (size_t i = 0; i < cg->nh; i++)
    {
      ci->hier[i] = xstrdup (cg->h[i].name);
      ci->group[i] = xstrdup (c->rel[i]);
    }
  ci->cpuset_cpus = c->cpus ? xstrdup (c->cpus) : NULL;
  return ci;
}

void
ucb_cgroup_container_info_free (struct ucb_cgroup_container_info *ci)
{
  if (ci == NULL)
    return;
  ucb_free_items (ci->hier, ci->ngroups);
  ucb_free_items (ci->group, ci->ngroups);
  free (ci->cpuset_cpus);
  free (ci);
}
