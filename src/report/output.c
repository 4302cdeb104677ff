/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c - --output, from the check before anything is measured to the file written.
 *
 * The path is walked one name at a time, the kernel never following a link: each entry is
 * looked at where it is (through its directory, which stays open, never following), so the
 * entry checked is the entry used, and each link is read and followed here.  In a sticky
 * world-writable directory (/tmp) only a link, FIFO or file of the caller or of the
 * directory's owner is used, in the middle of the path as at its end: the rule of
 * fs.protected_symlinks, _fifos and _regular, whatever those are set to (else root writes
 * where another user's link points, /tmp/x/passwd with x a link to /etc).  A regular
 * file is replaced atomically (output-temp.c): an O_TMPFILE, linked in, renamed over the old
 * file (a rename replaces a name, it never follows it).  A FIFO or a character device is
 * written through, opened without blocking and written with poll: neither a FIFO nobody reads
 * nor a reader that stopped can hold ucbench against a signal. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "core/json-util.h"
#include "core/process.h"
#include "core/util.h"
#include "report/output-internal.h"
#include "report/output.h"

static void
place_free (struct ucb_output_place *p)
{
  free (p->link);
  free (p->name);
  free (p->at);
  if (p->dirfd >= 0)
    close (p->dirfd);
}

static int fail (ucb_error_t *err, const struct ucb_output_place *p, int code, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

/* "cannot write --output `PATH` (a link to `T`): WHAT: STRERROR" as a usage error, or
 * "cannot write `PATH` (a link to `T`): WHAT" as a failure with `code` (0: none). */
static int
fail (ucb_error_t *err, const struct ucb_output_place *p, int code, const char *fmt, ...)
{
  cleanup_free char *what = NULL, *via = NULL;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&what, fmt, ap) < 0)
    ucb_oom ();
  va_end (ap);
  via = p->link ? xasprintf (" (a link to `%s`)", p->link) : xstrdup ("");
  if (p->usage)
    return ucb_usage_error (err, "cannot write --output `%s`%s%s%s%s%s", p->path, via,
                            *what || code ? ": " : "", what, *what && code ? ": " : "",
                            code ? strerror (code) : "");
  return ucb_make_error (err, code, "cannot write `%s`%s%s%s", p->path, via, *what ? ": " : "",
                         what);
}

/* ---- following the path ------------------------------------------------------------------ */

#define MAX_HOPS 40 /* the kernel's MAXSYMLINKS */

static const char *
kind (mode_t m)
{
  return S_ISLNK (m) ? "symbolic link" : S_ISFIFO (m) ? "FIFO" : S_ISREG (m) ? "file" : "device";
}

/* In a sticky world-writable directory (`dir`), an entry `st` of neither the caller nor the
 * directory's owner is never followed, opened or replaced, be it the last name or a link to a
 * directory on the way: anyone may have put it there, to make us write elsewhere or to read
 * what we write.  `shown`: the entry, as the path reached it; `instead`: what to choose. */
static int
trusted_in (const struct ucb_output_place *p, const struct stat *dir, const struct stat *st,
            const char *shown, const char *instead, ucb_error_t *err)
{
  if ((dir->st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) || S_ISDIR (st->st_mode)
      || st->st_uid == geteuid () || st->st_uid == dir->st_uid)
    return 0;
  return fail (err, p, 0,
               "`%s` is a %s of uid %u in a sticky world-writable directory, where only the "
               "caller's and the directory owner's are used (the rule of fs.protected_symlinks, "
               "_fifos and _regular); remove it or choose another %s",
               shown, kind (st->st_mode), (unsigned) st->st_uid, instead);
}

static int
trusted (const struct ucb_output_place *p, const struct stat *st, ucb_error_t *err)
{
  return trusted_in (p, &p->dir, st, p->name, "name", err);
}

static bool
on_procfs (int fd)
{
  struct statfs s;

  return fstatfs (fd, &s) == 0 && s.f_type == PROC_SUPER_MAGIC;
}

/* `name` in the directory reached as `at`, for messages ("" is the current directory). */
static char *
joined (const char *at, const char *name)
{
  size_t n = strlen (at);

  return xasprintf ("%s%s%s", at, n && at[n - 1] != '/' ? "/" : "", name);
}

/* Open the directory `dir`, relative to `from` (AT_FDCWD or an O_PATH directory, reached as
 * `*at`), one name at a time with O_NOFOLLOW: the kernel would follow every link in it, a
 * planted /tmp/x -> /etc too.  A link met is checked by trusted_in() where it lies, read, and
 * its target walked in its place, so `..` after it leaves the target, as the kernel has it; a
 * link in /proc (/proc/self/cwd, /dev/fd/N) only the kernel can follow.  The O_PATH
 * descriptor, *at what it was reached as; -1 with err set. */
