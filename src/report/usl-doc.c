/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usl-doc.c - one USL fit per series of result documents: which repeats it may use (each task
 * had a CPU of its own, and got it), the fit, and why one is refused, said with the container
 * counts the documents have; its JSON (a series[] entry of ucbench-model/1). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/usl-doc.h"

/* The CPUs the document says its tasks could use: allowed, else online; -1 when it does not. */
static long long
doc_cpus (const struct ucb_doc *d)
{
  return d->host.cpus_allowed > 0  ? d->host.cpus_allowed
         : d->host.cpus_online > 0 ? d->host.cpus_online
                                   : -1;
}

/* Why repeat `p` of a document with `cpus` CPUs is not a point of the model, or NULL when it
 * is; *assumed when nothing says whether its tasks had a CPU each.  Sharing a CPU by design
 * comes first: it is the reason whatever else happened. */
static char *
left_out_why (const struct ucb_doc_point *p, long long cpus, bool *assumed)
{
  const struct ucb_doc_contention *c = &p->contention;
  double tasks = (double) p->containers * (double) p->tasks;
  bool own = c->known && (c->owns_cpu || c->fair_share >= 1);

  if (!p->measured || !(p->sum.per_container_ops > 0))
    return xasprintf ("not measured (status %s)", p->status);
  if (!own && cpus > 0 && tasks > (double) cpus)
    return xasprintf ("%.0f tasks on %lld CPUs", tasks, cpus);
  if (!own && c->known && isfinite (c->fair_share))
    return xasprintf ("its tasks shared CPUs (a fair share of %.2g of a CPU each)", c->fair_share);
  if (!own && c->known && cpus <= 0)
    return xstrdup ("its tasks did not each own a CPU (contention.owns_cpu is false)");
  if (c->starved)
    return xstrdup ("starved: a container did too few ops to measure");
  if (c->contended)
    return xstrdup ("contended: its tasks got less CPU than their share");
  if (c->unjudged)
    return xstrdup ("unjudged: its tasks' CPU share could not be measured");
  *assumed = *assumed || (!c->known && cpus <= 0);
  return NULL;
}

static struct ucb_usl_series *
series_of (struct ucb_usl_model *m, const struct ucb_doc_point *p)
{
  for (size_t i = 0; i < m->n; i++)
    if (ucb_point_series_cmp (m->s[i].id, p) == 0)
      return &m->s[i];
  m->s = xrealloc (m->s, (m->n + 1) * sizeof *m->s);
  m->s[m->n] = (struct ucb_usl_series){ .id = p, .cpus = -1, .status = UCB_USL_OK };
  return &m->s[m->n++];
}

static void
add_point (struct ucb_usl_series *s, const struct ucb_doc_point *p, long long cpus)
{
  char *why = left_out_why (p, cpus, &s->assumed);

  if (s->cpus < 0)
    s->cpus = cpus;
  if (why)
    {
      s->left = xrealloc (s->left, (s->n_left + 1) * sizeof *s->left);
      s->left[s->n_left++] = (struct ucb_usl_left){ p->containers, p->repeat, why };
      return;
    }
  s->n = xrealloc (s->n, (s->m + 1) * sizeof *s->n);
  s->x = xrealloc (s->x, (s->m + 1) * sizeof *s->x);
  s->nc = xrealloc (s->nc, (s->m + 1) * sizeof *s->nc);
  s->nc[s->m] = p->containers;
  s->n[s->m] = (double) p->containers;
  s->x[s->m++] = p->sum.per_container_ops;
}

static int
cmp_level (const void *a, const void *b)
{
  long long x = ((const struct ucb_usl_level *) a)->containers;
  long long y = ((const struct ucb_usl_level *) b)->containers;
  return (x > y) - (x < y);
}

