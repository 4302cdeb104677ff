/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h - a ucbench-result/1 document as C structures: loaded once, read by every reader
 * (compare, export, plot, the text table, the l3 table, scalability).
 *
 * The loader checks the fields it reads against docs/ucbench-result.schema.json: a field the
 * schema requires is a schema error when missing or of the wrong type (a usage error, exit 2,
 * naming the file and the field, e.g. "`a.json`: results[3].depth: missing (an integer)");
 * there are no defaults for them.  Fields the schema leaves optional, and host, config, run and
 * the verify fields other than id and status (hand-made documents omit them), are read when
 * present, and are a schema error too when of the wrong type (a number written as a string);
 * absent (or null), a string is NULL, a number NaN (-1 for the CPU counts).  Before any of
 * that, every range and enum of the schema is checked over the whole document, whether or not a
 * reader uses the field (model-ranges.c): a loaded document's counts are never negative.  The
 * document's kind (a run or a verify document) must be one the reader takes.
 *
 * One place for the facts every reader needs: a point's identity (workload, owner, depth,
 * tasks, mode, containers; repeats of it form a group), whether it is measured, its
 * per-interval rates, the medians over its repeats, and scalability. */
#ifndef UCB_MODEL_H
#define UCB_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/error.h"
#include "report/schema.h"

struct ucb_doc_container
{
  long long ops;
  double rate_ops_per_s;   /* ops/s over the whole window */
  double cpu_ns_per_op;    /* NaN for null */
  double ops_per_s_stddev; /* of its per-interval rates; NaN for null */
  size_t n_samples;
};

/* summary.*, NaN for null. */
struct ucb_doc_summary
{
  double total_ops_per_s, per_container_ops, scalability, fairness, cv, cpu_ns_per_op;
  long long failed_ops;
};

/* The entry's `contention` object; known = false when the document has none (older
 * documents): then the point counts as not contended. */
struct ucb_doc_contention
{
  bool known, contended, owns_cpu;
  double cpu_share_median, steal_pct_max, idle_pct_min; /* NaN for null or absent */
  /* starved: a container did too few ops in the window to measure (false when absent);
   * fair_share: the smallest fair CPU share of the point's tasks, window_needed_s: the window
   * that gives every task several scheduler slices (NaN for null or absent). */
  bool starved;
  long long starved_containers; /* 0 when absent */
  /* unjudged: some task's CPU share could not be measured, so it is not known to be clean;
   * absent (older documents): a measured point without a median share. */
  bool unjudged;
  double fair_share, window_needed_s;
};

/* The entry's `canary` (the host's speed before and after the window, loops/s); known = false
 * when the document has none (older documents): then it neither flags nor normalises. */
struct ucb_doc_canary
{
  bool known, moved;
  double before, after, change_pct; /* NaN for null or absent */
};

struct ucb_doc_point
{
  /* Identity (with repeat); strings point into the document. */
  const char *workload, *owner, *mode;
  long long containers, depth, tasks, repeat;
  const char *status, *reason; /* reason: NULL when absent */
  /* Measured: status "ok", at least one container and a per-container rate. */
  bool measured;
  struct ucb_doc_container *pc;
  size_t n_pc;
  /* Interval j (j below the fewest samples of any container): the mean over the containers of
   * samples[j].ops_per_s; NaN when a container's rate is null (its dt was 0). */
  double *intervals;
  size_t n_intervals;
  struct ucb_doc_summary sum;
  struct ucb_doc_contention contention;
  struct ucb_doc_canary canary;
  /* placement, when it has an integer l3_domains (--pin l3); cores and cpus borrowed. */
  bool l3;
  json_t *l3_domains, *cores, *cpus;
  size_t group;       /* index of doc->groups: the same identity, any repeat */
  size_t series;      /* the same identity but containers: a plotted line */
  size_t workload_id; /* the same workload */
  json_t *json;       /* the results[] entry (borrowed) */
};

/* The repeats of one point identity. */
struct ucb_doc_group
{
  size_t n_measured;
  /* Over the measured repeats, in document order: the finite interval rates pooled, their
   * smallest and largest (NaN when none), and the median of each summary figure over the
   * repeats where it is not null (NaN when none). */
  double *rates;
  size_t n_rates;
  double rate_lo, rate_hi;
  struct ucb_doc_summary median;
};

struct ucb_doc_case
{
  const char *id, *status;                     /* required */
  const char *name, *rlimit, *detail, *checks; /* NULL when absent */
  /* known_bug: the bug a known-bug case saw (NULL when absent; url may be absent alone). */
  const char *bug_id, *bug_title, *bug_reference, *bug_url;
  double duration_s; /* NaN when absent */
  bool first;        /* the first entry with this id (--repeat repeats entries) */
  const char *worst; /* the worst known status of this id: error, fail, known-bug, skip, pass */
  /* not_run: this entry is a skip that reached no verdict (verify was interrupted or stopped
   * by --fail-fast before it or during it); none_ran: so is every entry with this id. */
  bool not_run, none_ran;
};

struct ucb_doc_host
{
  const char *hostname, *kernel_release, *cpu_model, *virtualization;
  long long cpus_online, cpus_allowed; /* -1 when absent */
};

