/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usl.c - the Universal Scalability Law fitted by least squares on log ops/s (bounded
 * Levenberg-Marquardt), with profile likelihood intervals.  One minimiser serves the fit and
 * every profile: a profile fixes one quantity (log lambda, sigma, kappa, log X at some N, or
 * the scale's D at some N) and lets the others move, so a "problem" maps its free parameters p
 * to theta = (log lambda, sigma, kappa). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"
#include "report/usl.h"

/* What a problem fixes.  FIX_PRED: log X(Np) = w (theta0 = w + log D(Np)); FIX_SCALE: D(Np) - 1
 * = w >= 0 (sigma = t w / (Np - 1), kappa = (1 - t) w / (Np (Np - 1)), t in [0, 1]). */
enum mode
{
  FREE,
  FIX_LOGL,
  FIX_SIGMA,
  FIX_KAPPA,
  FIX_PRED,
  FIX_SCALE,
};

struct prob
{
  const double *u, *v, *y;
  size_t m, k; /* observations; free parameters */
  enum mode mode;
  double w, up, vp; /* the fixed value; N - 1 and N (N - 1) of the pivot N */
  double lo[3], hi[3];
};

static struct prob
make_prob (const struct ucb_usl_fit *f, enum mode mode, double w, double n_pivot)
{
  struct prob pb = { .u = f->u, .v = f->v, .y = f->y, .m = f->n_obs };
  /* Bounds: sigma, kappa >= 0 wherever they are free parameters; t in [0, 1]. */
  static const bool nonneg[][3] = {
    [FREE] = { false, true, true },       [FIX_LOGL] = { true, true, false },
    [FIX_SIGMA] = { false, true, false }, [FIX_KAPPA] = { false, true, false },
    [FIX_PRED] = { true, true, false },   [FIX_SCALE] = { false, true, false },
  };
  pb.k = mode == FREE ? 3 : 2;
  pb.mode = mode;
  pb.w = w;
  pb.up = n_pivot - 1;
  pb.vp = n_pivot * (n_pivot - 1);
  for (size_t j = 0; j < 3; j++)
    {
      pb.lo[j] = nonneg[mode][j] ? 0 : -INFINITY;
      pb.hi[j] = mode == FIX_SCALE && j == 1 ? 1 : INFINITY;
    }
  return pb;
}

/* theta of p, and d theta / d p (3 x k, row-major) when `dt` is not NULL. */
static void
map (const struct prob *pb, const double *p, double *th, double *dt)
{
  double d[9] = { 0 }, dp;

  switch (pb->mode)
    {
    case FREE:
    default:
      memcpy (th, p, 3 * sizeof *th);
      d[0] = d[4] = d[8] = 1;
      break;
    case FIX_LOGL:
      th[0] = pb->w, th[1] = p[0], th[2] = p[1];
      d[2] = d[5] = 1; /* rows theta1, theta2; columns p0, p1 */
      break;
    case FIX_SIGMA:
      th[0] = p[0], th[1] = pb->w, th[2] = p[1];
      d[0] = d[5] = 1;
      break;
    case FIX_KAPPA:
      th[0] = p[0], th[1] = p[1], th[2] = pb->w;
      d[0] = d[3] = 1;
      break;
    case FIX_PRED:
      dp = 1 + p[0] * pb->up + p[1] * pb->vp;
      th[0] = pb->w + log (dp), th[1] = p[0], th[2] = p[1];
      d[0] = pb->up / dp, d[1] = pb->vp / dp, d[2] = 1, d[5] = 1;
      break;
    case FIX_SCALE:
      th[0] = p[0], th[1] = p[1] * pb->w / pb->up, th[2] = (1 - p[1]) * pb->w / pb->vp;
      d[0] = 1, d[3] = pb->w / pb->up, d[5] = -pb->w / pb->vp;
      break;
    }
  if (dt)
    for (size_t r = 0; r < 3; r++)
      for (size_t c = 0; c < pb->k; c++)
        dt[r * pb->k + c] = d[r * (pb->mode == FREE ? 3 : 2) + c];
}

/* The free parameters that give (about) theta: the inverse of map, for starting values. */
static void
unmap (const struct prob *pb, const double *th, double *p)
{
  double s;

  switch (pb->mode)
    {
    case FREE:
    default:
      memcpy (p, th, 3 * sizeof *p);
      break;
    case FIX_LOGL:
    case FIX_PRED:
      p[0] = th[1], p[1] = th[2];
      break;
    case FIX_SIGMA:
      p[0] = th[0], p[1] = th[2];
      break;
    case FIX_KAPPA:
      p[0] = th[0], p[1] = th[1];
      break;
    case FIX_SCALE:
      s = th[1] * pb->up + th[2] * pb->vp;
      p[0] = th[0], p[1] = s > 0 ? th[1] * pb->up / s : 0.5;
      break;
    }
}

/* The residual sum of squares at p; the residuals and the Jacobian of the model (m x k) too
 * when `r` and `jac` are not NULL.  Infinite where D(N) <= 0 for an observation. */
static double
eval (const struct prob *pb, const double *p, double *r, double *jac)
{
  double th[3], dt[9], rss = 0;

  map (pb, p, th, jac ? dt : NULL);
  for (size_t i = 0; i < pb->m; i++)
    {
      double d = 1 + th[1] * pb->u[i] + th[2] * pb->v[i];
      double dm[3] = { 1, -pb->u[i] / d, -pb->v[i] / d }; /* d model / d theta */
      double e = pb->y[i] - (th[0] - log (d));

      if (!(d > 0) || !isfinite (e))
        return INFINITY;
      rss += e * e;
      if (r)
        r[i] = e;
      for (size_t c = 0; jac && c < pb->k; c++)
        jac[i * pb->k + c] = dm[0] * dt[c] + dm[1] * dt[pb->k + c] + dm[2] * dt[2 * pb->k + c];
    }
  return rss;
}

/* Solve a x = b (k x k, k <= 3) by Gaussian elimination with partial pivoting; -1 when
 * singular. */
static int
solve (double *a, double *b, size_t k)
{
  for (size_t c = 0; c < k; c++)
    {
      size_t piv = c;
      for (size_t r = c + 1; r < k; r++)
        if (fabs (a[r * k + c]) > fabs (a[piv * k + c]))
          piv = r;
      if (!(fabs (a[piv * k + c]) > 0))
        return -1;
      for (size_t j = 0; j < k; j++)
        {
          double t = a[c * k + j];
          a[c * k + j] = a[piv * k + j], a[piv * k + j] = t;
        }
      double t = b[c];
      b[c] = b[piv], b[piv] = t;
      for (size_t r = c + 1; r < k; r++)
        {
          double f = a[r * k + c] / a[c * k + c];
          for (size_t j = c; j < k; j++)
            a[r * k + j] -= f * a[c * k + j];
          b[r] -= f * b[c];
        }
    }
  for (size_t c = k; c-- > 0;)
    {
      for (size_t j = c + 1; j < k; j++)
        b[c] -= a[c * k + j] * b[j];
      b[c] /= a[c * k + c];
    }
  return 0;
}

/* One damped Gauss-Newton step from p over the free parameters not held at a bound: the
 * candidate in q.  -1 when no parameter can move. */
static int
lm_step (const struct prob *pb, const double *p, const double *r, const double *jac, double mu,
         double *q)
{
  double a[9] = { 0 }, g[3] = { 0 }, sa[9], sg[3];
  size_t idx[3], nf = 0;

  for (size_t i = 0; i < pb->m; i++)
    for (size_t c = 0; c < pb->k; c++)
      {
        g[c] += jac[i * pb->k + c] * r[i];
        for (size_t d = 0; d < pb->k; d++)
          a[c * pb->k + d] += jac[i * pb->k + c] * jac[i * pb->k + d];
      }
  /* A parameter at a bound that the descent direction (g) pushes outwards stays there. */
  for (size_t c = 0; c < pb->k; c++)
    if (!((p[c] <= pb->lo[c] && g[c] <= 0) || (p[c] >= pb->hi[c] && g[c] >= 0)))
      idx[nf++] = c;
  if (nf == 0)
    return -1;
  for (size_t x = 0; x < nf; x++)
    {
      sg[x] = g[idx[x]];
      for (size_t y = 0; y < nf; y++)
        sa[x * nf + y] = a[idx[x] * pb->k + idx[y]];
      sa[x * nf + x] += mu * (a[idx[x] * pb->k + idx[x]] + 1e-300);
    }
  if (solve (sa, sg, nf) < 0)
    return -1;
  memcpy (q, p, pb->k * sizeof *q);
  for (size_t x = 0; x < nf; x++)
    {
      double t = p[idx[x]] + sg[x];
      q[idx[x]] = t < pb->lo[idx[x]] ? pb->lo[idx[x]] : t > pb->hi[idx[x]] ? pb->hi[idx[x]] : t;
    }
  return 0;
}

/* Minimise the RSS over p (in place, from where it is); the minimum, infinite when no finite
 * start. */
static double
minimise (const struct prob *pb, double *p)
{
  cleanup_free double *r = xcalloc (pb->m + 1, sizeof *r);
  cleanup_free double *jac = xcalloc (3 * pb->m + 1, sizeof *jac);
  double mu = 1e-3, q[3], rss;

  for (size_t c = 0; c < pb->k; c++)
    p[c] = p[c] < pb->lo[c] ? pb->lo[c] : p[c] > pb->hi[c] ? pb->hi[c] : p[c];
  rss = eval (pb, p, r, jac);
  for (int it = 0; it < 500 && isfinite (rss) && mu < 1e10; it++)
    {
      double nr;
      if (lm_step (pb, p, r, jac, mu, q) < 0)
        break;
      nr = eval (pb, q, NULL, NULL);
      if (!(nr < rss))
        {
          mu *= 10;
          continue;
        }
      bool done = rss - nr <= 1e-15 * rss;
      memcpy (p, q, pb->k * sizeof *p);
      rss = eval (pb, p, r, jac);
      mu = mu > 1e-12 ? mu / 10 : mu;
      if (done)
        break;
    }
  return rss;
}

/* The smallest RSS with the quantity of `mode` at w (pivot n for FIX_PRED, FIX_SCALE), from
 * the best fit's theta. */
static double
profile_rss (const struct ucb_usl_fit *f, enum mode mode, double w, double n)
{
  struct prob pb = make_prob (f, mode, w, n);
  double p[3] = { 0 }; /* pb.k of them free */

  unmap (&pb, f->theta, p);
  return minimise (&pb, p);
}

/* Where the profile of `mode` crosses the critical RSS on the side `dir` (+1, -1) of the
 * estimate w0, within [dom_lo, dom_hi]; `step` a first step (the Wald SE).  An endpoint of the
 * domain that the data do not reject is the limit; infinite when none is found. */
static double
crossing (const struct ucb_usl_fit *f, enum mode mode, double n, double w0, double step, int dir,
          double dom_lo, double dom_hi)
{
  double crit = f->rss + f->tq * f->tq * f->ms, in = w0, out = NAN;
  double h = step > 0 && isfinite (step) ? step : fabs (w0) * 1e-3 + 1e-12;

  for (int i = 0; i < 80 && isnan (out); i++, h *= 2)
    {
      double w = w0 + dir * h;
      if (w <= dom_lo || w >= dom_hi)
        {
          double edge = dir > 0 ? dom_hi : dom_lo;
          if (!isfinite (edge) || profile_rss (f, mode, edge, n) <= crit)
            return edge;
          out = edge;
        }
      else if (profile_rss (f, mode, w, n) > crit)
        out = w;
      else
        in = w;
    }
  if (isnan (out))
    return dir * INFINITY;
  for (int i = 0; i < 100 && fabs (out - in) > 1e-9 * (fabs (in) + fabs (out)) + 1e-300; i++)
    {
      double mid = (in + out) / 2;
      if (profile_rss (f, mode, mid, n) > crit)
        out = mid;
      else
        in = mid;
    }
  return (in + out) / 2;
}

/* The 95 % profile interval of the quantity of `mode` (estimate w0, Wald SE se). */
static void
profile (const struct ucb_usl_fit *f, enum mode mode, double n, double w0, double se, double dom_lo,
         struct ucb_usl_interval *out)
{
  out->est = w0;
  out->lo = crossing (f, mode, n, w0, se, -1, dom_lo, INFINITY);
  out->hi = crossing (f, mode, n, w0, se, +1, dom_lo, INFINITY);
}

/* Starting values: the linear least squares of 1/X = a + b (N - 1) + c N (N - 1), each row
 * scaled by x (relative errors); lambda = 1/a, sigma = b/a, kappa = c/a, clipped to >= 0. */
static void
linear_start (const struct ucb_usl_fit *f, double *th)
{
  double a[9] = { 0 }, b[3] = { 0 };

  for (size_t i = 0; i < f->n_obs; i++)
    {
      double x = exp (f->y[i]), row[3] = { x, x * f->u[i], x * f->v[i] };
      for (size_t c = 0; c < 3; c++)
        {
          b[c] += row[c];
          for (size_t d = 0; d < 3; d++)
            a[c * 3 + d] += row[c] * row[d];
        }
    }
  if (solve (a, b, 3) < 0 || !(b[0] > 0))
    {
      th[1] = th[2] = 0;
      th[0] = f->y[0];
      return;
    }
  th[0] = -log (b[0]);
  th[1] = b[1] / b[0] > 0 ? b[1] / b[0] : 0;
  th[2] = b[2] / b[0] > 0 ? b[2] / b[0] : 0;
}

/* The best fit from two starts (the linear one, and no contention at all); 0, or -1 when
 * neither reached a finite minimum. */
static int
best_fit (struct ucb_usl_fit *f)
{
  struct prob pb = make_prob (f, FREE, 0, 1);
  double starts[2][3], best = INFINITY, mean = 0;

  for (size_t i = 0; i < f->n_obs; i++)
    mean += f->y[i] / (double) f->n_obs;
  linear_start (f, starts[0]);
  starts[1][0] = mean, starts[1][1] = starts[1][2] = 0;
  for (size_t s = 0; s < 2; s++)
    {
      double rss = minimise (&pb, starts[s]);
      if (rss < best)
        {
          best = rss;
          memcpy (f->theta, starts[s], sizeof f->theta);
        }
    }
  f->rss = best;
  return isfinite (best) ? 0 : -1;
}

/* cov = s^2 (J'J)^-1 at theta; -1 when J'J is singular (a parameter the data do not fix). */
static int
covariance (struct ucb_usl_fit *f)
{
  struct prob pb = make_prob (f, FREE, 0, 1);
  cleanup_free double *jac = xcalloc (3 * f->n_obs + 1, sizeof *jac);
  double a[9] = { 0 }, s2 = f->ms;

  eval (&pb, f->theta, NULL, jac);
  for (size_t i = 0; i < f->n_obs; i++)
    for (size_t c = 0; c < 3; c++)
      for (size_t d = 0; d < 3; d++)
        a[c * 3 + d] += jac[i * 3 + c] * jac[i * 3 + d];
  for (size_t c = 0; c < 3; c++)
    {
      double e[3] = { 0 }, m[9];
      e[c] = 1;
      memcpy (m, a, sizeof m);
      if (solve (m, e, 3) < 0)
        return -1;
      for (size_t d = 0; d < 3; d++)
        f->cov[d][c] = s2 * e[d];
    }
  return 0;
}

static enum ucb_usl_status
refuse (enum ucb_usl_status st, char *why, size_t len, const char *text)
{
  snprintf (why, len, "%s", text);
  return st;
}

/* The data: N >= 1 and x finite and > 0 each; the distinct N counted. */
static enum ucb_usl_status
take_data (const double *n, const double *x, size_t m, struct ucb_usl_fit *out, char *why,
           size_t len)
{
  out->u = xcalloc (m + 1, sizeof *out->u);
  out->v = xcalloc (m + 1, sizeof *out->v);
  out->y = xcalloc (m + 1, sizeof *out->y);
  out->n_obs = m;
  for (size_t i = 0; i < m; i++)
    {
      bool seen = false;
      if (!(n[i] >= 1) || !isfinite (n[i]) || !(x[i] > 0) || !isfinite (x[i]))
        return refuse (UCB_USL_BAD_VALUE, why, len,
                       "a container count below 1, or an ops/s that is not a positive number");
      for (size_t j = 0; j < i && !seen; j++)
        seen = n[j] == n[i];
      out->n_levels += !seen;
      out->u[i] = n[i] - 1;
      out->v[i] = n[i] * (n[i] - 1);
      out->y[i] = log (x[i]);
    }
  if (out->n_levels < 3)
    return refuse (UCB_USL_FEW_LEVELS, why, len,
                   "fewer than 3 distinct container counts: three parameters need three");
  if (m <= 3)
    return refuse (UCB_USL_NO_DF, why, len,
                   "3 observations for 3 parameters: the curve passes through each and leaves "
                   "nothing to measure the noise by (repeats or a fourth container count would)");
  return UCB_USL_OK;
}

/* F = ((RSS0 - RSS) / 2) / ms, RSS0 that of the best flat line (the mean log), on F(2, idf). */
static double
p_flat (const struct ucb_usl_fit *f)
{
  double mean = 0, rss0 = 0;

  for (size_t i = 0; i < f->n_obs; i++)
    mean += f->y[i] / (double) f->n_obs;
  for (size_t i = 0; i < f->n_obs; i++)
    rss0 += (f->y[i] - mean) * (f->y[i] - mean);
  if (!(f->ms > 0))
    return rss0 > 0 ? 0 : 1;
  return ucb_f_sf ((rss0 - f->rss) / 2 / f->ms, 2, f->idf);
}

/* The lack-of-fit test and the variance the intervals use.  Repeats at one N scatter by the
 * run-to-run noise alone (the pure error); the level means scatter about the curve by that
 * noise over their repeats plus any misfit of the shape.  When the misfit is rejected, the
 * repeats are not independent evidence about the shape, the N's means are: the intervals take
 * the lack-of-fit mean square with its df, which for equal repeats is the criterion of the
 * fit to the means (docs/statistics.md). */
static void
lack_of_fit (struct ucb_usl_fit *f)
{
  double pure = 0, lack, rounding = 0;

  for (size_t i = 0; i < f->n_obs; i++)
    {
      double sum = 0, k = 0;
      /* Repeats equal but for rounding (a log's last bits) do not scatter. */
      rounding += 1e-24 * f->y[i] * f->y[i];
      for (size_t j = 0; j < f->n_obs; j++)
        if (f->u[j] == f->u[i])
          sum += f->y[j], k++;
      pure += (f->y[i] - sum / k) * (f->y[i] - sum / k);
    }
  f->df_lack = (double) f->n_levels - 3;
  f->df_pure = (double) (f->n_obs - f->n_levels);
  f->ms = f->rss / f->df;
  f->idf = f->df;
  lack = f->rss > pure ? f->rss - pure : 0;
  f->lof_tested = f->df_lack >= 1 && f->df_pure >= 1 && pure > rounding;
  if (f->lof_tested)
    {
      f->lof_f = (lack / f->df_lack) / (pure / f->df_pure);
      f->lof_p = ucb_f_sf (f->lof_f, f->df_lack, f->df_pure);
      f->lof_rejected = f->lof_p < UCB_USL_ALPHA;
    }
  if (f->lof_rejected)
    {
      f->ms = lack / f->df_lack;
      f->idf = f->df_lack;
    }
  f->tq = ucb_t_quantile (0.975, f->idf);
}

enum ucb_usl_status
ucb_usl_fit (const double *n, const double *x, size_t m, struct ucb_usl_fit *out, char *why,
             size_t why_len)
{
  enum ucb_usl_status st;

  memset (out, 0, sizeof *out);
  snprintf (why, why_len, "%s", "");
  st = take_data (n, x, m, out, why, why_len);
  if (st != UCB_USL_OK)
    {
      ucb_usl_free (out);
      return st;
    }
  out->df = (double) m - 3;
  if (best_fit (out) == 0)
    lack_of_fit (out);
  if (!isfinite (out->rss) || covariance (out) < 0)
    {
      ucb_usl_free (out);
      return refuse (UCB_USL_DEGENERATE, why, why_len,
                     "the fit is degenerate: no finite least-squares solution, or its parameters "
                     "are not determined by these container counts");
    }
  out->s = sqrt (out->rss / out->df);
  out->p_flat = p_flat (out);
  out->sigma_at_0 = out->theta[1] <= 0;
  out->kappa_at_0 = out->theta[2] <= 0;
  profile (out, FIX_LOGL, 1, out->theta[0], sqrt (out->cov[0][0]), -INFINITY, &out->lambda);
  out->lambda = (struct ucb_usl_interval){ exp (out->lambda.est), exp (out->lambda.lo),
                                           exp (out->lambda.hi) };
  profile (out, FIX_SIGMA, 1, out->theta[1], sqrt (out->cov[1][1]), 0, &out->sigma);
  profile (out, FIX_KAPPA, 1, out->theta[2], sqrt (out->cov[2][2]), 0, &out->kappa);
  return UCB_USL_OK;
}

void
ucb_usl_free (struct ucb_usl_fit *f)
{
  free (f->u);
  free (f->v);
  free (f->y);
  f->u = f->v = f->y = NULL;
}

const char *
ucb_usl_loss (const struct ucb_usl_fit *f)
{
  bool sigma = f->sigma.lo > 0, kappa = f->kappa.lo > 0;

  if (sigma || kappa)
    return sigma && kappa ? "contention and coherency" : sigma ? "contention" : "coherency";
  return f->p_flat < UCB_USL_ALPHA ? "unidentified" : "not established";
}

double
ucb_usl_value (const struct ucb_usl_fit *f, double n)
{
  return exp (f->theta[0]) / (1 + f->theta[1] * (n - 1) + f->theta[2] * n * (n - 1));
}

/* The gradient of log X(n) in theta. */
static void
grad_log_x (const struct ucb_usl_fit *f, double n, double *g)
{
  double d = 1 + f->theta[1] * (n - 1) + f->theta[2] * n * (n - 1);
  g[0] = 1, g[1] = -(n - 1) / d, g[2] = -n * (n - 1) / d;
}

static double
quad (const struct ucb_usl_fit *f, const double *g)
{
  double v = 0;
  for (size_t a = 0; a < 3; a++)
    for (size_t b = 0; b < 3; b++)
      v += g[a] * f->cov[a][b] * g[b];
  return v;
}

/* The Wald standard error of log X(n) (delta method on cov), for comparison with the profile. */
static double
wald_se (const struct ucb_usl_fit *f, double n)
{
  double g[3];
  grad_log_x (f, n, g);
  return sqrt (quad (f, g));
}

void
ucb_usl_predict (const struct ucb_usl_fit *f, double n, struct ucb_usl_pred *out)
{
  struct ucb_usl_interval lx, s;
  double g[3] = { 0, n - 1, n * (n - 1) }, s0 = f->theta[1] * g[1] + f->theta[2] * g[2];

  out->n = n;
  profile (f, FIX_PRED, n, log (ucb_usl_value (f, n)), wald_se (f, n), -INFINITY, &lx);
  out->x = (struct ucb_usl_interval){ exp (lx.est), exp (lx.lo), exp (lx.hi) };
  if (n <= 1)
    {
      out->scale = (struct ucb_usl_interval){ 1, 1, 1 }; /* X(1) / lambda, by definition */
      return;
    }
  /* The scale is 1 / D(n): the profile of D(n) - 1 >= 0, turned over. */
  profile (f, FIX_SCALE, n, s0, sqrt (quad (f, g)), 0, &s);
  out->scale = (struct ucb_usl_interval){ 1 / (1 + s.est), 1 / (1 + s.hi), 1 / (1 + s.lo) };
}
