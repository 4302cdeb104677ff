/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contrast.c - the owner contrast (report/contrast.c) as charts and a table for `ucbench
 * plot`: the pairs are computed from each document's results[], so an older document, written
 * before owner_contrast existed, is drawn too. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/util.h"
#include "report/contrast.h"
#include "report/plot/contrast.h"
#include "report/svg.h"

#define NOTE "ratio of per-container ops/s; bars: its 95 % interval over the repeats; dashed: 1"

/* A line: one document's pairs of one depth, tasks and mode, a value per x category. */
struct pline
{
  size_t file;
  long long depth, tasks;
  const char *mode;
  char *label;
  double *y, *lo, *hi;
  char **flags; /* why a cell is not clean data, NULL when it is */
};

struct pchart
{
  const char *workload;
  long long *x; /* container counts, ascending */
  size_t n_x;
  struct pline *lines;
  size_t n_lines;
  struct ucb_series *series;
  char *title, *flagged;
  struct ucb_chart c;
};

struct ucb_plot_contrast
{
  json_t **pairs; /* per document: owner_contrast[], or NULL */
  const char **files;
  size_t n_files;
  struct pchart *charts;
  size_t n_charts;
  bool built;
};

struct ucb_plot_contrast *
ucb_plot_contrast_new (void)
{
  return xcalloc (1, sizeof (struct ucb_plot_contrast));
}

void
ucb_plot_contrast_add (struct ucb_plot_contrast *pc, const struct ucb_doc *d, const char *file)
{
  pc->pairs = xrealloc (pc->pairs, (pc->n_files + 1) * sizeof *pc->pairs);
  pc->files = xrealloc (pc->files, (pc->n_files + 1) * sizeof *pc->files);
  pc->pairs[pc->n_files] = ucb_contrast_json (d);
  pc->files[pc->n_files++] = file;
  pc->built = false;
}

static long long
integer (const json_t *o, const char *k)
{
  return json_integer_value (json_object_get (o, k));
}

static const char *
str (const json_t *o, const char *k)
{
  const char *s = json_string_value (json_object_get (o, k));
  return s ? s : "";
}

/* "shared: contended; distinct: starved,speed-moved" (report/contrast.h), and that the ratio is
 * of contended repeats too; NULL when the pair is clean. */
static char *
flags_of (const json_t *x)
{
  char buf[4 * UCB_POINT_FLAGS_MAX];

  ucb_contrast_flags (x, ",", buf, sizeof buf);
  if (json_is_true (json_object_get (x, "ratio_from_contended")))
    return xasprintf ("%s%sthe ratio of every repeat, contended ones too", buf, *buf ? "; " : "");
  return *buf ? xstrdup (buf) : NULL;
}

