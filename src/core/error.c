/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.c - construction, wrapping, reporting and serialisation of ucb_error_t. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

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

static int make_error_v (ucb_error_t *err, int code, int status, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 4, 0)));

static int
make_error_v (ucb_error_t *err, int code, int status, const char *fmt, va_list ap)
{
  struct ucb_error_s *e;

  if (err == NULL)
    return -1;
  e = calloc (1, sizeof *e);
  if (e == NULL)
    ucb_oom ();
  e->code = code;
  e->status = status;
  if (vasprintf (&e->msg, fmt, ap) < 0)
    ucb_oom ();
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
  char *ctx = NULL;
  char *joined = NULL;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  if (vasprintf (&ctx, fmt, ap) < 0)
    ucb_oom ();
  va_end (ap);
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
