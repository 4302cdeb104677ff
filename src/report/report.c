/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - the result document (jansson) and the text table drawn from it.
 *
 * Every number a user sees is derived here from the raw readings, once; the text table reads
 * the document (through the model, report/model.h), so the two can never disagree. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "core/version.h"
#include "report/contrast.h"
#include "report/meanings.h"
#include "report/model.h"
#include "report/report.h"

json_t *
ucb_report_document (int argc, char **argv, double start_realtime, double duration_s, json_t *host,
                     json_t *config, json_t *results)
{
  json_t *doc = ucb_json_obj (), *tool = ucb_json_obj (), *run = ucb_json_obj (),
         *av = ucb_json_arr ();
  char when[64] = "";
  time_t secs = (time_t) start_realtime;
  struct tm tm;

  if (gmtime_r (&secs, &tm))
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  ucb_json_push (av, ucb_json_str (PACKAGE_NAME)); /* argv holds the subcommand onwards */
  for (int i = 0; i < argc; i++)
    ucb_json_push (av, ucb_json_str (argv[i]));
  ucb_json_set (tool, "name", ucb_json_str (PACKAGE_NAME));
  ucb_json_set (tool, "version", ucb_json_str (ucb_version));
  ucb_json_set (run, "start_time", ucb_json_str (when));
  ucb_json_set (run, "start_epoch_s", ucb_json_int ((long long) start_realtime));
  ucb_json_set (run, "duration_s", ucb_json_real (duration_s));
  ucb_json_set (run, "argv", av);
  ucb_json_set (doc, "schema", ucb_json_str (UCB_SCHEMA));
  ucb_json_set (doc, "tool", tool);
  ucb_json_set (doc, "run", run);
  ucb_json_set (doc, "host", host ? host : json_null ());
  ucb_json_set (doc, "config", config);
  ucb_json_set (doc, "results", results);
  return doc;
}

/* A number for the table: "-" for null (NaN), as JSON has it. */
static const char *
cell (char *buf, size_t len, int decimals, double v)
{
  if (!isfinite (v))
    return "-";
  snprintf (buf, len, "%.*f", decimals, v);
  return buf;
}

/* The cpu/fair cell: the median CPU share the point's tasks got over the fair share it is judged
 * against (contention.fair_share, the smallest of its tasks'), so that 0.50 of a CPU reads 1.00
 * where two tasks take turns on one; NaN when either is unknown. */
static double
cpu_of_fair (const struct ucb_doc_contention *c)
{
  return c->fair_share > 0 ? c->cpu_share_median / c->fair_share : NAN;
}

/* --legend: every column with the key of its results[] entry (the JSON and CSV name), and `-`;
 * the man page's OUTPUT section says the same at length. */
static const char ucb_report_legend[]
    = "(workload, owner, depth: the same keys; N = containers, each running `tasks` tasks)\n"
      "(ops/s/cont = summary.per_container_ops = total/N; total ops/s = summary.total_ops_per_s)\n"
      "(±% = summary.cv x 100, the spread across containers; fairness = summary.fairness, 1 = "
      "equal)\n"
      "(scale = summary.scalability = total/(N x 1-container total); failed = summary.failed_ops)\n"
      "(cpu ns/op = summary.cpu_ns_per_op, the median of the containers' CPU time per op)\n"
      "(cpu/fair = contention.cpu_share_median / contention.fair_share, 1 = all of its share)\n"
      "(fair share: what a task is judged against, 1 owning a CPU, CPUs/tasks taking turns)\n"
      "(* = not clean data, then why: contended, starved, unjudged or speed-moved)\n"
      "(contended = contention.contended: tasks got under the threshold x their fair share)\n"
      "(unjudged = contention.unjudged: a task's CPU share could not be measured)\n"
      "(starved = contention.starved: a container did under contention.starved_min_ops ops)\n"
      "(speed-moved = canary.moved: the host's own speed changed across the window)\n"
      "(- = null: ±% with one container, scale without a 1-container point, no clock read)\n";

/* By default two lines: the column a reader cannot guess, the marks; then why each flag the
 * rows carry marks them (the one table of flags, meanings.c), or where the rest is said. */