static int
cmp_ll (const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

static struct pchart *
chart_of (struct ucb_plot_contrast *pc, const char *workload)
{
  for (size_t k = 0; k < pc->n_charts; k++)
    if (strcmp (pc->charts[k].workload, workload) == 0)
      return &pc->charts[k];
  pc->charts = xrealloc (pc->charts, (pc->n_charts + 1) * sizeof *pc->charts);
  pc->charts[pc->n_charts] = (struct pchart){ .workload = workload };
  return &pc->charts[pc->n_charts++];
}

static struct pline *
line_of (struct pchart *c, size_t file, const json_t *x)
{
  for (size_t j = 0; j < c->n_lines; j++)
    {
      struct pline *l = &c->lines[j];
      if (l->file == file && l->depth == integer (x, "depth") && l->tasks == integer (x, "tasks")
          && strcmp (l->mode, str (x, "mode")) == 0)
        return l;
    }
  c->lines = xrealloc (c->lines, (c->n_lines + 1) * sizeof *c->lines);
  c->lines[c->n_lines] = (struct pline){ .file = file,
                                         .depth = integer (x, "depth"),
                                         .tasks = integer (x, "tasks"),
                                         .mode = str (x, "mode") };
  return &c->lines[c->n_lines++];
}

/* Pass 1: the charts, their x categories and lines; pass 2 (cells): their values. */
static void
add_pair (struct ucb_plot_contrast *pc, size_t file, const json_t *x, bool cells)
{
  struct pchart *c = chart_of (pc, str (x, "workload"));
  struct pline *l = line_of (c, file, x);
  long long n = integer (x, "containers"), *at;
  size_t i;

  if (!cells)
    {
      for (i = 0; i < c->n_x && c->x[i] != n; i++)
        ;
      if (i == c->n_x)
        {
          c->x = xrealloc (c->x, (c->n_x + 1) * sizeof *c->x);
          c->x[c->n_x++] = n;
        }
      return;
    }
  /* Pass 1 took the same pairs, so the category and the line's values are there; never index
   * past them should the passes ever disagree. */
  at = c->n_x ? bsearch (&n, c->x, c->n_x, sizeof *c->x, cmp_ll) : NULL;
  if (at == NULL || l->y == NULL)
    return;
  i = (size_t) (at - c->x);
  l->y[i] = ucb_json_num (x, "ratio");
  l->lo[i] = ucb_json_num (x, "ci_low");
  l->hi[i] = ucb_json_num (x, "ci_high");
  l->flags[i] = flags_of (x);
}

static void
label_lines (struct ucb_plot_contrast *pc, struct pchart *c)
{
  bool depths = false, tasks = false, modes = false;

  for (size_t j = 0; j < c->n_lines; j++)
    {
      depths = depths || c->lines[j].depth != c->lines[0].depth;
      tasks = tasks || c->lines[j].tasks != c->lines[0].tasks;
      modes = modes || strcmp (c->lines[j].mode, c->lines[0].mode) != 0;
    }
  for (size_t j = 0; j < c->n_lines; j++)
    {
      struct pline *l = &c->lines[j];
      cleanup_free char *d = depths ? xasprintf (" depth %lld", l->depth) : xstrdup ("");
      cleanup_free char *t = tasks ? xasprintf (" %lld tasks", l->tasks) : xstrdup ("");
      cleanup_free char *m = modes ? xasprintf (" %s", l->mode) : xstrdup ("");
      cleanup_free char *f
          = pc->files[l->file] ? xasprintf (" (%s)", pc->files[l->file]) : xstrdup ("");
      l->label = xasprintf ("shared/distinct%s%s%s%s", d, t, m, f);
    }
}

static void
finish_chart (struct ucb_plot_contrast *pc, struct pchart *c)
{
  bool flagged = false;

  label_lines (pc, c);
  c->series = xcalloc (c->n_lines + 1, sizeof *c->series);
  for (size_t j = 0; j < c->n_lines; j++)
    {
      struct pline *l = &c->lines[j];
      for (size_t i = 0; i < c->n_x; i++)
        flagged = flagged || l->flags[i];
      c->series[j] = (struct ucb_series){
        .label = l->label, .y = l->y, .lo = l->lo, .hi = l->hi, .flags = l->flags
      };
    }
  c->title = xasprintf ("%s: owner contrast shared/distinct", c->workload);
  c->flagged = flagged ? xstrdup ("hollow: not clean data (a side's flags, or contended)") : NULL;
  c->c = (struct ucb_chart){ .title = c->title,
                             .note = NOTE,
                             .x_label = "containers (N)",
                             .y_label = "shared / distinct",
                             .x = c->x,
                             .n_x = c->n_x,
                             .series = c->series,
                             .n_series = c->n_lines,
                             .ref = 1.0,
                             .flagged = c->flagged };
}

static void
build (struct ucb_plot_contrast *pc)
{
  size_t i;
  json_t *x;

  if (pc->built)
    return;
  pc->built = true;
  for (size_t f = 0; f < pc->n_files; f++)
    json_array_foreach (pc->pairs[f], i, x) if (isfinite (ucb_json_num (x, "ratio")))
        add_pair (pc, f, x, false);
  for (size_t k = 0; k < pc->n_charts; k++)
    {
      struct pchart *c = &pc->charts[k];
      qsort (c->x, c->n_x, sizeof *c->x, cmp_ll);
      for (size_t j = 0; j < c->n_lines; j++)
        {
          struct pline *l = &c->lines[j];
          l->y = xcalloc (c->n_x, sizeof *l->y);
          l->lo = xcalloc (c->n_x, sizeof *l->lo);
          l->hi = xcalloc (c->n_x, sizeof *l->hi);
          l->flags = xcalloc (c->n_x, sizeof *l->flags);
          for (size_t xi = 0; xi < c->n_x; xi++)
            l->y[xi] = l->lo[xi] = l->hi[xi] = NAN;
        }
    }
  for (size_t f = 0; f < pc->n_files; f++)
    json_array_foreach (pc->pairs[f], i, x) if (isfinite (ucb_json_num (x, "ratio")))
        add_pair (pc, f, x, true);
  for (size_t k = 0; k < pc->n_charts; k++)
    finish_chart (pc, &pc->charts[k]);
}

double
ucb_plot_contrast_height (struct ucb_plot_contrast *pc)
{
  double h = 0;

  build (pc);
  for (size_t k = 0; k < pc->n_charts; k++)
    h += ucb_svg_chart_height (&pc->charts[k].c);
  return h;
}

void
ucb_plot_contrast_svg (FILE *f, struct ucb_plot_contrast *pc, double y0)
{
  build (pc);
  for (size_t k = 0; k < pc->n_charts; k++)
    {
      ucb_svg_chart (f, &pc->charts[k].c, y0);
      y0 += ucb_svg_chart_height (&pc->charts[k].c);
    }
}

static void
html_row (FILE *f, const struct ucb_plot_contrast *pc, size_t file, const json_t *x)
{
  const json_t *s = json_object_get (x, "shared"), *d = json_object_get (x, "distinct");
  cleanup_free char *flags = flags_of (x);
  char a[32] = "-", b[32] = "-", r[32] = "-", ci[64] = "-";

  if (isfinite (ucb_json_num (s, "median_ops_per_s")))
    snprintf (a, sizeof a, "%.0f", ucb_json_num (s, "median_ops_per_s"));
  if (isfinite (ucb_json_num (d, "median_ops_per_s")))
    snprintf (b, sizeof b, "%.0f", ucb_json_num (d, "median_ops_per_s"));
  if (isfinite (ucb_json_num (x, "ratio")))
    snprintf (r, sizeof r, "%.3f", ucb_json_num (x, "ratio"));
  if (isfinite (ucb_json_num (x, "ci_low")) && isfinite (ucb_json_num (x, "ci_high")))
    snprintf (ci, sizeof ci, "%.3f-%.3f", ucb_json_num (x, "ci_low"), ucb_json_num (x, "ci_high"));
  fputs (flags ? "<tr class=\"flagged\"><td>" : "<tr><td>", f);
  ucb_xml_puts (f, str (x, "workload"));
  if (pc->files[file])
    {
      fputs ("</td><td>", f);
      ucb_xml_puts (f, pc->files[file]);
    }
  fprintf (f,
           "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%s</td><td>%s</td><td>%s</td>"
           "<td>%s</td><td>%lld/%lld</td><td>",
           integer (x, "depth"), integer (x, "tasks"), integer (x, "containers"), a, b, r, ci,
           integer (x, "n_shared"), integer (x, "n_distinct"));
  ucb_xml_puts (f, str (x, "verdict"));
  fputs ("</td><td>", f);
  ucb_xml_puts (f, flags ? flags : "");
  fputs ("</td></tr>\n", f);
}

void
ucb_plot_contrast_html (FILE *f, const struct ucb_plot_contrast *pc)
{
  bool any = false, files = false;
  size_t i;
  json_t *x;

  for (size_t k = 0; k < pc->n_files; k++)
    {
      any = any || json_array_size (pc->pairs[k]) > 0;
      files = files || pc->files[k];
    }
  if (!any)
    return;
  fprintf (f,
           "<h2>Owner contrast</h2>\n<p>Per-container ops/s shared/distinct at each point "
           "measured with both owners, a 95 %% interval over the repeats and a verdict "
           "(penalty: the interval wholly below %.2f; none: wholly within 1 &#177; %.0f %%; "
           "docs/statistics.md).</p>\n<table class=\"points\">\n<tr><th>workload</th>%s"
           "<th>depth</th><th>tasks</th><th>N</th><th>shared ops/s</th><th>distinct ops/s</th>"
           "<th>ratio</th><th>95 %% CI</th><th>repeats s/d</th><th>verdict</th>"
           "<th>flagged</th></tr>\n",
           1 - UCB_CONTRAST_THRESHOLD, 100 * UCB_CONTRAST_THRESHOLD, files ? "<th>file</th>" : "");
  for (size_t k = 0; k < pc->n_files; k++)
    json_array_foreach (pc->pairs[k], i, x) html_row (f, pc, k, x);
  fputs ("</table>\n", f);
}

void
ucb_plot_contrast_free (struct ucb_plot_contrast *pc)
{
  if (!pc)
    return;
  for (size_t k = 0; k < pc->n_charts; k++)
    {
      struct pchart *c = &pc->charts[k];
      for (size_t j = 0; j < c->n_lines; j++)
        {
          struct pline *l = &c->lines[j];
          for (size_t xi = 0; l->flags && xi < c->n_x; xi++)
            free (l->flags[xi]);
          free (l->flags);
          free (l->y);
          free (l->lo);
          free (l->hi);
          free (l->label);
        }
      free (c->lines);
      free (c->x);
      free (c->series);
      free (c->title);
      free (c->flagged);
    }
  free (pc->charts);
  for (size_t k = 0; k < pc->n_files; k++)
    json_decref (pc->pairs[k]);
  free (pc->pairs);
  free (pc->files);
  free (pc);
}
