/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contrast.c - the owner contrast: per point measured with both `shared` and `distinct`
 * owners, the ratio shared/distinct of per-container ops/s over the repeats, with compare's
 * interval and verdict rules (docs/statistics.md says why each). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/contrast.h"
#include "report/flags.h"

#define SHARED "shared"
#define DISTINCT "distinct"

void
ucb_contrast_estimate (const struct ucb_contrast_side *shared,
                       const struct ucb_contrast_side *distinct,
                       const struct ucb_contrast_side *shared_all,
                       const struct ucb_contrast_side *distinct_all, bool contended,
                       struct ucb_cmp_test *p)
{
  const double thr = UCB_CONTRAST_THRESHOLD;

  *p = (struct ucb_cmp_test){ .contended = contended };
  /* base distinct, head shared: the ratio is shared/distinct, a penalty a "regression" */
  ucb_cmp_estimate (distinct->ops, distinct->n_ops, shared->ops, shared->n_ops, thr, 0, &p->ops);
  ucb_cmp_estimate (distinct->cpu, distinct->n_cpu, shared->cpu, shared->n_cpu, thr, 0, &p->cpu);
  if (p->ops.ok || !contended || !shared_all || !distinct_all)
    return;
  /* Shown for its size, deciding nothing. */
  ucb_cmp_estimate (distinct_all->ops, distinct_all->n_ops, shared_all->ops, shared_all->n_ops, thr,
                    0, &p->ops);
  ucb_cmp_estimate (distinct_all->cpu, distinct_all->n_cpu, shared_all->cpu, shared_all->n_cpu, thr,
                    0, &p->cpu);
  p->from_contended = true;
  p->ops.p_beyond = p->ops.p_inside = NAN;
}

void
ucb_contrast_verdicts (const struct ucb_cmp_test *p, size_t n, double *adj_beyond,
                       double *adj_inside, enum ucb_cmp_verdict *v, size_t *needed)
{
  ucb_cmp_family (p, n, UCB_CONTRAST_THRESHOLD, adj_beyond, adj_inside, v, needed);
}

const char *
ucb_contrast_verdict_name (enum ucb_cmp_verdict v)
{
  switch (v)
    {
    case UCB_CMP_REGRESSION:
      return "penalty";
    case UCB_CMP_IMPROVEMENT:
      return "shared faster";
    case UCB_CMP_NO_CHANGE:
      return "none";
    case UCB_CMP_INCONCLUSIVE:
    case UCB_CMP_ONE_REPEAT:
    case UCB_CMP_CONTENDED:
    case UCB_CMP_DISAGREE:
    default:
      break;
    }
  return ucb_cmp_verdict_name (v); /* the inconclusive ones, as compare says them */
}

/* ---- the pairs of a document ---------------------------------------------------------------- */

/* One owner mode's repeats of one point (one document's group), contended ones left out
 * unless `all`. */
static void
gather (const struct ucb_doc *d, const struct ucb_doc_group *grp, bool all,
        struct ucb_cmp_gathered *g)
{
  ucb_cmp_gather_init (g, d->n_points + 1, all);
  ucb_cmp_gather_doc (d, grp, false, g);
}

static struct ucb_contrast_side
side_of (const struct ucb_cmp_gathered *g)
{
  return (struct ucb_contrast_side){ g->ops, g->cpu, g->n_ops, g->n_cpu };
}

/* A pair as the JSON needs it: its point (either mode's first repeat), its estimate, and what
 * each side contributed (with contended repeats when the estimate is of every repeat). */
struct row
{
  const struct ucb_doc_point *pt;
  struct ucb_cmp_test est;
  struct ucb_cmp_gathered s, d;          /* the repeats the estimate is of */
  size_t used_s, used_d, left_s, left_d; /* with contended repeats left out */
};

static void
make_row (const struct ucb_doc *d, const struct ucb_doc_point *pt, const struct ucb_doc_group *gs,
          const struct ucb_doc_group *gd, struct row *w)
{
  struct ucb_cmp_gathered as, ad;

  *w = (struct row){ .pt = pt };
  gather (d, gs, false, &w->s);
  gather (d, gd, false, &w->d);
  w->used_s = w->s.used;
  w->used_d = w->d.used;
  w->left_s = w->s.left_out;
  w->left_d = w->d.left_out;
  gather (d, gs, true, &as);
  gather (d, gd, true, &ad);
  {
    struct ucb_contrast_side s = side_of (&w->s), t = side_of (&w->d);
    struct ucb_contrast_side s_all = side_of (&as), t_all = side_of (&ad);
    ucb_contrast_estimate (&s, &t, &s_all, &t_all, w->left_s || w->left_d, &w->est);
  }
  if (w->est.from_contended)
    {
      /* the medians and spreads shown are of the repeats the ratio is of */
      ucb_cmp_gathered_free (&w->s);
      ucb_cmp_gathered_free (&w->d);
      w->s = as;
      w->d = ad;
      return;
    }
  ucb_cmp_gathered_free (&as);
  ucb_cmp_gathered_free (&ad);
}