/* The distinct N of the observations, ascending, with their repeats and medians. */
static void
make_levels (struct ucb_usl_series *s)
{
  cleanup_free double *v = xcalloc (s->m + 1, sizeof *v);

  s->levels = xcalloc (s->m + 1, sizeof *s->levels);
  for (size_t i = 0; i < s->m; i++)
    {
      size_t j = 0;
      while (j < s->n_levels && s->levels[j].containers != s->nc[i])
        j++;
      if (j == s->n_levels)
        s->levels[s->n_levels++] = (struct ucb_usl_level){ .containers = s->nc[i] };
      s->levels[j].repeats++;
    }
  qsort (s->levels, s->n_levels, sizeof *s->levels, cmp_level);
  for (size_t j = 0; j < s->n_levels; j++)
    {
      size_t k = 0;
      for (size_t i = 0; i < s->m; i++)
        if (s->nc[i] == s->levels[j].containers)
          v[k++] = s->x[i];
      s->levels[j].median = ucb_median (v, k);
      s->levels[j].fitted = NAN;
    }
}

/* "1,2,4", the N of the levels ("none"). */
static char *
levels_text (const struct ucb_usl_series *s)
{
  char *t = xstrdup (s->n_levels ? "" : "none");
  for (size_t j = 0; j < s->n_levels; j++)
    {
      char *u = xasprintf ("%s%s%lld", t, j ? "," : "", s->levels[j].containers);
      free (t);
      t = u;
    }
  return t;
}

/* "; left out: N=4 (4 tasks on 2 CPUs), N=2 x2 (contended: ...)", each N and reason once; ""
 * when nothing was. */
static char *
left_text (const struct ucb_usl_series *s)
{
  char *t = xstrdup ("");
  for (size_t i = 0; i < s->n_left; i++)
    {
      size_t count = 0;
      bool first = true;
      for (size_t j = 0; j < s->n_left; j++)
        if (s->left[j].containers == s->left[i].containers
            && strcmp (s->left[j].why, s->left[i].why) == 0)
          {
            first = first && j >= i;
            count++;
          }
      if (!first)
        continue;
      cleanup_free char *times = count > 1 ? xasprintf (" x%zu", count) : xstrdup ("");
      char *u
          = xasprintf ("%s%sN=%lld%s (%s)", t, *t ? ", " : "; left out: ", s->left[i].containers,
                       times, s->left[i].why);
      free (t);
      t = u;
    }
  return t;
}

/* The sentence of a refusal: the fit's reason with the container counts these documents
 * have. */
static char *
refusal (const struct ucb_usl_series *s, const char *why, size_t n_docs)
{
  cleanup_free char *lv = levels_text (s), *left = left_text (s);
  cleanup_free char *cpus = s->cpus > 0 ? xasprintf (" (%lld CPUs)", s->cpus) : xstrdup ("");
  const char *has = n_docs > 1 ? "these documents have" : "this document has";

  if (s->status == UCB_USL_FEW_LEVELS)
    return xasprintf ("needs at least 3 distinct container counts where each task had a CPU of "
                      "its own; %s %s%s%s%s",
                      has, s->n_levels ? "N=" : "none", s->n_levels ? lv : "", cpus, left);
  if (s->status == UCB_USL_NO_DF)
    return xasprintf ("%s: %s N=%s, one repeat each%s%s", why, has, lv, cpus, left);
  return xasprintf ("%s (N=%s%s)%s", why, lv, cpus, left);
}

static void
fit_series (struct ucb_usl_series *s, size_t n_docs)
{
  char why[300];

  make_levels (s);
  s->status = ucb_usl_fit (s->n, s->x, s->m, &s->fit, why, sizeof why);
  if (s->status != UCB_USL_OK)
    {
      s->reason = refusal (s, why, n_docs);
      return;
    }
  for (size_t j = 0; j < s->n_levels; j++)
    s->levels[j].fitted = ucb_usl_value (&s->fit, (double) s->levels[j].containers);
}

void
ucb_usl_model_of (const struct ucb_doc *docs, size_t n_docs, struct ucb_usl_model *out)
{
  memset (out, 0, sizeof *out);
  for (size_t k = 0; k < n_docs; k++)
    for (size_t i = 0; i < docs[k].n_points; i++)
      add_point (series_of (out, &docs[k].points[i]), &docs[k].points[i], doc_cpus (&docs[k]));
  for (size_t i = 0; i < out->n; i++)
    {
      fit_series (&out->s[i], n_docs);
      out->refused += out->s[i].status != UCB_USL_OK;
    }
}

