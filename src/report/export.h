/* SPDX-License-Identifier: GPL-2.0-or-later */
/* export.h - `ucbench export` (report/export.c) and the verify exporters shared with
 * `ucbench verify` (report/export-verify.c). */
#ifndef UCB_EXPORT_H
#define UCB_EXPORT_H

#include <stdio.h>

#include <jansson.h>

#include "core/error.h"
#include "report/flags.h"
#include "report/meanings.h"
#include "report/model.h"

enum ucb_export_format
{
  UCB_EXPORT_GAB,
  UCB_EXPORT_GAB_SMALLER,
  UCB_EXPORT_BMF,
  UCB_EXPORT_GBENCH,
  UCB_EXPORT_LKP,
  UCB_EXPORT_JUNIT,
  UCB_EXPORT_KTAP,
  UCB_EXPORT_KCIDB,
  UCB_EXPORT_LAVA,
  UCB_EXPORT_N,
};

/* "gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap", "kcidb", "lava", by enum
 * value. */
extern const char *const ucb_export_format_names[UCB_EXPORT_N];
/* The same, for messages: "gab, gab-smaller, ..., kcidb or lava". */
extern const char ucb_export_format_list[];

/* KCIDB's origin (the submitting CI system) when no --origin is given. */
#define UCB_KCIDB_ORIGIN "ucbench"

struct ucb_export_opts
{
  const char *origin; /* kcidb: NULL for UCB_KCIDB_ORIGIN */
};

/* A usage error unless `origin` is a valid KCIDB origin (^[a-z0-9_]+$). */
int ucb_export_check_origin (const char *origin, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* Load `input`, convert it to `format`, write to `output` (JSON formats atomically) or stdout
 * when NULL.  A document without what the format needs is a usage error naming the file.
 * `opts` may be NULL. */
int ucb_export (enum ucb_export_format format, const char *input, const char *output,
                const struct ucb_export_opts *opts, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* KCIDB I/O schema v5.3 (report/export-kcidb.c): the verify cases and the measured points of
 * `d` as tests of one build of one checkout; a known kernel bug as a FAIL with an incident of
 * the bug's one issue; a flagged point's metrics DONE, with an incident of each flag's issue.
 * `flags`: ucb_flags_of_groups (d). */
json_t *ucb_export_kcidb (const struct ucb_doc *d, const char *origin,
                          const struct ucb_flags *flags);

/* LAVA (report/export-lava.c): the lava-test-case (and lava-test-reference) calls that report
 * every verify case and every metric of every point, one a line, as examples/lava runs them. */
void ucb_export_lava (FILE *f, const struct ucb_doc *d, const struct ucb_flags *flags);

/* The owner contrast of `d` (report/contrast.h) for dashboards (report/export-contrast.c): an
 * entry per pair with a ratio, appended to github-action-benchmark's array `arr` (unit
 * "shared/distinct", bigger is better) or put into BMF's object `out` (measure owner_ratio). */
void ucb_export_contrast_gab (const struct ucb_doc *d, json_t *arr);
void ucb_export_contrast_bmf (const struct ucb_doc *d, json_t *out);

/* The text of verify case i (its detail, checks, dependencies, each expected observation and
 * what was observed), one line each, as a string (free it). */
char *ucb_export_case_string (const struct ucb_doc *d, size_t i);
/* 1 for the first entry of case i's id, 2 for its second (`verify --repeat`), ... */
size_t ucb_export_case_repeat (const struct ucb_doc *d, size_t i);

/* ---- TAP and KTAP: one walker over the cases, the forms of the table of meanings -------- */

/* One case to write: status as in the document ("pass", "fail", "known-bug", ...); bug_id and
 * bug_reference name a known-bug case's bug (NULL when the document does not say). */
struct ucb_tap_case
{
  const char *id, *name, *status, *detail, *bug_id, *bug_reference;
};

struct ucb_tap_format
{
  const char *header; /* "TAP version 13" */
  bool ktap;          /* the rows' KTAP form (report/meanings.h), else their TAP 13 one */
  bool diag_first;    /* diagnostics before the result line (KTAP) or after it (TAP) */
};

/* TAP 13 (`ucbench verify`: known-bug as not ok # TODO, a failure's diagnostics after it) and
 * KTAP 1 (`ucbench export --to ktap`: known-bug as ok # XFAIL, diagnostics before). */
extern const struct ucb_tap_format ucb_tap13, ucb_ktap1;

struct ucb_tap_hooks
{
  /* Case i's diagnostic lines ("# ..."), for the statuses the format's table marks. */
  void (*diag) (FILE *f, const void *ctx, size_t i);
  /* Lines before the totals (verify's matrix), given the number of cases; may be NULL. */
  void (*before_totals) (FILE *f, const void *ctx, size_t n);
  const void *ctx;
};

/* The header, the plan, a result line per case and the kselftest totals line. */
void ucb_tap_write (FILE *f, const struct ucb_tap_format *fmt, const struct ucb_tap_case *cases,
                    size_t n, const struct ucb_tap_hooks *hooks);

/* The verify cases of a document as JUnit XML (known-bug as skipped with its message; each
 * element's text is the case text) and as KTAP (diagnostics before each result line, known-bug
 * as XFAIL). */
void ucb_export_junit_doc (FILE *f, const struct ucb_doc *d);
void ucb_export_ktap_doc (FILE *f, const struct ucb_doc *d);
/* The same, for a document that ucbench has just built (`ucbench verify --format junit`). */
void ucb_export_junit (FILE *f, json_t *doc);

#endif