static json_t *
side_json (const struct ucb_cmp_gathered *g, size_t used, size_t left)
{
  struct ucb_stats st;

  ucb_stats_compute (g->raw_ops, g->n_ops, &st);
  return ucb_cmp_side_json (st.median, ucb_median (g->raw_cpu, g->n_cpu), st.cv, used, left,
                            g->flags.list);
}

static json_t *
row_json (const struct row *w, double adj_b, double adj_i, enum ucb_cmp_verdict v, size_t needed)
{
  json_t *o = ucb_json_obj ();
  const struct ucb_cmp_est *e = &w->est.ops;

  ucb_json_set (o, "workload", ucb_json_str (w->pt->workload));
  ucb_json_set (o, "depth", ucb_json_int (w->pt->depth));
  ucb_json_set (o, "tasks", ucb_json_int (w->pt->tasks));
  ucb_json_set (o, "mode", ucb_json_str (w->pt->mode));
  ucb_json_set (o, "containers", ucb_json_int (w->pt->containers));
  ucb_json_set (o, "shared", side_json (&w->s, w->used_s, w->left_s));
  ucb_json_set (o, "distinct", side_json (&w->d, w->used_d, w->left_d));
  ucb_json_set (o, "n_shared", ucb_json_int ((long long) e->nh));
  ucb_json_set (o, "n_distinct", ucb_json_int ((long long) e->nb));
  ucb_json_set (o, "ratio", ucb_json_real (e->ratio));
  ucb_json_set (o, "ci_low", ucb_json_real (e->lo));
  ucb_json_set (o, "ci_high", ucb_json_real (e->hi));
  ucb_json_set (o, "ratio_from_contended", json_boolean (w->est.from_contended));
  ucb_json_set (o, "change_pct", ucb_json_real (100 * (e->ratio - 1)));
  ucb_json_set (o, "df", ucb_json_real (e->df));
  ucb_json_set (o, "threshold_pct", ucb_json_real (100 * UCB_CONTRAST_THRESHOLD));
  ucb_json_set (o, "p_beyond", ucb_json_real (e->p_beyond));
  ucb_json_set (o, "p_beyond_adj", ucb_json_real (adj_b));
  ucb_json_set (o, "p_inside", ucb_json_real (e->p_inside));
  ucb_json_set (o, "p_inside_adj", ucb_json_real (adj_i));
  ucb_json_set (o, "cpu_ns_per_op", ucb_cmp_ratio_json (&w->est.cpu));
  ucb_json_set (o, "verdict", ucb_json_str (ucb_contrast_verdict_name (v)));
  ucb_json_set (o, "needed", needed ? ucb_json_int ((long long) needed) : NULL);
  return o;
}

/* The group of the point like `p` but for owner mode `owner`, when it has a measured repeat. */
static const struct ucb_doc_group *
group_of (const struct ucb_doc *d, const struct ucb_doc_point *p, const char *owner)
{
  struct ucb_doc_point q = *p;
  const struct ucb_doc_group *g;

  q.owner = owner;
  g = ucb_doc_find_group (d, &q);
  return g && g->n_measured ? g : NULL;
}

/* The pairs, in the order of their first measured repeat. */
static struct row *
make_rows (const struct ucb_doc *d, size_t *n)
{
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);
  struct row *rows = xcalloc (d->n_points / 2 + 1, sizeof *rows);

  *n = 0;
  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      const struct ucb_doc_group *gs, *gd;

      if (!p->measured || seen[p->group]
          || (strcmp (p->owner, SHARED) != 0 && strcmp (p->owner, DISTINCT) != 0))
        continue;
      gs = group_of (d, p, SHARED);
      gd = group_of (d, p, DISTINCT);
      if (!gs || !gd)
        continue;
      seen[gs - d->groups] = seen[gd - d->groups] = true;
      make_row (d, p, gs, gd, &rows[(*n)++]);
    }
  return rows;
}

