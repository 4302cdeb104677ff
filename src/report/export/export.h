/* SPDX-License-Identifier: GPL-2.0-or-later */
/* export.h - the export room's one way in: `ucbench export` and the verify writers that
 * `ucbench verify` shares (TAP 13, JUnit). */
#ifndef UCB_EXPORT_H
#define UCB_EXPORT_H

#include <stdio.h>

#include <jansson.h>

#include "core/error.h"
#include "report/meanings.h"

/* The formats of `--to`, in its order: one line each, (ID, descriptor, name).  A format is a
 * file here that defines its descriptor (report/export/exporter.h) and a line of this list. */
#define UCB_EXPORTERS(X)                                                                           \
  X (GAB, ucb_exporter_gab, "gab")                                                                 \
  X (GAB_SMALLER, ucb_exporter_gab_smaller, "gab-smaller")                                         \
  X (BMF, ucb_exporter_bmf, "bmf")                                                                 \
  X (GBENCH, ucb_exporter_gbench, "gbench")                                                        \
  X (LKP, ucb_exporter_lkp, "lkp")                                                                 \
  X (JUNIT, ucb_exporter_junit, "junit")                                                           \
  X (KTAP, ucb_exporter_ktap, "ktap")                                                              \
  X (KCIDB, ucb_exporter_kcidb, "kcidb")                                                           \
  X (LAVA, ucb_exporter_lava, "lava")

#define UCB_EXPORT_ENUM(id, var, name) UCB_EXPORT_##id,
enum ucb_export_format
{
  UCB_EXPORTERS (UCB_EXPORT_ENUM) UCB_EXPORT_N
};
#undef UCB_EXPORT_ENUM

/* The names, by enum value. */
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

/* The verify cases of a document ucbench has just built as JUnit XML (`ucbench verify --format
 * junit`: the XML of `--to junit`). */
void ucb_export_junit (FILE *f, json_t *doc);

#endif
