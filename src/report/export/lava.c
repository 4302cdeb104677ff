/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lava.c - `ucbench export --to lava`: the LAVA calls that report a document, one a
 * line, as examples/lava/lava-report.py makes them (it prints them with --dry-run):
 *
 *   lava-test-case verify.ULIM-01 --result pass           (a case: its worst status over --repeat)
 *   lava-test-reference verify.ULIM-19 --result fail --reference URL         (a known kernel bug)
 *   lava-test-case run.signal.shared.depth1.tasks1.process.c2.per_container_ops --result pass
 *       --measurement 233516 --units ops/s                (the median over the point's repeats)
 *   lava-test-case run.signal.shared.depth1.tasks1.process.c2.flagged.contended --result unknown
 *
 * Results are the table of meanings' (meanings.h).  Names keep letters, digits, `.`, `_` and
 * `-` only and never depend on --repeat, so that a LAVA query follows one series across jobs;
 * no word of a line holds a space, so a line splits into its argv. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"
#include "report/export/exporter.h"
#include "report/meanings.h"
#include "report/model.h"

/* The parts joined by `.`, each run of other characters than [A-Za-z0-9_-] one `_`, and `.`,
 * `_`, `-` stripped from both ends (LAVA wants a name to start and end with an alnum). */
static char *
lava_name (const char *const *parts, size_t n)
{
  char *s = xcalloc (1, 1);
  size_t len = 0, lo = 0;

  for (size_t i = 0; i < n; i++)
    {
      const char *p = parts[i];
      s = xrealloc (s, len + strlen (p) + 2);
      if (i)
        s[len++] = '.';
      for (bool run = false; *p; p++)
        {
          bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
                    || *p == '_' || *p == '-';
          if (ok || !run)
            s[len++] = ok ? *p : '_';
          run = !ok;
        }
      s[len] = '\0';
    }
  while (len > 0 && strchr ("._-", s[len - 1]))
    s[--len] = '\0';
  while (s[lo] && strchr ("._-", s[lo]))
    lo++;
  memmove (s, s + lo, len - lo + 1);
  if (*s == '\0')
    {
      free (s);
      s = xstrdup ("unnamed");
    }
  return s;
}

/* The entry of case `first`'s id whose status is its worst (the one whose bug it names). */
static const struct ucb_doc_case *
worst_entry (const struct ucb_doc *d, const struct ucb_doc_case *first)
{
  for (size_t j = 0; j < d->n_cases; j++)
    if (strcmp (d->cases[j].id, first->id) == 0 && first->worst
        && strcmp (d->cases[j].status, first->worst) == 0)
      return &d->cases[j];
  return first;
}

static void
verify_cases (FILE *f, const struct ucb_doc *d)
{
  for (size_t i = 0; i < d->n_cases; i++)
    {
      const struct ucb_doc_case *c;
      const struct ucb_verdict_row *row;
      const char *parts[2] = { "verify", d->cases[i].id };
      cleanup_free char *name = NULL;

      if (!d->cases[i].first)
        continue;
      c = worst_entry (d, &d->cases[i]);
      row = ucb_verdict_row (c->status);
      name = lava_name (parts, 2);
      /* lava-test-reference: the same result, with the bug's page (one word: a URL). */
      if (row->lava_reference && c->bug_url && !strpbrk (c->bug_url, " \t\n"))
        fprintf (f, "lava-test-reference %s --result %s --reference %s\n", name, row->lava,
                 c->bug_url);
      else
        fprintf (f, "lava-test-case %s --result %s\n", name, row->lava);
    }
}

/* The median of summary.failed_ops over the measured repeats of group g (the model keeps none). */
static double
failed_ops (const struct ucb_doc *d, size_t g)
{
  cleanup_free double *v = xcalloc (d->n_points + 1, sizeof *v);
  size_t n = 0;

  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].group == g && d->points[i].measured)
      v[n++] = (double) d->points[i].sum.failed_ops;
  return n ? ucb_median (v, n) : NAN;
}

static void
point_cases (FILE *f, const struct ucb_doc *d, const struct ucb_doc_point *p,
             const struct ucb_flags *fl)
{
  const struct ucb_doc_group *gr = &d->groups[p->group];
  const struct ucb_doc_summary *m = &gr->median;
  const struct ucb_point_row *row = &ucb_point_rows[fl->n_flagged > 0];
  cleanup_free char *depth = xasprintf ("depth%lld", p->depth);
  cleanup_free char *tasks = xasprintf ("tasks%lld", p->tasks);
  cleanup_free char *n = xasprintf ("c%lld", p->containers);
  const char *key[] = { "per_container_ops", "total_ops_per_s", "per_task_ops", "cpu_ns_per_op",
                        "scalability",       "fairness",        "failed_ops" };
  const char *units[] = { "ops/s", "ops/s", "ops/s", "ns/op", "ratio", "ratio", "ops" };
  bool any = gr->n_measured > 0;
  double v[] = { m->per_container_ops,
                 m->total_ops_per_s,
                 any ? ucb_doc_per_task_ops (p, m) : NAN,
                 m->cpu_ns_per_op,
                 m->scalability,
                 m->fairness,
                 any ? failed_ops (d, p->group) : NAN };
  const char *flag, *list = fl->list;
  size_t len;

  for (size_t k = 0; k < UCB_ARRAY_SIZE (key); k++)
    {
      const char *parts[] = { "run", p->workload, p->owner, depth, tasks, p->mode, n, key[k] };
      cleanup_free char *name = lava_name (parts, UCB_ARRAY_SIZE (parts));

      if (isfinite (v[k]))
        fprintf (f, "lava-test-case %s --result %s --measurement %.10g --units %s\n", name,
                 row->lava, v[k], units[k]);
      else
        fprintf (f, "lava-test-case %s --result skip\n", name);
    }
  /* LAVA's results hold no text: each flag is a case of its own beside the metrics. */
  while (row->flag_key && ucb_flag_next (&list, &flag, &len))
    {
      cleanup_free char *fname = xasprintf ("%.*s", (int) len, flag);
      const char *parts[]
          = { "run", p->workload, p->owner, depth, tasks, p->mode, n, row->flag_key, fname };
      cleanup_free char *name = lava_name (parts, UCB_ARRAY_SIZE (parts));

      fprintf (f, "lava-test-case %s --result %s\n", name, row->lava);
    }
}

static void
lava_text (FILE *f, const struct ucb_doc *d, const struct ucb_flags *flags)
{
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  verify_cases (f, d);
  for (size_t i = 0; i < d->n_points; i++)
    if (!seen[d->points[i].group])
      {
        seen[d->points[i].group] = true;
        point_cases (f, d, &d->points[i], &flags[d->points[i].group]);
      }
}

const struct ucb_exporter ucb_exporter_lava = { .kinds = UCB_DOC_ANY, .text = lava_text };
