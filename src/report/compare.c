/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c - `ucbench compare`: base and head documents (one or several a side), per sweep
 * point the ratio head/base of per-container ops/s with a 95 % interval over the runs (the unit:
 * a repeat, or a document when each side has several), Holm's adjustment over the table, and a
 * verdict (report/compare-stats.c, docs/statistics.md); verify verdicts that changed.  The
 * documents are read through the model (report/model.h): points match by its identity. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/compare-diff.h"
#include "report/compare-stats.h"
#include "report/compare-text.h"
#include "report/compare-usl.h"
#include "report/compare.h"
#include "report/doc-file.h"
#include "report/model.h"

/* The documents of one side. */
struct side
{
  struct ucb_doc *docs;
  size_t n;
  bool canary; /* --normalize canary: each repeat's values divided by its host speed */
};

/* One side of one point, gathered over its documents: the log of each usable repeat's value
 * (per-container ops/s; CPU ns/op where known), the mean of those logs per document, and the
 * raw values for the medians; contended repeats left out unless `all`.  `flags`: the
 * ucb_point_flags() of its repeats, each once.  `lcan`, `lcan_doc`: the sums of the log canary
 * rates that --normalize canary took out of `ops` (0 without it), per repeat and per document
 * (each the mean of its repeats'). */
struct gathered
{
  double *ops, *cpu, *ops_doc, *cpu_doc, *raw_ops, *raw_cpu;
  double lcan, lcan_doc;
  size_t n_ops, n_cpu, n_ops_doc, n_cpu_doc;
  size_t used, left_out;
  bool all;
  char flags[2 * UCB_POINT_FLAGS_MAX];
};

/* The threshold and the assumed between-invocation SD, as fractions (log scale for drift). */
struct params
{
  double thr, drift;
  bool canary;           /* the ratios are of canary-normalised values (--normalize canary) */
  const char *no_canary; /* --normalize canary asked, but this document lacks a canary */
};

/* One row of the table, before the family's adjustment.  `from_contended`: too few repeats
 * were left once the contended ones were left out, so the estimates (and medians) shown are
 * those of every repeat, and decide nothing. */
struct row
{
  const struct ucb_doc_point *r;
  struct ucb_cmp_test t; /* its estimates, as a test of the table's family */
  bool invocation;
  double med_b, med_h, cpu_b, cpu_h, cv_b, cv_h;
  double gm_b, gm_h; /* the geometric means the ratio is of (geomeans()) */
  size_t used_b, left_b, used_h, left_h;
  char flags_b[2 * UCB_POINT_FLAGS_MAX], flags_h[2 * UCB_POINT_FLAGS_MAX];
};

static void
gathered_free (struct gathered *g)
{
  free (g->ops);
  free (g->cpu);
  free (g->ops_doc);
  free (g->cpu_doc);
  free (g->raw_ops);
  free (g->raw_cpu);
}

/* Whether the comma-separated `list` has `flag`. */
static bool
has_flag (const char *list, const char *flag)
{
  size_t n = strlen (flag);

  for (const char *q = list; *q; q += strcspn (q, ","))
    {
      q += *q == ',';
      if (strncmp (q, flag, n) == 0 && (q[n] == ',' || q[n] == '\0'))
        return true;
    }
  return false;
}

/* Add the flags of `p` (ucb_point_flags(), the one test of every output) that `into` lacks. */
static void
add_flags (char *into, size_t len, const struct ucb_doc_point *p)
{
  char buf[UCB_POINT_FLAGS_MAX], *save = NULL;

  if (!ucb_point_flags (p, buf, sizeof buf))
    return;
  for (char *f = strtok_r (buf, ",", &save); f; f = strtok_r (NULL, ",", &save))
    if (!has_flag (into, f))
      {
        size_t at = strlen (into);
        snprintf (into + at, len > at ? len - at : 0, "%s%s", at ? "," : "", f);
      }
}

