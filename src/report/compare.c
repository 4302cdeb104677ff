/* compare.c - `ucbench compare BASE.json HEAD.json`: per sweep point, base vs head
 * per-container ops/s, %change and a verdict that needs both the threshold and a significant
 * Mann-Whitney U test on the samples; verify verdicts that changed.  Both documents are read
 * through the model (report/model.h): points match by its identity, repeats are its groups. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/compare.h"
#include "report/docload.h"
#include "report/model.h"

/* One side of a point: the per-interval per-container rates of its repeats, pooled. */
struct side
{
  const double *v;
  size_t n;
  struct ucb_stats st;
};

static void
side_of (const struct ucb_doc_group *g, struct side *s)
{
  s->v = g ? g->rates : NULL;
  s->n = g && g->n_measured ? g->n_rates : 0;
  ucb_stats_compute (s->v, s->n, &s->st);
}

/* The key of a point in only_in[]: workload|containers|owner|depth|tasks|mode. */
static char *
point_key (const struct ucb_doc_point *p)
{
  return xasprintf ("%s|%lld|%s|%lld|%lld|%s", p->workload, p->containers, p->owner, p->depth,
                    p->tasks, p->mode);
}

/* Host or config differences, as warnings. */
static json_t *
differences (json_t *base, json_t *head)
{
  static const char *const paths[][3] = {
    { "host", "kernel", "release" },  { "host", "cpu_model", NULL },
    { "host", "cpus_online", NULL },  { "host", "virtualization", NULL },
    { "config", "duration_s", NULL }, { "config", "interval_s", NULL },
    { "config", "warmup_s", NULL },   { "config", "isolate", NULL },
    { "config", "headroom", NULL },   { "config", "limits", NULL },
    { "config", "pin", NULL },
  };
  json_t *w = ucb_json_arr ();

  for (size_t i = 0; i < UCB_ARRAY_SIZE (paths); i++)
    {
      json_t *a = json_object_get (json_object_get (base, paths[i][0]), paths[i][1]);
      json_t *b = json_object_get (json_object_get (head, paths[i][0]), paths[i][1]);
      if (paths[i][2])
        {
          a = json_object_get (a, paths[i][2]);
          b = json_object_get (b, paths[i][2]);
        }
      if ((a || b) && !json_equal (a, b))
        {
          char *sa = a ? json_dumps (a, JSON_ENCODE_ANY | JSON_COMPACT) : xstrdup ("(none)");
          char *sb = b ? json_dumps (b, JSON_ENCODE_ANY | JSON_COMPACT) : xstrdup ("(none)");
          ucb_json_push (w, ucb_json_checked (json_sprintf (
                                "%s.%s%s%s differs: %s vs %s", paths[i][0], paths[i][1],
                                paths[i][2] ? "." : "", paths[i][2] ? paths[i][2] : "", sa, sb)));
          free (sa);
          free (sb);
        }
    }
  return w;
}

static const char *
verdict_of (const struct side *b, const struct side *h, double change, double p, double thr)
{
  if (b->n < UCB_COMPARE_MIN_SAMPLES || h->n < UCB_COMPARE_MIN_SAMPLES)
    return "too few samples";
  if (!(fabs (change) > thr) || !(p < UCB_COMPARE_ALPHA))
    return "no change";
  return change < 0 ? "regression" : "improvement";
}

static json_t *
side_json (const struct side *s)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "mean_ops_per_s", ucb_json_real (s->st.mean));
  ucb_json_set (o, "stddev_pct", ucb_json_real (100 * s->st.cv));
  ucb_json_set (o, "samples", ucb_json_int ((long long) s->n));
  return o;
}

/* The first measured repeat of each point, in document order. */
static bool
first_measured (const struct ucb_doc *d, size_t i, bool *seen)
{
  const struct ucb_doc_point *p = &d->points[i];
  if (!p->measured || seen[p->group])
    return false;
  seen[p->group] = true;
  return true;
}

