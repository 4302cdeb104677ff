/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.c - `ucbench plot FILE.json... --output report.html|chart.svg`: per workload,
 * per-container ops/s and scalability against the container count, as SVG or an HTML report.
 * The documents are read through the model (report/model.h): a line is a series of one file,
 * a marker the repeat statistics of one point's group. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "report/doc-file.h"
#include "report/flags.h"
#include "report/model.h"
#include "report/output.h"
#include "report/plot/contrast.h"
#include "report/plot/plot.h"
#include "report/svg.h"

#define BARS_NOTE "markers: median over repeats; bars: min-max of per-interval per-container ops/s"
/* The legend entry of a hollow marker, before the flags the chart's points have. */
#define FLAGGED_NOTE "hollow: not clean data"

struct input
{
  const char *path;
  char *base; /* basename, for labels */
  struct ucb_doc doc;
  size_t *wl;   /* per workload id of the document: index in the workloads */
  size_t *line; /* per series of the document: index in its workload's lines */
};

/* One line of a workload's charts: the points of one file with one owner/depth/tasks/mode. */
struct line
{
  size_t file;
  const char *owner, *mode;
  long long depth, tasks;
  char *label;
  double *ops, *lo, *hi, *scal, *fair; /* per x category; NaN where not measured */
  size_t *reps;
  struct ucb_flags *flags; /* per x category: of its repeats (report/flags.h) */
  char **flagged;          /* per x category: ucb_flags_text, NULL when clean */
};

struct workload
{
  const char *name;
  long long *x; /* distinct container counts, ascending */
  size_t n_x;
  struct line *lines;
  size_t n_lines;
  struct ucb_flags flags; /* of every point of the workload */
  char *flagged;          /* the legend entry of a hollow marker; NULL when none is flagged */
};