/* A side's repeats of one document's group: contended ones left out (unless g->all), counted. */
static void
gather_doc (const struct ucb_doc *d, const struct ucb_doc_group *grp, bool canary,
            struct gathered *g)
{
  double so = 0, sc = 0, sl = 0;
  size_t no = 0, nc = 0;

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      double v = p->sum.per_container_ops, c = p->sum.cpu_ns_per_op;

      if (!p->measured || &d->groups[p->group] != grp)
        continue;
      add_flags (g->flags, sizeof g->flags, p);
      if (ucb_point_cpu_doubtful (p) && !g->all)
        {
          g->left_out++;
          continue;
        }
      g->used++;
      /* --normalize canary: ops/s per canary loop/s, CPU ns/op times it (loops per op); the
       * raw values stay for the medians.  open_side() made sure every repeat has a rate. */
      double ln = canary ? log (ucb_doc_canary_rate (&p->canary)) : 0;
      if (v > 0)
        {
          g->raw_ops[g->n_ops] = v;
          g->ops[g->n_ops++] = log (v) - ln;
          so += log (v) - ln, no++;
          sl += ln;
        }
      if (isfinite (c) && c > 0)
        {
          g->raw_cpu[g->n_cpu] = c;
          g->cpu[g->n_cpu++] = log (c) + ln;
          sc += log (c) + ln, nc++;
        }
    }
  if (no)
    {
      g->ops_doc[g->n_ops_doc++] = so / (double) no;
      g->lcan_doc += sl / (double) no;
    }
  g->lcan += sl;
  if (nc)
    g->cpu_doc[g->n_cpu_doc++] = sc / (double) nc;
}

static void
gather (const struct side *s, const struct ucb_doc_point *r, bool all, struct gathered *g)
{
  size_t cap = 1;

  for (size_t k = 0; k < s->n; k++)
    cap += s->docs[k].n_points;
  *g = (struct gathered){ .all = all };
  g->ops = xcalloc (cap, sizeof *g->ops);
  g->cpu = xcalloc (cap, sizeof *g->cpu);
  g->ops_doc = xcalloc (cap, sizeof *g->ops_doc);
  g->cpu_doc = xcalloc (cap, sizeof *g->cpu_doc);
  g->raw_ops = xcalloc (cap, sizeof *g->raw_ops);
  g->raw_cpu = xcalloc (cap, sizeof *g->raw_cpu);
  for (size_t k = 0; k < s->n; k++)
    {
      const struct ucb_doc_group *grp = ucb_doc_find_group (&s->docs[k], r);
      if (grp)
        gather_doc (&s->docs[k], grp, s->canary, g);
    }
}

static double
cv_of (const double *v, size_t n)
{
  struct ucb_stats st;
  ucb_stats_compute (v, n, &st);
  return st.cv;
}

/* exp (the mean of the `n` logs `l` + `shift`); NaN without one. */
static double
geomean (const double *l, size_t n, double shift)
{
  double s = 0;

  for (size_t i = 0; i < n; i++)
    s += l[i];
  return n ? exp (s / (double) n + shift) : NAN;
}

/* The geometric means of the units a side that the ratio is of, so that head/base is the
 * ratio a reader sees in the table.  With --normalize canary the units are ops per canary loop;
 * both sides are scaled back by base's mean log canary, which keeps them in ops/s: base's is
 * then its own geometric mean as measured, head's its ops/s at base's host speed. */
static void
geomeans (const struct gathered *b, const struct gathered *h, bool invocation, struct row *w)
{
  double shift;

  if (invocation)
    {
      shift = b->n_ops_doc ? b->lcan_doc / (double) b->n_ops_doc : 0;
      w->gm_b = geomean (b->ops_doc, b->n_ops_doc, shift);
      w->gm_h = geomean (h->ops_doc, h->n_ops_doc, shift);
    }
  else
    {
      shift = b->n_ops ? b->lcan / (double) b->n_ops : 0;
      w->gm_b = geomean (b->ops, b->n_ops, shift);
      w->gm_h = geomean (h->ops, h->n_ops, shift);
    }
}

