/* SPDX-License-Identifier: GPL-2.0-or-later */
/* v2.c - the unified hierarchy through plain cgroupfs: subtree_control, mkdir, writes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "host/cgroup/internal.h"

/* Is `w` one of the controllers of a cgroup.subtree_control text? */
static bool
has_word (const char *list, const char *w)
{
  return ucb_cg_list_has (list, strlen (list), w, ' ');
}

/* write() of the whole string to dir/file; -1 with errno. */
static int
write_in (const char *dir, const char *file, const char *data)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0 || ucb_write_all (fd, data, strlen (data)) < 0)
    return -1;
  return 0;
}

/* Why a write of +ctrl to dir/cgroup.subtree_control failed (errno e). */
static int
enable_error (ucb_error_t *err, int e, const char *dir, const char *ctrl, bool root)
{
  if (e == EACCES || e == EPERM || e == EROFS)
    return ucb_cg_access_error (err, dir);
  /* "No internal processes": only the root may have both processes and controllers. */
  if (e == EBUSY && !root)
    return ucb_make_error (
        err, 0,
        "--cgroup: cannot enable controller %s in %s: it has processes of its own; run "
        "under `systemd-run --scope -p Delegate=yes ucbench ...` or pass --cgroup=PARENT "
        "naming an empty delegated group",
        ctrl, dir);
  return ucb_make_error (err, e, "enable controller %s in %s/cgroup.subtree_control", ctrl, dir);
}

/* Under the turn: each controller of `h` in dir/cgroup.subtree_control.  One enabled without
 * ucbench's record is someone else's: untouched.  One in the record, or missing (then recorded
 * and enabled), is journaled as shared: the last run out disables it.  Where no record can be
 * written it is this run's own, disabled by it alone (issue 25). */
static int
enable_in (struct ucb_cgroup *cg, struct ucb_cg_hier *h, const char *dir, bool root,
           ucb_error_t *err)
{
  cleanup_free char *sc = NULL;
  cleanup_free char *path = xasprintf ("%s/cgroup.subtree_control", dir);

  if (ucb_read_file (path, &sc, err) < 0)
    return -1;
  for (size_t i = 0; i < h->nctrls; i++)
    {
      cleanup_free char *cmd = xasprintf ("+%s", h->ctrls[i]);
      int rec = ucb_cg2_recorded (dir, h->ctrls[i]), jx, e;
      bool on = has_word (sc, h->ctrls[i]);
      struct ucb_cg_change *ch;

      if (on && rec != 1)
        continue;
      jx = rec >= 0
               ? ucb_cg_journal_add_shared (cg->journal, dir, h->ctrls[i], err)
               : ucb_cg_journal_add (cg->journal, UCB_CG_J_ENABLE, dir, h->ctrls[i], true, err);
      if (jx < 0)
        return -1;
      if (on)
        continue;
      /* Recorded before it is made, as journaled: a kill between the two costs nothing. */
      if (rec == 0 && ucb_cg2_record (dir, h->ctrls[i], true) < 0)
        {
          rec = -1;
          ucb_cg_journal_unshare (cg->journal, jx);
        }
      if (write_in (dir, "cgroup.subtree_control", cmd) < 0)
        {
          e = errno;
          if (rec == 0 && ucb_cg2_record (dir, h->ctrls[i], false) < 0)
            {
              /* left listed: the next run enables it again, or its last one drops it */
            }
          return enable_error (err, e, dir, h->ctrls[i], root);
        }
      cg->changes = xrealloc (cg->changes, (cg->nchanges + 1) * sizeof *cg->changes);
      ch = &cg->changes[cg->nchanges++];
      ch->dir = xstrdup (dir);
      ch->ctrl = xstrdup (h->ctrls[i]);
    }
  return 0;
}

/* Is the text of a cgroup.procs ucbench (`pid`) and at most its janitor, one line each? */
static bool
only_us (const char *procs, pid_t pid, pid_t janitor)
{
  cleanup_free char *copy = xstrdup (procs);
  bool seen = false;

  for (char *save = NULL, *t = strtok_r (copy, "\n", &save); t; t = strtok_r (NULL, "\n", &save))
    {
      uint64_t v;
      if (ucb_parse_u64 (t, 1, INT32_MAX, &v) < 0 || ((pid_t) v != pid && (pid_t) v != janitor))
        return false;
      seen |= (pid_t) v == pid;
    }
  return seen;
}

