/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usl.c - compare's scalability section: per series both sides have, the USL fit of
 * each side (all its documents' repeats together), the change of sigma and kappa and of the
 * scale at the largest N both fits cover.  A change is "established" when the two 95 %
 * intervals do not overlap (docs/statistics.md). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/compare/parts.h"
#include "report/usl-doc.h"

static json_t *
side_json (const struct ucb_usl_series *s)
{
  json_t *o = ucb_json_obj (), *n = ucb_json_arr ();
  bool ok = s->status == UCB_USL_OK;

  for (size_t j = 0; j < s->n_levels; j++)
    ucb_json_push (n, ucb_json_int (s->levels[j].containers));
  ucb_json_set (o, "status", ucb_json_str (ok ? "fitted" : "refused"));
  ucb_json_set (o, "reason", ucb_json_str (s->reason));
  ucb_json_set (o, "containers", n);
  ucb_json_set (o, "lambda", ok ? ucb_usl_interval_json (&s->fit.lambda) : NULL);
  ucb_json_set (o, "sigma", ok ? ucb_usl_interval_json (&s->fit.sigma) : NULL);
  ucb_json_set (o, "kappa", ok ? ucb_usl_interval_json (&s->fit.kappa) : NULL);
  ucb_json_set (o, "residual_pct", ok ? ucb_json_real (100 * expm1 (s->fit.s)) : NULL);
  return o;
}

/* Whether the change of an estimate from base to head is established: the two intervals do
 * not overlap; the direction of its estimate. */
static bool
established (const struct ucb_usl_interval *b, const struct ucb_usl_interval *h)
{
  return h->hi < b->lo || h->lo > b->hi;
}

static const char *
direction (const struct ucb_usl_interval *b, const struct ucb_usl_interval *h)
{
  return h->est < b->est ? "fell" : h->est > b->est ? "rose" : "unchanged";
}

/* {change, direction, established} of an estimate from base to head. */
static json_t *
change_json (const struct ucb_usl_interval *b, const struct ucb_usl_interval *h)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "change", ucb_json_real (h->est - b->est));
  ucb_json_set (o, "direction", ucb_json_str (direction (b, h)));
  ucb_json_set (o, "established", json_boolean (established (b, h)));
  return o;
}

/* The scale X(N) / lambda of both sides at the largest N both fits cover. */
static json_t *
scale_json (const struct ucb_cmp_series *c)
{
  json_t *o;

  if (c->scale_n == 0)
    return NULL;
  o = change_json (&c->pb.scale, &c->ph.scale);
  ucb_json_set (o, "containers", ucb_json_int (c->scale_n));
  ucb_json_set (o, "base", ucb_usl_interval_json (&c->pb.scale));
  ucb_json_set (o, "head", ucb_usl_interval_json (&c->ph.scale));
  return o;
}

void
ucb_compare_usl (const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
                 size_t n_head, struct ucb_cmp_usl *u)
{
  ucb_usl_model_of (base, n_base, &u->mb);
  ucb_usl_model_of (head, n_head, &u->mh);
  u->s = xcalloc (u->mh.n + 1, sizeof *u->s);
  u->n = 0;
  for (size_t i = 0; i < u->mh.n; i++)
    {
      const struct ucb_usl_series *h = &u->mh.s[i], *b = ucb_usl_model_find (&u->mb, h->id);
      struct ucb_cmp_series *c = &u->s[u->n];

      if (b == NULL)
        continue;
      u->n++;
      *c = (struct ucb_cmp_series){ b, h, b->status == UCB_USL_OK && h->status == UCB_USL_OK };
      if (!c->both)
        continue;
      long long nb = b->levels[b->n_levels - 1].containers;
      long long nh = h->levels[h->n_levels - 1].containers;
      long long n = nb < nh ? nb : nh;
      if (n <= 1)
        continue;
      c->scale_n = n;
      ucb_usl_predict (&b->fit, (double) n, &c->pb);
      ucb_usl_predict (&h->fit, (double) n, &c->ph);
    }
}

void
ucb_compare_usl_free (struct ucb_cmp_usl *u)
{
  ucb_usl_model_free (&u->mb);
  ucb_usl_model_free (&u->mh);
  free (u->s);
}