json_t *
ucb_contrast_json (const struct ucb_doc *d)
{
  size_t n;
  cleanup_free struct row *rows = make_rows (d, &n);
  cleanup_free double *ab = xcalloc (n + 1, sizeof *ab), *ai = xcalloc (n + 1, sizeof *ai);
  cleanup_free enum ucb_cmp_verdict *v = xcalloc (n + 1, sizeof *v);
  cleanup_free size_t *need = xcalloc (n + 1, sizeof *need);
  cleanup_free struct ucb_cmp_test *est = xcalloc (n + 1, sizeof *est);
  json_t *arr;

  if (n == 0)
    return NULL;
  for (size_t i = 0; i < n; i++)
    est[i] = rows[i].est;
  ucb_contrast_verdicts (est, n, ab, ai, v, need);
  arr = ucb_json_arr ();
  for (size_t i = 0; i < n; i++)
    {
      ucb_json_push (arr, row_json (&rows[i], ab[i], ai[i], v[i], need[i]));
      ucb_cmp_gathered_free (&rows[i].s);
      ucb_cmp_gathered_free (&rows[i].d);
    }
  return arr;
}

json_t *
ucb_report_owner_contrast (json_t *results)
{
  struct ucb_doc d;
  json_t *arr;

  if (!ucb_doc_built (results, &d))
    return NULL;
  arr = ucb_contrast_json (&d);
  ucb_doc_free (&d);
  return arr;
}

/* ---- the text ------------------------------------------------------------------------------- */

void
ucb_contrast_flags (const json_t *x, const char *sep, char *buf, size_t n)
{
  static const char *const sides[] = { SHARED, DISTINCT };
  size_t at = 0;

  buf[0] = '\0';
  for (size_t k = 0; k < 2; k++)
    {
      json_t *arr = json_object_get (json_object_get (x, sides[k]), "flags"), *f;
      size_t i;

      if (!json_array_size (arr))
        continue;
      at += (size_t) snprintf (buf + at, at < n ? n - at : 0, "%s%s: ", at ? "; " : "", sides[k]);
      json_array_foreach (arr, i, f) at += (size_t) snprintf (buf + at, at < n ? n - at : 0, "%s%s",
                                                              i ? sep : "", json_string_value (f));
    }
}

/* After the verdict, in words, what the `runs` numbers leave out: each side's flags and the
 * repeats left out (contended or unjudged), and that a ratio of every repeat decides nothing:
 * " [shared: contended, 1 of 1 repeats left out; ...]", "" when there is nothing to say. */
static void
said_after (const json_t *x, char *buf, size_t n)
{
  static const char *const names[] = { SHARED, DISTINCT };
  size_t at = 0;

  buf[0] = '\0';
  for (size_t k = 0; k < 2; k++)
    {
      const json_t *side = json_object_get (x, names[k]), *f;
      json_t *fl = json_object_get (side, "flags");
      long long used = json_integer_value (json_object_get (side, "repeats_used"));
      long long left = json_integer_value (json_object_get (side, "repeats_left_out"));
      size_t i;

      if (!json_array_size (fl) && !left)
        continue;
      at += (size_t) snprintf (buf + at, at < n ? n - at : 0, "%s%s: ", at ? "; " : " [", names[k]);
      json_array_foreach (fl, i, f) at += (size_t) snprintf (buf + at, at < n ? n - at : 0, "%s%s",
                                                             i ? ", " : "", json_string_value (f));
      if (left)
        at += (size_t) snprintf (buf + at, at < n ? n - at : 0, "%s%lld of %lld repeats left out",
                                 json_array_size (fl) ? ", " : "", left, used + left);
    }
  if (json_is_true (json_object_get (x, "ratio_from_contended")))
    at += (size_t) snprintf (buf + at, at < n ? n - at : 0,
                             "%sthe ratio, of every repeat, decides nothing", at ? "; " : " [");
  if (at)
    snprintf (buf + at, at < n ? n - at : 0, "]");
}