/* The estimates and medians of row `w` from sides `b` and `h`: the unit is the document when
 * both sides have at least two with a usable repeat of it, else the repeat. */
static void
estimate (const struct gathered *b, const struct gathered *h, const struct params *pa,
          struct row *w)
{
  w->invocation = b->n_ops_doc >= 2 && h->n_ops_doc >= 2;
  if (w->invocation)
    {
      ucb_cmp_estimate (b->ops_doc, b->n_ops_doc, h->ops_doc, h->n_ops_doc, pa->thr, 0, &w->t.ops);
      ucb_cmp_estimate (b->cpu_doc, b->n_cpu_doc, h->cpu_doc, h->n_cpu_doc, pa->thr, 0, &w->t.cpu);
    }
  else
    {
      /* one invocation a side: the drift between invocations is assumed, not seen */
      ucb_cmp_estimate (b->ops, b->n_ops, h->ops, h->n_ops, pa->thr, pa->drift, &w->t.ops);
      ucb_cmp_estimate (b->cpu, b->n_cpu, h->cpu, h->n_cpu, pa->thr, pa->drift, &w->t.cpu);
    }
  geomeans (b, h, w->invocation, w);
  w->med_b = ucb_median (b->raw_ops, b->n_ops);
  w->med_h = ucb_median (h->raw_ops, h->n_ops);
  w->cpu_b = ucb_median (b->raw_cpu, b->n_cpu);
  w->cpu_h = ucb_median (h->raw_cpu, h->n_cpu);
  w->cv_b = cv_of (b->raw_ops, b->n_ops);
  w->cv_h = cv_of (h->raw_ops, h->n_ops);
}

/* Row `w` of point `r`.  When the repeats left once the contended ones are left out give no
 * interval, the row shows the estimate of every repeat instead (from_contended: the user sees
 * the size of the change), which takes no part in the verdicts: it stays inconclusive
 * (contended), its p-values NaN. */
static void
make_row (const struct side *base, const struct side *head, const struct ucb_doc_point *r,
          const struct params *pa, struct row *w)
{
  struct gathered b, h;

  gather (base, r, false, &b);
  gather (head, r, false, &h);
  *w = (struct row){ .r = r };
  estimate (&b, &h, pa, w);
  w->t.contended = b.left_out || h.left_out;
  w->used_b = b.used;
  w->left_b = b.left_out;
  w->used_h = h.used;
  w->left_h = h.left_out;
  snprintf (w->flags_b, sizeof w->flags_b, "%s", b.flags);
  snprintf (w->flags_h, sizeof w->flags_h, "%s", h.flags);
  gathered_free (&b);
  gathered_free (&h);
  if (w->t.ops.ok || !w->t.contended)
    return;
  gather (base, r, true, &b);
  gather (head, r, true, &h);
  estimate (&b, &h, pa, w);
  w->t.from_contended = true;
  w->t.ops.p_beyond = w->t.ops.p_inside = NAN;
  gathered_free (&b);
  gathered_free (&h);
}

/* The key of a point in only_in[]: workload|containers|owner|depth|tasks|mode. */
static char *
point_key (const struct ucb_doc_point *p)
{
  return xasprintf ("%s|%lld|%s|%lld|%lld|%s", p->workload, p->containers, p->owner, p->depth,
                    p->tasks, p->mode);
}

