/* report.h - the result document (jansson) and the text table drawn from it. */
#ifndef UCB_REPORT_H
#define UCB_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "core/error.h"
#include "cli/options.h"
#include "engine/runner.h"

#define UCB_SCHEMA "ucbench-result/1"

/* One results[] entry from a measured point (pure: no I/O). */
json_t *ucb_report_point (const struct ucb_point_result *r, const struct ucb_placement *pl);
/* A results[] entry for a point that was not run (an unsupported workload), with `reason`. */
json_t *ucb_report_skipped (const struct ucb_point *pt, const char *reason);
/* Fill summary.scalability of every entry: total / (N * median total of the 1-container
 * points of the same workload, owner, depth, tasks and mode), null when there is none. */
void ucb_report_scalability (json_t *results);
/* `config`: every run option as resolved; `rt` (NULL: none) adds config.runtime. */
json_t *ucb_report_config (const struct ucb_run_options *o, const struct ucb_placement *pl,
                           const struct ucb_runtime *rt);
/* The whole document; steals references to host, config and results. */
json_t *ucb_report_document (int argc, char **argv, double start_realtime, double duration_s,
                             json_t *host, json_t *config, json_t *results);
/* Write with ucb_json_write() to `path`, atomically (a temporary renamed into place). */
int ucb_report_write_file (const json_t *doc, const char *path, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* report-runtime.c: what --pin, --cgroup, --seccomp, --caps and --perf add. */
const char *ucb_pin_mode_name (enum ucb_pin_mode m);
json_t *ucb_report_topology (const struct ucb_placement *pl);
void ucb_report_task_topology (json_t *task, const struct ucb_placement *pl, int cpu);
void ucb_report_container_extras (json_t *o, const struct ucb_container_result *c, uint64_t ops);
void ucb_report_point_extras (json_t *o, json_t *sum, const struct ucb_point_result *r,
                              const struct ucb_placement *pl, const uint64_t *container_ops);
/* Rows of the scaling-by-L3-domain table (--pin l3), from results[].placement. */
json_t *ucb_report_l3_table (json_t *results);
void ucb_report_l3_text (FILE *f, json_t *rows);

/* The human table: one row per results[] entry. */
void ucb_report_text (FILE *f, const json_t *doc);

#endif
