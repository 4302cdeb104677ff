/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gab.c - `--to gab` and `--to gab-smaller`: github-action-benchmark's customBiggerIsBetter
 * (per-container ops/s, then the owner contrast) and customSmallerIsBetter (CPU ns/op). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/contrast.h"
#include "report/export/exporter.h"
#include "report/meanings.h"

static size_t
group_samples (const struct ucb_doc *d, size_t g)
{
  size_t n = 0;
  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].group == g && d->points[i].measured)
      for (size_t j = 0; j < d->points[i].n_pc; j++)
        n += d->points[i].pc[j].n_samples;
  return n;
}

/* The owner contrast: an entry per pair with a ratio, unit "shared/distinct" (1: no penalty;
 * falling: a growing penalty). */
static void
contrast_gab (const struct ucb_doc *d, json_t *arr)
{
  cleanup_json json_t *pairs = ucb_contrast_json (d);
  char flags[4 * UCB_POINT_FLAGS_MAX];
  size_t i;
  json_t *x;

  json_array_foreach (pairs, i, x)
  {
    const json_t *s = json_object_get (x, "shared"), *t = json_object_get (x, "distinct");
    cleanup_free char *name = NULL, *extra = NULL;
    json_t *o;

    if (!isfinite (ucb_json_num (x, "ratio")))
      continue;
    name = ucb_export_pair_name (x);
    ucb_contrast_flags (x, ",", flags, sizeof flags);
    extra = xasprintf ("verdict: %s\nrepeats: %lld shared, %lld distinct\n"
                       "median ops/s: shared %.1f, distinct %.1f%s%s%s%s",
                       json_string_value (json_object_get (x, "verdict")),
                       json_integer_value (json_object_get (x, "n_shared")),
                       json_integer_value (json_object_get (x, "n_distinct")),
                       ucb_json_num (s, "median_ops_per_s"), ucb_json_num (t, "median_ops_per_s"),
                       json_is_true (json_object_get (x, "ratio_from_contended"))
                           ? "\nratio of every repeat, contended ones too: decides nothing"
                           : "",
                       *flags ? "\n" : "", *flags ? ucb_point_rows[1].gab : "", flags);
    o = ucb_json_obj ();
    ucb_json_set (o, "name", ucb_json_str (name));
    ucb_json_set (o, "unit", ucb_json_str ("shared/distinct"));
    ucb_json_set (o, "value", ucb_json_real (ucb_json_num (x, "ratio")));
    if (isfinite (ucb_json_num (x, "ci_low")) && isfinite (ucb_json_num (x, "ci_high")))
      ucb_json_set (o, "range",
                    ucb_json_fmt ("95%% CI %.4f .. %.4f", ucb_json_num (x, "ci_low"),
                                  ucb_json_num (x, "ci_high")));
    ucb_json_set (o, "extra", ucb_json_str (extra));
    ucb_json_push (arr, o);
  }
}

/* range: with repeats, half their spread (max - min); else the stddev across containers (of
 * the interval samples for 1 container; none for CPU ns/op of 1 container). */
static double
gab_range (const struct ucb_doc *d, const struct ucb_doc_point *p, bool smaller, char **how)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  struct ucb_stats st;

  if (gr->n_measured > 1)
    {
      ucb_export_repeat_stats (d, p->group, smaller ? UCB_FIG_CPU : UCB_FIG_PER_CONTAINER, &st);
      *how = xasprintf ("half the spread of %zu repeats: %.1f .. %.1f", st.n, st.min, st.max);
      return st.n > 1 ? (st.max - st.min) / 2 : NAN;
    }
  ucb_export_container_stats (p, smaller, &st);
  if (isfinite (st.stddev) || smaller)
    {
      *how = xstrdup ("stddev across containers");
      return st.stddev;
    }
  *how = xstrdup ("stddev across samples");
  return p->pc[0].ops_per_s_stddev;
}

/* extra: what the dashboard shows beside the value (github-action-benchmark keeps it as is, a
 * tooltip line each); a flagged point says so on its last line. */
static json_t *
gab_entry (const struct ucb_doc *d, const struct ucb_doc_point *p, bool smaller,
           const struct ucb_flags *fl)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  cleanup_free char *name = ucb_export_point_name (p), *extra = NULL, *how = NULL, *ranged = NULL;
  json_t *o = ucb_json_obj ();
  double range = gab_range (d, p, smaller, &how);
  char buf[64], flags[UCB_FLAGS_TEXT_MAX];

  ucb_json_set (o, "name", ucb_json_str (name));
  ucb_json_set (o, "unit", ucb_json_str (smaller ? "ns/op" : "ops/s"));
  ucb_json_set (o, "value",
                ucb_json_real (smaller ? gr->median.cpu_ns_per_op : gr->median.per_container_ops));
  if (isfinite (range))
    {
      snprintf (buf, sizeof buf, "± %.1f", range);
      ucb_json_set (o, "range", ucb_json_str (buf));
    }
  extra = xasprintf ("total: %.1f ops/s\ncontainers: %lld x %lld tasks\nrepeats: %zu (median)\n"
                     "samples: %zu",
                     gr->median.total_ops_per_s, p->containers, p->tasks, gr->n_measured,
                     group_samples (d, p->group));
  ranged = isfinite (range) ? xasprintf ("%s\nrange: %s", extra, how) : xstrdup (extra);
  ucb_flags_text (fl, flags, sizeof flags);
  if (*flags)
    ucb_json_set (o, "extra", ucb_json_fmt ("%s\n%s%s", ranged, ucb_point_rows[1].gab, flags));
  else
    ucb_json_set (o, "extra", ucb_json_str (ranged));
  return o;
}

static json_t *
export_gab (const struct ucb_doc *d, bool smaller, const struct ucb_flags *fl)
{
  json_t *arr = ucb_json_arr ();
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    if (ucb_export_first_of_group (d, seen, i)
        && (!smaller || isfinite (d->groups[d->points[i].group].median.cpu_ns_per_op)))
      ucb_json_push (arr, gab_entry (d, &d->points[i], smaller, &fl[d->points[i].group]));
  if (!smaller)
    contrast_gab (d, arr);
  return arr;
}

static json_t *
gab_json (const struct ucb_doc *d, const struct ucb_flags *fl, const struct ucb_export_opts *o)
{
  (void) o;
  return export_gab (d, false, fl);
}

static json_t *
gab_smaller_json (const struct ucb_doc *d, const struct ucb_flags *fl,
                  const struct ucb_export_opts *o)
{
  (void) o;
  return export_gab (d, true, fl);
}

const struct ucb_exporter ucb_exporter_gab = { .kinds = UCB_DOC_RUN, .json = gab_json };
const struct ucb_exporter ucb_exporter_gab_smaller
    = { .kinds = UCB_DOC_RUN, .json = gab_smaller_json };