static int
walk (struct ucb_output_place *p, int from, const char *dir, char **at, ucb_error_t *err)
{
  cleanup_free char *todo = xstrdup (dir);
  cleanup_close int fd = openat (from, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  size_t pos = 0;

  if (fd < 0)
    return fail (err, p, errno, "its directory `%s`", **at ? *at : ".");
  for (;;)
    {
      cleanup_free char *name = NULL, *shown = NULL;
      cleanup_close int next = -1;
      char target[PATH_MAX], *rest;
      struct stat st, in;
      ssize_t n;

      if (pos == 0 && todo[0] == '/')
        {
          close (fd);
          fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
          free (*at);
          *at = xstrdup ("/");
          if (fd < 0)
            return fail (err, p, errno, "its directory `/`");
        }
      pos += strspn (todo + pos, "/");
      if (todo[pos] == '\0')
        return steal_fd (&fd);
      name = xstrndup (todo + pos, strcspn (todo + pos, "/"));
      pos += strlen (name);
      if (strcmp (name, ".") == 0)
        continue;
      shown = joined (*at, name);
      /* O_DIRECTORY first: it mounts an automount point, O_PATH alone would not; ENOTDIR is
       * a link (or no directory), opened itself then. */
      next = openat (fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
      if (next < 0 && errno == ENOTDIR)
        next = openat (fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0 || fstat (next, &st) < 0)
        return fail (err, p, errno, "its directory `%s`", shown);
      if (S_ISLNK (st.st_mode) && on_procfs (fd))
        {
          close (next);
          next = openat (fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
          if (next < 0)
            return fail (err, p, errno, "its directory `%s`", shown);
          st.st_mode = S_IFDIR;
        }
      if (S_ISDIR (st.st_mode))
        {
          close (fd);
          fd = steal_fd (&next);
          free (*at);
          *at = steal_pointer (&shown);
          continue;
        }
      if (!S_ISLNK (st.st_mode))
        return fail (err, p, ENOTDIR, "its directory `%s`", shown);
      if (fstat (fd, &in) < 0)
        return fail (err, p, errno, "its directory `%s`", *at);
      if (trusted_in (p, &in, &st, shown, "path", err) < 0)
        return -1;
      if (++p->hops > MAX_HOPS)
        return fail (err, p, ELOOP, "its directory `%s`", shown);
      /* The link itself, by its descriptor: the one just checked. */
      n = readlinkat (next, "", target, sizeof target);
      if (n < 0 || (size_t) n >= sizeof target)
        return fail (err, p, n < 0 ? errno : ENAMETOOLONG, "its directory `%s`", shown);
      if (n == 0)
        return fail (err, p, ENOENT, "its directory `%s`", shown);
      target[n] = '\0';
      rest = xasprintf ("%s/%s", target, todo + pos);
      free (todo);
      todo = rest;
      pos = 0;
    }
}

/* Open the directory of `cur` (relative to the last link's directory) and look at its last
 * name. */
static int
step (struct ucb_output_place *p, const char *cur, ucb_error_t *err)
{
  const char *slash = strrchr (cur, '/');
  cleanup_free char *dir = slash == NULL  ? xstrdup (".")
                           : slash == cur ? xstrdup ("/")
                                          : xstrndup (cur, (size_t) (slash - cur));
  int fd;

  if (p->at == NULL)
    p->at = xstrdup ("");
  fd = walk (p, p->dirfd >= 0 ? p->dirfd : AT_FDCWD, dir, &p->at, err);
  if (fd < 0)
    return -1;
  if (p->dirfd >= 0)
    close (p->dirfd);
  p->dirfd = fd;
  free (p->name);
  p->name = xstrdup (slash ? slash + 1 : cur);
  if (fstat (fd, &p->dir) < 0)
    return fail (err, p, errno, "its directory `%s`", p->at);
  p->exists = fstatat (fd, p->name, &p->st, AT_SYMLINK_NOFOLLOW) == 0;
  if (!p->exists && errno != ENOENT)
    return fail (err, p, errno, "%s", "");
  return p->exists ? trusted (p, &p->st, err) : 0;
}

/* Follow `p->path` to the entry it names, every link checked on the way. */
static int
place_find (struct ucb_output_place *p, ucb_error_t *err)
{
  cleanup_free char *cur = xstrdup (p->path);
  char target[PATH_MAX];

  if (*cur == '\0')
    return p->usage ? ucb_usage_error (err, "--output needs a file name, not an empty string")
                    : ucb_make_error (err, ENOENT, "cannot write ``");
  if (strlen (cur) >= PATH_MAX)
    return fail (err, p, ENAMETOOLONG, "%zu bytes, PATH_MAX is %d", strlen (cur), PATH_MAX);
  for (;;)
    {
      ssize_t n;

      if (cur[strlen (cur) - 1] == '/')
        return fail (err, p, 0, "it ends in `/`, so it names a directory: give a file name");
      if (step (p, cur, err) < 0)
        return -1;
      if (!p->exists || !S_ISLNK (p->st.st_mode))
        return 0;
      if (on_procfs (p->dirfd))
        {
          p->magic = true;
          return 0;
        }
      if (++p->hops > MAX_HOPS)
        return fail (err, p, ELOOP, "%s", "");
      n = readlinkat (p->dirfd, p->name, target, sizeof target);
      if (n < 0 || (size_t) n >= sizeof target)
        return fail (err, p, n < 0 ? errno : ENAMETOOLONG, "%s", "");
      if (n == 0)
        return fail (err, p, ENOENT, "%s", "");
      target[n] = '\0';
      free (cur);
      cur = xstrdup (target);
      free (p->link);
      p->link = xstrdup (target);
    }
}

/* What the entry found is: refused (a directory, a block device, a socket), written
 * through (`*through`: a FIFO, a character device, a /proc link), or replaced (a regular file,
 * none yet). */
static int
place_kind (const struct ucb_output_place *p, bool *through, ucb_error_t *err)
{
  mode_t m = p->st.st_mode;

  *through = p->magic || (p->exists && (S_ISFIFO (m) || S_ISCHR (m)));
  if (!p->exists || *through || S_ISREG (m))
    return 0;
  if (S_ISDIR (m))
    return fail (err, p, 0, "it is a directory");
  if (S_ISBLK (m))
    return fail (err, p, 0, "it is a block device");
  return fail (err, p, 0, "it is a socket");
}

/* ---- written through: a FIFO, a device, /dev/stdout -------------------------------------- */

/* Opened without blocking: ENXIO is a FIFO nobody reads (or a socket).  What was opened is
 * checked again, by its descriptor.  O_APPEND: /dev/stdout on a file adds to it. */
static int
open_through (const struct ucb_output_place *p, ucb_error_t *err)
{
  int flags = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_APPEND | O_CLOEXEC;
  int fd = p->name ? openat (p->dirfd, p->name, flags | (p->magic ? 0 : O_NOFOLLOW))
                   : (errno = EINVAL, -1);
  struct stat st;
  int r = 0;

  if (fd < 0 && errno == ENXIO && S_ISFIFO (p->st.st_mode))
    return fail (err, p, 0, "no process reads this FIFO: start its reader first");
  if (fd < 0)
    return fail (err, p, errno, "%s", "");
  if (fstat (fd, &st) < 0)
    r = fail (err, p, errno, "%s", "");
  else if (S_ISBLK (st.st_mode))
    r = fail (err, p, 0, "it is a block device");
  else if (!p->magic && !S_ISFIFO (st.st_mode) && !S_ISCHR (st.st_mode))
    r = fail (err, p, 0, "it became a %s meanwhile", kind (st.st_mode));
  else if (!p->magic)
    r = trusted (p, &st, err);
  if (r == 0)
    return fd;
  close (fd);
  return -1;
}

/* The FIFOs and devices the check opened, kept for the write: a FIFO's reader must not see
 * it closed (its end of file) in between.  A command has one or two outputs (model: --output
 * and --plot); one more is opened again when written. */
static struct
{
  char *path;
  int fd;
} held[4];

static void
hold (const char *path, int fd)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (held); i++)
    if (held[i].path == NULL)
      {
        held[i].path = xstrdup (path);
        held[i].fd = fd;
        return;
      }
  close (fd);
}

/* The descriptor the check opened for `path`, now the caller's; -1 when none. */
static int
take_held (const char *path)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (held); i++)
    if (held[i].path && strcmp (held[i].path, path) == 0)
      {
        free (held[i].path);
        held[i].path = NULL;
        return held[i].fd;
      }
  return -1;
}

