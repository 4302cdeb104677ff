/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uidlock.c - one owner per uid range.
 *
 * Two ucbench on one uid range share ucounts: each counts the other's processes, signals and
 * queues against its limits and reports the failures that causes as its own (two verifies:
 * false FAILs, "over-admission"; two runs: thousands of failed ops).  A check of the running
 * processes cannot see the other before its first container exists, so each claims its range
 * first: a POSIX write lock over bytes [first, last] of one file, byte U for uid U.  The kernel
 * drops it when the process dies, however it dies; F_GETLK names the holder's pid.
 *
 * A POSIX lock belongs to the process (its table of files) and goes when the process closes
 * any fd of the file: the fd is opened once and never closed.  Forked children (a verify case,
 * the spawner, containers) neither inherit the lock nor, having their own table, can drop it
 * by closing their copy of the fd (containers close every fd they do not keep), and an exec
 * closes it (O_CLOEXEC). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "host/uidlock.h"
#include "host/users.h"

_Static_assert(sizeof (off_t) >= 8, "a uid is a byte offset of the lock file");

/* The uid the kernel shows for an id this user namespace does not map. */
static uid_t
overflow_uid (void)
{
  cleanup_free char *v = ucb_read_file_or_null ("/proc/sys/kernel/overflowuid");
  return v ? (uid_t) strtoul (v, NULL, 10) : 65534;
}