static int
cmp_ll (const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

/* "owner", qualified by what tells lines apart: depth, tasks, mode, file. */
static char *
line_label (const struct workload *w, const struct line *l, const struct input *in, size_t n_in)
{
  bool depths = false, tasks = false, modes = false;
  for (size_t i = 0; i < w->n_lines; i++)
    {
      depths = depths || w->lines[i].depth != l->depth;
      tasks = tasks || w->lines[i].tasks != l->tasks;
      modes = modes || strcmp (w->lines[i].mode, l->mode) != 0;
    }
  cleanup_free char *d = depths ? xasprintf (" depth %lld", l->depth) : xstrdup ("");
  cleanup_free char *t = tasks ? xasprintf (" %lld tasks", l->tasks) : xstrdup ("");
  cleanup_free char *f = n_in > 1 ? xasprintf (" (%s)", in[l->file].base) : xstrdup ("");
  return xasprintf ("%s%s%s%s%s%s", l->owner, d, t, modes ? " " : "", modes ? l->mode : "", f);
}

/* Point `p` of file `f` into its workload (new ones appended to `ws`): its x category and its
 * line, in the order they first appear. */
static void
add_point (struct input *in, size_t f, const struct ucb_doc_point *p, struct workload **ws,
           size_t *n_ws)
{
  struct workload *w;
  size_t j;

  if (in[f].wl[p->workload_id] == SIZE_MAX)
    {
      for (j = 0; j < *n_ws && strcmp ((*ws)[j].name, p->workload) != 0; j++)
        ;
      if (j == *n_ws)
        {
          *ws = xrealloc (*ws, (*n_ws + 1) * sizeof **ws);
          (*ws)[(*n_ws)++] = (struct workload){ .name = p->workload };
        }
      in[f].wl[p->workload_id] = j;
    }
  w = &(*ws)[in[f].wl[p->workload_id]];
  for (j = 0; j < w->n_x && w->x[j] != p->containers; j++)
    ;
  if (j == w->n_x)
    {
      w->x = xrealloc (w->x, (w->n_x + 1) * sizeof *w->x);
      w->x[w->n_x++] = p->containers;
    }
  if (in[f].line[p->series] == SIZE_MAX)
    {
      in[f].line[p->series] = w->n_lines;
      w->lines = xrealloc (w->lines, (w->n_lines + 1) * sizeof *w->lines);
      w->lines[w->n_lines++] = (struct line){
        .file = f, .owner = p->owner, .mode = p->mode, .depth = p->depth, .tasks = p->tasks
      };
    }
}

static void
alloc_cells (struct workload *w)
{
  qsort (w->x, w->n_x, sizeof *w->x, cmp_ll);
  for (size_t j = 0; j < w->n_lines; j++)
    {
      struct line *l = &w->lines[j];
      l->ops = xcalloc (w->n_x, sizeof *l->ops);
      l->lo = xcalloc (w->n_x, sizeof *l->lo);
      l->hi = xcalloc (w->n_x, sizeof *l->hi);
      l->scal = xcalloc (w->n_x, sizeof *l->scal);
      l->fair = xcalloc (w->n_x, sizeof *l->fair);
      l->reps = xcalloc (w->n_x, sizeof *l->reps);
      l->flags = xcalloc (w->n_x, sizeof *l->flags);
      l->flagged = xcalloc (w->n_x, sizeof *l->flagged);
      for (size_t xi = 0; xi < w->n_x; xi++)
        l->ops[xi] = l->lo[xi] = l->hi[xi] = l->scal[xi] = l->fair[xi] = NAN;
    }
}

/* The cell of point `p`: the medians over its repeats (its group), and its flags with theirs
 * (each repeat comes here once). */
static void
fill_cell (const struct input *in, size_t f, const struct ucb_doc_point *p, struct workload *ws)
{
  struct workload *w = &ws[in[f].wl[p->workload_id]];
  struct line *l = &w->lines[in[f].line[p->series]];
  const struct ucb_doc_group *g = &in[f].doc.groups[p->group];
  long long *x = bsearch (&p->containers, w->x, w->n_x, sizeof *w->x, cmp_ll);
  size_t xi = (size_t) (x - w->x);

  l->reps[xi] = g->n_measured;
  l->ops[xi] = g->median.per_container_ops;
  l->scal[xi] = g->median.scalability;
  l->fair[xi] = g->median.fairness;
  l->lo[xi] = g->rate_lo;
  l->hi[xi] = g->rate_hi;
  ucb_flags_add (&l->flags[xi], p);
  ucb_flags_add (&w->flags, p);
}

/* The text of each flagged cell of `w`, and its legend entry. */
static void
flag_texts (struct workload *w)
{
  char buf[UCB_FLAGS_TEXT_MAX];

  for (size_t j = 0; j < w->n_lines; j++)
    for (size_t xi = 0; xi < w->n_x; xi++)
      if (w->lines[j].flags[xi].n_flagged > 0)
        {
          ucb_flags_text (&w->lines[j].flags[xi], buf, sizeof buf);
          w->lines[j].flagged[xi] = xstrdup (buf);
        }
  if (w->flags.n_flagged > 0)
    w->flagged = xasprintf ("%s (%s)", FLAGGED_NOTE, w->flags.list);
}

/* Workloads in the order they first appear, over all files; their lines and cells. */
static void
collect (struct input *in, size_t n_in, struct workload **ws, size_t *n_ws)
{
  for (size_t f = 0; f < n_in; f++)
    for (size_t i = 0; i < in[f].doc.n_points; i++)
      if (in[f].doc.points[i].measured)
        add_point (in, f, &in[f].doc.points[i], ws, n_ws);
  for (size_t k = 0; k < *n_ws; k++)
    alloc_cells (&(*ws)[k]);
  for (size_t f = 0; f < n_in; f++)
    for (size_t i = 0; i < in[f].doc.n_points; i++)
      if (in[f].doc.points[i].measured)
        fill_cell (in, f, &in[f].doc.points[i], *ws);
  for (size_t k = 0; k < *n_ws; k++)
    {
      for (size_t j = 0; j < (*ws)[k].n_lines; j++)
        (*ws)[k].lines[j].label = line_label (&(*ws)[k], &(*ws)[k].lines[j], in, n_in);
      flag_texts (&(*ws)[k]);
    }
}

static void
workload_free (struct workload *w)
{
  for (size_t j = 0; j < w->n_lines; j++)
    {
      struct line *l = &w->lines[j];
      free (l->label);
      free (l->ops);
      free (l->lo);
      free (l->hi);
      free (l->scal);
      free (l->fair);
      free (l->reps);
      free (l->flags);
      for (size_t xi = 0; xi < w->n_x; xi++)
        free (l->flagged[xi]);
      free (l->flagged);
    }
  free (w->lines);
  free (w->x);
  free (w->flagged);
}

/* The two charts of a workload; `series` has room for 2 * n_lines, `titles` for 2. */
static void
charts_of (const struct workload *w, struct ucb_series *series, char **titles, struct ucb_chart *c)
{
  for (size_t j = 0; j < w->n_lines; j++)
    {
      const struct line *l = &w->lines[j];
      series[j] = (struct ucb_series){
        .label = l->label, .y = l->ops, .lo = l->lo, .hi = l->hi, .flags = l->flagged
      };
      series[w->n_lines + j]
          = (struct ucb_series){ .label = l->label, .y = l->scal, .flags = l->flagged };
    }
  titles[0] = xasprintf ("%s: per-container ops/s", w->name);
  titles[1] = xasprintf ("%s: scalability", w->name);
  c[0] = (struct ucb_chart){ .title = titles[0],
                             .note = BARS_NOTE,
                             .x_label = "containers (N)",
                             .y_label = "ops/s per container",
                             .x = w->x,
                             .n_x = w->n_x,
                             .series = series,
                             .n_series = w->n_lines,
                             .ref = NAN,
                             .flagged = w->flagged };
  c[1] = (struct ucb_chart){ .title = titles[1],
                             .note = "total ops/s / (N x the 1-container total); dashed: ideal 1.0",
                             .x_label = "containers (N)",
                             .y_label = "scalability",
                             .x = w->x,
                             .n_x = w->n_x,
                             .series = series + w->n_lines,
                             .n_series = w->n_lines,
                             .ref = 1.0,
                             .flagged = w->flagged };
}

/* config.notes of a document (what ucbench decided on its own, and its warnings: "the host was
 * busy: ..."), or NULL; the model does not keep it. */
static json_t *
doc_notes (const struct input *in)
{
  json_t *notes = json_object_get (json_object_get (in->doc.json, "config"), "notes");
  return json_is_array (notes) ? notes : NULL;
}

/* Every non-empty note of the inputs, "FILE: " before each when there are several; the count in
 * *n.  Free each and the array. */
static char **
collect_notes (const struct input *in, size_t n_in, size_t *n)
{
  char **out = NULL;

  *n = 0;
  for (size_t i = 0; i < n_in; i++)
    {
      size_t k;
      json_t *v;
      json_array_foreach (doc_notes (&in[i]), k, v)
      {
        if (!json_is_string (v) || *json_string_value (v) == '\0')
          continue;
        out = xrealloc (out, (*n + 1) * sizeof *out);
        out[(*n)++] = n_in > 1 ? xasprintf ("%s: %s", in[i].base, json_string_value (v))
                               : xstrdup (json_string_value (v));
      }
    }
  return out;
}

/* The owner contrast of the inputs (report/plot/contrast.h): free it. */
static struct ucb_plot_contrast *
contrast_of (const struct input *in, size_t n_in)
{
  struct ucb_plot_contrast *pc = ucb_plot_contrast_new ();
  for (size_t i = 0; i < n_in; i++)
    ucb_plot_contrast_add (pc, &in[i].doc, n_in > 1 ? in[i].base : NULL);
  return pc;
}

/* The charts, then the owner contrast's; a standalone SVG has the documents' notes under them
 * (the HTML report lists them as text). */
static void
write_svg (FILE *f, const struct workload *ws, size_t n_ws, const struct input *in, size_t n_in,
           bool standalone)
{
  size_t n_c = 2 * n_ws, lines = 0, n_notes = 0;
  for (size_t i = 0; i < n_ws; i++)
    lines += ws[i].n_lines;
  cleanup_free struct ucb_chart *c = xcalloc (n_c, sizeof *c);
  cleanup_free struct ucb_series *s = xcalloc (2 * lines + 1, sizeof *s);
  cleanup_free char **titles = xcalloc (n_c, sizeof *titles);
  cleanup_free char **notes = standalone ? collect_notes (in, n_in, &n_notes) : NULL;
  struct ucb_plot_contrast *pc = contrast_of (in, n_in);
  double h = ucb_plot_contrast_height (pc), y = 0;

  for (size_t i = 0, off = 0; i < n_ws; off += 2 * ws[i].n_lines, i++)
    charts_of (&ws[i], s + off, titles + 2 * i, c + 2 * i);
  for (size_t i = 0; i < n_c; i++)
    h += ucb_svg_chart_height (&c[i]);
  ucb_svg_open (f, h + ucb_svg_notes_height (notes, n_notes), standalone);
  for (size_t i = 0; i < n_c; i++)
    {
      ucb_svg_chart (f, &c[i], y);
      y += ucb_svg_chart_height (&c[i]);
      free (titles[i]);
    }
  ucb_plot_contrast_svg (f, pc, y);
  y += ucb_plot_contrast_height (pc);
  ucb_plot_contrast_free (pc);
  ucb_svg_notes (f, notes, n_notes, y);
  for (size_t i = 0; i < n_notes; i++)
    free (notes[i]);
  ucb_svg_close (f);
}

/* The notes of the inputs as a list, under a heading; nothing when none has any. */
static void
html_notes (FILE *f, const struct input *in, size_t n_in)
{
  size_t n = 0;
  char **notes = collect_notes (in, n_in, &n);

  if (n > 0)
    fputs ("<h2>Notes</h2>\n<ul class=\"notes\">\n", f);
  for (size_t i = 0; i < n; i++)
    {
      fputs ("<li>", f);
      ucb_xml_puts (f, notes[i]);
      fputs ("</li>\n", f);
      free (notes[i]);
    }
  if (n > 0)
    fputs ("</ul>\n", f);
  free (notes);
}

/* A config array as "a, b, c", escaped. */
static void
html_list (FILE *f, json_t *a)
{
  size_t i;
  json_t *v;
  json_array_foreach (a, i, v)
  {
    if (i)
      fputs (", ", f);
    if (json_is_string (v))
      ucb_xml_puts (f, json_string_value (v));
    else if (json_is_integer (v))
      fprintf (f, "%lld", json_integer_value (v));
  }
}

/* `v` with `decimals` decimals (%g for -1); "-" for null (NaN): a table never shows nan. */
static const char *
fmt_fixed (char *buf, size_t len, double v, int decimals)
{
  if (!isfinite (v))
    snprintf (buf, len, "-");
  else if (decimals < 0)
    snprintf (buf, len, "%g", v);
  else
    snprintf (buf, len, "%.*f", decimals, v);
  return buf;
}

/* One cell of the host/config table: row `row` for one input. */
static void
html_cell (FILE *f, const struct input *in, size_t row)
{
  const struct ucb_doc *d = &in->doc;
  json_t *lists[] = { d->config.workloads, d->config.containers, d->config.owners, d->config.depths,
                      d->config.tasks };
  char a[32], b[32], c[32];

  switch (row)
    {
    case 0:
      ucb_xml_puts (f, d->host.kernel_release ?: "unknown");
      break;
    case 1:
      ucb_xml_puts (f, d->host.cpu_model ?: "unknown");
      break;
    case 2:
      /* -1: the document does not say. */
      fprintf (f, "%s online, %s allowed",
               fmt_fixed (a, sizeof a, d->host.cpus_online < 0 ? NAN : d->host.cpus_online, 0),
               fmt_fixed (b, sizeof b, d->host.cpus_allowed < 0 ? NAN : d->host.cpus_allowed, 0));
      break;
    case 3:
      ucb_xml_puts (f, d->host.virtualization ?: "unknown");
      break;
    case 4:
      fprintf (f, "%s s (warm-up %s s, interval %s s), %lld repeat(s)",
               fmt_fixed (a, sizeof a, d->config.duration_s, -1),
               fmt_fixed (b, sizeof b, d->config.warmup_s, -1),
               fmt_fixed (c, sizeof c, d->config.interval_s, -1), d->config.repeat);
      break;
    default:
      html_list (f, lists[row - 5]);
    }
}

/* Host and config side by side, a column per input file. */
static void
html_inputs (FILE *f, const struct input *in, size_t n_in)
{
  static const char *const rows[]
      = { "kernel",    "CPU model",  "CPUs",   "virtualization", "duration",
          "workloads", "containers", "owners", "depths",         "tasks" };

  fputs ("<table class=\"kv\">\n<tr><th></th>", f);
  for (size_t i = 0; i < n_in; i++)
    {
      fputs ("<th>", f);
      ucb_xml_puts (f, in[i].base);
      fputs ("</th>", f);
    }
  fputs ("</tr>\n", f);
  for (size_t r = 0; r < UCB_ARRAY_SIZE (rows); r++)
    {
      fprintf (f, "<tr><th>%s</th>", rows[r]);
      for (size_t i = 0; i < n_in; i++)
        {
          fputs ("<td>", f);
          html_cell (f, &in[i], r);
          fputs ("</td>", f);
        }
      fputs ("</tr>\n", f);
    }
  fputs ("</table>\n", f);
}

static void
html_table (FILE *f, const struct workload *ws, size_t n_ws, const struct input *in, size_t n_in)
{
  fputs ("<h2>Points</h2>\n<table class=\"points\">\n<tr><th>workload</th>", f);
  if (n_in > 1)
    fputs ("<th>file</th>", f);
  fputs ("<th>owner</th><th>depth</th><th>tasks</th><th>N</th><th>repeats</th>"
         "<th>per-container ops/s</th><th>interval min-max</th><th>scalability</th>"
         "<th>fairness</th><th>flagged</th></tr>\n",
         f);
  for (size_t i = 0; i < n_ws; i++)
    for (size_t j = 0; j < ws[i].n_lines; j++)
      for (size_t x = 0; x < ws[i].n_x; x++)
        {
          const struct line *l = &ws[i].lines[j];
          char lo[32], hi[32], ops[32], scal[32], fair[32];
          if (l->reps[x] == 0)
            continue;
          ucb_fmt_num (lo, sizeof lo, l->lo[x]);
          ucb_fmt_num (hi, sizeof hi, l->hi[x]);
          fputs (l->flagged[x] ? "<tr class=\"flagged\"><td>" : "<tr><td>", f);
          ucb_xml_puts (f, ws[i].name);
          if (n_in > 1)
            {
              fputs ("</td><td>", f);
              ucb_xml_puts (f, in[l->file].base);
            }
          fputs ("</td><td>", f);
          ucb_xml_puts (f, l->owner);
          fprintf (f,
                   "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%zu</td><td>%s</td>"
                   "<td>%s-%s</td><td>%s</td><td>%s</td><td>",
                   l->depth, l->tasks, ws[i].x[x], l->reps[x],
                   fmt_fixed (ops, sizeof ops, l->ops[x], 0), lo, hi,
                   fmt_fixed (scal, sizeof scal, l->scal[x], 3),
                   fmt_fixed (fair, sizeof fair, l->fair[x], 3));
          ucb_xml_puts (f, l->flagged[x] ? l->flagged[x] : "");
          fputs ("</td></tr>\n", f);
        }
  fputs ("</table>\n", f);
}

static void
write_html (FILE *f, const struct workload *ws, size_t n_ws, const struct input *in, size_t n_in)
{
  fputs ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<title>ucbench report</title>\n<style>\n"
         "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
         "table { border-collapse: collapse; margin-bottom: 1em; }\n"
         "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }\n"
         "table.points td { text-align: right; white-space: nowrap; }\n"
         "table.points tr.flagged td { background: #fff3cd; font-style: italic; }\n"
         "svg { max-width: 100%; height: auto; }\n"
         "</style>\n</head>\n<body>\n<h1>ucbench report</h1>\n",
         f);
  html_inputs (f, in, n_in);
  html_notes (f, in, n_in);
  write_svg (f, ws, n_ws, in, n_in, false);
  html_table (f, ws, n_ws, in, n_in);
  {
    struct ucb_plot_contrast *pc = contrast_of (in, n_in);
    ucb_plot_contrast_html (f, pc);
    ucb_plot_contrast_free (pc);
  }
  fputs ("</body>\n</html>\n", f);
}

