/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - `ucbench compare`'s JSON (docs/json.md, ucbench-compare/2): its result (compare.c)
 * as a document. */
#include "config.h"

#include "core/json-util.h"
#include "report/compare/parts.h"

/* One points[] entry. */
static json_t *
row_json (const struct ucb_cmp_row *w)
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
  ucb_json_set (o, "p_beyond_adj", ucb_json_real (w->adj_b));
  ucb_json_set (o, "p_inside", ucb_json_real (w->t.ops.p_inside));
  ucb_json_set (o, "p_inside_adj", ucb_json_real (w->adj_i));
  ucb_json_set (o, "cpu_ns_per_op", ucb_cmp_ratio_json (&w->t.cpu));
  ucb_json_set (o, "verdict", ucb_json_str (ucb_cmp_verdict_name (w->verdict)));
  ucb_json_set (o, "needed", w->needed ? ucb_json_int ((long long) w->needed) : NULL);
  ucb_json_set (o, "needed_unit", ucb_json_str (w->needed_documents ? "document" : "repeat"));
  return o;
}

static json_t *
names (const struct ucb_doc *docs, size_t n)
{
  json_t *a = ucb_json_arr ();
  for (size_t k = 0; k < n; k++)
    ucb_json_push (a, ucb_json_str (docs[k].name));
  return a;
}

static json_t *
method (const struct ucb_cmp_result *res)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "metric", ucb_json_str ("per-container ops/s (decides); CPU ns/op (shown)"));
  ucb_json_set (o, "interval", ucb_json_str ("welch-t-log"));
  ucb_json_set (o, "level", ucb_json_real (1 - UCB_COMPARE_ALPHA));
  ucb_json_set (o, "adjustment", ucb_json_str ("holm"));
  ucb_json_set (o, "alpha", ucb_json_real (UCB_COMPARE_ALPHA));
  ucb_json_set (o, "threshold_pct", ucb_json_real (res->threshold_pct));
  ucb_json_set (o, "drift_pct", ucb_json_real (res->drift_pct));
  ucb_json_set (o, "normalize", ucb_json_str (res->canary ? "canary" : "none"));
  return o;
}

json_t *
ucb_compare_json (const struct ucb_cmp_result *res)
{
  json_t *out = ucb_json_obj (), *pts = ucb_json_arr (), *only = ucb_json_arr ();
  json_t *ver = ucb_json_arr ();

  for (size_t i = 0; i < res->n_rows; i++)
    ucb_json_push (pts, row_json (&res->rows[i]));
  for (size_t i = 0; i < res->n_only; i++)
    {
      json_t *o = ucb_json_obj ();
      ucb_json_set (o, "file", ucb_json_str (res->only[i].file));
      ucb_json_set (o, "point", ucb_json_str (res->only[i].point));
      ucb_json_push (only, o);
    }
  for (size_t i = 0; i < res->n_cases; i++)
    {
      const struct ucb_cmp_case *c = &res->cases[i];
      json_t *o = ucb_json_obj ();
      ucb_json_set (o, "id", ucb_json_str (c->id));
      ucb_json_set (o, "base", ucb_json_str (c->base));
      ucb_json_set (o, "head", ucb_json_str (c->head));
      ucb_json_set (o, "base_not_run", json_boolean (c->base_not_run));
      ucb_json_set (o, "head_not_run", json_boolean (c->head_not_run));
      ucb_json_set (o, "newly_failing", json_boolean (c->newly_failing));
      ucb_json_push (ver, o);
    }
  ucb_json_set (out, "schema", ucb_json_str ("ucbench-compare/2"));
  ucb_json_set (out, "base", names (res->base, res->n_base));
  ucb_json_set (out, "head", names (res->head, res->n_head));
  ucb_json_set (out, "method", method (res));
  ucb_json_set (out, "differences", json_incref (res->differences));
  ucb_json_set (out, "warnings", json_incref (res->warnings));
  ucb_json_set (out, "caveat", ucb_json_str (res->caveat));
  ucb_json_set (out, "points", pts);
  ucb_json_set (out, "only_in", only);
  ucb_json_set (out, "verify", ver);
  ucb_json_set (out, "scalability", ucb_compare_usl_json (&res->usl));
  ucb_json_set (out, "regressions", ucb_json_int ((long long) res->regressions));
  ucb_json_set (out, "newly_failing", ucb_json_int ((long long) res->newly_failing));
  return out;
}