/* One points[] entry: row `w` with its adjusted p-values, its verdict and what would settle it. */
static json_t *
row_json (const struct row *w, double adj_b, double adj_i, enum ucb_cmp_verdict v, size_t needed)
{
  json_t *o = ucb_json_obj (), *sb, *sh;
  const struct ucb_doc_point *r = w->r;

  ucb_json_set (o, "workload", ucb_json_str (r->workload));
  ucb_json_set (o, "containers", ucb_json_int (r->containers));
  ucb_json_set (o, "owner", ucb_json_str (r->owner));
  ucb_json_set (o, "depth", ucb_json_int (r->depth));
  ucb_json_set (o, "tasks", ucb_json_int (r->tasks));
  ucb_json_set (o, "mode", ucb_json_str (r->mode));
  sb = ucb_cmp_side_json (w->med_b, w->cpu_b, w->cv_b, w->used_b, w->left_b, w->flags_b);
  sh = ucb_cmp_side_json (w->med_h, w->cpu_h, w->cv_h, w->used_h, w->left_h, w->flags_h);
  ucb_json_set (sb, "geomean_ops_per_s", ucb_json_real (w->gm_b));
  ucb_json_set (sh, "geomean_ops_per_s", ucb_json_real (w->gm_h));
  ucb_json_set (o, "base", sb);
  ucb_json_set (o, "head", sh);
  ucb_json_set (o, "unit", ucb_json_str (w->invocation ? "document" : "repeat"));
  ucb_json_set (o, "n_base", ucb_json_int ((long long) w->t.ops.nb));
  ucb_json_set (o, "n_head", ucb_json_int ((long long) w->t.ops.nh));
  ucb_json_set (o, "ratio", ucb_json_real (w->t.ops.ratio));
  ucb_json_set (o, "ci_low", ucb_json_real (w->t.ops.lo));
  ucb_json_set (o, "ci_high", ucb_json_real (w->t.ops.hi));
  ucb_json_set (o, "ratio_from_contended", json_boolean (w->t.from_contended));
  ucb_json_set (o, "change_pct", ucb_json_real (100 * (w->t.ops.ratio - 1)));
  ucb_json_set (o, "df", ucb_json_real (w->t.ops.df));
  ucb_json_set (o, "p_beyond", ucb_json_real (w->t.ops.p_beyond));
  ucb_json_set (o, "p_beyond_adj", ucb_json_real (adj_b));
  ucb_json_set (o, "p_inside", ucb_json_real (w->t.ops.p_inside));
  ucb_json_set (o, "p_inside_adj", ucb_json_real (adj_i));
  ucb_json_set (o, "cpu_ns_per_op", ucb_cmp_ratio_json (&w->t.cpu));
  ucb_json_set (o, "verdict", ucb_json_str (ucb_cmp_verdict_name (v)));
  ucb_json_set (o, "needed", needed ? ucb_json_int ((long long) needed) : NULL);
  ucb_json_set (o, "needed_unit",
                ucb_json_str (w->invocation || w->t.ops.drift > 0 ? "document" : "repeat"));
  return o;
}

/* Whether any document of `s` has point `p` measured. */
static bool
side_has (const struct side *s, const struct ucb_doc_point *p)
{
  for (size_t k = 0; k < s->n; k++)
    {
      const struct ucb_doc_group *g = ucb_doc_find_group (&s->docs[k], p);
      if (g && g->n_measured)
        return true;
    }
  return false;
}

/* Point `i` of document `k` of `s` is the first measured repeat of its identity on that side. */
static bool
first_of_side (const struct side *s, size_t k, size_t i, bool *seen)
{
  const struct ucb_doc_point *p = &s->docs[k].points[i];
  struct side before = { s->docs, k };

  if (!p->measured || seen[p->group])
    return false;
  seen[p->group] = true;
  return !side_has (&before, p);
}