/* Write `pid` into dir/cgroup.procs; 0 or -1 with errno. */
static int
move_pid (const char *dir, pid_t pid)
{
  char pid_s[24];

  snprintf (pid_s, sizeof pid_s, "%d", (int) pid);
  return write_in (dir, "cgroup.procs", pid_s);
}

/* "No internal processes": controllers cannot be enabled in a non-root group that holds
 * processes, and ucbench sits in its own group X.  As runtimes do, when ucbench is alone in X
 * (with its janitor), both move into the leaf X/ucbench-<pid>-self first; with others there,
 * enabling fails with the hint. */
static int
move_self (struct ucb_cgroup *cg, struct ucb_cg_hier *h, ucb_error_t *err)
{
  cleanup_free char *x = ucb_cg_dir_of (h->mount, h->parent_rel);
  cleanup_free char *name = xasprintf ("ucbench-%d-self", (int) cg->pid);
  cleanup_free char *sc_path = xasprintf ("%s/cgroup.subtree_control", x);
  cleanup_free char *procs_path = xasprintf ("%s/cgroup.procs", x);
  cleanup_free char *sc = NULL, *procs = NULL, *rel = NULL, *leaf = NULL;
  bool missing = false;
  int jx;

  if (!cg->own_parent || strcmp (h->parent_rel, "/") == 0 || cg->self_from)
    return 0;
  if (ucb_read_file (sc_path, &sc, err) < 0 || ucb_read_file (procs_path, &procs, err) < 0)
    return -1;
  for (size_t i = 0; i < h->nctrls; i++)
    missing |= !has_word (sc, h->ctrls[i]);
  if (!missing || !only_us (procs, cg->pid, cg->janitor))
    return 0;
  rel = ucb_cg_join_rel (h->parent_rel, name);
  leaf = ucb_cg_dir_of (h->mount, rel);
  jx = ucb_cg_journal_add (cg->journal, UCB_CG_J_LEAF, leaf, NULL, true, err);
  if (jx < 0)
    return -1;
  if (mkdir (leaf, 0755) < 0)
    {
      int e = errno;
      if (e == EEXIST)
        ucb_cg_journal_retract (cg->journal, jx);
      if (e == EACCES || e == EPERM || e == EROFS)
        return ucb_cg_access_error (err, x);
      return ucb_make_error (err, e, "create cgroup %s", leaf);
    }
  /* From here on close() removes the leaf.  The janitor moves too: X must be empty, and it
   * leaves the leaf last (janitor.c). */
  cg->self_from = steal_pointer (&x);
  cg->self_leaf = steal_pointer (&leaf);
  cg->self_rel = steal_pointer (&rel);
  if (move_pid (cg->self_leaf, cg->pid) < 0)
    return ucb_make_error (err, errno, "move ucbench (pid %d) into %s", (int) cg->pid,
                           cg->self_leaf);
  cg->self_moved = true;
  if (cg->janitor > 0 && move_pid (cg->self_leaf, cg->janitor) < 0)
    return ucb_make_error (err, errno, "move the cgroup janitor (pid %d) into %s",
                           (int) cg->janitor, cg->self_leaf);
  return 0;
}

int
ucb_cg2_enable (struct ucb_cgroup *cg, struct ucb_cg_hier *h, ucb_error_t *err)
{
  cleanup_free char *dir = xstrdup (h->mount);
  const char *p = h->parent_rel;

  if (h->nctrls == 0)
    return 0;
  if (move_self (cg, h, err) < 0)
    return -1;
  /* From the root down to the parent: each level must hand the controller on. */
  for (bool root = true;; root = false)
    {
      size_t n;
      char *next;

      if (enable_in (cg, h, dir, root, err) < 0)
        return -1;
      p += strspn (p, "/");
      if (*p == '\0')
        return 0;
      n = strcspn (p, "/");
      next = xasprintf ("%s/%.*s", dir, (int) n, p);
      free (dir);
      dir = next;
      p += n;
    }
}

