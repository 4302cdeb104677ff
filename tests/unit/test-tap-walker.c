/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-tap-walker.c - ucb_tap_write(), the one walker behind `ucbench verify`'s TAP and
 * `ucbench export --to ktap`: every status under both directive tables, the diagnostics on the
 * right side of the result line, the hook before the totals, and the totals line, as exact text.
 * A failing case's diagnostics are the part of verify's TAP no other test reads. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "report/export/export.h"

static const struct ucb_tap_case cases[] = {
  { "ULIM-01", "alpha", "pass", "", NULL, NULL },
  { "ULIM-02", "beta", "fail", "over-admission", NULL, NULL },
  { "ULIM-03", "gamma", "known-bug", "observed 16", "memlock-units", "since d7c9e99aee48" },
  { "ULIM-04", "delta", "skip", "needs CAP_SYS_RESOURCE", NULL, NULL },
  { "ULIM-05", "epsilon", "error", "timed out", NULL, NULL },
  /* A document's strings stay on their result line, and no '#' starts a directive there. */
  { "ULIM-06", "zeta#1", "weird", "x\ty\xe2\x80\xa8ok 1 # SKIP", NULL, NULL },
  { "ULIM-07", "eta", "known-bug", "observed 5", NULL, NULL },
};
#define NCASES (sizeof cases / sizeof cases[0])

static void
diag (FILE *f, const void *ctx, size_t i)
{
  (void) ctx;
  fprintf (f, "# diagnostics of %s\n", cases[i].id);
}

static void
matrix (FILE *f, const void *ctx, size_t n)
{
  (void) ctx;
  fprintf (f, "# matrix of %zu\n", n);
}

/* What ucb_tap_write() printed; free() it. */
static char *
written (const struct ucb_tap_format *fmt, const struct ucb_tap_hooks *hooks)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  if (f == NULL)
    abort ();
  ucb_tap_write (f, fmt, cases, NCASES, hooks);
  fclose (f);
  return buf;
}

static void
test_tap13 (void)
{
  const struct ucb_tap_hooks hooks = { diag, matrix, NULL };
  char *out = written (&ucb_tap13, &hooks);

  /* known-bug is TAP's TODO (harnesses do not fail on it), naming its bug and reference when the
   * case says; a failure's diagnostics follow it. */
  tap_check_str (out, "TAP version 13\n"
                      "1..7\n"
                      "ok 1 ULIM-01 alpha\n"
                      "not ok 2 ULIM-02 beta\n"
                      "# diagnostics of ULIM-02\n"
                      "not ok 3 ULIM-03 gamma # TODO known kernel bug memlock-units (since "
                      "d7c9e99aee48): observed 16\n"
                      "ok 4 ULIM-04 delta # SKIP needs CAP_SYS_RESOURCE\n"
                      "not ok 5 ULIM-05 epsilon # ERROR timed out\n"
                      "not ok 6 ULIM-06 zeta\\x231 # ERROR unknown status weird: "
                      "x\\ty\\xe2\\x80\\xa8ok 1 \\x23 SKIP\n"
                      "not ok 7 ULIM-07 eta # TODO known kernel bug: observed 5\n"
                      "# matrix of 7\n"
                      "# Totals: pass:1 fail:1 xfail:2 xpass:0 skip:1 error:2\n");
  free (out);
}

static void
test_ktap1 (void)
{
  const struct ucb_tap_hooks hooks = { diag, NULL, NULL };
  char *out = written (&ucb_ktap1, &hooks);

  /* KTAP: known-bug is ok # XFAIL; diagnostics come before the result line they belong to
   * (kunit_parser.py gives them to the next result), for every status but pass and skip. */
  tap_check_str (out, "KTAP version 1\n"
                      "1..7\n"
                      "ok 1 ULIM-01 alpha\n"
                      "# diagnostics of ULIM-02\n"
                      "not ok 2 ULIM-02 beta\n"
                      "# diagnostics of ULIM-03\n"
                      "ok 3 ULIM-03 gamma # XFAIL known kernel bug memlock-units (since "
                      "d7c9e99aee48): observed 16\n"
                      "ok 4 ULIM-04 delta # SKIP needs CAP_SYS_RESOURCE\n"
                      "# diagnostics of ULIM-05\n"
                      "not ok 5 ULIM-05 epsilon # ERROR timed out\n"
                      "# diagnostics of ULIM-06\n"
                      "not ok 6 ULIM-06 zeta\\x231 # ERROR unknown status weird: "
                      "x\\ty\\xe2\\x80\\xa8ok 1 \\x23 SKIP\n"
                      "# diagnostics of ULIM-07\n"
                      "ok 7 ULIM-07 eta # XFAIL known kernel bug: observed 5\n"
                      "# Totals: pass:1 fail:1 xfail:2 xpass:0 skip:1 error:2\n");
  free (out);
}

static const struct tap_test tests[] = {
  { "TAP 13: every status, a failure's diagnostics after it, the matrix hook, the totals, "
    "line breaks and # escaped",
    test_tap13 },
  { "KTAP 1: known-bug as XFAIL, diagnostics before the result line, line breaks and # escaped",
    test_ktap1 },
};

TAP_MAIN (tests)
