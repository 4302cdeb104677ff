/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-stats.c - the statistics of `ucbench compare`: docs/statistics.md says why. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/compare-stats.h"

/* P(T_df <= x / se), with se == 0 read as the limit (a side without spread). */
static double
cdf_over (double x, double se, double df)
{
  if (se > 0)
    return ucb_t_cdf (x / se, df);
  return x > 0 ? 1 : x < 0 ? 0 : 0.5;
}

/* Add the known variance 2 drift^2 to Welch's: its df is infinite, so only the sample parts
 * count in the Satterthwaite denominator. */
static void
add_drift (struct ucb_welch *w, double sb, double sh, size_t nb, size_t nh, double drift)
{
  double vb = sb * sb / (double) nb, vh = sh * sh / (double) nh, den;
  double v = vb + vh + 2 * drift * drift;

  if (!(drift > 0))
    return;
  den = vb * vb / ((double) nb - 1) + vh * vh / ((double) nh - 1);
  w->se = sqrt (v);
  w->df = den > 0 ? fmin (1e9, v * v / den) : 1e9;
}

void
ucb_cmp_estimate (const double *lb, size_t nb, const double *lh, size_t nh, double thr,
                  double drift, struct ucb_cmp_est *e)
{
  struct ucb_welch w;
  struct ucb_stats s;
  double q, L = log1p (-thr), U = log1p (thr), p_lo, p_hi;

  *e = (struct ucb_cmp_est){ .nb = nb, .nh = nh, .drift = drift > 0 ? drift : 0 };
  e->d = e->se = e->df = e->sb = e->sh = e->ratio = e->lo = e->hi = NAN;
  e->p_beyond = e->p_inside = NAN;
  if (nb && nh)
    {
      /* the ratio exists with one unit a side; its interval needs two */
      double mb, mh;
      ucb_stats_compute (lb, nb, &s);
      mb = s.mean;
      ucb_stats_compute (lh, nh, &s);
      mh = s.mean;
      e->d = mh - mb;
      e->ratio = exp (e->d);
    }
  if (ucb_welch (lb, nb, lh, nh, &w) < 0)
    return;
  ucb_stats_compute (lb, nb, &s);
  e->sb = s.stddev;
  ucb_stats_compute (lh, nh, &s);
  e->sh = s.stddev;
  add_drift (&w, e->sb, e->sh, nb, nh, e->drift);
  e->ok = true;
  e->d = w.diff;
  e->se = w.se;
  e->df = w.df;
  q = ucb_t_quantile (1 - UCB_COMPARE_ALPHA / 2, w.df);
  e->ratio = exp (w.diff);
  e->lo = exp (w.diff - q * w.se);
  e->hi = exp (w.diff + q * w.se);
  /* Beyond: d < L or d > U.  Each one-sided test at alpha/2 is the matching end of the 95 %
   * interval, so p_beyond < alpha <=> the interval lies wholly below 1 - thr or above 1 + thr. */
  p_lo = cdf_over (w.diff - L, w.se, w.df);     /* H0 d >= L */
  p_hi = 1 - cdf_over (w.diff - U, w.se, w.df); /* H0 d <= U */
  e->p_beyond = fmin (1, 2 * fmin (p_lo, p_hi));
  /* Inside (TOST): both ends of the 95 % interval within the band. */
  p_lo = 1 - cdf_over (w.diff - L, w.se, w.df); /* H0 d <= L */
  p_hi = cdf_over (w.diff - U, w.se, w.df);     /* H0 d >= U */
  e->p_inside = fmin (1, 2 * fmax (p_lo, p_hi));
}

const char *
ucb_cmp_verdict_name (enum ucb_cmp_verdict v)
{
  static const char *const names[] = {
    [UCB_CMP_REGRESSION] = "regression",
    [UCB_CMP_IMPROVEMENT] = "improvement",
    [UCB_CMP_NO_CHANGE] = "no change",
    [UCB_CMP_INCONCLUSIVE] = "inconclusive",
    [UCB_CMP_ONE_REPEAT] = "inconclusive (1 repeat)",
    [UCB_CMP_CONTENDED] = "inconclusive (contended)",
    [UCB_CMP_DISAGREE] = "inconclusive (metrics disagree)",
  };
  return names[v];
}