void
ucb_usl_model_free (struct ucb_usl_model *m)
{
  for (size_t i = 0; i < m->n; i++)
    {
      struct ucb_usl_series *s = &m->s[i];
      for (size_t j = 0; j < s->n_left; j++)
        free (s->left[j].why);
      free (s->left);
      free (s->levels);
      free (s->n);
      free (s->nc);
      free (s->x);
      free (s->reason);
      if (s->status == UCB_USL_OK)
        ucb_usl_free (&s->fit);
    }
  free (m->s);
  memset (m, 0, sizeof *m);
}

const struct ucb_usl_series *
ucb_usl_model_find (const struct ucb_usl_model *m, const struct ucb_doc_point *p)
{
  for (size_t i = 0; i < m->n; i++)
    if (ucb_point_series_cmp (m->s[i].id, p) == 0)
      return &m->s[i];
  return NULL;
}

char *
ucb_usl_series_name (const struct ucb_usl_series *s)
{
  /* A table's one series has no owner, depth or mode to name (report/model/table.c). */
  if (strcmp (s->id->owner, UCB_TABLE_OWNER) == 0)
    return xstrdup (s->id->workload);
  return xasprintf ("%s %s depth %lld, %lld task%s, %s", s->id->workload, s->id->owner,
                    s->id->depth, s->id->tasks, s->id->tasks == 1 ? "" : "s", s->id->mode);
}

json_t *
ucb_usl_interval_json (const struct ucb_usl_interval *iv)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "estimate", ucb_json_real (iv->est));
  ucb_json_set (o, "ci_low", ucb_json_real (iv->lo));
  ucb_json_set (o, "ci_high", ucb_json_real (iv->hi));
  return o;
}

static json_t *
levels_json (const struct ucb_usl_series *s)
{
  json_t *a = ucb_json_arr ();
  for (size_t j = 0; j < s->n_levels; j++)
    {
      const struct ucb_usl_level *l = &s->levels[j];
      json_t *o = ucb_json_obj ();
      ucb_json_set (o, "containers", ucb_json_int (l->containers));
      ucb_json_set (o, "repeats", ucb_json_int ((long long) l->repeats));
      ucb_json_set (o, "median_ops_per_s", ucb_json_real (l->median));
      ucb_json_set (o, "fitted_ops_per_s", ucb_json_real (l->fitted));
      ucb_json_set (o, "residual_pct", ucb_json_real (100 * (l->median / l->fitted - 1)));
      ucb_json_push (a, o);
    }
  return a;
}

static json_t *
left_json (const struct ucb_usl_series *s)
{
  json_t *a = ucb_json_arr ();
  for (size_t j = 0; j < s->n_left; j++)
    {
      json_t *o = ucb_json_obj ();
      ucb_json_set (o, "containers", ucb_json_int (s->left[j].containers));
      ucb_json_set (o, "repeat", ucb_json_int (s->left[j].repeat));
      ucb_json_set (o, "why", ucb_json_str (s->left[j].why));
      ucb_json_push (a, o);
    }
  return a;
}

bool
ucb_usl_extrapolates (const struct ucb_usl_series *s, long long n)
{
  return s->n_levels > 0
         && (n > s->levels[s->n_levels - 1].containers || n < s->levels[0].containers);
}

char *
ucb_usl_prediction_refusal (const struct ucb_usl_series *s, long long n)
{
  if (s->status != UCB_USL_OK || !s->fit.lof_rejected || !ucb_usl_extrapolates (s, n))
    return NULL;
  /* A shape rejected where it was measured has no interval beyond: its misfit is systematic,
   * and grows with the distance from the N measured (docs/statistics.md). */
  return xasprintf ("the law's shape does not fit the N measured (lack of fit p = %.2g), so it "
                    "is not carried beyond them",
                    s->fit.lof_p);
}