/* true for .html/.htm, false for .svg; the extension is the only format switch. */
static int
output_is_html (const char *path, bool *html, ucb_error_t *err)
{
  const char *dot = strrchr (path, '.');
  if (dot && strchr (dot, '/') == NULL
      && (strcasecmp (dot, ".html") == 0 || strcasecmp (dot, ".htm") == 0))
    *html = true;
  else if (dot && strchr (dot, '/') == NULL && strcasecmp (dot, ".svg") == 0)
    *html = false;
  else
    return ucb_usage_error (err, "--output `%s`: unknown extension, use .html or .svg", path);
  return 0;
}

static int
load_inputs (char **paths, size_t n, struct input *in, ucb_error_t *err)
{
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free char *copy = xstrdup (paths[i]);

      in[i].path = paths[i];
      in[i].base = xstrdup (basename (copy));
      if (ucb_doc_open (paths[i], UCB_DOC_RUN, &in[i].doc, err) < 0)
        return -1;
      if (in[i].doc.n_measured == 0)
        return ucb_usage_error (err, "%s: no measured results to plot (a verify-only document?)",
                                paths[i]);
      in[i].wl = xcalloc (in[i].doc.n_workloads + 1, sizeof *in[i].wl);
      in[i].line = xcalloc (in[i].doc.n_series + 1, sizeof *in[i].line);
      memset (in[i].wl, 0xff, (in[i].doc.n_workloads + 1) * sizeof *in[i].wl);
      memset (in[i].line, 0xff, (in[i].doc.n_series + 1) * sizeof *in[i].line);
    }
  return 0;
}

