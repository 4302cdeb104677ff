/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-error.c - errors as values: make, wrap, usage status, and crossing a process boundary. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "core/error.h"

static void
test_make_and_wrap (void)
{
  ucb_error_t err = NULL;

  tap_check_int (ucb_make_error (&err, ENOENT, "open `%s`", "/x"), ==, -1);
  tap_check_int (ucb_error_wrap (&err, "container %d", 3), ==, -1);
  tap_check_str (err->msg, "container 3: open `/x`");
  tap_check_int (err->code, ==, ENOENT);
  tap_check_int (err->status, ==, UCB_EXIT_FAILURE);
  ucb_error_free (&err);
  tap_check (err == NULL);
  ucb_error_free (&err); /* idempotent */
}

static void
test_usage_status (void)
{
  ucb_error_t err = NULL;

  ucb_usage_error (&err, "bad `%s`", "x");
  tap_check_int (err->status, ==, UCB_EXIT_USAGE);
  tap_check_int (err->code, ==, 0);
  ucb_error_free (&err);
}

static void
test_cross_fork (void)
{
  struct ucb_wire_error w;
  ucb_error_t err = NULL;
  int sv[2];
  pid_t pid;

  tap_check_int (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, sv), ==, 0);
  pid = fork ();
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      ucb_make_error (&e, EAGAIN, "setresuid(%u)", 12345u);
      ucb_error_to_wire (&e, &w);
      _exit (send (sv[1], &w, sizeof w, 0) == (ssize_t) sizeof w ? 0 : 1);
    }
  tap_check_int (recv (sv[0], &w, sizeof w, 0), ==, (long long) sizeof w);
  waitpid (pid, NULL, 0);
  ucb_error_from_wire (&err, &w);
  tap_check_str (err->msg, "setresuid(12345)");
  tap_check_int (err->code, ==, EAGAIN);
  ucb_error_free (&err);
  close (sv[0]);
  close (sv[1]);
}

static void
test_wire_truncation (void)
{
  struct ucb_wire_error w;
  ucb_error_t err = NULL;
  char big[2000];

  memset (big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ucb_make_error (&err, 0, "%s", big);
  ucb_error_to_wire (&err, &w);
  ucb_error_free (&err);
  memset (w.msg, 'b', sizeof w.msg); /* no terminator at all: must not overrun */
  ucb_error_from_wire (&err, &w);
  tap_check_int (strlen (err->msg), ==, UCB_WIRE_MSG_MAX - 1);
  ucb_error_free (&err);
}

/* Control characters as C escapes, UTF-8 kept, C1 controls, U+2028, U+2029 and invalid bytes
 * as \xHH; twice is once; every message goes through it (issue 25 item 10, issue 35 D2). */
static void
test_escape (void)
{
  static const struct
  {
    const char *in, *out;
  } cases[] = {
    { "plain `x` \\n", "plain `x` \\n" },
    { "a\nb\tc\rd", "a\\nb\\tc\\rd" },
    { "\x1b[2J\x7f\x01", "\\x1b[2J\\x7f\\x01" },
    { "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80" },
    { "a\xc2\x9b"
      "b",
      "a\\xc2\\x9bb" },                                      /* U+009B, CSI */
    { "\xe9t\xe6\x97", "\\xe9t\\xe6\\x97" },                 /* Latin-1, a cut sequence */
    { "\xc0\xaf\xed\xa0\x80", "\\xc0\\xaf\\xed\\xa0\\x80" }, /* overlong, surrogate */
    /* Every other line break of Python's str.splitlines() (kunit.py): \v \f FS GS RS, NEL,
     * U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR; their neighbours kept. */
    { "\v\f\x1c\x1d\x1e\x1f", "\\x0b\\x0c\\x1c\\x1d\\x1e\\x1f" },
    { "a\xc2\x85"
      "b",
      "a\\xc2\\x85b" },
    { "\xe2\x80\xa8ok 1\xe2\x80\xa9", "\\xe2\\x80\\xa8ok 1\\xe2\\x80\\xa9" },
    { "\xe2\x80\xa7\xe2\x80\xaa\xe2\x81\x9f", "\xe2\x80\xa7\xe2\x80\xaa\xe2\x81\x9f" },
  };
  ucb_error_t err = NULL;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *once = ucb_escape_controls (cases[i].in), *twice = ucb_escape_controls (once);
      tap_check_str (once, cases[i].out);
      tap_check_str (twice, once);
      free (once);
      free (twice);
    }
  ucb_usage_error (&err, "unknown workload `%s`", "a\nb");
  ucb_error_wrap (&err, "--x \x1b%s", "y");
  tap_check_str (err->msg, "--x \\x1by: unknown workload `a\\nb`");
  ucb_error_free (&err);
}

/* A context the message already starts with is not added again. */
static void
test_wrap_once (void)
{
  static const struct
  {
    const char *msg, *ctx, *out;
  } cases[] = {
    { "--cgroup=x: no such cgroup", "--cgroup", "--cgroup=x: no such cgroup" },
    { "--cgroup needs write access", "--cgroup", "--cgroup needs write access" },
    { "--cgroup: lock", "--cgroup", "--cgroup: lock" },
    { "--cgroup", "--cgroup", "--cgroup" },
    { "--cgroup-set a=1: no file", "--cgroup", "--cgroup: --cgroup-set a=1: no file" },
    { "container 10 init: x", "container 1", "container 1: container 10 init: x" },
    { "container 0 init: x", "container 0", "container 0 init: x" },
    { "x", "", ": x" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      ucb_error_t err = NULL;
      ucb_make_error (&err, 0, "%s", cases[i].msg);
      ucb_error_wrap (&err, "%s", cases[i].ctx);
      tap_check_str (err->msg, cases[i].out);
      ucb_error_free (&err);
    }
}

static const struct tap_test tests[] = {
  { "make and wrap keep code and add context", test_make_and_wrap },
  { "control characters escaped, every message one line", test_escape },
  { "a context is said once", test_wrap_once },
  { "usage errors exit with status 2", test_usage_status },
  { "an error crosses fork over SOCK_SEQPACKET", test_cross_fork },
  { "wire messages are bounded and terminated", test_wire_truncation },
};

TAP_MAIN (tests)