/* One points[] entry for head point `r`, measured in both; NULL when base lacks it. */
static json_t *
compare_point (const struct ucb_doc *base, const struct ucb_doc *head,
               const struct ucb_doc_point *r, double thr, size_t *regressions)
{
  struct side b, h;
  double change, p;
  const char *verdict;
  json_t *o;

  side_of (ucb_doc_find_group (base, r), &b);
  if (b.n == 0)
    return NULL; /* only in head: listed in only_in[] */
  side_of (&head->groups[r->group], &h);
  change = 100.0 * (h.st.mean - b.st.mean) / b.st.mean;
  p = ucb_mann_whitney_p (b.v, b.n, h.v, h.n);
  verdict = verdict_of (&b, &h, change, p, thr);
  *regressions += strcmp (verdict, "regression") == 0;
  o = ucb_json_obj ();
  ucb_json_set (o, "workload", ucb_json_str (r->workload));
  ucb_json_set (o, "containers", ucb_json_int (r->containers));
  ucb_json_set (o, "owner", ucb_json_str (r->owner));
  ucb_json_set (o, "depth", ucb_json_int (r->depth));
  ucb_json_set (o, "tasks", ucb_json_int (r->tasks));
  ucb_json_set (o, "mode", ucb_json_str (r->mode));
  ucb_json_set (o, "base", side_json (&b));
  ucb_json_set (o, "head", side_json (&h));
  ucb_json_set (o, "change_pct", ucb_json_real (change));
  ucb_json_set (o, "p_value", ucb_json_real (p));
  ucb_json_set (o, "verdict", ucb_json_str (verdict));
  return o;
}

static json_t *
compare_points (const struct ucb_doc *base, const struct ucb_doc *head, double thr,
                size_t *regressions)
{
  json_t *points = ucb_json_arr ();
  cleanup_free bool *seen = xcalloc (head->n_groups + 1, sizeof *seen);

  *regressions = 0;
  for (size_t i = 0; i < head->n_points; i++)
    if (first_measured (head, i, seen))
      {
        json_t *o = compare_point (base, head, &head->points[i], thr, regressions);
        if (o)
          ucb_json_push (points, o);
      }
  return points;
}

