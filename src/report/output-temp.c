/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output-temp.c - a regular --output file replaced atomically: the temporary, its guard, the
 * rename over the old file (output.c finds the place and checks it). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "report/output-internal.h"

/* ---- the temporary ------------------------------------------------------------------------ *
 * An unnamed file (O_TMPFILE) in the target's directory, linked in when complete.  A name
 * exists only between linking and renaming over an old document, or for the whole write where
 * the filesystem has no O_TMPFILE: NAME.ucbench-tmp-PID-N (NAME cut to fit), guarded (below);
 * should the guard die too, the next ucbench that writes NAME removes those of dead pids. */

#define TMP_TAG ".ucbench-tmp-"
#define TMP_ROOM (sizeof TMP_TAG - 1 + 10 + 1 + 3) /* the tag, a pid, -N with N < 1000 */

/* What the temporaries of p's name start with: the name, cut so that theirs fit the
 * filesystem. */
static char *
tmp_prefix (const struct ucb_output_place *p)
{
  long max = fpathconf (p->dirfd, _PC_NAME_MAX);
  size_t keep = strlen (p->name);

  if (max <= 0)
    max = NAME_MAX;
  if (keep + TMP_ROOM > (size_t) max)
    keep = (size_t) max > TMP_ROOM ? (size_t) max - TMP_ROOM : 0;
  return xasprintf ("%.*s" TMP_TAG, (int) keep, p->name);
}

static char *
tmp_name (const struct ucb_output_place *p, unsigned n)
{
  cleanup_free char *prefix = tmp_prefix (p);

  return xasprintf ("%s%ld-%u", prefix, (long) getpid (), n);
}

/* Remove the temporaries of p's name left by a ucbench that died while it wrote; those of a
 * live process are its business. */
static void
clean_stale (const struct ucb_output_place *p)
{
  cleanup_free char *prefix = tmp_prefix (p);
  size_t len = strlen (prefix);
  int fd = openat (p->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  struct dirent *e;

  if (dir == NULL)
    {
      if (fd >= 0)
        close (fd);
      return;
    }
  while ((e = readdir (dir)) != NULL)
    {
      char *end;
      long pid;

      if (strncmp (e->d_name, prefix, len) != 0)
        continue;
      errno = 0;
      pid = strtol (e->d_name + len, &end, 10);
      if (errno || end == e->d_name + len || *end != '-' || pid <= 0 || pid == (long) getpid ())
        continue;
      if (kill ((pid_t) pid, 0) < 0 && errno == ESRCH)
        unlinkat (p->dirfd, e->d_name, 0);
    }
  closedir (dir);
}

int
ucb_output_open_temp (const struct ucb_output_place *p, char **named)
{
  int fd = openat (p->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644), e;

  *named = NULL;
  /* EOPNOTSUPP: this filesystem has none; EISDIR: this kernel has none. */
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
    return fd;
  for (unsigned n = 0; n < 1000; n++)
    {
      *named = tmp_name (p, n);
      fd = openat (p->dirfd, *named, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd >= 0 || errno != EEXIST)
        break;
      free (steal_pointer (named));
    }
  e = errno;
  if (fd < 0)
    free (steal_pointer (named));
  errno = e;
  return fd;
}

/* Give the unnamed file `fd` the name `to` in p's directory (EEXIST when taken). */
static int
link_unnamed (int fd, const struct ucb_output_place *p, const char *to)
{
  char proc[64];

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat (AT_FDCWD, proc, p->dirfd, to, AT_SYMLINK_FOLLOW) == 0)
    return 0;
  if (errno != ENOENT)
    return -1;
  /* No /proc: the same by descriptor, which needs CAP_DAC_READ_SEARCH. */
  return linkat (fd, "", p->dirfd, to, AT_EMPTY_PATH);
}

/* ---- the guard ---------------------------------------------------------------------------- *
 * While a temporary has a name, a SIGKILL would leave it behind.  So a child made for that
 * moment waits on a socket: told each name before it exists, then "done" (one NUL byte).  At
 * end of file without "done", ucbench died: the child removes the last name if that is still
 * our file (same inode as the temporary's descriptor, which it shares), and exits.  It costs
 * a fork, only where a name is needed. */

struct guard
{
  pid_t pid;
  int sock; /* our end */
};