static json_t *
predictions_json (const struct ucb_usl_series *s, const unsigned *pred, size_t n_pred)
{
  json_t *a = ucb_json_arr ();
  for (size_t k = 0; k < n_pred; k++)
    {
      struct ucb_usl_pred p;
      json_t *o = ucb_json_obj ();
      cleanup_free char *why = ucb_usl_prediction_refusal (s, pred[k]);

      if (why == NULL)
        ucb_usl_predict (&s->fit, pred[k], &p);
      ucb_json_set (o, "containers", ucb_json_int (pred[k]));
      ucb_json_set (o, "ops_per_s", why ? NULL : ucb_usl_interval_json (&p.x));
      ucb_json_set (o, "scale", why ? NULL : ucb_usl_interval_json (&p.scale));
      ucb_json_set (o, "extrapolated", json_boolean (ucb_usl_extrapolates (s, pred[k])));
      ucb_json_set (o, "reason", ucb_json_str (why));
      ucb_json_push (a, o);
    }
  return a;
}

/* The lack-of-fit test as {f, df_lack, df_pure, p, rejected}; null when not tested. */
static json_t *
lack_of_fit_json (const struct ucb_usl_fit *f)
{
  json_t *o;

  if (!f->lof_tested)
    return NULL;
  o = ucb_json_obj ();
  ucb_json_set (o, "f", ucb_json_real (f->lof_f));
  ucb_json_set (o, "df_lack", ucb_json_int ((long long) f->df_lack));
  ucb_json_set (o, "df_pure", ucb_json_int ((long long) f->df_pure));
  ucb_json_set (o, "p", ucb_json_real (f->lof_p));
  ucb_json_set (o, "rejected", json_boolean (f->lof_rejected));
  return o;
}

json_t *
ucb_usl_series_json (const struct ucb_usl_series *s, const unsigned *pred, size_t n_pred)
{
  json_t *o = ucb_json_obj ();
  bool ok = s->status == UCB_USL_OK;

  ucb_json_set (o, "workload", ucb_json_str (s->id->workload));
  ucb_json_set (o, "owner", ucb_json_str (s->id->owner));
  ucb_json_set (o, "depth", ucb_json_int (s->id->depth));
  ucb_json_set (o, "tasks", ucb_json_int (s->id->tasks));
  ucb_json_set (o, "mode", ucb_json_str (s->id->mode));
  ucb_json_set (o, "status", ucb_json_str (ok ? "fitted" : "refused"));
  ucb_json_set (o, "reason", ucb_json_str (s->reason));
  ucb_json_set (o, "cpus", s->cpus > 0 ? ucb_json_int (s->cpus) : NULL);
  ucb_json_set (o, "assumed_own_cpu", json_boolean (s->assumed));
  ucb_json_set (o, "observations", ucb_json_int ((long long) s->m));
  ucb_json_set (o, "levels", levels_json (s));
  ucb_json_set (o, "left_out", left_json (s));
  ucb_json_set (o, "df", ok ? ucb_json_int ((long long) s->fit.df) : NULL);
  ucb_json_set (o, "lambda", ok ? ucb_usl_interval_json (&s->fit.lambda) : NULL);
  ucb_json_set (o, "sigma", ok ? ucb_usl_interval_json (&s->fit.sigma) : NULL);
  ucb_json_set (o, "kappa", ok ? ucb_usl_interval_json (&s->fit.kappa) : NULL);
  ucb_json_set (o, "residual_sd_log", ok ? ucb_json_real (s->fit.s) : NULL);
  ucb_json_set (o, "residual_pct", ok ? ucb_json_real (100 * expm1 (s->fit.s)) : NULL);
  ucb_json_set (o, "p_flat", ok ? ucb_json_real (s->fit.p_flat) : NULL);
  ucb_json_set (o, "loss", ok ? ucb_json_str (ucb_usl_loss (&s->fit)) : NULL);
  ucb_json_set (o, "lack_of_fit", ok ? lack_of_fit_json (&s->fit) : NULL);
  ucb_json_set (o, "predictions", ok ? predictions_json (s, pred, n_pred) : ucb_json_arr ());
  return o;
}
