/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exporter.h - inside the export room: what a format is (its descriptor) and what the formats
 * share.  Other rooms and the CLI see report/export/export.h only. */
#ifndef UCB_EXPORTER_H
#define UCB_EXPORTER_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/stats.h"
#include "report/export/export.h"
#include "report/flags.h"
#include "report/model.h"

/* One format.  Its forms of a verdict and of a flagged point are its columns of the table of
 * meanings (report/meanings.h); the name is its line of UCB_EXPORTERS. */
struct ucb_exporter
{
  /* The documents it takes: UCB_DOC_RUN needs a measured point, UCB_DOC_VERIFY the verify[]
   * array, UCB_DOC_ANY either. */
  unsigned kinds;
  /* One of the two writers: a JSON value (written atomically), or text.  `fl`: per group,
   * ucb_flags_of_groups (d). */
  json_t *(*json) (const struct ucb_doc *d, const struct ucb_flags *fl,
                   const struct ucb_export_opts *o);
  void (*text) (FILE *f, const struct ucb_doc *d, const struct ucb_flags *fl);
};

#define UCB_EXPORT_DECL(id, var, name) extern const struct ucb_exporter var;
UCB_EXPORTERS (UCB_EXPORT_DECL)
#undef UCB_EXPORT_DECL

/* ---- the benchmark formats (points.c) ---------------------------------------------------- */

/* WORKLOAD/OWNER/depth:D/tasks:T/MODE/containers:N: the same with and without --repeat (its
 * repeats are one series, their median); free it. */
char *ucb_export_point_name (const struct ucb_doc_point *p);
/* The owner contrast's pair x (report/contrast.h) named as a point, the owner mode's place
 * saying what is divided by what; free it. */
char *ucb_export_pair_name (const json_t *x);

enum ucb_export_figure
{
  UCB_FIG_PER_CONTAINER, /* summary.per_container_ops */
  UCB_FIG_CPU,           /* summary.cpu_ns_per_op */
  UCB_FIG_REAL_NS,       /* 1e9 / summary.total_ops_per_s: wall ns per op of all tasks */
};
double ucb_export_figure (const struct ucb_doc_summary *s, enum ucb_export_figure f);
/* Statistics of a per-container figure (CPU ns/op or ops/s) over the containers where it is
 * not null. */
void ucb_export_container_stats (const struct ucb_doc_point *p, bool cpu, struct ucb_stats *st);
/* Statistics of a figure over the measured repeats of group g (where it is not null). */
void ucb_export_repeat_stats (const struct ucb_doc *d, size_t g, enum ucb_export_figure f,
                              struct ucb_stats *st);
/* The first measured point of each group, in document order: points[i] is one when this is
 * true; `seen` has n_groups entries. */
bool ucb_export_first_of_group (const struct ucb_doc *d, bool *seen, size_t i);

/* ---- the verify formats (verdicts.c) ----------------------------------------------------- */

/* The text of verify case i (its detail, checks, dependencies, each expected observation and
 * what was observed), one line each, as a string (free it). */
char *ucb_export_case_string (const struct ucb_doc *d, size_t i);
/* 1 for the first entry of case i's id, 2 for its second (`verify --repeat`), ... */
size_t ucb_export_case_repeat (const struct ucb_doc *d, size_t i);

#endif
