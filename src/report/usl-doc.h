/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usl-doc.h - the scalability model of result documents: one Universal Scalability Law fit
 * (report/usl.h) per series (workload, owner, depth, tasks, mode), over the repeats whose tasks
 * each had a CPU of their own; `ucbench model`, compare's scalability section and the model's
 * chart read it.  docs/statistics.md, "The scalability model". */
#ifndef UCB_USL_DOC_H
#define UCB_USL_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report/model.h"
#include "report/usl.h"

/* The owner of a table's one series: a table says no owner, depth or mode, and its series is
 * named by its form alone ("table", "will-it-scale"). */
#define UCB_TABLE_OWNER "-"

/* A repeat of the series that the fit does not use, and why ("contended", "4 tasks on 2
 * CPUs", ...). */
struct ucb_usl_left
{
  long long containers, repeat;
  char *why;
};

/* The measured level at one container count: the repeats used, their median, the fit there. */
struct ucb_usl_level
{
  long long containers;
  size_t repeats;
  double median, fitted; /* fitted: NaN when refused */
};

struct ucb_usl_series
{
  const struct ucb_doc_point *id; /* a point of the series: its identity but the N */
  double *n, *x;                  /* the observations used: N, per-container ops/s */
  long long *nc; /* their N as integers, for the levels: a double rounds N above 2^53 */
  size_t m;
  struct ucb_usl_level *levels; /* ascending N */
  size_t n_levels;
  struct ucb_usl_left *left;
  size_t n_left;
  long long cpus; /* the CPUs the document says its tasks had (allowed, else online); -1 */
  bool assumed;   /* neither contention nor a CPU count: each task assumed to own a CPU */
  enum ucb_usl_status status;
  char *reason; /* why it was refused; NULL when fitted */
  struct ucb_usl_fit fit;
};

struct ucb_usl_model
{
  struct ucb_usl_series *s;
  size_t n;
  size_t refused;
};

/* The model of the `n_docs` documents taken together (compare pools a side's documents). */
void ucb_usl_model_of (const struct ucb_doc *docs, size_t n_docs, struct ucb_usl_model *out);
void ucb_usl_model_free (struct ucb_usl_model *m);

/* The series of `m` with the identity of point `p` (any N), or NULL. */
const struct ucb_usl_series *ucb_usl_model_find (const struct ucb_usl_model *m,
                                                 const struct ucb_doc_point *p);

/* "signal shared depth 1, 1 task, process": a series named for a line of text. */
char *ucb_usl_series_name (const struct ucb_usl_series *s);

/* Whether container count `n` lies outside the N that series `s` measured. */
bool ucb_usl_extrapolates (const struct ucb_usl_series *s, long long n);

/* Why the prediction of fitted series `s` at `n` is refused (a sentence to free), or NULL: an
 * N beyond those measured when the law's shape was rejected on them (lack of fit). */
char *ucb_usl_prediction_refusal (const struct ucb_usl_series *s, long long n);

/* {estimate, ci_low, ci_high} (infinite ends null). */
json_t *ucb_usl_interval_json (const struct ucb_usl_interval *iv);

/* The series as a `series[]` entry of the ucbench-model/1 document (docs/json.md), with the
 * predictions at the `n_pred` container counts `pred`. */
json_t *ucb_usl_series_json (const struct ucb_usl_series *s, const unsigned *pred, size_t n_pred);

#endif