enum ucb_cmp_verdict
ucb_cmp_verdict (const struct ucb_cmp_est *ops, double adj_beyond, double adj_inside,
                 const struct ucb_cmp_est *cpu, bool contended)
{
  if (!ops->ok)
    return contended ? UCB_CMP_CONTENDED : UCB_CMP_ONE_REPEAT;
  if (adj_beyond < UCB_COMPARE_ALPHA)
    {
      bool down = ops->d < 0;
      /* The cost of an op must move with the rate: fewer ops/s while CPU ns/op is not
       * clearly higher is the task's share of the CPU moving (stolen time), not its work. */
      if (cpu && cpu->ok && !(down ? cpu->lo > 1 : cpu->hi < 1))
        return UCB_CMP_DISAGREE;
      return down ? UCB_CMP_REGRESSION : UCB_CMP_IMPROVEMENT;
    }
  if (adj_inside < UCB_COMPARE_ALPHA)
    return UCB_CMP_NO_CHANGE;
  return UCB_CMP_INCONCLUSIVE;
}

size_t
ucb_cmp_needed (const struct ucb_cmp_est *e, double thr, double alpha_point)
{
  double L = log1p (-thr), U = log1p (thr);
  double dist = fmin (fabs (e->d - L), fabs (e->d - U)), v;
  size_t n0 = e->nb > e->nh ? e->nb : e->nh;

  if (!e->ok)
    return 0;
  v = e->sb * e->sb + e->sh * e->sh;
  if (e->drift > 0)
    {
      /* documents of n0 repeats: drift^2 + s^2 / n0 each, a side */
      v = 2 * e->drift * e->drift + v / (double) n0;
      n0 = 1;
    }
  for (size_t n = n0 + 1; n <= UCB_COMPARE_MAX_NEEDED; n++)
    if (ucb_t_quantile (1 - alpha_point / 2, 2.0 * (double) n - 2) * sqrt (v / (double) n) < dist)
      return n;
  return 0;
}

json_t *
ucb_cmp_side_json (double med_ops, double med_cpu, double cv, size_t used, size_t left,
                   const char *flags)
{
  json_t *o = ucb_json_obj (), *a = ucb_json_arr ();
  cleanup_free char *buf = xstrdup (flags);
  char *save = NULL;

  for (char *f = strtok_r (buf, ",", &save); f; f = strtok_r (NULL, ",", &save))
    ucb_json_push (a, ucb_json_str (f));
  ucb_json_set (o, "median_ops_per_s", ucb_json_real (med_ops));
  ucb_json_set (o, "median_cpu_ns_per_op", ucb_json_real (med_cpu));
  ucb_json_set (o, "cv_pct", ucb_json_real (100 * cv));
  ucb_json_set (o, "repeats_used", ucb_json_int ((long long) used));
  ucb_json_set (o, "repeats_left_out", ucb_json_int ((long long) left));
  ucb_json_set (o, "flags", a);
  return o;
}

json_t *
ucb_cmp_ratio_json (const struct ucb_cmp_est *e)
{
  json_t *o;

  if (!isfinite (e->ratio))
    return NULL;
  o = ucb_json_obj ();
  ucb_json_set (o, "ratio", ucb_json_real (e->ratio));
  ucb_json_set (o, "ci_low", ucb_json_real (e->lo));
  ucb_json_set (o, "ci_high", ucb_json_real (e->hi));
  return o;
}