/* Points measured in `a` but not in `b`, as {"file", "point"} entries of `into`. */
static void
only_in (const struct ucb_doc *a, const struct ucb_doc *b, json_t *into)
{
  cleanup_free bool *seen = xcalloc (a->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < a->n_points; i++)
    {
      const struct ucb_doc_group *g;
      if (!first_measured (a, i, seen))
        continue;
      g = ucb_doc_find_group (b, &a->points[i]);
      if (g == NULL || g->n_measured == 0)
        {
          cleanup_free char *key = point_key (&a->points[i]);
          json_t *o = ucb_json_obj ();
          ucb_json_set (o, "file", ucb_json_str (a->name));
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

/* Verify cases whose worst status differs, in head order. */
static json_t *
compare_verify (const struct ucb_doc *base, const struct ucb_doc *head, size_t *newly_failing)
{
  json_t *arr = ucb_json_arr ();

  *newly_failing = 0;
  for (size_t i = 0; i < head->n_cases; i++)
    {
      const struct ucb_doc_case *c = &head->cases[i], *bc;
      const char *sb, *sh = c->worst;
      json_t *o;

      if (!c->first)
        continue;
      bc = ucb_doc_find_case (base, c->id);
      sb = bc ? bc->worst : NULL;
      if (sb && sh && strcmp (sb, sh) == 0)
        continue;
      o = ucb_json_obj ();
      ucb_json_set (o, "id", ucb_json_str (c->id));
      ucb_json_set (o, "base", ucb_json_str (sb));
      ucb_json_set (o, "head", ucb_json_str (sh));
      ucb_json_set (o, "newly_failing", json_boolean (failing (sh) && !failing (sb)));
      *newly_failing += failing (sh) && !failing (sb);
      ucb_json_push (arr, o);
    }
  return arr;
}

static json_t *
compare_docs (const struct ucb_doc *base, const struct ucb_doc *head, double thr)
{
  json_t *out = ucb_json_obj (), *only = ucb_json_arr ();
  size_t regressions, newly;

  ucb_json_set (out, "schema", ucb_json_str ("ucbench-compare/1"));
  ucb_json_set (out, "base", ucb_json_str (base->name));
  ucb_json_set (out, "head", ucb_json_str (head->name));
  ucb_json_set (out, "test", ucb_json_str ("mann-whitney-u"));
  ucb_json_set (out, "alpha", ucb_json_real (UCB_COMPARE_ALPHA));
  ucb_json_set (out, "min_samples", ucb_json_int (UCB_COMPARE_MIN_SAMPLES));
  ucb_json_set (out, "threshold_pct", ucb_json_real (thr));
  ucb_json_set (out, "warnings", differences (base->json, head->json));
  ucb_json_set (out, "points", compare_points (base, head, thr, &regressions));
  only_in (base, head, only);
  only_in (head, base, only);
  ucb_json_set (out, "only_in", only);
  ucb_json_set (out, "verify", compare_verify (base, head, &newly));
  ucb_json_set (out, "regressions", ucb_json_int ((long long) regressions));
  ucb_json_set (out, "newly_failing", ucb_json_int ((long long) newly));
  return out;
}

static void
print_text (json_t *out, const struct ucb_doc *base, const struct ucb_doc *head)
{
  size_t i;
  json_t *x;

  printf ("# base: %s (kernel %s, %s)\n# head: %s (kernel %s, %s)\n", base->name,
          base->host.kernel_release ?: "?", base->host.cpu_model ?: "?", head->name,
          head->host.kernel_release ?: "?", head->host.cpu_model ?: "?");
  json_array_foreach (json_object_get (out, "warnings"), i, x)
      printf ("# warning: %s\n", json_string_value (x));
  printf ("# test: two-sided Mann-Whitney U on per-interval per-container ops/s, p < %.2f, "
          "threshold %.1f%%; ±%% shown above 2%%\n",
          UCB_COMPARE_ALPHA, json_number_value (json_object_get (out, "threshold_pct")));
  printf ("%-9s %-9s %5s %5s %-7s %5s %13s %6s %13s %6s %8s %7s  %s\n", "workload", "owner",
          "depth", "tasks", "mode", "N", "base ops/s", "±%", "head ops/s", "±%", "%change", "p",
          "verdict");
  json_array_foreach (json_object_get (out, "points"), i, x)
  {
    json_t *b = json_object_get (x, "base"), *h = json_object_get (x, "head");
    double bs = json_number_value (json_object_get (b, "stddev_pct"));
    double hs = json_number_value (json_object_get (h, "stddev_pct"));
    char bsd[16] = "", hsd[16] = "", pv[16] = "-";

    if (bs > 2)
      snprintf (bsd, sizeof bsd, "%.1f", bs);
    if (hs > 2)
      snprintf (hsd, sizeof hsd, "%.1f", hs);
    if (json_is_number (json_object_get (x, "p_value")))
      snprintf (pv, sizeof pv, "%.3f", json_number_value (json_object_get (x, "p_value")));
    printf ("%-9s %-9s %5lld %5lld %-7s %5lld %13.0f %6s %13.0f %6s %+7.1f%% %7s  %s\n",
            json_string_value (json_object_get (x, "workload")),
            json_string_value (json_object_get (x, "owner")),
            json_integer_value (json_object_get (x, "depth")),
            json_integer_value (json_object_get (x, "tasks")),
            json_string_value (json_object_get (x, "mode")),
            json_integer_value (json_object_get (x, "containers")),
            json_number_value (json_object_get (b, "mean_ops_per_s")), bsd,
            json_number_value (json_object_get (h, "mean_ops_per_s")), hsd,
            json_number_value (json_object_get (x, "change_pct")), pv,
            json_string_value (json_object_get (x, "verdict")));
  }
  json_array_foreach (json_object_get (out, "only_in"), i, x)
      printf ("# only in %s: %s\n", json_string_value (json_object_get (x, "file")),
              json_string_value (json_object_get (x, "point")));
  json_array_foreach (json_object_get (out, "verify"), i, x)
      printf ("# verify %s: %s -> %s%s\n", json_string_value (json_object_get (x, "id")),
              json_string_value (json_object_get (x, "base")) ?: "(absent)",
              json_string_value (json_object_get (x, "head")) ?: "(absent)",
              json_is_true (json_object_get (x, "newly_failing")) ? "  NEWLY FAILING" : "");
  printf ("# %lld regression(s), %lld newly failing verify case(s)\n",
          json_integer_value (json_object_get (out, "regressions")),
          json_integer_value (json_object_get (out, "newly_failing")));
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

int
ucb_compare (const char *base_path, const char *head_path, double thr, bool json, ucb_error_t *err)
{
  struct ucb_doc base, head;
  json_t *out;
  int ret = -1;

  if (ucb_doc_open (base_path, &base, err) < 0)
    return -1;
  if (ucb_doc_open (head_path, &head, err) < 0)
    {
      ucb_doc_free (&base);
      return -1;
    }
  if (refuse_emulated (&base, err) == 0 && refuse_emulated (&head, err) == 0)
    {
      out = compare_docs (&base, &head, thr);
      ret = 0;
      if (json)
        ret = ucb_json_write (out, stdout, err);
      else
        print_text (out, &base, &head);
      if (ret == 0
          && (json_integer_value (json_object_get (out, "regressions"))
              || json_integer_value (json_object_get (out, "newly_failing"))))
        ret = UCB_EXIT_FAILURE;
      json_decref (out);
    }
  ucb_doc_free (&base);
  ucb_doc_free (&head);
  return ret;
}