/* The page made in memory, then written as the document is (output.c): a kill leaves the old
 * file or the new one, never half a page. */
static int
write_output (const char *path, bool html, const struct workload *ws, size_t n_ws,
              const struct input *in, size_t n_in, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  if (f == NULL)
    ucb_oom ();
  if (html)
    write_html (f, ws, n_ws, in, n_in);
  else
    write_svg (f, ws, n_ws, in, n_in, true);
  if (fclose (f) != 0)
    ucb_oom ();
  return ucb_report_write_bytes (buf, len, path, err);
}

int
ucb_plot (char **paths, size_t n_in, const char *output, ucb_error_t *err)
{
  bool html = false;
  size_t n_ws = 0;
  struct input *in;
  struct workload *ws = NULL;
  int ret = -1;

  if (output_is_html (output, &html, err) < 0)
    return -1;
  in = xcalloc (n_in + 1, sizeof *in);
  if (load_inputs (paths, n_in, in, err) == 0)
    {
      collect (in, n_in, &ws, &n_ws);
      ret = write_output (output, html, ws, n_ws, in, n_in, err);
    }
  for (size_t k = 0; k < n_ws; k++)
    workload_free (&ws[k]);
  free (ws);
  for (size_t i = 0; i < n_in; i++)
    {
      ucb_doc_free (&in[i].doc);
      free (in[i].base);
      free (in[i].wl);
      free (in[i].line);
    }
  free (in);
  return ret;
}
