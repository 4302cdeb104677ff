/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lkp.c - `--to lkp`: what lkp-tests' programs/ucbench/parse prints, will-it-scale's key
 * names. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"
#include "report/export/exporter.h"
#include "report/meanings.h"

/* One part of an LKP key, a document's string: each character outside [A-Za-z0-9_-] (a UTF-8
 * sequence, or a byte that starts none) becomes _.  sbin/dump-stat fails the whole run (exit 1)
 * on a key with a space or tab, splits the line at its first ": ", skips a line that starts
 * with '#' and reads a line to its "\n"; and a '.' would add a level to the key that
 * etc/index-perf-all.yaml's patterns and lkp compare see.  Two names that differ only there
 * share a key. */
static char *
lkp_name (const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *) s, *end = p + len;
  char *out = xcalloc (len + 1, 1), *o = out;

  while (p < end && *p)
    {
      size_t n = ucb_utf8_len (p);
      bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
                  || *p == '_' || *p == '-';

      *o++ = keep ? (char) *p : '_';
      p += n && p + n <= end ? n : 1;
    }
  return out;
}

/* A flagged point: `PREFIX.flagged.FLAG: 1` per flag (the table of meanings' form).  No pattern
 * of lkp-tests' etc/failure or etc/pass matches it (lib/stats.rb function_stat?), so lkp
 * compare never counts it as a failure, and etc/index-perf-all.yaml gives it no direction: it
 * is data about the run, never a KPI. */
static void
lkp_flags (FILE *f, const char *prefix, const char *list)
{
  const char *flag;
  size_t n;

  while (ucb_flag_next (&list, &flag, &n))
    {
      cleanup_free char *name = lkp_name (flag, n);

      fprintf (f, "%s.%s.%s: 1\n", prefix, ucb_point_rows[1].flag_key, name);
    }
}

/* What lkp-tests' programs/ucbench/parse prints: `key: value` lines that sbin/dump-stat stores
 * as ucbench.KEY (so no "ucbench." here).  KEY is the point (only what differs from the
 * defaults: depth 1, 1 task, process mode) and the figure, named as will-it-scale's stats are:
 * per_process_ops / per_thread_ops per task, workload = the total ops/s, scalability; and
 * ucbench's own per_container_ops, its stddev over the interval samples, fairness and
 * cpu_ns_per_op.  Repeats: the median.  Then the point's flags (lkp_flags). */
static void
lkp_text (FILE *f, const struct ucb_doc *d, const struct ucb_flags *fl)
{
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      const struct ucb_doc_group *gr = &d->groups[p->group];
      const struct ucb_doc_summary *m = &gr->median;
      bool thread = strcmp (p->mode, "thread") == 0;
      cleanup_free char *prefix = NULL, *dpart = NULL, *tpart = NULL, *mpart = NULL;
      cleanup_free char *w = lkp_name (p->workload, strlen (p->workload));
      cleanup_free char *o = lkp_name (p->owner, strlen (p->owner));
      struct ucb_stats st;
      const char *names[] = { thread ? "per_thread_ops" : "per_process_ops",
                              "workload",
                              "scalability",
                              "per_container_ops",
                              "per_container_ops_stddev",
                              "fairness",
                              "cpu_ns_per_op" };
      double v[UCB_ARRAY_SIZE (names)];

      if (!ucb_export_first_of_group (d, seen, i))
        continue;
      ucb_stats_compute (gr->rates, gr->n_rates, &st);
      v[0] = ucb_doc_per_task_ops (p, m);
      v[1] = m->total_ops_per_s;
      v[2] = m->scalability;
      v[3] = m->per_container_ops;
      v[4] = st.stddev;
      v[5] = m->fairness;
      v[6] = m->cpu_ns_per_op;
      dpart = p->depth != 1 ? xasprintf (".d%lld", p->depth) : xstrdup ("");
      tpart = p->tasks != 1 ? xasprintf (".t%lld", p->tasks) : xstrdup ("");
      if (strcmp (p->mode, "process") != 0)
        {
          cleanup_free char *mode = lkp_name (p->mode, strlen (p->mode));
          mpart = xasprintf (".%s", mode);
        }
      else
        mpart = xstrdup ("");
      prefix = xasprintf ("%s.%s%s%s%s.%lld", w, o, dpart, tpart, mpart, p->containers);
      for (size_t k = 0; k < UCB_ARRAY_SIZE (names); k++)
        if (isfinite (v[k]))
          fprintf (f, "%s.%s: %.10g\n", prefix, names[k], v[k]);
      lkp_flags (f, prefix, fl[p->group].list);
    }
}

const struct ucb_exporter ucb_exporter_lkp = { .kinds = UCB_DOC_RUN, .text = lkp_text };
