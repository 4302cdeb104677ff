/* SPDX-License-Identifier: GPL-2.0-or-later */
/* export-contrast.c - the owner contrast (report/contrast.c) where a dashboard can follow it:
 * an entry per pair in github-action-benchmark's bigger-is-better list and in Bencher's BMF,
 * the ratio shared/distinct as the value (1: no penalty; falling: a growing penalty). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "core/json-util.h"
#include "core/util.h"
#include "report/contrast.h"
#include "report/export.h"

/* As export.c's point names, the owner mode's place saying what is divided by what. */
static char *
pair_name (const json_t *x)
{
  return xasprintf ("%s/shared-vs-distinct/depth:%lld/tasks:%lld/%s/containers:%lld",
                    json_string_value (json_object_get (x, "workload")),
                    json_integer_value (json_object_get (x, "depth")),
                    json_integer_value (json_object_get (x, "tasks")),
                    json_string_value (json_object_get (x, "mode")),
                    json_integer_value (json_object_get (x, "containers")));
}

void
ucb_export_contrast_gab (const struct ucb_doc *d, json_t *arr)
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
    name = pair_name (x);
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

void
ucb_export_contrast_bmf (const struct ucb_doc *d, json_t *out)
{
  cleanup_json json_t *pairs = ucb_contrast_json (d);
  char flags[4 * UCB_POINT_FLAGS_MAX];
  size_t i;
  json_t *x;

  json_array_foreach (pairs, i, x)
  {
    cleanup_free char *name = NULL;
    json_t *m, *b;

    if (!isfinite (ucb_json_num (x, "ratio")))
      continue;
    name = pair_name (x);
    ucb_contrast_flags (x, ",", flags, sizeof flags);
    /* as a flagged point's (the table of meanings): the same benchmark, its alerts off */
    if (*flags || json_is_true (json_object_get (x, "ratio_from_contended")))
      {
        char *ignored = xasprintf ("%s%s", name, ucb_point_rows[1].bmf);
        free (name);
        name = ignored;
      }
    m = ucb_json_obj ();
    ucb_json_set (m, "value", ucb_json_real (ucb_json_num (x, "ratio")));
    if (isfinite (ucb_json_num (x, "ci_low")) && isfinite (ucb_json_num (x, "ci_high")))
      {
        ucb_json_set (m, "lower_value", ucb_json_real (ucb_json_num (x, "ci_low")));
        ucb_json_set (m, "upper_value", ucb_json_real (ucb_json_num (x, "ci_high")));
      }
    b = ucb_json_obj ();
    ucb_json_set (b, "owner_ratio", m);
    ucb_json_set (out, name, b);
  }
}