static __attribute__ ((noreturn)) void
guard_main (int sock, int dirfd, int tmpfd)
{
  static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
  struct sigaction ignore = { .sa_handler = SIG_IGN };
  char buf[NAME_MAX + 1], last[NAME_MAX + 1] = "";
  struct stat ours, now;

  /* A terminal's signals reach the whole process group: only ucbench's death ends us. */
  for (size_t i = 0; i < UCB_ARRAY_SIZE (ignored); i++)
    sigaction (ignored[i], &ignore, NULL);
  for (;;)
    {
      ssize_t n = recv (sock, buf, sizeof buf - 1, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      if (buf[0] == '\0')
        _exit (0);
      buf[n] = '\0';
      memcpy (last, buf, (size_t) n + 1);
    }
  if (*last && fstat (tmpfd, &ours) == 0 && fstatat (dirfd, last, &now, AT_SYMLINK_NOFOLLOW) == 0
      && now.st_dev == ours.st_dev && now.st_ino == ours.st_ino)
    unlinkat (dirfd, last, 0);
  _exit (0);
}

/* Start the guard of the temporary `tmpfd` in p's directory.  Where it cannot be made, the
 * write goes on unguarded (g->pid -1). */
static void
guard_start (struct guard *g, const struct ucb_output_place *p, int tmpfd)
{
  int sv[2];

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return;
  g->pid = fork ();
  if (g->pid == 0)
    {
      close (sv[0]);
      guard_main (sv[1], p->dirfd, tmpfd);
    }
  close (sv[1]);
  if (g->pid < 0)
    close (sv[0]);
  else
    g->sock = sv[0];
}

/* Before the temporary gets the name `name`. */
static void
guard_tell (const struct guard *g, const char *name)
{
  if (g->pid > 0)
    (void) !send (g->sock, name, strlen (name), MSG_NOSIGNAL);
}

/* The temporary has no name any more (renamed, or removed): the guard ends. */
static void
guard_end (struct guard *g)
{
  if (g->pid <= 0)
    return;
  (void) !send (g->sock, "", 1, MSG_NOSIGNAL);
  close (g->sock);
  while (waitpid (g->pid, NULL, 0) < 0 && errno == EINTR)
    ;
  g->pid = -1;
}

/* Put the complete temporary in place of p's entry: rename a named one; link an unnamed one,
 * to the name itself when there is none yet, else to a fresh name renamed over it (a link
 * cannot replace a file), guarded meanwhile. */
static int
publish (const struct ucb_output_place *p, int fd, const char *named, struct guard *g)
{
  cleanup_free char *tmp = NULL;
  int e;

  if (named)
    return renameat (p->dirfd, named, p->dirfd, p->name);
  if (link_unnamed (fd, p, p->name) == 0)
    return 0;
  if (errno != EEXIST)
    return -1;
  guard_start (g, p, fd);
  for (unsigned n = 0; tmp == NULL && n < 1000; n++)
    {
      tmp = tmp_name (p, n);
      guard_tell (g, tmp);
      if (link_unnamed (fd, p, tmp) < 0)
        {
          e = errno;
          free (steal_pointer (&tmp));
          if (e != EEXIST)
            return errno = e, -1;
        }
    }
  if (tmp == NULL)
    return errno = EEXIST, -1;
  if (renameat (p->dirfd, tmp, p->dirfd, p->name) == 0)
    return 0;
  e = errno;
  unlinkat (p->dirfd, tmp, 0);
  errno = e;
  return -1;
}

int
ucb_output_write_atomic (const struct ucb_output_place *p, const char *buf, size_t len,
                         const char **what)
{
  cleanup_free char *named = NULL;
  struct guard g = { .pid = -1, .sock = -1 };
  int fd, e = 0;

  clean_stale (p);
  fd = ucb_output_open_temp (p, &named);
  *what = "cannot create a temporary file next to it";
  if (fd < 0)
    return -1;
  *what = NULL;
  if (named)
    {
      guard_start (&g, p, fd);
      guard_tell (&g, named);
    }
  if (ucb_write_all (fd, buf, len) < 0 || fchmod (fd, 0644) < 0 || fsync (fd) < 0
      || publish (p, fd, named, &g) < 0)
    e = errno;
  if (e && named)
    unlinkat (p->dirfd, named, 0);
  guard_end (&g);
  if (close (fd) < 0 && e == 0)
    e = errno;
  errno = e;
  return e ? -1 : 0;
}
