/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parts.h - inside the compare room (the way in is compare.h).  compare.c computes the result
 * (struct ucb_cmp_result); json.c writes it as JSON, text.c as the table; diff.c: what
 * differs between the documents besides their points (the host, the run options that change
 * what is measured); usl.c: the scalability section, the USL fit of each series on each side
 * (report/usl-doc.h) and how sigma, kappa and the scale changed, as JSON and text. */
#ifndef UCB_COMPARE_PARTS_H
#define UCB_COMPARE_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report/compare-stats.h"
#include "report/model.h"
#include "report/usl-doc.h"

/* The keys of host, config and tool (docs/json.md, compare's `differences`) whose values differ
 * between base and head, or between the documents of one side, as a new array of
 * {key, base, head}: a side's value when its documents agree, else an array of each document's
 * value (null where one does not record the key).  Each difference's sentence, as the text
 * output prints it after `# note: `, is pushed on `notes`.  Volatile keys (start time, argv,
 * hostname, pids, notes) are not compared. */
json_t *ucb_compare_differences (const struct ucb_doc *base, size_t n_base,
                                 const struct ucb_doc *head, size_t n_head, json_t *notes);

/* A row: point `r` measured on both sides.  `t.from_contended`: too few repeats were left
 * without the contended ones, so the estimates (and medians) are of every repeat, and decide
 * nothing.  The last fields come from the table's family. */
struct ucb_cmp_row
{
  const struct ucb_doc_point *r;
  struct ucb_cmp_test t; /* its estimates, as a test of the table's family */
  bool invocation;       /* the unit is the document (else the repeat) */
  double med_b, med_h, cpu_b, cpu_h, cv_b, cv_h;
  double gm_b, gm_h; /* the geometric means the ratio is of */
  size_t used_b, left_b, used_h, left_h;
  char flags_b[2 * UCB_POINT_FLAGS_MAX], flags_h[2 * UCB_POINT_FLAGS_MAX];
  double adj_b, adj_i; /* Holm-adjusted p_beyond, p_inside */
  enum ucb_cmp_verdict verdict;
  size_t needed;         /* units a side that would likely settle it; 0: none said */
  bool needed_documents; /* those are documents (with a drift, repeats cannot), else repeats */
};

/* A point of document `file` only one side has; its key workload|containers|owner|depth|... */
struct ucb_cmp_only
{
  const char *file;
  char *point;
};

/* A verify case whose worst status differs between the sides (NULL: absent from a side). */
struct ucb_cmp_case
{
  const char *id, *base, *head;
  bool base_not_run, head_not_run, newly_failing;
};

/* A series both sides have; `both`: fitted on both, then the scale at the largest N both
 * fits cover, `scale_n` (0: none above 1). */
struct ucb_cmp_series
{
  const struct ucb_usl_series *b, *h;
  bool both;
  long long scale_n;
  struct ucb_usl_pred pb, ph;
};

struct ucb_cmp_usl
{
  struct ucb_usl_model mb, mh; /* the series the entries point into */
  struct ucb_cmp_series *s;
  size_t n;
};

/* The scalability section: each series both sides have, fitted on each over all its
 * documents; as the `scalability` array (docs/json.md), and as `# scalability` lines for
 * those fitted on both sides. */
void ucb_compare_usl (const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
                      size_t n_head, struct ucb_cmp_usl *out);
void ucb_compare_usl_free (struct ucb_cmp_usl *u);
json_t *ucb_compare_usl_json (const struct ucb_cmp_usl *u);
void ucb_compare_usl_print (const struct ucb_cmp_usl *u);

/* What compare found, which both outputs print. */
struct ucb_cmp_result
{
  const struct ucb_doc *base, *head;
  size_t n_base, n_head;
  double threshold_pct, drift_pct;
  bool canary;         /* the ratios are of canary-normalised values */
  json_t *differences; /* ucb_compare_differences(): quotes the documents' values */
  json_t *warnings;    /* strings: each difference's sentence first, then the others */
  char *caveat;        /* when a row's unit is the repeat, else NULL */
  struct ucb_cmp_row *rows;
  struct ucb_cmp_only *only;
  struct ucb_cmp_case *cases;
  size_t n_rows, n_only, n_cases, regressions, newly_failing;
  struct ucb_cmp_usl usl;
};

/* `res` as compare's JSON document (json.c). */
json_t *ucb_compare_json (const struct ucb_cmp_result *res);

/* `res` on stdout as the table: at most three lines before it (the documents, what the
 * columns are, what limits the reading), or with `verbose` the method, legend, every note. */
void ucb_compare_print_text (const struct ucb_cmp_result *res, bool verbose);

#endif
