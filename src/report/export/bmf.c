/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bmf.c - `--to bmf`: Bencher Metric Format, throughput and cpu_ns_per_op per point, then the
 * owner contrast as owner_ratio. */
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

/* The owner contrast: a measure owner_ratio per pair with a ratio. */
static void
contrast_bmf (const struct ucb_doc *d, json_t *out)
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
    name = ucb_export_pair_name (x);
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

/* value: the median over repeats; lower/upper: the smallest and largest repeat, or with one
 * repeat, the smallest and largest container. */
static json_t *
bmf_measure (const struct ucb_doc *d, const struct ucb_doc_point *p, bool cpu)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  json_t *m = ucb_json_obj ();
  struct ucb_stats st;

  ucb_json_set (m, "value",
                ucb_json_real (cpu ? gr->median.cpu_ns_per_op : gr->median.per_container_ops));
  if (gr->n_measured > 1)
    ucb_export_repeat_stats (d, p->group, cpu ? UCB_FIG_CPU : UCB_FIG_PER_CONTAINER, &st);
  else
    ucb_export_container_stats (p, cpu, &st);
  if (st.n > 0)
    {
      ucb_json_set (m, "lower_value", ucb_json_real (st.min));
      ucb_json_set (m, "upper_value", ucb_json_real (st.max));
    }
  return m;
}

static json_t *
bmf_json (const struct ucb_doc *d, const struct ucb_flags *fl, const struct ucb_export_opts *o)
{
  json_t *out = ucb_json_obj ();
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  (void) o;
  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      cleanup_free char *name = NULL;
      json_t *b;

      if (!ucb_export_first_of_group (d, seen, i))
        continue;
      name = ucb_export_point_name (p);
      /* Bencher strips the suffix (the same benchmark, its history kept) and raises no alert
       * on the value (bencher_json BenchmarkName to_strip_ignore); a BMF measure holds numbers
       * only, so the name is the one place for it. */
      if (fl[p->group].n_flagged > 0)
        {
          char *ignored = xasprintf ("%s%s", name, ucb_point_rows[1].bmf);
          free (name);
          name = ignored;
        }
      b = ucb_json_obj ();
      /* Bencher's throughput measure is operations / second. */
      ucb_json_set (b, "throughput", bmf_measure (d, p, false));
      /* CPU time per op, not Bencher's latency (wall time per iteration): its own measure,
       * named as the JSON key. */
      if (isfinite (d->groups[p->group].median.cpu_ns_per_op))
        ucb_json_set (b, "cpu_ns_per_op", bmf_measure (d, p, true));
      ucb_json_set (out, name, b);
    }
  contrast_bmf (d, out);
  return out;
}

const struct ucb_exporter ucb_exporter_bmf = { .kinds = UCB_DOC_RUN, .json = bmf_json };