static void
short_legend (FILE *f, const struct ucb_doc *d)
{
  cleanup_free bool *seen = NULL;
  size_t nrows = 0, shown = 0;

  while (ucb_flag_rows[nrows].name)
    nrows++;
  seen = xcalloc (nrows + 1, sizeof *seen);
  for (size_t i = 0; i < d->n_points; i++)
    {
      char flags[UCB_POINT_FLAGS_MAX];
      const char *list = flags, *flag;
      size_t len;

      if (!d->points[i].measured || !ucb_point_flags (&d->points[i], flags, sizeof flags))
        continue;
      while (ucb_flag_next (&list, &flag, &len))
        for (size_t k = 0; k < nrows; k++)
          if (strlen (ucb_flag_rows[k].name) == len
              && strncmp (ucb_flag_rows[k].name, flag, len) == 0)
            seen[k] = true;
    }
  fputs ("(cpu/fair = the CPU a task got / its fair share, 1 = all of it; * = not clean data, "
         "then why; - = null)\n(",
         f);
  for (size_t k = 0; k < nrows; k++)
    if (seen[k])
      fprintf (f, "%s%s: %s", shown++ ? "; " : "", ucb_flag_rows[k].name, ucb_flag_rows[k].why);
  fprintf (f, "%s: man ucbench (OUTPUT), or run --legend)\n",
           shown ? "; every column's JSON key and mark" : "each column's JSON key and every mark");
}

void
ucb_report_text (FILE *f, const json_t *doc, bool full_legend)
{
  struct ucb_doc d;

  fprintf (f, "%-9s %-9s %5s %5s %14s %6s %14s %7s %8s %9s %8s %7s\n", "workload", "owner", "depth",
           "N", "ops/s/cont", "±%", "total ops/s", "scale", "fairness", "cpu ns/op", "cpu/fair",
           "failed");
  if (!ucb_doc_built ((json_t *) doc, &d))
    return;
  for (size_t i = 0; i < d.n_points; i++)
    {
      const struct ucb_doc_point *p = &d.points[i];
      const struct ucb_doc_summary *s = &p->sum;
      char b[7][32], flags[UCB_POINT_FLAGS_MAX];
      /* A document's strings stay on their line (control characters escaped). */
      cleanup_free char *w = ucb_escape_controls (p->workload);
      cleanup_free char *o = ucb_escape_controls (p->owner);

      fprintf (f, "%-9s %-9s %5lld %5lld ", w, o, p->depth, p->containers);
      if (strcmp (p->status, "ok") != 0)
        {
          cleanup_free char *why = ucb_escape_controls (p->reason ?: "");
          fprintf (f, "%s: %s\n", p->status, why);
          continue;
        }
      fprintf (
          f, "%14s %6s %14s %7s %8s %9s %8s %7lld%s%s\n",
          cell (b[0], sizeof b[0], 0, s->per_container_ops),
          cell (b[1], sizeof b[1], 1, s->cv * 100), cell (b[2], sizeof b[2], 0, s->total_ops_per_s),
          cell (b[3], sizeof b[3], 3, s->scalability), cell (b[4], sizeof b[4], 3, s->fairness),
          cell (b[5], sizeof b[5], 1, s->cpu_ns_per_op),
          cell (b[6], sizeof b[6], 2, cpu_of_fair (&p->contention)), s->failed_ops,
          ucb_point_flags (p, flags, sizeof flags) ? " * " : "", flags);
    }
  if (d.interrupted_reason)
    {
      /* Not a flag of the points above (each was measured whole): of the sweep. */
      cleanup_free char *why = ucb_escape_controls (d.interrupted_reason);
      fprintf (f, "interrupted: %s; %lld", why, d.points_finished);
      if (d.points_planned >= 0)
        fprintf (f, " of %lld", d.points_planned);
      fputs (" points finished, the rest were not run (run.interrupted)\n", f);
    }
  if (full_legend)
    fputs (ucb_report_legend, f);
  else
    short_legend (f, &d);
  ucb_doc_free (&d);
  ucb_report_l3_text (f, json_object_get (doc, "l3_scaling"));
  ucb_contrast_text (f, json_object_get (doc, "owner_contrast"), full_legend);
}

/* `path` as a shell word for a command line the user may paste: as it is when it needs no
 * quotes, else in single quotes (control characters escaped: the line stays one line). */
