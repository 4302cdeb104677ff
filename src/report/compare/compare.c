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
#include "report/compare/parts.h"
#include "report/compare-stats.h"
#include "report/compare/compare.h"
#include "report/doc-file.h"
#include "report/flags.h"
#include "report/model.h"

/* The documents of one side. */
struct side
{
  struct ucb_doc *docs;
  size_t n;
  bool canary; /* --normalize canary: each repeat's values divided by its host speed */
};

/* The threshold and the assumed between-invocation SD, as fractions (log scale for drift). */
struct params
{
  double thr, drift;
  bool canary;           /* the ratios are of canary-normalised values (--normalize canary) */
  const char *no_canary; /* --normalize canary asked, but this document lacks a canary */
};

static void
gather (const struct side *s, const struct ucb_doc_point *r, bool all, struct ucb_cmp_gathered *g)
{
  size_t cap = 1;

  for (size_t k = 0; k < s->n; k++)
    cap += s->docs[k].n_points;
  ucb_cmp_gather_init (g, cap, all);
  for (size_t k = 0; k < s->n; k++)
    {
      const struct ucb_doc_group *grp = ucb_doc_find_group (&s->docs[k], r);
      if (grp)
        ucb_cmp_gather_doc (&s->docs[k], grp, s->canary, g);
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
geomeans (const struct ucb_cmp_gathered *b, const struct ucb_cmp_gathered *h, bool invocation,
          struct ucb_cmp_row *w)
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
estimate (const struct ucb_cmp_gathered *b, const struct ucb_cmp_gathered *h,
          const struct params *pa, struct ucb_cmp_row *w)
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
          const struct params *pa, struct ucb_cmp_row *w)
{
  struct ucb_cmp_gathered b, h;

  gather (base, r, false, &b);
  gather (head, r, false, &h);
  *w = (struct ucb_cmp_row){ .r = r };
  estimate (&b, &h, pa, w);
  w->t.contended = b.left_out || h.left_out;
  w->used_b = b.used;
  w->left_b = b.left_out;
  w->used_h = h.used;
  w->left_h = h.left_out;
  snprintf (w->flags_b, sizeof w->flags_b, "%s", b.flags.list);
  snprintf (w->flags_h, sizeof w->flags_h, "%s", h.flags.list);
  ucb_cmp_gathered_free (&b);
  ucb_cmp_gathered_free (&h);
  if (w->t.ops.ok || !w->t.contended)
    return;
  gather (base, r, true, &b);
  gather (head, r, true, &h);
  estimate (&b, &h, pa, w);
  w->t.from_contended = true;
  w->t.ops.p_beyond = w->t.ops.p_inside = NAN;
  ucb_cmp_gathered_free (&b);
  ucb_cmp_gathered_free (&h);
}

/* The key of a point in only_in[]: workload|containers|owner|depth|tasks|mode. */
static char *
point_key (const struct ucb_doc_point *p)
{
  return xasprintf ("%s|%lld|%s|%lld|%lld|%s", p->workload, p->containers, p->owner, p->depth,
                    p->tasks, p->mode);
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

/* The rows: the points measured on both sides, in head order, with their verdicts: Holm over
 * the table's ops/s tests. */
static void
compare_points (const struct side *base, const struct side *head, const struct params *pa,
                struct ucb_cmp_result *res)
{
  size_t n = 0, cap = 1;
  struct ucb_cmp_row *rows;

  for (size_t k = 0; k < head->n; k++)
    cap += head->docs[k].n_points;
  rows = res->rows = xcalloc (cap, sizeof *rows);
  for (size_t k = 0; k < head->n; k++)
    {
      const struct ucb_doc *d = &head->docs[k];
      cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
      for (size_t i = 0; i < d->n_points; i++)
        if (first_of_side (head, k, i, seen) && side_has (base, &d->points[i]))
          make_row (base, head, &d->points[i], pa, &rows[n++]);
    }
  res->n_rows = n;

  cleanup_free struct ucb_cmp_test *t = xcalloc (n + 1, sizeof *t);
  cleanup_free double *ab = xcalloc (n + 1, sizeof *ab), *ai = xcalloc (n + 1, sizeof *ai);
  cleanup_free enum ucb_cmp_verdict *v = xcalloc (n + 1, sizeof *v);
  cleanup_free size_t *need = xcalloc (n + 1, sizeof *need);

  for (size_t i = 0; i < n; i++)
    t[i] = rows[i].t;
  ucb_cmp_family (t, n, pa->thr, ab, ai, v, need);
  for (size_t i = 0; i < n; i++)
    {
      rows[i].adj_b = ab[i];
      rows[i].adj_i = ai[i];
      rows[i].verdict = v[i];
      rows[i].needed = need[i];
      rows[i].needed_documents = rows[i].invocation || rows[i].t.ops.drift > 0;
      res->regressions += v[i] == UCB_CMP_REGRESSION;
    }
}

/* Points measured on side `a` but on no document of `b`, appended to res->only. */
static void
only_in (const struct side *a, const struct side *b, struct ucb_cmp_result *res)
{
  for (size_t k = 0; k < a->n; k++)
    {
      const struct ucb_doc *d = &a->docs[k];
      cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
      for (size_t i = 0; i < d->n_points; i++)
        if (first_of_side (a, k, i, seen) && !side_has (b, &d->points[i]))
          res->only[res->n_only++] = (struct ucb_cmp_only){ d->name, point_key (&d->points[i]) };
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
static void
compare_verify (const struct side *base, const struct side *head, struct ucb_cmp_result *res)
{
  size_t cap = 1;

  for (size_t k = 0; k < head->n; k++)
    cap += head->docs[k].n_cases;
  res->cases = xcalloc (cap, sizeof *res->cases);
  for (size_t k = 0; k < head->n; k++)
    for (size_t i = 0; i < head->docs[k].n_cases; i++)
      {
        const struct ucb_doc_case *c = &head->docs[k].cases[i];
        struct side before = { head->docs, k };
        const char *sb, *sh;

        if (!c->first || side_case (&before, c->id))
          continue;
        sb = side_case (base, c->id);
        sh = side_case (head, c->id);
        if (sb && sh && strcmp (sb, sh) == 0)
          continue;
        struct ucb_cmp_case *o = &res->cases[res->n_cases++];
        *o = (struct ucb_cmp_case){ .id = c->id, .base = sb, .head = sh };
        o->base_not_run = side_not_run (base, c->id);
        o->head_not_run = side_not_run (head, c->id);
        o->newly_failing = failing (sh) && !failing (sb);
        res->newly_failing += o->newly_failing;
      }
}

/* The header's caveat when a point's unit is the repeat (fewer than 2 documents a side). */
static char *
caveat (double drift)
{
  if (drift > 0)
    return xasprintf (
        "fewer than 2 documents a side: the drift between invocations cannot be seen and is "
        "assumed, %.1f%% a side (--drift); give several documents a side (--base/--head) to "
        "measure it",
        100 * expm1 (drift));
  return xstrdup ("fewer than 2 documents a side and --drift 0: the drift between "
                  "invocations is not seen, so the verdicts are about these invocations "
                  "only; give several documents a side (--base/--head)");
}

static void
compare_docs (const struct side *base, const struct side *head, const struct params *pa,
              struct ucb_cmp_result *res)
{
  size_t cap = 1;

  *res = (struct ucb_cmp_result){ .base = base->docs, .head = head->docs, .canary = pa->canary };
  res->n_base = base->n;
  res->n_head = head->n;
  res->threshold_pct = 100 * pa->thr;
  res->drift_pct = 100 * expm1 (pa->drift);
  res->warnings = ucb_json_arr ();
  res->differences
      = ucb_compare_differences (base->docs, base->n, head->docs, head->n, res->warnings);
  if (pa->no_canary)
    ucb_json_push (res->warnings,
                   ucb_json_fmt ("--normalize canary: `%s` has a measured repeat without a canary "
                                 "(an older document): every ratio is of raw ops/s",
                                 pa->no_canary));
  compare_points (base, head, pa, res);
  for (size_t i = 0; i < res->n_rows && !res->caveat; i++)
    if (!res->rows[i].invocation)
      res->caveat = caveat (pa->drift);
  for (size_t k = 0; k < base->n; k++)
    cap += base->docs[k].n_points;
  for (size_t k = 0; k < head->n; k++)
    cap += head->docs[k].n_points;
  res->only = xcalloc (cap, sizeof *res->only);
  only_in (base, head, res);
  only_in (head, base, res);
  compare_verify (base, head, res);
  ucb_compare_usl (base->docs, base->n, head->docs, head->n, &res->usl);
}

static void
result_free (struct ucb_cmp_result *res)
{
  for (size_t i = 0; i < res->n_only; i++)
    free (res->only[i].point);
  free (res->only);
  free (res->rows);
  free (res->cases);
  free (res->caveat);
  json_decref (res->differences);
  json_decref (res->warnings);
  ucb_compare_usl_free (&res->usl);
}

/* Documents booted under QEMU's TCG (ucbench-vm labels them): their timings are emulated, so
 * comparing their points would compare the emulator; verify's verdicts are no timings. */
static int
refuse_emulated (const struct ucb_doc *d, ucb_error_t *err)
{
  if (d->emulated_timing && d->n_points > 0)
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
  int ret = -1;

  if (open_side (a->base, a->n_base, &base, err) == 0
      && open_side (a->head, a->n_head, &head, err) == 0
      && ucb_doc_comparable (base.docs, base.n, head.docs, head.n, err) == 0)
    {
      struct params pa = { a->threshold_pct / 100, log1p (a->drift_pct / 100), false, NULL };
      struct ucb_cmp_result res;

      if (a->normalize == UCB_NORMALIZE_CANARY
          && (pa.no_canary = without_canary (&base) ?: without_canary (&head)) == NULL)
        pa.canary = base.canary = head.canary = true;
      compare_docs (&base, &head, &pa, &res);
      ret = 0;
      if (a->json)
        {
          json_t *out = ucb_compare_json (&res);
          ret = ucb_json_write (out, stdout, err);
          json_decref (out);
        }
      else
        ucb_compare_print_text (&res, a->verbose);
      if (ret == 0 && (res.regressions || res.newly_failing))
        ret = UCB_EXIT_FAILURE;
      result_free (&res);
    }
  side_free (&base);
  side_free (&head);
  return ret;
}
