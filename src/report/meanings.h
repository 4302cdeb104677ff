/* SPDX-License-Identifier: GPL-2.0-or-later */
/* meanings.h - one table of what a verify verdict and a measured point mean, and the form each
 * consumer gives that meaning (TAP, KTAP, JUnit, LAVA, KCIDB, the benchmark dashboards, LKP).
 * Every exporter takes its form from here, so that one known kernel bug, or one point measured
 * on a busy host, reads the same in every output; docs/exporters.md shows the table, and
 * tests/unit/test-meanings.c checks that it shows this one. */
#ifndef UCB_MEANINGS_H
#define UCB_MEANINGS_H

#include <stdbool.h>
#include <stddef.h>

/* What a reader may conclude, whatever the format.  The first five, in this order, are the
 * kselftest totals (pass, fail, xfail, skip, error). */
enum ucb_meaning
{
  UCB_MEANING_PASS,        /* the kernel did what the case expects */
  UCB_MEANING_KERNEL_FAIL, /* the kernel under test broke the rule */
  UCB_MEANING_KNOWN_BUG,   /* it broke it as a named, documented bug does: not a new failure */
  UCB_MEANING_SKIPPED,     /* the case could not run here: nothing said of the kernel */
  UCB_MEANING_NO_VERDICT,  /* the harness failed (or wrote a status this version does not know) */
  UCB_MEANING_CLEAN,       /* a measurement to compare */
  UCB_MEANING_FLAGGED,     /* a measurement the host disturbed: data, never a kernel failure */
  UCB_MEANING_N,
};

/* "pass", "kernel-fail", "kernel-known-bug", "skipped", "no-verdict", "clean",
 * "flagged-environment". */
extern const char *const ucb_meaning_names[UCB_MEANING_N];

/* A TAP result line: its word, the directive after " # " (NULL: none), and whether the case's
 * diagnostics go with it. */
struct ucb_tap_form
{
  const char *word, *directive;
  bool diag;
};

struct ucb_verdict_row
{
  const char *status; /* the document's; NULL: any status this version does not know */
  enum ucb_meaning meaning;
  bool fails_run;   /* `ucbench verify` exits 1, so a CI job fails */
  const char *note; /* before a known bug's id and the detail: "known kernel bug" */
  struct ucb_tap_form tap13, ktap1;
  const char *junit;      /* the element in <testcase>; NULL: none */
  const char *junit_type; /* its type= */
  const char *lava;       /* the result LAVA records */
  bool lava_reference;    /* recorded with lava-test-reference, the bug's page as reference */
  const char *kcidb;      /* the test's status */
  bool kcidb_incident;    /* an incident of the bug's issue (culprit: the code) */
};

#define UCB_VERDICT_ROWS 6
extern const struct ucb_verdict_row ucb_verdict_rows[UCB_VERDICT_ROWS];
/* The row of `status`: the last row (no verdict) for one this version does not know, never a
 * pass. */
const struct ucb_verdict_row *ucb_verdict_row (const char *status);
/* What a result line says before the detail: "known kernel bug ID (REFERENCE): ", "known
 * kernel bug: " (a document that names no bug), "unknown status S: ", or "" (free it). */
char *ucb_verdict_note (const struct ucb_verdict_row *r, const char *status, const char *bug_id,
                        const char *bug_reference);

struct ucb_point_row
{
  enum ucb_meaning meaning;
  const char *text;     /* the text table, CSV and plot (for the docs: they list the flags) */
  const char *gab;      /* github-action-benchmark: a last line of `extra`, before the flags */
  const char *bmf;      /* Bencher: the end of the benchmark's name */
  const char *gbench;   /* Google Benchmark: `label`, before the flags */
  const char *flag_key; /* per flag, lkp-tests' stat POINT.<flag_key>.FLAG: 1, LAVA's case
                         * POINT.<flag_key>.FLAG */
  const char *lava;     /* the result of each metric (and flag) LAVA records */
  const char *kcidb;    /* the status of each metric test */
  bool kcidb_incident;  /* per flag, an incident of the flag's issue (culprit: the harness) */
  const char *ci;       /* what the CI examples do on a dashboard alert (for the docs) */
};

/* [0] a clean point, [1] a flagged one (any flag: a flag is handled by its name). */
extern const struct ucb_point_row ucb_point_rows[2];

/* The flags ucb_point_flags() (model.c) writes, by name; a flag added there needs a row here
 * (a flag without one is still flagged, its description generic). */
struct ucb_flag_row
{
  const char *name, *why;
};
extern const struct ucb_flag_row ucb_flag_rows[]; /* ends with { NULL, NULL } */
/* Why the flag of `len` bytes at `name` marks a point. */
const char *ucb_flag_why (const char *name, size_t len);
/* The next flag of the comma-separated list at *list (its start and length), *list moved past
 * it; false at the end. */
bool ucb_flag_next (const char **list, const char **flag, size_t *len);

#endif