static void
print_row (FILE *f, const json_t *x)
{
  const json_t *s = json_object_get (x, SHARED), *d = json_object_get (x, DISTINCT);
  char ci[48], cpu[48], ms[24] = "-", md[24] = "-", runs[56], v[64];
  char words[4 * UCB_POINT_FLAGS_MAX + 160];
  cleanup_free char *w = ucb_escape_controls (json_string_value (json_object_get (x, "workload")));
  cleanup_free char *m = ucb_escape_controls (json_string_value (json_object_get (x, "mode")));

  /* no ` c` mark: said_after says it in words */
  ucb_cmp_ratio_cell (x, false, ci, sizeof ci);
  ucb_cmp_ratio_cell (json_object_get (x, "cpu_ns_per_op"), false, cpu, sizeof cpu);
  if (isfinite (ucb_json_num (s, "median_ops_per_s")))
    snprintf (ms, sizeof ms, "%.0f", ucb_json_num (s, "median_ops_per_s"));
  if (isfinite (ucb_json_num (d, "median_ops_per_s")))
    snprintf (md, sizeof md, "%.0f", ucb_json_num (d, "median_ops_per_s"));
  snprintf (runs, sizeof runs, "%lld/%lld",
            json_integer_value (json_object_get (s, "repeats_used")),
            json_integer_value (json_object_get (d, "repeats_used")));
  if (json_is_integer (json_object_get (x, "needed")))
    snprintf (v, sizeof v, "inconclusive (~%lld repeats a side)",
              json_integer_value (json_object_get (x, "needed")));
  else
    snprintf (v, sizeof v, "%s", json_string_value (json_object_get (x, "verdict")));
  said_after (x, words, sizeof words);
  fprintf (f, "%-9s %5lld %5lld %-7s %5lld %12s %14s  %-22s %-22s %-9s %s%s\n", w,
           json_integer_value (json_object_get (x, "depth")),
           json_integer_value (json_object_get (x, "tasks")), m,
           json_integer_value (json_object_get (x, "containers")), ms, md, ci, cpu, runs, v, words);
}

void
ucb_contrast_text (FILE *f, const json_t *rows, bool full_legend)
{
  size_t i;
  json_t *x;

  if (json_array_size (rows) == 0)
    return;
  fprintf (f, "\nOwner contrast: shared/distinct per-container ops/s (the modes ran in turns):\n");
  fprintf (f, "%-9s %5s %5s %-7s %5s %12s %14s  %-22s %-22s %-9s %s\n", "workload", "depth",
           "tasks", "mode", "N", "shared ops/s", "distinct ops/s", "ratio [95% CI]",
           "CPU ns/op ratio", "runs s/d", "verdict");
  json_array_foreach (rows, i, x) print_row (f, x);
  if (!full_legend)
    {
      fprintf (f,
               "(penalty: ratio [95%% CI] wholly below %.2f, CPU ns/op ratio above 1; none: within "
               "1 ± %.0f %%; runs s/d: repeats used)\n"
               "(every verdict and the method: man ucbench, docs/statistics.md \"The owner "
               "contrast\")\n",
               1 - UCB_CONTRAST_THRESHOLD, 100 * UCB_CONTRAST_THRESHOLD);
      return;
    }
  fprintf (f,
           "(ratio = owner_contrast[].ratio, shared/distinct; [95%% CI] over the repeats)\n"
           "(penalty: the interval wholly below %.2f after Holm over these lines, CPU ns/op "
           "ratio above 1)\n"
           "(none: wholly within 1 ± %.0f %%; shared faster: wholly above %.2f; else "
           "inconclusive, and why)\n"
           "(runs s/d: repeats used a side; after the verdict: flags, repeats left out "
           "(contended or unjudged))\n"
           "(the method: docs/statistics.md, \"The owner contrast\")\n",
           1 - UCB_CONTRAST_THRESHOLD, 100 * UCB_CONTRAST_THRESHOLD, 1 + UCB_CONTRAST_THRESHOLD);
}

char *
ucb_contrast_repeat_hint (const json_t *rows)
{
  static const char *const names[] = { SHARED, DISTINCT };
  size_t few = 0, lacking = 0, i;
  long long need = 0, most;
  json_t *x;

  json_array_foreach (rows, i, x)
  {
    bool one = false;

    for (size_t k = 0; k < 2; k++)
      {
        const json_t *side = json_object_get (x, names[k]);
        one = one
              || json_integer_value (json_object_get (side, "repeats_used"))
                         + json_integer_value (json_object_get (side, "repeats_left_out"))
                     < 2;
      }
    few += one;
    if (!one && json_is_integer (json_object_get (x, "needed")))
      {
        long long n = json_integer_value (json_object_get (x, "needed"));
        need = n > need ? n : need;
        lacking++;
      }
  }
  if (few == 0 && lacking == 0)
    return NULL;
  most = few && need < UCB_CONTRAST_HINT_REPEATS ? UCB_CONTRAST_HINT_REPEATS : need;
  {
    cleanup_free char *a = few ? xasprintf ("%zu with a single repeat a side", few) : NULL;
    cleanup_free char *b
        = lacking ? xasprintf ("%zu inconclusive, which ~%lld repeats a side would likely settle",
                               lacking, need)
                  : NULL;
    return xasprintf (
        "the owner contrast lacked repeats for a verdict on %zu of %zu points (%s%s%s): "
        "rerun with -r %lld (--repeat %lld)",
        few + lacking, json_array_size (rows), a ? a : "", a && b ? "; " : "", b ? b : "", most,
        most);
  }
}