json_t *
ucb_compare_usl_json (const struct ucb_cmp_usl *u)
{
  json_t *arr = ucb_json_arr ();

  for (size_t i = 0; i < u->n; i++)
    {
      const struct ucb_cmp_series *c = &u->s[i];
      const struct ucb_usl_series *b = c->b, *h = c->h;
      json_t *o = ucb_json_obj ();

      ucb_json_set (o, "workload", ucb_json_str (h->id->workload));
      ucb_json_set (o, "owner", ucb_json_str (h->id->owner));
      ucb_json_set (o, "depth", ucb_json_int (h->id->depth));
      ucb_json_set (o, "tasks", ucb_json_int (h->id->tasks));
      ucb_json_set (o, "mode", ucb_json_str (h->id->mode));
      ucb_json_set (o, "base", side_json (b));
      ucb_json_set (o, "head", side_json (h));
      ucb_json_set (o, "sigma", c->both ? change_json (&b->fit.sigma, &h->fit.sigma) : NULL);
      ucb_json_set (o, "kappa", c->both ? change_json (&b->fit.kappa, &h->fit.kappa) : NULL);
      ucb_json_set (o, "scale", c->both ? scale_json (c) : NULL);
      ucb_json_push (arr, o);
    }
  return arr;
}

/* ---- text ----------------------------------------------------------------------------------- */

/* "0.027 [0, 0.0528]"; an end the data leave open is "unbounded". */
static void
iv_text (const struct ucb_usl_interval *iv, char *buf, size_t n)
{
  char e[3][32];
  const double v[] = { iv->est, iv->lo, iv->hi };

  for (size_t i = 0; i < 3; i++)
    if (isfinite (v[i]))
      snprintf (e[i], sizeof e[i], "%.3g", v[i]);
    else
      snprintf (e[i], sizeof e[i], "unbounded");
  snprintf (buf, n, "%s [%s, %s]", e[0], e[1], e[2]);
}

static void
print_change (const char *what, const struct ucb_usl_interval *b, const struct ucb_usl_interval *h)
{
  char tb[112], th[112];
  bool est = established (b, h);

  iv_text (b, tb, sizeof tb);
  iv_text (h, th, sizeof th);
  /* The direction of two estimates whose intervals overlap is not a finding: not said. */
  printf ("#   %s %s -> %s: %s%s\n", what, tb, th, est ? direction (b, h) : "no change established",
          est ? ", established (the intervals do not overlap)" : " (the intervals overlap)");
}

/* The one line of what the series' intervals establish: only the changes whose intervals do
 * not overlap; a loss that fell (the scale rose) with neither cost's fall established is said
 * as such, not as "sigma and kappa fell" (docs/statistics.md). */
static void
print_established (const struct ucb_cmp_series *c)
{
  const struct ucb_usl_fit *fb = &c->b->fit, *fh = &c->h->fit;
  bool s_ok = established (&fb->sigma, &fh->sigma), k_ok = established (&fb->kappa, &fh->kappa);
  bool c_ok = c->scale_n && established (&c->pb.scale, &c->ph.scale);
  bool rose = c_ok && strcmp (direction (&c->pb.scale, &c->ph.scale), "rose") == 0;

  printf ("#   established:");
  if (!s_ok && !k_ok && !c_ok)
    printf (" no change (each pair of intervals overlaps)");
  if (c_ok)
    printf (" the loss with N %s (the scale at N=%lld %s)%s", rose ? "fell" : "rose", c->scale_n,
            rose ? "rose" : "fell",
            s_ok || k_ok ? ";" : "; not which cost (sigma's and kappa's intervals overlap)");
  if (s_ok)
    printf (" sigma %s%s", direction (&fb->sigma, &fh->sigma), k_ok ? ";" : "");
  if (k_ok)
    printf (" kappa %s", direction (&fb->kappa, &fh->kappa));
  putchar ('\n');
}

void
ucb_compare_usl_print (const struct ucb_cmp_usl *u)
{
  bool head = false;

  for (size_t i = 0; i < u->n; i++)
    {
      const struct ucb_cmp_series *c = &u->s[i];
      const struct ucb_doc_point *id = c->h->id;
      char what[48];

      if (!c->both)
        continue;
      if (!head)
        printf ("# scalability: the USL per series, base -> head, 95%% profile intervals; a "
                "change is established when they do not overlap (docs/statistics.md)\n");
      head = true;
      cleanup_free char *w = ucb_escape_controls (id->workload);
      cleanup_free char *o = ucb_escape_controls (id->owner);
      cleanup_free char *m = ucb_escape_controls (id->mode);
      printf ("# %s %s depth %lld, %lld task(s), %s:\n", w, o, id->depth, id->tasks, m);
      print_change ("sigma (contention)", &c->b->fit.sigma, &c->h->fit.sigma);
      print_change ("kappa (coherency)", &c->b->fit.kappa, &c->h->fit.kappa);
      if (c->scale_n)
        {
          snprintf (what, sizeof what, "scale at N=%lld", c->scale_n);
          print_change (what, &c->pb.scale, &c->ph.scale);
        }
      print_established (c);
    }
}