void
ucb_cmp_family (const struct ucb_cmp_test *t, size_t n, double thr, double *adj_beyond,
                double *adj_inside, enum ucb_cmp_verdict *v, size_t *needed)
{
  cleanup_free double *pb = xcalloc (n + 1, sizeof *pb), *pi = xcalloc (n + 1, sizeof *pi);
  size_t m = 0;

  for (size_t i = 0; i < n; i++)
    {
      pb[i] = t[i].ops.p_beyond;
      pi[i] = t[i].ops.p_inside;
      m += t[i].ops.ok && !t[i].from_contended;
    }
  ucb_holm (pb, n, adj_beyond);
  ucb_holm (pi, n, adj_inside);
  for (size_t i = 0; i < n; i++)
    {
      v[i] = t[i].from_contended ? UCB_CMP_CONTENDED
                                 : ucb_cmp_verdict (&t[i].ops, adj_beyond[i], adj_inside[i],
                                                    &t[i].cpu, t[i].contended);
      /* An inconclusive test has an interval, so it is one of the m. */
      if (needed)
        needed[i] = v[i] == UCB_CMP_INCONCLUSIVE
                        ? ucb_cmp_needed (&t[i].ops, thr, UCB_COMPARE_ALPHA / (double) (m ? m : 1))
                        : 0;
    }
}

void
ucb_cmp_runs_text (long long used, long long left, char *buf, size_t n)
{
  if (left)
    snprintf (buf, n, "%lld-%lldc", used, left);
  else
    snprintf (buf, n, "%lld", used);
}

void
ucb_cmp_ratio_text (double r, double lo, double hi, bool contended, char *buf, size_t n)
{
  const char *c = contended ? " c" : "";

  if (!isfinite (r))
    snprintf (buf, n, "-");
  else if (isfinite (lo) && isfinite (hi))
    snprintf (buf, n, "%.3f [%.3f, %.3f]%s", r, lo, hi, c);
  else
    snprintf (buf, n, "%.3f%s", r, c);
}

void
ucb_cmp_ratio_cell (const json_t *o, bool contended, char *buf, size_t n)
{
  ucb_cmp_ratio_text (ucb_json_num (o, "ratio"), ucb_json_num (o, "ci_low"),
                      ucb_json_num (o, "ci_high"), contended, buf, n);
}

/* ---- the repeats of a side ------------------------------------------------------------------ */

void
ucb_cmp_gather_init (struct ucb_cmp_gathered *g, size_t cap, bool all)
{
  *g = (struct ucb_cmp_gathered){ .all = all };
  g->ops = xcalloc (cap, sizeof *g->ops);
  g->cpu = xcalloc (cap, sizeof *g->cpu);
  g->ops_doc = xcalloc (cap, sizeof *g->ops_doc);
  g->cpu_doc = xcalloc (cap, sizeof *g->cpu_doc);
  g->raw_ops = xcalloc (cap, sizeof *g->raw_ops);
  g->raw_cpu = xcalloc (cap, sizeof *g->raw_cpu);
}

/* A side's repeats of one document's group: contended ones left out (unless g->all), counted. */
void
ucb_cmp_gather_doc (const struct ucb_doc *d, const struct ucb_doc_group *grp, bool canary,
                    struct ucb_cmp_gathered *g)
{
  double so = 0, sc = 0, sl = 0;
  size_t no = 0, nc = 0;

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      double v = p->sum.per_container_ops, c = p->sum.cpu_ns_per_op;

      if (!p->measured || &d->groups[p->group] != grp)
        continue;
      ucb_flags_add (&g->flags, p);
      if (ucb_point_cpu_doubtful (p) && !g->all)
        {
          g->left_out++;
          continue;
        }
      g->used++;
      /* --normalize canary: ops/s per canary loop/s, CPU ns/op times it (loops per op); the
       * raw values stay for the medians.  compare's open_side() made sure of the rates. */
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

void
ucb_cmp_gathered_free (struct ucb_cmp_gathered *g)
{
  free (g->ops);
  free (g->cpu);
  free (g->ops_doc);
  free (g->cpu_doc);
  free (g->raw_ops);
  free (g->raw_cpu);
}
