/* report.h - the result document (jansson) and the text table drawn from it. */
#ifndef UCB_REPORT_H
#define UCB_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "error.h"
#include "options.h"
#include "runner.h"

#define UCB_SCHEMA "ucbench-result/1"

/* One results[] entry from a measured point (pure: no I/O). */
json_t *ucb_report_point (const struct ucb_point_result *r, const struct ucb_placement *pl);
/* A results[] entry for a point that was not run (an unsupported workload), with `reason`. */
json_t *ucb_report_skipped (const struct ucb_point *pt, const char *reason);
/* Fill summary.scalability of every entry: total / (N * median total of the 1-container
 * points of the same workload, owner, depth, tasks and mode), null when there is none. */
void ucb_report_scalability (json_t *results);
/* `config`: every run option as resolved. */
json_t *ucb_report_config (const struct ucb_run_options *o, const struct ucb_placement *pl);
/* The whole document; steals references to host, config and results. */
json_t *ucb_report_document (int argc, char **argv, double start_realtime, double duration_s,
                             json_t *host, json_t *config, json_t *results);
/* Write with ucb_json_write() to `path`, atomically (a temporary renamed into place). */
int ucb_report_write_file (const json_t *doc, const char *path, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The human table: one row per results[] entry. */
void ucb_report_text (FILE *f, const json_t *doc);

#endif