struct ucb_doc_config
{
  double duration_s, warmup_s, interval_s;
  long long repeat; /* 1 when absent: a run without --repeat */
  json_t *workloads, *containers, *owners, *depths, *tasks; /* borrowed; NULL when absent */
};

/* The kind of a document: verify[] makes it a `ucbench verify` one (its results[] are []),
 * else it is a `ucbench run` one and has results[].  Readers take a set (a bit mask). */
enum ucb_doc_kind
{
  UCB_DOC_RUN = 1,
  UCB_DOC_VERIFY = 2,
  UCB_DOC_ANY = 3,
};

struct ucb_doc
{
  json_t *json; /* the whole document (a reference held) */
  enum ucb_doc_kind kind;
  const char *name; /* for messages: the file */
  struct ucb_doc_host host;
  struct ucb_doc_config config;
  const char *start_time; /* run.start_time */
  /* run.interrupted: the sweep ended early (a signal or an error) and results[] holds only
   * the points finished before; interrupted_reason is NULL when it ran to the end. */
  const char *interrupted_reason;
  long long interrupted_signal;              /* 0: ended by an error, not a signal */
  long long points_finished, points_planned; /* -1 when not known */
  bool emulated_timing;                      /* kernel_matrix.emulated_timing */
  const char *emulated_where;
  struct ucb_doc_point *points;
  size_t n_points, n_measured;
  bool has_repeats; /* a point with repeat > 1 */
  struct ucb_doc_group *groups;
  size_t n_groups, n_series, n_workloads;
  size_t *by_identity; /* point indices sorted by identity (ucb_doc_find_group) */
  bool has_verify;     /* verify is an array */
  struct ucb_doc_case *cases;
  size_t n_cases;
  size_t *by_id; /* case indices sorted by id (ucb_doc_find_case) */
};

/* Load `json` (a reference is taken) into `d`; `name` names it in messages.  A schema error is
 * a usage error naming the file and the field; so is a document of a kind not in `kinds`. */
int ucb_doc_load (json_t *json, const char *name, unsigned kinds, struct ucb_doc *d,
                  ucb_error_t *err) __attribute__ ((warn_unused_result));
void ucb_doc_free (struct ucb_doc *d);
/* A document, or a bare results[] array, that ucbench has just built (report.c, l3.c): a
 * schema error there is a bug, said on stderr, and false. */
bool ucb_doc_built (json_t *json, struct ucb_doc *d);

/* compare: the documents of both sides are of one kind and have a point (or a verify case) in
 * common; a usage error naming them otherwise (a comparison of nothing would pass a gate). */
int ucb_doc_comparable (const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
                        size_t n_head, ucb_error_t *err) __attribute__ ((warn_unused_result));

/* Point identity: 0 when the two are the same point (repeats aside). */
int ucb_point_cmp (const struct ucb_doc_point *a, const struct ucb_doc_point *b);
/* The same series: identity but the container count. */
int ucb_point_series_cmp (const struct ucb_doc_point *a, const struct ucb_doc_point *b);
/* The group of `d` with the identity of `p` (a point of any document), or NULL. */
const struct ucb_doc_group *ucb_doc_find_group (const struct ucb_doc *d,
                                                const struct ucb_doc_point *p);
/* The first case of `d` with this id, or NULL. */
const struct ucb_doc_case *ucb_doc_find_case (const struct ucb_doc *d, const char *id);

/* Why a point's numbers are not clean data, as a comma-separated list of flags in `buf`
 * ("contended", "starved", ...; see UCB_POINT_FLAGS_MAX); "" and false when it is clean.
 * Every output (table, CSV, plot, exporters) marks a point by this one test. */
#define UCB_POINT_FLAGS_MAX 64
bool ucb_point_flags (const struct ucb_doc_point *p, char *buf, size_t len);
/* Whether the repeat is not known to have had its fair CPU: contended, or its share could not be
 * judged.  Compare and the owner contrast leave such repeats out of a verdict. */
bool ucb_point_cpu_doubtful (const struct ucb_doc_point *p);

/* The speed a repeat ran at, for normalising: the geometric mean of canary.before and
 * canary.after, the one known when only one is, NaN when neither (or no canary). */
double ucb_doc_canary_rate (const struct ucb_doc_canary *c);

/* a + b and a x b of a document's counts (containers, tasks, ops: never negative once loaded,
 * by the schema's ranges), at most LLONG_MAX: a valid document may hold containers 2^63 - 1, and
 * a sum or product of its counts must stop there, not wrap to a negative number. */
static inline long long
ucb_count_add (long long a, long long b)
{
  long long r;
  return __builtin_add_overflow (a, b, &r) ? LLONG_MAX : r;
}

static inline long long
ucb_count_mul (long long a, long long b)
{
  long long r;
  return __builtin_mul_overflow (a, b, &r) ? LLONG_MAX : r;
}

/* ops/s per task of point p at its summary `m` (summary.per_task_ops, which the model does not
 * keep): total / (containers x tasks), as the lkp and kcidb exports report it. */
static inline double
ucb_doc_per_task_ops (const struct ucb_doc_point *p, const struct ucb_doc_summary *m)
{
  /* In doubles: containers x tasks of a (valid) document can exceed a long long. */
  return m->total_ops_per_s / ((double) p->containers * (double) (p->tasks > 0 ? p->tasks : 1));
}

#endif
