/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.c - construction, wrapping, reporting and serialisation of ucb_error_t; every message
 * one line (control characters escaped). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

/* The functions themselves here, not the wrappers that show callers their -1. */
#undef ucb_make_error
#undef ucb_usage_error
#undef ucb_error_wrap

void
ucb_oom (void)
{
  static const char msg[] = "ucbench: out of memory\n";
  if (write (STDERR_FILENO, msg, sizeof msg - 1) < 0)
    {
      /* nothing left to do */
    }
  abort ();
}

size_t
ucb_utf8_len (const unsigned char *p)
{
  size_t n;

  if (p[0] < 0x80)
    return 1;
  if (p[0] >= 0xc2 && p[0] <= 0xdf)
    n = 2;
  else if (p[0] >= 0xe0 && p[0] <= 0xef)
    n = 3;
  else if (p[0] >= 0xf0 && p[0] <= 0xf4)
    n = 4;
  else
    return 0;
  for (size_t i = 1; i < n; i++) /* stops at the terminator, which is no continuation */
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)
      || (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
    return 0;
  return n;
}

char *
ucb_escape_controls (const char *s)
{
  const unsigned char *p = (const unsigned char *) s;
  char *out = malloc (4 * strlen (s) + 1), *o = out; /* at most \xHH a byte */

  if (out == NULL)
    ucb_oom ();
  while (*p)
    {
      size_t n = ucb_utf8_len (p);
      /* C1 (NEL among them) and U+2028/U+2029: line breaks to Python's str.splitlines()
       * (kunit.py) and to JavaScript. */
      bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
      bool sep = n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9);
      size_t brk = c1 || sep ? n : 0;

      if ((n == 1 && *p >= 0x20 && *p != 0x7f) || (n > 1 && !brk))
        {
          memcpy (o, p, n);
          o += n;
          p += n;
          continue;
        }
      for (size_t i = 0; i < (brk ? brk : 1); i++, p++)
        {
          const char *name = *p == '\n' ? "n" : *p == '\t' ? "t" : *p == '\r' ? "r" : NULL;
          o += name ? snprintf (o, 5, "\\%s", name) : snprintf (o, 5, "\\x%02x", *p);
        }
    }
  *o = '\0';
  return out;
}

static int make_error_v (ucb_error_t *err, int code, int status, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 4, 0)));

static int
make_error_v (ucb_error_t *err, int code, int status, const char *fmt, va_list ap)
{
  struct ucb_error_s *e;
  char *raw = NULL;

  if (err == NULL)
    return -1;
  e = calloc (1, sizeof *e);
  if (e == NULL)
    ucb_oom ();
  e->code = code;
  e->status = status;
  if (vasprintf (&raw, fmt, ap) < 0)
    ucb_oom ();
  e->msg = ucb_escape_controls (raw);
  free (raw);
  ucb_error_free (err);
  *err = e;
  return -1;
}

int
ucb_make_error (ucb_error_t *err, int code, const char *fmt, ...)
{
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = make_error_v (err, code, UCB_EXIT_FAILURE, fmt, ap);
  va_end (ap);
  return r;
}

int
ucb_usage_error (ucb_error_t *err, const char *fmt, ...)
{
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = make_error_v (err, 0, UCB_EXIT_USAGE, fmt, ap);
  va_end (ap);
  return r;
}

int
ucb_error_wrap (ucb_error_t *err, const char *fmt, ...)
{
  char *raw = NULL, *ctx, *joined = NULL;
  size_t len;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  if (vasprintf (&raw, fmt, ap) < 0)
    ucb_oom ();
  va_end (ap);
  ctx = ucb_escape_controls (raw);
  free (raw);
  len = strlen (ctx);
  /* Each part of the message says its context once: a layer that adds "--cgroup" to
   * "--cgroup=X: no such cgroup" says nothing new (strchr finds the terminator too: the
   * message may be the context itself). */
  if (len > 0 && strncmp ((*err)->msg, ctx, len) == 0 && strchr (" :=", (*err)->msg[len]))
    {
      free (ctx);
      return -1;
    }
  if (asprintf (&joined, "%s: %s", ctx, (*err)->msg) < 0)
    ucb_oom ();
  free (ctx);
  free ((*err)->msg);
  (*err)->msg = joined;
  return -1;
}

void
ucb_error_free (ucb_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free ((*err)->msg);
  free (*err);
  *err = NULL;
}

int
ucb_error_report (ucb_error_t *err)
{
  int status;

  if (err == NULL || *err == NULL)
    return UCB_EXIT_FAILURE;
  status = (*err)->status;
  if ((*err)->code > 0)
    fprintf (stderr, "ucbench: %s: %s\n", (*err)->msg, strerror ((*err)->code));
  else
    fprintf (stderr, "ucbench: %s\n", (*err)->msg);
  if (status == UCB_EXIT_USAGE)
    fprintf (stderr, "Try 'ucbench --help' for more information.\n");
  ucb_error_free (err);
  return status;
}

void
ucb_error_to_wire (const ucb_error_t *err, struct ucb_wire_error *w)
{
  memset (w, 0, sizeof *w);
  if (err == NULL || *err == NULL)
    {
      w->status = UCB_EXIT_FAILURE;
      snprintf (w->msg, sizeof w->msg, "unknown error");
      return;
    }
  w->code = (*err)->code;
  w->status = (*err)->status;
  snprintf (w->msg, sizeof w->msg, "%s", (*err)->msg);
}

int
ucb_error_from_wire (ucb_error_t *err, const struct ucb_wire_error *w)
{
  char msg[UCB_WIRE_MSG_MAX];
  int r;

  /* The peer may have sent garbage: never trust its terminator. */
  memcpy (msg, w->msg, sizeof msg);
  msg[sizeof msg - 1] = '\0';
  r = ucb_make_error (err, w->code, "%s", msg);
  if (*err && w->status == UCB_EXIT_USAGE)
    (*err)->status = UCB_EXIT_USAGE;
  return r;
}
