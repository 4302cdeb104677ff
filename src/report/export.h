/* export.h - exporters shared by `ucbench export` and `ucbench verify`. */
#ifndef UCB_EXPORT_H
#define UCB_EXPORT_H

#include <stdio.h>

#include <jansson.h>

/* The verify[] array of a document (as `ucbench verify --format json` writes it) as JUnit
 * XML (known-bug as skipped with its message) and as KTAP (known-bug as XFAIL). */
void ucb_export_junit (FILE *f, json_t *doc);
void ucb_export_ktap (FILE *f, json_t *doc);

#endif