static char *
shell_word (const char *path)
{
  cleanup_free char *p = ucb_escape_controls (path);
  size_t n = strlen (p), at = 1;
  char *q;

  if (p[0] == '-') /* not an option of the command it goes into */
    {
      char *dotted = xasprintf ("./%s", p);
      free (p);
      p = dotted;
      n += 2;
    }
  if (n
      && strspn (p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+:,@%=-")
             == n)
    return steal_pointer (&p);
  q = xcalloc (4 * n + 3, 1);
  q[0] = '\'';
  for (const char *c = p; *c; c++)
    if (*c == '\'')
      at += (size_t) sprintf (q + at, "'\\''"); /* end the quote, a quoted ', start again */
    else
      q[at++] = *c;
  q[at] = '\'';
  return q;
}

void
ucb_report_next_steps (FILE *f, const char *output, bool doc_on_stdout, const json_t *doc)
{
  cleanup_free char *hint = ucb_contrast_repeat_hint (json_object_get (doc, "owner_contrast"));

  if (output)
    {
      cleanup_free char *w = shell_word (output);
      cleanup_free char *shown = ucb_escape_controls (output);
      const char *dot = strrchr (output, '.');
      size_t stem = dot && strcmp (dot, ".json") == 0 ? (size_t) (dot - output) : strlen (output);
      cleanup_free char *svg_path = xasprintf ("%.*s.svg", (int) stem, output);
      cleanup_free char *svg = shell_word (svg_path);

      fprintf (f, "ucbench: the document is in %s; next: ucbench plot %s -o %s\n", shown, w, svg);
    }
  else
    fprintf (f, "ucbench: %s; -o FILE.json keeps it, then: ucbench plot FILE.json -o x.svg\n",
             doc_on_stdout ? "the document went to standard output" : "no document was kept");
  if (hint)
    fprintf (f, "ucbench: %s\n", hint);
}

/* Over the contended points: how many, the median of their CPU shares, the worst steal and
 * idle. */
struct busy
{
  size_t contended, measured, unjudged;
  double steal_max, idle_min;
};

static char *
unjudged_note (size_t unjudged, size_t measured)
{
  return xasprintf ("%zu of %zu measured points unjudged: their tasks' CPU share could not be "
                    "measured, so they are not known to be clean; a longer --duration (see "
                    "contention.window_needed_s) or processes instead of --threads let it be",
                    unjudged, measured);
}

char *
ucb_report_contention_note (json_t *results)
{
  struct ucb_doc d;
  struct busy b = { .steal_max = NAN, .idle_min = NAN };
  cleanup_free double *shares = NULL;
  size_t nshares = 0;
  char steal[48] = "", idle[48] = "";

  if (!ucb_doc_built (results, &d))
    return NULL;
  shares = xcalloc (d.n_points + 1, sizeof *shares);
  for (size_t i = 0; i < d.n_points; i++)
    {
      const struct ucb_doc_contention *c = &d.points[i].contention;

      b.measured += d.points[i].measured;
      b.unjudged += d.points[i].measured && c->unjudged;
      if (!d.points[i].measured || !c->contended)
        continue;
      b.contended++;
      if (isfinite (c->cpu_share_median))
        shares[nshares++] = c->cpu_share_median;
      if (isfinite (c->steal_pct_max) && !(c->steal_pct_max <= b.steal_max))
        b.steal_max = c->steal_pct_max;
      if (isfinite (c->idle_pct_min) && !(c->idle_pct_min >= b.idle_min))
        b.idle_min = c->idle_pct_min;
    }
  ucb_doc_free (&d);
  if (b.contended == 0)
    return b.unjudged ? unjudged_note (b.unjudged, b.measured) : NULL;
  if (isfinite (b.steal_max))
    snprintf (steal, sizeof steal, "; steal up to %.0f%%", b.steal_max);
  if (isfinite (b.idle_min))
    snprintf (idle, sizeof idle, "%sidle down to %.0f%%", *steal ? ", " : "; ", b.idle_min);
  cleanup_free char *also = b.unjudged ? unjudged_note (b.unjudged, b.measured) : NULL;
  return xasprintf ("the host was busy: %zu of %zu measured points contended (their tasks got a "
                    "median %.2g of a CPU%s%s): their numbers are not comparable; rerun on a quiet "
                    "machine, with fewer containers, or with --repeat to see the spread%s%s",
                    b.contended, b.measured, ucb_median (shares, nshares), steal, idle,
                    also ? "; " : "", also ? also : "");
}

char *
ucb_report_starved_note (json_t *results)
{
  struct ucb_doc d;
  size_t starved = 0, measured = 0;
  long long containers = 0, of = 0;
  double need = 0;

  if (!ucb_doc_built (results, &d))
    return NULL;
  for (size_t i = 0; i < d.n_points; i++)
    {
      const struct ucb_doc_point *p = &d.points[i];

      measured += p->measured;
      if (!p->measured || !p->contention.starved)
        continue;
      starved++;
      containers = ucb_count_add (containers, p->contention.starved_containers);
      of = ucb_count_add (of, p->containers);
      if (isfinite (p->contention.window_needed_s) && p->contention.window_needed_s > need)
        need = p->contention.window_needed_s;
    }
  ucb_doc_free (&d);
  if (starved == 0)
    return NULL;
  return xasprintf ("%zu of %zu measured points starved (%lld of their %lld containers did too "
                    "few ops in the window to measure): their numbers say when tasks got their "
                    "turn, not what they can do; rerun with --duration %.0fs or more (a few "
                    "scheduler slices for every task) or with fewer containers",
                    starved, measured, containers, of, ceil (fmax (need, 1)));
}