int
ucb_cg2_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                size_t nkv, ucb_error_t *err)
{
  cleanup_free char *dir = xasprintf ("%s%s", h->mount, rel);

  if (mkdir (dir, 0755) < 0)
    {
      int e = errno;
      cleanup_free char *up = xstrdup (dir);
      *strrchr (up, '/') = '\0';
      if (e == EACCES || e == EPERM || e == EROFS)
        return ucb_cg_access_error (err, up);
      return ucb_make_error (err, e, "create cgroup %s", dir);
    }
  for (size_t k = 0; k < nkv; k++)
    if (write_in (dir, kv[k].file, kv[k].value) < 0)
      {
        int e = errno;
        rmdir (dir);
        return ucb_make_error (err, e, "create cgroup %s: write `%s` to %s", dir, kv[k].value,
                               kv[k].file);
      }
  return 0;
}

/* "-ctrl" to dir/cgroup.subtree_control; 0, or -1 with errno (ENOENT: dir is gone). */
static int
cg2_disable (const char *dir, const char *ctrl)
{
  char cmd[72];

  snprintf (cmd, sizeof cmd, "-%s", ctrl);
  return write_in (dir, "cgroup.subtree_control", cmd);
}

/* One ENABLE entry, under the turn; -1 when it could not be done. */
static int
release_one (const struct ucb_cg_jentry *e)
{
  bool shared = __atomic_load_n (&e->shared, __ATOMIC_ACQUIRE);

  /* No longer listed: a run before us disabled it (or it was never made). */
  if (shared && ucb_cg2_recorded (e->path, e->ctrl) != 1)
    return 0;
  if (cg2_disable (e->path, e->ctrl) == 0)
    return shared && ucb_cg2_record (e->path, e->ctrl, false) < 0 && errno != ENOENT ? -1 : 0;
  /* EBUSY: a group below still has it, another run's (the last one out disables it) or
   * someone else's; ENOENT: the group is gone. */
  return errno == EBUSY || errno == ENOENT ? 0 : -1;
}

/* The journal's turn: an fd holding it, -2 when the journal has none (nothing shared), -1 when
 * it stayed taken. */
static int
journal_turn (const struct ucb_cg_journal *j)
{
  size_t n = ucb_cg_journal_count (j);

  for (size_t i = 0; i < n; i++)
    if (__atomic_load_n (&j->e[i].kind, __ATOMIC_ACQUIRE) == UCB_CG_J_TURN)
      return ucb_cg2_turn_wait (j->e[i].path, UCB_CG_TURN_WAIT_MS, false);
  return -2;
}

int
ucb_cg2_release (const struct ucb_cg_journal *j, bool leave, bool *out)
{
  size_t n = ucb_cg_journal_count (j);
  cleanup_close int turn = -1;
  bool have = false;
  int failed = 0;

  *out = true;
  for (size_t i = n; i-- > 0;)
    {
      const struct ucb_cg_jentry *e = &j->e[i];
      int kind = __atomic_load_n (&e->kind, __ATOMIC_ACQUIRE);

      if (kind != UCB_CG_J_ENABLE && (kind != UCB_CG_J_LEAF || !leave))
        continue;
      if (!have)
        {
          turn = journal_turn (j);
          if (turn == -1)
            {
              /* Changing nothing beats breaking another run's setup: the janitor tries too. */
              *out = !leave;
              return failed + 1;
            }
          have = true;
        }
      if (kind == UCB_CG_J_ENABLE)
        failed += release_one (e) < 0;
      else
        {
          /* Back into X, which has no controllers of ours any more. */
          char x[sizeof e->path];
          memcpy (x, e->path, sizeof x);
          *strrchr (x, '/') = '\0';
          if (ucb_cg2_leave_leaf (x) < 0)
            {
              *out = false;
              failed++;
            }
        }
    }
  return failed;
}

int
ucb_cg2_leave_leaf (const char *x)
{
  return x ? move_pid (x, getpid ()) : 0;
}

int
ucb_cg2_remove_leaf (const char *leaf)
{
  uint64_t t0 = ucb_now_ns ();

  if (leaf == NULL)
    return 0;
  /* A process that just exited may still count for a moment. */
  while (rmdir (leaf) < 0)
    {
      if (errno == ENOENT)
        return 0;
      if (errno != EBUSY || ucb_cg_ms_since (t0) > UCB_CG_REMOVE_RETRY_MS)
        return -1;
      ucb_cg_sleep_ms (10);
    }
  return 0;
}