/* The rows: the points measured on both sides, in head order. */
static struct row *
make_rows (const struct side *base, const struct side *head, const struct params *pa, size_t *n)
{
  size_t cap = 1;
  struct row *rows;

  for (size_t k = 0; k < head->n; k++)
    cap += head->docs[k].n_points;
  rows = xcalloc (cap, sizeof *rows);
  *n = 0;
  for (size_t k = 0; k < head->n; k++)
    {
      const struct ucb_doc *d = &head->docs[k];
      cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
      for (size_t i = 0; i < d->n_points; i++)
        if (first_of_side (head, k, i, seen) && side_has (base, &d->points[i]))
          make_row (base, head, &d->points[i], pa, &rows[(*n)++]);
    }
  return rows;
}

/* The points[] array: Holm over the table's ops/s tests, then each verdict.  `units` gets
 * whether any row's unit was a repeat (the one-invocation caveat). */
static json_t *
compare_points (const struct side *base, const struct side *head, const struct params *pa,
                size_t *regressions, bool *repeat_unit)
{
  json_t *points = ucb_json_arr ();
  size_t n;
  cleanup_free struct row *rows = make_rows (base, head, pa, &n);
  cleanup_free struct ucb_cmp_test *t = xcalloc (n + 1, sizeof *t);
  cleanup_free double *ab = xcalloc (n + 1, sizeof *ab), *ai = xcalloc (n + 1, sizeof *ai);
  cleanup_free enum ucb_cmp_verdict *v = xcalloc (n + 1, sizeof *v);
  cleanup_free size_t *need = xcalloc (n + 1, sizeof *need);

  for (size_t i = 0; i < n; i++)
    t[i] = rows[i].t;
  ucb_cmp_family (t, n, pa->thr, ab, ai, v, need);
  *regressions = 0;
  *repeat_unit = false;
  for (size_t i = 0; i < n; i++)
    {
      *regressions += v[i] == UCB_CMP_REGRESSION;
      *repeat_unit = *repeat_unit || !rows[i].invocation;
      ucb_json_push (points, row_json (&rows[i], ab[i], ai[i], v[i], need[i]));
    }
  return points;
}

/* Points measured on side `a` but on no document of `b`, as {"file", "point"} entries. */
static void
only_in (const struct side *a, const struct side *b, json_t *into)
{
  for (size_t k = 0; k < a->n; k++)
    {
      const struct ucb_doc *d = &a->docs[k];
      cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
      for (size_t i = 0; i < d->n_points; i++)
        if (first_of_side (a, k, i, seen) && !side_has (b, &d->points[i]))
          {
            cleanup_free char *key = point_key (&d->points[i]);
            json_t *o = ucb_json_obj ();
            ucb_json_set (o, "file", ucb_json_str (d->name));
            ucb_json_set (o, "point", ucb_json_str (key));
            ucb_json_push (into, o);
          }
    }
}

static bool
failing (const char *st)
{
  return st && (strcmp (st, "fail") == 0 || strcmp (st, "error") == 0);
}

/* The worse of two statuses (model.h's order: error, fail, known-bug, skip, pass). */
static const char *
worse (const char *a, const char *b)
{
  static const char *const order[] = { "error", "fail", "known-bug", "skip", "pass" };
  if (!a || !b)
    return a ? a : b;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (order); i++)
    if (strcmp (a, order[i]) == 0 || strcmp (b, order[i]) == 0)
      return strcmp (a, order[i]) == 0 ? a : b;
  return a;
}

/* The worst status of case `id` over the documents of `s`, NULL when none has it. */
static const char *
side_case (const struct side *s, const char *id)
{
  const char *w = NULL;
  for (size_t k = 0; k < s->n; k++)
    {
      const struct ucb_doc_case *c = ucb_doc_find_case (&s->docs[k], id);
      w = worse (w, c ? c->worst : NULL);
    }
  return w;
}

/* Whether case `id` reached no verdict in any document of `s` that has it (false when none
 * has it): a skip of an interrupted verify, shown as "not run", never as a failure. */
static bool
side_not_run (const struct side *s, const char *id)
{
  bool seen = false;
  for (size_t k = 0; k < s->n; k++)
    {
      const struct ucb_doc_case *c = ucb_doc_find_case (&s->docs[k], id);
      if (c && !c->none_ran)
        return false;
      seen = seen || c;
    }
  return seen;
}

