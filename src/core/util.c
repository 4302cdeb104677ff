/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - cleanup helpers, allocation wrappers and small file I/O. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

void
ucb_cleanup_freep (void *p)
{
  free (*(void **) p);
}

void
ucb_cleanup_closep (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
}

void
ucb_cleanup_filep (FILE **f)
{
  if (*f)
    fclose (*f);
}

void
ucb_cleanup_pidp (pid_t *pid)
{
  if (*pid > 0)
    {
      int saved = errno;
      kill (*pid, SIGKILL);
      while (waitpid (*pid, NULL, 0) < 0 && errno == EINTR)
        ;
      errno = saved;
    }
}

void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);
  if (p == NULL)
    ucb_oom ();
  return p;
}

void *
xrealloc (void *p, size_t size)
{
  void *q = realloc (p, size ? size : 1);
  if (q == NULL)
    ucb_oom ();
  return q;
}

char *
xstrdup (const char *s)
{
  char *p = strdup (s);
  if (p == NULL)
    ucb_oom ();
  return p;
}

char *
xstrndup (const char *s, size_t n)
{
  char *p = strndup (s, n);
  if (p == NULL)
    ucb_oom ();
  return p;
}

char *
xasprintf (const char *fmt, ...)
{
  va_list ap;
  char *s;

  va_start (ap, fmt);
  if (vasprintf (&s, fmt, ap) < 0)
    ucb_oom ();
  va_end (ap);
  return s;
}

int
ucb_read_file_at (int dirfd, const char *path, char **out, ucb_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_free char *buf = NULL;
  size_t len = 0, cap = 0;

  fd = openat (dirfd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ucb_make_error (err, errno, "open `%s`", path);
  for (;;)
    {
      ssize_t n;
      if (cap - len < 4096)
        {
          cap = cap ? cap * 2 : 8192;
          buf = xrealloc (buf, cap + 1);
        }
      n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return ucb_make_error (err, errno, "read `%s`", path);
      if (n == 0)
        break;
      len += (size_t) n;
    }
  if (buf == NULL)
    buf = xcalloc (1, 1);
  buf[len] = '\0';
  while (len > 0 && buf[len - 1] == '\n')
    buf[--len] = '\0';
  *out = steal_pointer (&buf);
  return 0;
}

int
ucb_read_file (const char *path, char **out, ucb_error_t *err)
{
  return ucb_read_file_at (AT_FDCWD, path, out, err);
}

char *
ucb_read_file_or_null (const char *path)
{
  ucb_error_t e = NULL;
  char *s = NULL;

  if (ucb_read_file (path, &s, &e) < 0)
    {
      ucb_error_free (&e);
      return NULL;
    }
  return s;
}

ssize_t
ucb_write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;
  size_t done = 0;

  while (done < len)
    {
      ssize_t n = write (fd, p + done, len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      done += (size_t) n;
    }
  return (ssize_t) done;
}

int
ucb_write_file_at (int dirfd, const char *path, const char *data, ucb_error_t *err)
{
  cleanup_close int fd = -1;

  fd = openat (dirfd, path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return ucb_make_error (err, errno, "open `%s` for writing", path);
  if (ucb_write_all (fd, data, strlen (data)) < 0)
    return ucb_make_error (err, errno, "write `%s`", path);
  return 0;
}

int
ucb_parse_u64 (const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
  unsigned long long v;
  char *end;

  if (s == NULL || *s < '0' || *s > '9')
    return -1;
  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

int
ucb_parse_seconds (const char *s, double min, double max, double *out)
{
  double v;
  char *end;

  if (s == NULL || ((*s < '0' || *s > '9') && *s != '.'))
    return -1;
  errno = 0;
  v = strtod (s, &end);
  if (errno != 0 || *end != '\0' || !isfinite (v) || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

uint64_t
ucb_clock_ns (clockid_t c)
{
  struct timespec ts;

  return clock_gettime (c, &ts) == 0 ? (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec
                                     : 0;
}

uint64_t
ucb_now_ns (void)
{
  return ucb_clock_ns (CLOCK_MONOTONIC);
}

int
ucb_name_index (const char *const *names, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (names[i] && strcmp (names[i], name) == 0)
      return (int) i;
  return -1;
}

void
ucb_xml_puts (FILE *f, const char *s)
{
  /* '\n' kept in attribute values too (JUnit messages). */
  static const char *const ref[UCHAR_MAX + 1] = {
    ['&'] = "&amp;",  ['<'] = "&lt;",   ['>'] = "&gt;",
    ['"'] = "&quot;", ['\''] = "&#39;", ['\n'] = "&#10;",
  };
  const unsigned char *p = (const unsigned char *) s;

  while (p && *p)
    {
      size_t n = ucb_utf8_len (p);

      if (n == 1 && ref[*p])
        fputs (ref[*p], f);
      else if (n == 1)
        /* Control characters are not allowed in XML 1.0, not even as references. */
        fputc (*p < 0x20 && *p != '\t' ? '?' : *p, f);
      else if (n == 0 || (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe))
        /* Neither a byte that is no UTF-8 nor U+FFFE/U+FFFF is an XML Char. */
        fputs ("\xef\xbf\xbd", f); /* U+FFFD, the replacement character */
      else
        fwrite (p, 1, n, f);
      p += n ? n : 1;
    }
}

void
ucb_line_puts (FILE *f, const char *s)
{
  cleanup_free char *line = ucb_escape_controls (s ? s : "");

  fputs (line, f);
}
