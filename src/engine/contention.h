/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contention.h - what a point's readings say beyond its counts, derived once from the C
 * structs, before any document: each task's window, the point's total rate and its contention
 * (did each task get the CPU it should own?).  For the document (cli/doc-point.c) and
 * --repeat auto (repeat-auto.h) alike. */
#ifndef UCB_CONTENTION_H
#define UCB_CONTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/measure.h"
#include "engine/sweep.h"

struct ucb_point_result;

/* What one task (or the sum of a container's tasks) did over the measured window. */
struct ucb_window
{
  uint64_t ops, fails, cpu_ns;
  double span_s; /* first to last reading */
  double rate;   /* ops / span_s */
};
struct ucb_window ucb_task_window (const struct ucb_samples *s, size_t task);
/* Over the containers, their tasks' window rates summed (summary.total_ops_per_s); 0 with
 * fewer than two readings. */
double ucb_point_total_ops (const struct ucb_point_result *r);

/* A point of the run and its total (NaN: never run), for the figures drawn across points. */
struct ucb_point_total
{
  struct ucb_point pt;
  double total;
};
/* summary.scalability of each: total / (N x the median total of the 1-container points of its
 * series: workload, owner, depth, tasks, mode); NaN where the series has none.  A point never
 * run counts as 0. */
void ucb_scalability (const struct ucb_point_total *p, size_t n, double *out);

/* Contention of the point: each task's CPU share per interval, its fair share and whether it
 * got it, computed once before any JSON. */
struct ucb_contention
{
  double threshold;
  size_t ntasks, nint;
  double *fair;   /* per task: its fair share of one CPU */
  int *group;     /* per task: the tasks that take turns with it (its pinned CPU; -1 unpinned) */
  double *share;  /* [k * ntasks + task], k the 0-based interval; NaN = unknown */
  double *wshare; /* per task: over the whole window; NaN = unknown */
  bool *flag;     /* [k * ntasks + task]: the sample is contended */
  bool *unknown;  /* [k * ntasks + task]: the sample's share is unknown, so it is not judged */
  bool owns_all;
  double fair_min;
  size_t samples, contended, unjudged; /* task samples */
  size_t nkernel; /* tasks whose window share is the kernel's clock of their process */
  bool *late;     /* per interval: its closing reading missed its due time */
  size_t nlate;
  double late_max_s; /* the latest reading's delay past its due time, over every row */
  /* Tasks taking turns on one CPU, and the window that gives each of them a few slices; an
   * interval shorter than that cannot show a share, and the whole window is judged instead. */
  size_t per_cpu;
  double window_needed_s;
  bool by_window;
  size_t nstarved; /* containers: filled by the document (cli/doc-point.c) */
};
/* `nallowed`: the CPUs the run may use (struct ucb_placement). */
void ucb_contention_init (struct ucb_contention *ct, const struct ucb_point_result *r,
                          size_t nallowed);
void ucb_contention_free (struct ucb_contention *ct);

#endif