/* Verify cases whose worst status differs, in head order. */
static json_t *
compare_verify (const struct side *base, const struct side *head, size_t *newly_failing)
{
  json_t *arr = ucb_json_arr ();

  *newly_failing = 0;
  for (size_t k = 0; k < head->n; k++)
    for (size_t i = 0; i < head->docs[k].n_cases; i++)
      {
        const struct ucb_doc_case *c = &head->docs[k].cases[i];
        struct side before = { head->docs, k };
        const char *sb, *sh;
        json_t *o;

        if (!c->first || side_case (&before, c->id))
          continue;
        sb = side_case (base, c->id);
        sh = side_case (head, c->id);
        if (sb && sh && strcmp (sb, sh) == 0)
          continue;
        o = ucb_json_obj ();
        ucb_json_set (o, "id", ucb_json_str (c->id));
        ucb_json_set (o, "base", ucb_json_str (sb));
        ucb_json_set (o, "head", ucb_json_str (sh));
        ucb_json_set (o, "base_not_run", json_boolean (side_not_run (base, c->id)));
        ucb_json_set (o, "head_not_run", json_boolean (side_not_run (head, c->id)));
        ucb_json_set (o, "newly_failing", json_boolean (failing (sh) && !failing (sb)));
        *newly_failing += failing (sh) && !failing (sb);
        ucb_json_push (arr, o);
      }
  return arr;
}

static json_t *
names (const struct side *s)
{
  json_t *a = ucb_json_arr ();
  for (size_t k = 0; k < s->n; k++)
    ucb_json_push (a, ucb_json_str (s->docs[k].name));
  return a;
}

static json_t *
method (const struct params *pa)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "metric", ucb_json_str ("per-container ops/s (decides); CPU ns/op (shown)"));
  ucb_json_set (o, "interval", ucb_json_str ("welch-t-log"));
  ucb_json_set (o, "level", ucb_json_real (1 - UCB_COMPARE_ALPHA));
  ucb_json_set (o, "adjustment", ucb_json_str ("holm"));
  ucb_json_set (o, "alpha", ucb_json_real (UCB_COMPARE_ALPHA));
  ucb_json_set (o, "threshold_pct", ucb_json_real (100 * pa->thr));
  ucb_json_set (o, "drift_pct", ucb_json_real (100 * expm1 (pa->drift)));
  ucb_json_set (o, "normalize", ucb_json_str (pa->canary ? "canary" : "none"));
  return o;
}

/* The header's caveat when a point's unit is the repeat (fewer than 2 documents a side). */
static json_t *
caveat (double drift)
{
  if (drift > 0)
    return ucb_json_fmt (
        "fewer than 2 documents a side: the drift between invocations cannot be seen and is "
        "assumed, %.1f%% a side (--drift); give several documents a side (--base/--head) to "
        "measure it",
        100 * expm1 (drift));
  return ucb_json_str ("fewer than 2 documents a side and --drift 0: the drift between "
                       "invocations is not seen, so the verdicts are about these invocations "
                       "only; give several documents a side (--base/--head)");
}

