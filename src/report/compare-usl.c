/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-usl.c - compare's scalability section: per series both sides have, the USL fit of
 * each side (all its documents' repeats together), the change of sigma and kappa and of the
 * scale at the largest N both fits cover.  A change is "established" when the two 95 %
 * intervals do not overlap (docs/statistics.md). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/compare-usl.h"
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

/* {change, direction, established} of an estimate from base to head. */
static json_t *
change_json (const struct ucb_usl_interval *b, const struct ucb_usl_interval *h)
{
  json_t *o = ucb_json_obj ();
  const char *dir = h->est < b->est ? "fell" : h->est > b->est ? "rose" : "unchanged";

  ucb_json_set (o, "change", ucb_json_real (h->est - b->est));
  ucb_json_set (o, "direction", ucb_json_str (dir));
  ucb_json_set (o, "established", json_boolean (h->hi < b->lo || h->lo > b->hi));
  return o;
}

/* The scale X(N) / lambda of both sides at the largest N both fits cover. */
static json_t *
scale_json (const struct ucb_usl_series *b, const struct ucb_usl_series *h)
{
  long long nb = b->levels[b->n_levels - 1].containers, nh = h->levels[h->n_levels - 1].containers;
  long long n = nb < nh ? nb : nh;
  struct ucb_usl_pred pb, ph;
  json_t *o;

  if (n <= 1)
    return NULL;
  ucb_usl_predict (&b->fit, (double) n, &pb);
  ucb_usl_predict (&h->fit, (double) n, &ph);
  o = change_json (&pb.scale, &ph.scale);
  ucb_json_set (o, "containers", ucb_json_int (n));
  ucb_json_set (o, "base", ucb_usl_interval_json (&pb.scale));
  ucb_json_set (o, "head", ucb_usl_interval_json (&ph.scale));
  return o;
}

json_t *
ucb_compare_usl (const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
                 size_t n_head)
{
  struct ucb_usl_model mb, mh;
  json_t *arr = ucb_json_arr ();

  ucb_usl_model_of (base, n_base, &mb);
  ucb_usl_model_of (head, n_head, &mh);
  for (size_t i = 0; i < mh.n; i++)
    {
      const struct ucb_usl_series *h = &mh.s[i], *b = ucb_usl_model_find (&mb, h->id);
      bool both = b && b->status == UCB_USL_OK && h->status == UCB_USL_OK;
      json_t *o;

      if (b == NULL)
        continue;
      o = ucb_json_obj ();
      ucb_json_set (o, "workload", ucb_json_str (h->id->workload));
      ucb_json_set (o, "owner", ucb_json_str (h->id->owner));
      ucb_json_set (o, "depth", ucb_json_int (h->id->depth));
      ucb_json_set (o, "tasks", ucb_json_int (h->id->tasks));
      ucb_json_set (o, "mode", ucb_json_str (h->id->mode));
      ucb_json_set (o, "base", side_json (b));
      ucb_json_set (o, "head", side_json (h));
      ucb_json_set (o, "sigma", both ? change_json (&b->fit.sigma, &h->fit.sigma) : NULL);
      ucb_json_set (o, "kappa", both ? change_json (&b->fit.kappa, &h->fit.kappa) : NULL);
      ucb_json_set (o, "scale", both ? scale_json (b, h) : NULL);
      ucb_json_push (arr, o);
    }
  ucb_usl_model_free (&mb);
  ucb_usl_model_free (&mh);
  return arr;
}

/* ---- text ----------------------------------------------------------------------------------- */

/* "0.027 [0, 0.0528]"; an end the data leave open is "unbounded". */
static void
iv_text (json_t *iv, char *buf, size_t n)
{
  char e[3][32];
  const char *k[] = { "estimate", "ci_low", "ci_high" };

  for (size_t i = 0; i < 3; i++)
    if (isfinite (ucb_json_num (iv, k[i])))
      snprintf (e[i], sizeof e[i], "%.3g", ucb_json_num (iv, k[i]));
    else
      snprintf (e[i], sizeof e[i], "unbounded");
  snprintf (buf, n, "%s [%s, %s]", e[0], e[1], e[2]);
}

static void
print_change (const char *what, json_t *b, json_t *h, json_t *c)
{
  char tb[112], th[112];
  bool est = json_is_true (json_object_get (c, "established"));

  iv_text (b, tb, sizeof tb);
  iv_text (h, th, sizeof th);
  /* The direction of two estimates whose intervals overlap is not a finding: not said. */
  printf ("#   %s %s -> %s: %s%s\n", what, tb, th,
          est ? json_string_value (json_object_get (c, "direction")) : "no change established",
          est ? ", established (the intervals do not overlap)" : " (the intervals overlap)");
}

/* The one line of what the series' intervals establish: only the changes whose intervals do
 * not overlap; a loss that fell (the scale rose) with neither cost's fall established is said
 * as such, not as "sigma and kappa fell" (docs/statistics.md). */
static void
print_established (json_t *x)
{
  json_t *sg = json_object_get (x, "sigma"), *kp = json_object_get (x, "kappa");
  json_t *sc = json_object_get (x, "scale");
  bool s_ok = json_is_true (json_object_get (sg, "established"));
  bool k_ok = json_is_true (json_object_get (kp, "established"));
  bool c_ok = json_is_object (sc) && json_is_true (json_object_get (sc, "established"));
  bool rose = c_ok && strcmp (json_string_value (json_object_get (sc, "direction")), "rose") == 0;

  printf ("#   established:");
  if (!s_ok && !k_ok && !c_ok)
    printf (" no change (each pair of intervals overlaps)");
  if (c_ok)
    printf (" the loss with N %s (the scale at N=%lld %s)%s", rose ? "fell" : "rose",
            json_integer_value (json_object_get (sc, "containers")), rose ? "rose" : "fell",
            s_ok || k_ok ? ";" : "; not which cost (sigma's and kappa's intervals overlap)");
  if (s_ok)
    printf (" sigma %s%s", json_string_value (json_object_get (sg, "direction")), k_ok ? ";" : "");
  if (k_ok)
    printf (" kappa %s", json_string_value (json_object_get (kp, "direction")));
  putchar ('\n');
}

void
ucb_compare_usl_print (json_t *scalability)
{
  bool head = false;
  size_t i;
  json_t *x;

  json_array_foreach (scalability, i, x)
  {
    json_t *b = json_object_get (x, "base"), *h = json_object_get (x, "head");
    json_t *sc = json_object_get (x, "scale");
    char what[48];
    cleanup_free char *w = NULL, *o = NULL, *m = NULL;

    if (json_is_null (json_object_get (x, "sigma")) || json_object_get (x, "sigma") == NULL)
      continue;
    if (!head)
      printf ("# scalability: the USL per series, base -> head, 95%% profile intervals; a change "
              "is established when they do not overlap (docs/statistics.md)\n");
    head = true;
    w = ucb_escape_controls (json_string_value (json_object_get (x, "workload")));
    o = ucb_escape_controls (json_string_value (json_object_get (x, "owner")));
    m = ucb_escape_controls (json_string_value (json_object_get (x, "mode")));
    printf ("# %s %s depth %lld, %lld task(s), %s:\n", w, o,
            json_integer_value (json_object_get (x, "depth")),
            json_integer_value (json_object_get (x, "tasks")), m);
    print_change ("sigma (contention)", json_object_get (b, "sigma"), json_object_get (h, "sigma"),
                  json_object_get (x, "sigma"));
    print_change ("kappa (coherency)", json_object_get (b, "kappa"), json_object_get (h, "kappa"),
                  json_object_get (x, "kappa"));
    if (json_is_object (sc))
      {
        snprintf (what, sizeof what, "scale at N=%lld",
                  json_integer_value (json_object_get (sc, "containers")));
        print_change (what, json_object_get (sc, "base"), json_object_get (sc, "head"), sc);
      }
    print_established (x);
  }
}