/* All of buf to the non-blocking `fd`, waiting with ppoll while it takes no more.  A signal
 * (SIGINT, SIGTERM, SIGHUP: noted by core/process.c, blocked here but inside ppoll, so none is
 * missed) gives the write up then; a reader gone is EPIPE, not SIGPIPE. */
static int
write_through (const struct ucb_output_place *p, int fd, const char *buf, size_t len,
               ucb_error_t *err)
{
  struct sigaction ignore = { .sa_handler = SIG_IGN }, old_pipe;
  struct pollfd pfd = { .fd = fd, .events = POLLOUT };
  sigset_t block, orig;
  size_t done = 0;
  int r = 0;

  sigemptyset (&block);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGHUP);
  sigprocmask (SIG_BLOCK, &block, &orig);
  sigaction (SIGPIPE, &ignore, &old_pipe);
  while (done < len && r == 0)
    {
      ssize_t n = write (fd, buf + done, len - done);

      if (n >= 0)
        done += (size_t) n;
      else if (errno != EAGAIN && errno != EINTR)
        r = fail (err, p, errno, "%s", "");
      else if (ucb_interrupted ())
        r = fail (err, p, 0,
                  "interrupted by signal %d while its reader took no more: the write was given up",
                  ucb_interrupted ());
      else if (ppoll (&pfd, 1, NULL, &orig) < 0 && errno != EINTR)
        r = fail (err, p, errno, "%s", "");
    }
  sigaction (SIGPIPE, &old_pipe, NULL);
  sigprocmask (SIG_SETMASK, &orig, NULL);
  return r;
}