static json_t *
compare_docs (const struct side *base, const struct side *head, const struct params *pa)
{
  json_t *out = ucb_json_obj (), *only = ucb_json_arr (), *notes = ucb_json_arr (), *pts;
  size_t regressions, newly;
  bool repeat_unit;

  ucb_json_set (out, "schema", ucb_json_str ("ucbench-compare/2"));
  ucb_json_set (out, "base", names (base));
  ucb_json_set (out, "head", names (head));
  ucb_json_set (out, "method", method (pa));
  ucb_json_set (out, "differences",
                ucb_compare_differences (base->docs, base->n, head->docs, head->n, notes));
  ucb_json_set (out, "warnings", notes);
  if (pa->no_canary)
    ucb_json_push (notes,
                   ucb_json_fmt ("--normalize canary: `%s` has a measured repeat without a canary "
                                 "(an older document): every ratio is of raw ops/s",
                                 pa->no_canary));
  pts = compare_points (base, head, pa, &regressions, &repeat_unit);
  ucb_json_set (out, "caveat", repeat_unit ? caveat (pa->drift) : NULL);
  ucb_json_set (out, "points", pts);
  only_in (base, head, only);
  only_in (head, base, only);
  ucb_json_set (out, "only_in", only);
  ucb_json_set (out, "verify", compare_verify (base, head, &newly));
  ucb_json_set (out, "scalability", ucb_compare_usl (base->docs, base->n, head->docs, head->n));
  ucb_json_set (out, "regressions", ucb_json_int ((long long) regressions));
  ucb_json_set (out, "newly_failing", ucb_json_int ((long long) newly));
  return out;
}

/* Documents from the kernel matrix ran under QEMU's TCG: their timings are emulated, so
 * comparing them would compare the emulator (tests/kernels/boot.py labels them). */
static int
refuse_emulated (const struct ucb_doc *d, ucb_error_t *err)
{
  if (d->emulated_timing)
    return ucb_usage_error (err,
                            "`%s` was measured under emulation (%s): its timings cannot be "
                            "compared; compare runs made on real hardware",
                            d->name, d->emulated_where ?: "qemu-tcg");
  return 0;
}

/* Open the `n` documents of a side; on error those opened are freed. */
static int
open_side (const char *const *paths, size_t n, struct side *s, ucb_error_t *err)
{
  s->docs = xcalloc (n, sizeof *s->docs);
  s->n = 0;
  while (s->n < n)
    {
      if (ucb_doc_open (paths[s->n], UCB_DOC_ANY, &s->docs[s->n], err) < 0)
        return -1;
      if (refuse_emulated (&s->docs[s->n++], err) < 0)
        return -1;
    }
  return 0;
}

/* The first document of `s` with a measured repeat that has no canary rate, or NULL. */
static const char *
without_canary (const struct side *s)
{
  for (size_t k = 0; k < s->n; k++)
    for (size_t i = 0; i < s->docs[k].n_points; i++)
      if (s->docs[k].points[i].measured
          && !isfinite (ucb_doc_canary_rate (&s->docs[k].points[i].canary)))
        return s->docs[k].name;
  return NULL;
}

static void
side_free (struct side *s)
{
  for (size_t k = 0; k < s->n; k++)
    ucb_doc_free (&s->docs[k]);
  free (s->docs);
}

int
ucb_compare (const struct ucb_compare_args *a, ucb_error_t *err)
{
  struct side base = { 0 }, head = { 0 };
  json_t *out;
  int ret = -1;

  if (open_side (a->base, a->n_base, &base, err) == 0
      && open_side (a->head, a->n_head, &head, err) == 0
      && ucb_doc_comparable (base.docs, base.n, head.docs, head.n, err) == 0)
    {
      struct params pa = { a->threshold_pct / 100, log1p (a->drift_pct / 100), false, NULL };
      if (a->normalize == UCB_NORMALIZE_CANARY
          && (pa.no_canary = without_canary (&base) ?: without_canary (&head)) == NULL)
        pa.canary = base.canary = head.canary = true;
      out = compare_docs (&base, &head, &pa);
      ret = 0;
      if (a->json)
        ret = ucb_json_write (out, stdout, err);
      else
        ucb_compare_print_text (out, base.docs, base.n, head.docs, head.n, a->verbose);
      if (ret == 0
          && (json_integer_value (json_object_get (out, "regressions"))
              || json_integer_value (json_object_get (out, "newly_failing"))))
        ret = UCB_EXIT_FAILURE;
      json_decref (out);
    }
  side_free (&base);
  side_free (&head);
  return ret;
}