/* Whether this is the initial user namespace (every uid mapped to itself). */
static bool
initial_userns (void)
{
  cleanup_free char *map = ucb_read_file_or_null ("/proc/self/uid_map");
  unsigned long inside, outside, count;

  return map && sscanf (map, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0
         && outside == 0 && count == 4294967295UL;
}

/* What makes `st` (of `path`, a directory or a file) unsafe to use, or NULL: anything but
 * root's or ours, and not writable by anyone else. */
static char *
unsafe (const struct stat *st, const char *path, bool dir)
{
  if (dir ? !S_ISDIR (st->st_mode) : !S_ISREG (st->st_mode))
    return xasprintf ("`%s` is not a %s", path, dir ? "directory" : "regular file");
  if (st->st_uid != geteuid () && st->st_uid != 0)
    return xasprintf ("`%s` is owned by uid %u, neither root nor uid %u (ucbench)", path,
                      (unsigned) st->st_uid, (unsigned) geteuid ());
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    return xasprintf ("`%s` is writable by its group or by everyone (mode %04o)", path,
                      (unsigned) (st->st_mode & 07777));
  if (!dir && st->st_nlink != 1)
    return xasprintf ("`%s` has %lu hard links", path, (unsigned long) st->st_nlink);
  return NULL;
}

/* The directory's fd, or -1 with `err`, or -2 with `*why`. */
static int
open_dir (const char *dir, char **why, ucb_error_t *err)
{
  cleanup_free char *bad = NULL;
  struct stat st;
  int fd;

  fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    {
      if (mkdir (dir, 0755) < 0 && errno != EEXIST)
        {
          *why = xasprintf ("cannot make `%s`: %s", dir, strerror (errno));
          return -2;
        }
      fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
  if (fd < 0)
    {
      if (errno == ELOOP || errno == ENOTDIR)
        {
          /* O_NOFOLLOW with O_DIRECTORY: ENOTDIR for a link too. */
          bool link = errno == ELOOP || (lstat (dir, &st) == 0 && S_ISLNK (st.st_mode));
          return ucb_make_error (err, 0, "refusing the uid lock directory `%s`: it is %s", dir,
                                 link ? "a symbolic link" : "not a directory");
        }
      *why = xasprintf ("cannot open `%s`: %s", dir, strerror (errno));
      return -2;
    }
  if (fstat (fd, &st) < 0)
    {
      int e = errno;
      close (fd);
      return ucb_make_error (err, e, "fstat `%s`", dir);
    }
  if (st.st_uid != geteuid () && st.st_uid == overflow_uid () && !initial_userns ())
    {
      close (fd);
      *why = xasprintf ("`%s` belongs to a uid this user namespace does not map (the host's); "
                        "uids here are not the host's",
                        dir);
      return -2;
    }
  bad = unsafe (&st, dir, true);
  if (bad)
    {
      close (fd);
      return ucb_make_error (err, 0,
                             "refusing the uid lock directory: %s; remove it (ucbench "
                             "makes it again, root's, mode 0755)",
                             bad);
    }
  return fd;
}

int
ucb_uidlock_open (const char *dir, char **why, ucb_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, UCB_UIDLOCK_FILE);
  cleanup_free char *bad = NULL;
  cleanup_close int dfd = -1;
  struct stat st;
  int fd;

  *why = NULL;
  dfd = open_dir (dir, why, err);
  if (dfd < 0)
    return dfd;
  /* O_NONBLOCK: a FIFO put there would block the open (it is refused below).  Mode 0600: a
   * user who could open it could hold read locks on every range, and refuse every ucbench. */
  fd = openat (dfd, UCB_UIDLOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      if (errno == ELOOP)
        return ucb_make_error (err, 0, "refusing the uid lock file `%s`: it is a symbolic link",
                               path);
      if (errno == EROFS || errno == EACCES || errno == EPERM)
        {
          *why = xasprintf ("cannot open `%s`: %s", path, strerror (errno));
          return -2;
        }
      return ucb_make_error (err, errno, "open `%s`", path);
    }
  if (fstat (fd, &st) < 0)
    {
      int e = errno;
      close (fd);
      return ucb_make_error (err, e, "fstat `%s`", path);
    }
  bad = unsafe (&st, path, false);
  if (bad)
    {
      close (fd);
      return ucb_make_error (err, 0, "refusing the uid lock file: %s; remove it", bad);
    }
  if ((st.st_mode & 077) && st.st_uid == geteuid ())
    (void) fchmod (fd, 0600);
  return fd;
}

static struct flock
span (short type, uint64_t first, uint64_t last)
{
  struct flock fl = { .l_type = type, .l_whence = SEEK_SET };

  fl.l_start = (off_t) first;
  fl.l_len = (off_t) (last - first + 1);
  return fl;
}

int
ucb_uidlock_take (int fd, uint64_t first, uint64_t last, struct ucb_uidlock_holder *h,
                  ucb_error_t *err)
{
  /* A holder that ends between the two calls leaves nothing to name: try again. */
  for (int tries = 0; tries < 100; tries++)
    {
      struct flock fl = span (F_WRLCK, first, last), q = fl;

      if (fcntl (fd, F_SETLK, &fl) == 0)
        return 0;
      if (errno == EINTR)
        continue;
      if (errno != EAGAIN && errno != EACCES)
        return ucb_make_error (err, errno, "lock uids %llu-%llu", (unsigned long long) first,
                               (unsigned long long) last);
      if (fcntl (fd, F_GETLK, &q) < 0)
        return ucb_make_error (err, errno, "F_GETLK uids %llu-%llu", (unsigned long long) first,
                               (unsigned long long) last);
      if (q.l_type == F_UNLCK)
        continue;
      h->pid = q.l_pid > 0 ? q.l_pid : 0;
      h->first = (uint64_t) q.l_start;
      h->last = q.l_len > 0 ? (uint64_t) q.l_start + (uint64_t) q.l_len - 1 : UCB_MAX_UID;
      return 1;
    }
  return ucb_make_error (err, 0, "lock uids %llu-%llu: its holders keep changing",
                         (unsigned long long) first, (unsigned long long) last);
}

void
ucb_uidlock_drop (int fd, uint64_t first, uint64_t last)
{
  struct flock fl = span (F_UNLCK, first, last);

  (void) fcntl (fd, F_SETLK, &fl);
}

/* ---- the claim ----------------------------------------------------------------------------- */

/* The process's lock file: opened once, never closed (closing any fd of it would drop every
 * lock this process holds). */
static int lock_fd = -1;

static char *
holder_text (const struct ucb_uidlock_holder *h, const char *dir)
{
  if (h->pid)
    return xasprintf ("ucbench pid %d holds uids %llu-%llu (%s/%s)", (int) h->pid,
                      (unsigned long long) h->first, (unsigned long long) h->last, dir,
                      UCB_UIDLOCK_FILE);
  return xasprintf ("a process of another pid namespace holds uids %llu-%llu (%s/%s)",
                    (unsigned long long) h->first, (unsigned long long) h->last, dir,
                    UCB_UIDLOCK_FILE);
}

/* The next base on the grid of `c` (steps of its width from where it began) above `past`. */
static uint64_t
next_base (const struct ucb_uid_claim *c, uint64_t start, uint64_t past)
{
  uint64_t steps = past > start ? (past - start + c->width - 1) / c->width : 1;

  return start + (steps ? steps : 1) * c->width;
}

/* Why a range is not free. */
enum taken
{
  TAKEN_RULE, /* ucb_uid_range_conflict: an account, a group, a subordinate id, below UID_MIN */
  TAKEN_HELD, /* another ucbench holds it */
  TAKEN_PROC, /* a running process uses it */
};

/* One candidate range [b, b + width): 0 claimed, 1 not free (`*kind` and `*why` say why,
 * `*past` is the first uid worth trying next), -1 error. */
static int
try_range (struct ucb_uid_claim *c, uint64_t b, char **why, uint64_t *past, enum taken *kind,
           ucb_error_t *err)
{
  uint64_t last = b + c->width - 1;
  cleanup_free char *who = NULL;
  struct ucb_uidlock_holder h;
  int r;

  *kind = TAKEN_RULE;
  if (ucb_uid_range_conflict (c->files, b, last, why, past))
    return 1;
  if (lock_fd >= 0)
    {
      r = ucb_uidlock_take (lock_fd, b, last, &h, err);
      if (r < 0)
        return -1;
      if (r > 0)
        {
          *kind = TAKEN_HELD;
          *why = holder_text (&h, c->lock_dir ? c->lock_dir : UCB_UIDLOCK_DIR);
          *past = h.last + 1;
          return 1;
        }
    }
  /* Held now: a process of the range is nobody's that follows the lock (one left behind by a
   * run that was killed, or no ucbench at all). */
  if ((c->movable || !c->procs_per_case)
      && ucb_uid_range_procs ((uid_t) b, (uid_t) last, false, &who) > 0)
    {
      if (lock_fd >= 0)
        ucb_uidlock_drop (lock_fd, b, last);
      *kind = TAKEN_PROC;
      *why = steal_pointer (&who);
      *past = last + 1;
      return 1;
    }
  return 0;
}

/* The range refused where it was asked for (not movable). */
static int
refuse (const struct ucb_uid_claim *c, const char *why, enum taken kind, ucb_error_t *err)
{
  unsigned long long b = c->base, last = c->base + c->width - 1;

  if (kind == TAKEN_RULE)
    {
      cleanup_free char *valid = ucb_uid_valid_text (c->files, c->highest);
      return ucb_usage_error (err, "%s %llu-%llu (%s %llu) is not free: %s; valid: %llu uid%s %s",
                              c->what, b, last, c->option, b, why, (unsigned long long) c->width,
                              c->width == 1 ? "" : "s", valid);
    }
  if (kind == TAKEN_PROC)
    return ucb_make_error (err, 0,
                           "%s %llu-%llu is in use (%s): containers would share ucounts with it; "
                           "choose a free range with %s",
                           c->what, b, last, why, c->option);
  return ucb_make_error (err, 0,
                         "%s %llu-%llu is in use: %s; two ucbench on one range share ucounts and "
                         "count each other's failures: wait for it to end, or leave out %s to "
                         "take the next free range",
                         c->what, b, last, why, c->option);
}

/* The range: where asked for, or (movable) the first free one on its grid. */
static int
claim_range (struct ucb_uid_claim *c, ucb_error_t *err)
{
  uint64_t start = c->base, b = c->base;
  cleanup_free char *first_why = NULL;

  for (unsigned tries = 0; tries < 10000; tries++)
    {
      cleanup_free char *why = NULL;
      uint64_t past = 0;
      enum taken kind;
      int r;

      if (b + c->width - 1 > c->highest)
        break;
      r = try_range (c, b, &why, &past, &kind, err);
      if (r <= 0)
        {
          if (r == 0 && b != start)
            c->moved = xasprintf ("%s %llu-%llu was not free (%s): used %llu-%llu instead", c->what,
                                  (unsigned long long) start,
                                  (unsigned long long) start + c->width - 1, first_why,
                                  (unsigned long long) b, (unsigned long long) b + c->width - 1);
          c->base = b;
          return r;
        }
      if (!c->movable)
        return refuse (c, why, kind, err);
      if (!first_why)
        first_why = steal_pointer (&why);
      b = next_base (c, start, past);
    }
  return ucb_make_error (err, 0,
                         "no free %s of %llu uids from %llu to %llu (the first: %s): "
                         "choose one with %s",
                         c->what, (unsigned long long) c->width, (unsigned long long) start,
                         (unsigned long long) c->highest, first_why ? first_why : "none fits",
                         c->option);
}

/* The explicit uids, in runs of consecutive ones: locked where they are. */
static int
claim_fixed (const struct ucb_uid_claim *c, ucb_error_t *err)
{
  for (size_t i = 0, j; lock_fd >= 0 && i < c->nfixed; i = j)
    {
      struct ucb_uidlock_holder h;
      int r;

      for (j = i + 1; j < c->nfixed && c->fixed[j] == c->fixed[j - 1] + 1; j++)
        ;
      r = ucb_uidlock_take (lock_fd, c->fixed[i], c->fixed[j - 1], &h, err);
      if (r < 0)
        return -1;
      if (r > 0)
        {
          cleanup_free char *who = holder_text (&h, c->lock_dir ? c->lock_dir : UCB_UIDLOCK_DIR);
          return ucb_make_error (err, 0,
                                 "owner uid %u is in use: %s; two ucbench on one uid share "
                                 "ucounts and count each other's failures: wait for it to end",
                                 (unsigned) (h.first > c->fixed[i] ? h.first : c->fixed[i]), who);
        }
    }
  return 0;
}

int
ucb_uids_claim (struct ucb_uid_claim *c, ucb_error_t *err)
{
  c->moved = c->unlocked = NULL;
  if (c->width == 0 && c->nfixed == 0)
    return 0;
  /* Without CAP_SETUID/CAP_SETGID every owner is our own uid: no range of others to share. */
  if (lock_fd < 0 && ucb_can_set_ids ())
    {
      int fd = ucb_uidlock_open (c->lock_dir ? c->lock_dir : UCB_UIDLOCK_DIR, &c->unlocked, err);
      if (fd == -1)
        return -1;
      lock_fd = fd; /* -2: none here, c->unlocked says why */
    }
  if (c->width && claim_range (c, err) < 0)
    return -1;
  return claim_fixed (c, err);
}

void
ucb_uid_claim_free (struct ucb_uid_claim *c)
{
  free (c->moved);
  free (c->unlocked);
  c->moved = c->unlocked = NULL;
}
