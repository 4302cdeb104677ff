/* export.h - `ucbench export` (report/export.c) and the verify exporters shared with
 * `ucbench verify` (report/export-verify.c). */
#ifndef UCB_EXPORT_H
#define UCB_EXPORT_H

#include <stdio.h>

#include <jansson.h>

#include "core/error.h"
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
  UCB_EXPORT_N,
};

/* "gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap", by enum value. */
extern const char *const ucb_export_format_names[UCB_EXPORT_N];

/* Load `input`, convert it to `format`, write to `output` (JSON formats atomically) or stdout
 * when NULL.  A document without what the format needs is a usage error naming the file. */
int ucb_export (enum ucb_export_format format, const char *input, const char *output,
                ucb_error_t *err) __attribute__ ((warn_unused_result));

/* The verify cases of a document as JUnit XML (known-bug as skipped with its message) and as
 * KTAP (known-bug as XFAIL). */
void ucb_export_junit_doc (FILE *f, const struct ucb_doc *d);
void ucb_export_ktap_doc (FILE *f, const struct ucb_doc *d);
/* The same, for a document that ucbench has just built (`ucbench verify --format junit`). */
void ucb_export_junit (FILE *f, json_t *doc);
void ucb_export_ktap (FILE *f, json_t *doc);

#endif