/* ---- the check ---------------------------------------------------------------------------- */

static bool
fs_flags (int dirfd, const char *name, int *flags)
{
  cleanup_close int fd
      = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

  return fd >= 0 && ioctl (fd, FS_IOC_GETFLAGS, flags) == 0;
}

/* A regular file or a new one: its name fits, the old file can be replaced, and the directory
 * takes a new file (the temporary the writer will make, made and dropped now: /proc, sysfs or
 * a read-only place fail here). */
static int
check_replaceable (const struct ucb_output_place *p, ucb_error_t *err)
{
  long max = fpathconf (p->dirfd, _PC_NAME_MAX);
  cleanup_free char *named = NULL;
  int flags = 0, fd;

  if (max > 0 && strlen (p->name) > (size_t) max)
    return fail (err, p, ENAMETOOLONG, "the name is %zu bytes, its filesystem takes %ld",
                 strlen (p->name), max);
  if (p->exists && fs_flags (p->dirfd, p->name, &flags)
      && (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)))
    return fail (err, p, 0,
                 "it is %s, so it cannot be replaced (chattr -%c, or choose another "
                 "name)",
                 flags & FS_IMMUTABLE_FL ? "immutable" : "append-only",
                 flags & FS_IMMUTABLE_FL ? 'i' : 'a');
  flags = 0;
  if (fs_flags (p->dirfd, ".", &flags)
      && ((flags & FS_IMMUTABLE_FL) || (p->exists && (flags & FS_APPEND_FL))))
    return fail (err, p, 0, "its directory is %s (chattr -%c, or choose another place)",
                 flags & FS_IMMUTABLE_FL ? "immutable" : "append-only",
                 flags & FS_IMMUTABLE_FL ? 'i' : 'a');
  fd = ucb_output_open_temp (p, &named);
  if (fd < 0)
    return fail (err, p, errno, "cannot create a file next to it");
  close (fd);
  if (named)
    unlinkat (p->dirfd, named, 0);
  return 0;
}

int
ucb_report_check_output (const char *path, ucb_error_t *err)
{
  __attribute__ ((cleanup (place_free))) struct ucb_output_place p
      = { .path = path, .dirfd = -1, .usage = true };
  bool through;
  int fd;

  if (place_find (&p, err) < 0 || place_kind (&p, &through, err) < 0)
    return -1;
  if (!through)
    return check_replaceable (&p, err);
  fd = open_through (&p, err);
  if (fd < 0)
    return -1;
  hold (path, fd);
  return 0;
}

/* ---- the write ---------------------------------------------------------------------------- */

/* Follow the path again (what the check saw may have changed), then write. */
static int
write_to (const char *path, const char *buf, size_t len, ucb_error_t *err)
{
  __attribute__ ((cleanup (place_free))) struct ucb_output_place p = { .path = path, .dirfd = -1 };
  cleanup_close int fd = take_held (path);
  bool through;

  if (fd >= 0)
    return write_through (&p, fd, buf, len, err);
  if (place_find (&p, err) < 0 || place_kind (&p, &through, err) < 0)
    return -1;
  if (!through)
    {
      const char *what = NULL;

      if (ucb_output_write_atomic (&p, buf, len, &what) < 0)
        return fail (err, &p, errno, "%s", what ? what : "");
      return 0;
    }
  fd = open_through (&p, err);
  return fd < 0 ? -1 : write_through (&p, fd, buf, len, err);
}

