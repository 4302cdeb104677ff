/* SPDX-License-Identifier: GPL-2.0-or-later */
/* share.c - `run --cgroup` runs at the same time in one unified hierarchy (issue 25): they take
 * turns, with flock on the hierarchy's root directory, from reading a cgroup.subtree_control to
 * creating their group and again when they (or their janitors) undo; and a record on each level
 * (the xattr user.ucbench.enabled, trusted.* where a kernel has no user.* on cgroupfs) lists
 * the controllers ucbench enabled there.  Whichever run leaves last disables them: the others
 * find them still used below (EBUSY).  A controller enabled without a record (by someone else)
 * is never touched.  docs/architecture.md, "Concurrent --cgroup runs". */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "host/cgroup/internal.h"

#define RECORD_MAX 256 /* the controllers of one level, space-separated */

static const char *const record_names[] = { "user.ucbench.enabled", "trusted.ucbench.enabled" };

int
ucb_cg2_turn_wait (const char *dir, long ms, bool interruptible)
{
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  uint64_t t0 = ucb_now_ns ();

  if (fd < 0)
    return -1;
  /* Polled, not blocked in: a deadline without signals.  Holders keep it for milliseconds. */
  while (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      if (errno != EWOULDBLOCK && errno != EINTR)
        return -1;
      if (ucb_cg_ms_since (t0) > (uint64_t) ms)
        {
          errno = ETIMEDOUT;
          return -1;
        }
      if (interruptible && ucb_interrupted ())
        {
          errno = EINTR;
          return -1;
        }
      ucb_cg_sleep_ms (5);
    }
  return steal_fd (&fd);
}

int
ucb_cg2_take_turn (struct ucb_cgroup *cg, const struct ucb_cg_hier *h, ucb_error_t *err)
{
  int fd;

  /* Journaled first: the janitor takes the same turn for its part. */
  if (ucb_cg_journal_add (cg->journal, UCB_CG_J_TURN, h->mount, NULL, true, err) < 0)
    return -1;
  /* Ctrl-C while another run holds the turn stops the wait (the undo's wait is not cut). */
  fd = ucb_cg2_turn_wait (h->mount, UCB_CG_TURN_WAIT_MS, true);
  if (fd < 0 && errno == EINTR)
    return ucb_make_error (err, EINTR, "interrupted by signal %d while waiting for the turn on %s",
                           ucb_interrupted (), h->mount);
  if (fd < 0 && errno == ETIMEDOUT)
    return ucb_make_error (err, 0,
                           "--cgroup: %s stayed locked for %d s: `run --cgroup` runs take turns "
                           "on it (flock) to change cgroup.subtree_control; find the holder "
                           "with `fuser -v %s`",
                           h->mount, UCB_CG_TURN_WAIT_MS / 1000, h->mount);
  if (fd < 0)
    return ucb_make_error (err, errno, "--cgroup: lock %s", h->mount);
  return fd;
}

/* The record of `dir` into buf: its length, or -1 with errno (ENODATA: none, the xattr works;
 * EOPNOTSUPP: no xattrs here).  *name: the xattr that holds it. */
static ssize_t
record_get (const char *dir, char *buf, size_t size, const char **name)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (record_names); i++)
    {
      ssize_t n = getxattr (dir, record_names[i], buf, size - 1);
      *name = record_names[i];
      if (n >= 0)
        buf[n] = '\0';
      if (n >= 0 || errno != EOPNOTSUPP)
        return n;
    }
  return -1;
}

int
ucb_cg2_recorded (const char *dir, const char *ctrl)
{
  char buf[RECORD_MAX];
  const char *name;
  ssize_t n = record_get (dir, buf, sizeof buf, &name);

  if (n < 0)
    return errno == ENODATA ? 0 : -1;
  return ucb_cg_list_has (buf, (size_t) n, ctrl, ' ') ? 1 : 0;
}

int
ucb_cg2_record (const char *dir, const char *ctrl, bool add)
{
  char buf[RECORD_MAX], out[RECORD_MAX] = "";
  const char *name;
  ssize_t n = record_get (dir, buf, sizeof buf, &name);
  size_t len = 0;

  if (n < 0 && errno != ENODATA)
    return -1;
  if (n < 0)
    buf[0] = '\0';
  /* Read, changed and written under the turn: no other run writes it meanwhile. */
  for (char *save = NULL, *t = strtok_r (buf, " ", &save); t; t = strtok_r (NULL, " ", &save))
    if (strcmp (t, ctrl) != 0)
      len += (size_t) snprintf (out + len, sizeof out - len, "%s%s", len ? " " : "", t);
  if (add)
    len += (size_t) snprintf (out + len, sizeof out - len, "%s%s", len ? " " : "", ctrl);
  if (len >= sizeof out)
    {
      errno = E2BIG;
      return -1;
    }
  if (len == 0)
    return removexattr (dir, name) < 0 && errno != ENODATA ? -1 : 0;
  return setxattr (dir, name, out, len, 0);
}