/* The directory `dir` (NULL: the current one) walked as --output's is: a link planted in
 * $TMPDIR's path is no way elsewhere either.  -1 where it cannot be used. */
static int
rescue_dir (const char *dir)
{
  __attribute__ ((cleanup (place_free))) struct ucb_output_place p = { .path = dir, .dirfd = -1 };
  ucb_error_t err = NULL;
  int fd;

  if (dir == NULL)
    return open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  p.at = xstrdup ("");
  fd = walk (&p, AT_FDCWD, dir, &p.at, &err);
  ucb_error_free (&err);
  return fd;
}

/* A new file ucbench-CMD-WHEN-PID.json, 0600, in the current directory, $TMPDIR or /tmp,
 * holding buf; its path, or NULL where none could be written. */
static char *
save_elsewhere (const char *buf, size_t len, const char *cmd)
{
  const char *tmpdir = getenv ("TMPDIR");
  const char *dirs[] = { NULL, tmpdir && *tmpdir ? tmpdir : "/tmp", "/tmp" };
  char when[32] = "";
  time_t now = time (NULL);
  struct tm tm;

  if (gmtime_r (&now, &tm))
    strftime (when, sizeof when, "%Y%m%dT%H%M%SZ", &tm);
  for (size_t i = 0; i < UCB_ARRAY_SIZE (dirs); i++)
    {
      cleanup_free char *dir = dirs[i] ? xstrdup (dirs[i]) : getcwd (NULL, 0), *name = NULL;
      cleanup_close int dirfd = -1;
      bool ok;
      int fd;

      if (dir == NULL || (i == 2 && strcmp (dirs[1], dirs[2]) == 0)
          || (dirfd = rescue_dir (dirs[i])) < 0)
        continue;
      name = xasprintf ("ucbench-%s-%s-%ld.json", cmd, when, (long) getpid ());
      fd = openat (dirfd, name, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
      if (fd < 0)
        continue;
      ok = ucb_write_all (fd, buf, len) >= 0 && fsync (fd) == 0;
      if (close (fd) == 0 && ok)
        return joined (dir, name);
      unlinkat (dirfd, name, 0);
    }
  return NULL;
}

/* The write of a measured document failed (`err`): keep the document, and say where. */
static int
keep (const char *buf, size_t len, const char *cmd, ucb_error_t *err)
{
  cleanup_free char *where = save_elsewhere (buf, len, cmd), *what = NULL;

  if (err == NULL || *err == NULL)
    return -1;
  what = (*err)->code > 0 ? xasprintf ("%s: %s", (*err)->msg, strerror ((*err)->code))
                          : xstrdup ((*err)->msg);
  if (where)
    return ucb_make_error (err, 0, "%s; the document was saved to `%s` instead", what, where);
  if (fwrite (buf, 1, len, stdout) == len && fflush (stdout) == 0)
    return ucb_make_error (err, 0, "%s; the document went to standard output instead", what);
  return ucb_make_error (err, 0,
                         "%s; nor could the document be saved in the current directory, "
                         "$TMPDIR, /tmp or standard output",
                         what);
}

/* `cmd`: keep the document when the write fails (NULL: no). */
static int
write_deferred (const char *path, const char *buf, size_t len, const char *cmd, ucb_error_t *err)
{
  struct ucb_interrupt_saved saved;
  int r;

  /* A signal now is noted, not obeyed: the document is finished (or the old one left), and
   * the caller, seeing ucb_interrupted(), ends as an interrupted run. */
  ucb_interrupts_defer (&saved);
  r = write_to (path, buf, len, err);
  if (r < 0 && cmd)
    r = keep (buf, len, cmd, err);
  ucb_interrupts_resume (&saved);
  return r;
}

static int
json_bytes (const json_t *doc, char **buf, size_t *len, ucb_error_t *err)
{
  FILE *m = open_memstream (buf, len);

  if (m == NULL)
    ucb_oom ();
  if (ucb_json_write (doc, m, err) < 0)
    {
      fclose (m);
      return -1;
    }
  if (fclose (m) != 0)
    ucb_oom ();
  return 0;
}

int
ucb_report_write_file (const json_t *doc, const char *path, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;

  if (json_bytes (doc, &buf, &len, err) < 0)
    return -1;
  return write_deferred (path, buf, len, NULL, err);
}

int
ucb_report_write_bytes (const char *buf, size_t len, const char *path, ucb_error_t *err)
{
  return write_deferred (path, buf, len, NULL, err);
}

int
ucb_report_write_kept (const json_t *doc, const char *path, const char *cmd, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;

  if (json_bytes (doc, &buf, &len, err) < 0)
    return -1;
  return write_deferred (path, buf, len, cmd, err);
}
