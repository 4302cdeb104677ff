/* cmd-plot.c - `ucbench plot FILE.json... --output report.html|chart.svg`: per workload,
 * per-container ops/s and scalability against the container count, as SVG or an HTML report. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "core/stats.h"
#include "core/util.h"
#include "report/docload.h"
#include "report/svg.h"

const char ucb_plot_usage[]
    = "Usage: ucbench plot FILE.json [FILE.json ...] --output REPORT.html|CHART.svg\n"
      "Draw, per workload, the per-container ops/s and the scalability of the measured points\n"
      "against the container count: one line per owner mode (and per file when several are\n"
      "given).  A marker is the median over repeats; its error bar spans the smallest to the\n"
      "largest per-interval per-container rate.  CHART.svg gets all charts stacked in one SVG;\n"
      "REPORT.html a self-contained report: host, config, the charts and a table of the points.\n"
      "\n"
      "  -o, --output FILE   the file to write; its extension (.svg, .html) picks the format\n"
      "  -h, --help          show this help\n"
      "\n"
      "Exit status: 0 written, 1 the output could not be written, 2 bad input.\n";

#define BARS_NOTE "markers: median over repeats; bars: min-max of per-interval per-container ops/s"

struct input
{
  const char *path;
  char *base; /* basename, for labels */
  json_t *doc;
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
};

struct workload
{
  const char *name;
  long long *x; /* distinct container counts, ascending */
  size_t n_x;
  struct line *lines;
  size_t n_lines;
};

static bool
measured (json_t *r)
{
  const char *status = json_string_value (json_object_get (r, "status"));
  return json_is_array (json_object_get (r, "per_container"))
         && json_array_size (json_object_get (r, "per_container")) > 0
         && (status == NULL || strcmp (status, "ok") == 0);
}

static const char *
str_of (json_t *r, const char *k, const char *dflt)
{
  return json_string_value (json_object_get (r, k)) ?: dflt;
}

static long long
int_of (json_t *r, const char *k, long long dflt)
{
  json_t *v = json_object_get (r, k);
  return json_is_integer (v) ? json_integer_value (v) : dflt;
}

static double
num_of (json_t *o, const char *k)
{
  json_t *v = json_object_get (o, k);
  return json_is_number (v) ? json_number_value (v) : NAN;
}

static bool
on_line (json_t *r, size_t file, const struct line *l)
{
  return file == l->file && strcmp (str_of (r, "owner", "?"), l->owner) == 0
         && strcmp (str_of (r, "mode", "process"), l->mode) == 0
         && int_of (r, "depth", 0) == l->depth && int_of (r, "tasks", 1) == l->tasks;
}

static int
cmp_ll (const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return (x > y) - (x < y);
}

/* Widen [lo, hi] by the per-interval per-container rates of one results[] entry: interval j
 * is the mean over the containers, as `compare` pools them. */
static void
sample_range (json_t *r, double *lo, double *hi)
{
  json_t *pcs = json_object_get (r, "per_container");
  size_t n = json_array_size (pcs), k = SIZE_MAX;

  for (size_t i = 0; i < n; i++)
    {
      size_t m = json_array_size (json_object_get (json_array_get (pcs, i), "samples"));
      k = m < k ? m : k;
    }
  for (size_t j = 0; n > 0 && j < k; j++)
    {
      double sum = 0;
      for (size_t i = 0; i < n; i++)
        sum += num_of (json_array_get (json_object_get (json_array_get (pcs, i), "samples"), j),
                       "ops_per_s");
      if (!isfinite (sum))
        continue; /* a null rate (dt 0) says nothing about the spread */
      sum /= (double) n;
      *lo = isfinite (*lo) && *lo < sum ? *lo : sum;
      *hi = isfinite (*hi) && *hi > sum ? *hi : sum;
    }
}

static double
median_finite (double *v, size_t n)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite (v[i]))
      v[m++] = v[i];
  return m ? ucb_median (v, m) : NAN;
}

/* Medians over the repeats of line `l` at x category `xi`. */
static void
fill_cell (const struct input *in, const struct workload *w, struct line *l, size_t xi)
{
  json_t *res = json_object_get (in[l->file].doc, "results"), *r;
  size_t n = json_array_size (res), i, k = 0;
  cleanup_free double *ops = xcalloc (n + 1, sizeof *ops);
  cleanup_free double *scal = xcalloc (n + 1, sizeof *scal);
  cleanup_free double *fair = xcalloc (n + 1, sizeof *fair);

  l->lo[xi] = l->hi[xi] = NAN;
  json_array_foreach (res, i, r)
  {
    json_t *s = json_object_get (r, "summary");
    if (!measured (r) || strcmp (str_of (r, "workload", "?"), w->name) != 0
        || !on_line (r, l->file, l) || int_of (r, "containers", 0) != w->x[xi])
      continue;
    ops[k] = num_of (s, "per_container_ops");
    scal[k] = num_of (s, "scalability");
    fair[k] = num_of (s, "fairness");
    k++;
    sample_range (r, &l->lo[xi], &l->hi[xi]);
  }
  l->reps[xi] = k;
  l->ops[xi] = median_finite (ops, k);
  l->scal[xi] = median_finite (scal, k);
  l->fair[xi] = median_finite (fair, k);
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

static void
collect (const struct input *in, size_t n_in, const char *name, struct workload *w)
{
  memset (w, 0, sizeof *w);
  w->name = name;
  for (size_t f = 0; f < n_in; f++)
    {
      size_t i;
      json_t *r;
      json_array_foreach (json_object_get (in[f].doc, "results"), i, r)
      {
        long long n = int_of (r, "containers", 0);
        size_t j;
        if (!measured (r) || strcmp (str_of (r, "workload", "?"), name) != 0)
          continue;
        for (j = 0; j < w->n_x && w->x[j] != n; j++)
          ;
        if (j == w->n_x)
          {
            w->x = xrealloc (w->x, (w->n_x + 1) * sizeof *w->x);
            w->x[w->n_x++] = n;
          }
        for (j = 0; j < w->n_lines && !on_line (r, f, &w->lines[j]); j++)
          ;
        if (j == w->n_lines)
          {
            w->lines = xrealloc (w->lines, (w->n_lines + 1) * sizeof *w->lines);
            w->lines[w->n_lines++] = (struct line){ .file = f,
                                                    .owner = str_of (r, "owner", "?"),
                                                    .mode = str_of (r, "mode", "process"),
                                                    .depth = int_of (r, "depth", 0),
                                                    .tasks = int_of (r, "tasks", 1) };
          }
      }
    }
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
      for (size_t xi = 0; xi < w->n_x; xi++)
        fill_cell (in, w, l, xi);
      l->label = line_label (w, l, in, n_in);
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
    }
  free (w->lines);
  free (w->x);
}

/* The two charts of a workload; `series` has room for 2 * n_lines, `titles` for 2. */
static void
charts_of (const struct workload *w, struct ucb_series *series, char **titles, struct ucb_chart *c)
{
  for (size_t j = 0; j < w->n_lines; j++)
    {
      const struct line *l = &w->lines[j];
      series[j] = (struct ucb_series){ l->label, l->ops, l->lo, l->hi };
      series[w->n_lines + j] = (struct ucb_series){ l->label, l->scal, NULL, NULL };
    }
  titles[0] = xasprintf ("%s: per-container ops/s", w->name);
  titles[1] = xasprintf ("%s: scalability", w->name);
  c[0] = (struct ucb_chart){ titles[0], BARS_NOTE, "containers (N)", "ops/s per container",
                             w->x,      w->n_x,    series,           w->n_lines,
                             NAN };
  c[1] = (struct ucb_chart){ titles[1],
                             "total ops/s / (N x the 1-container total); dashed: ideal 1.0",
                             "containers (N)",
                             "scalability",
                             w->x,
                             w->n_x,
                             series + w->n_lines,
                             w->n_lines,
                             1.0 };
}

static void
write_svg (FILE *f, const struct workload *ws, size_t n_ws, bool standalone)
{
  size_t n_c = 2 * n_ws, lines = 0;
  for (size_t i = 0; i < n_ws; i++)
    lines += ws[i].n_lines;
  cleanup_free struct ucb_chart *c = xcalloc (n_c, sizeof *c);
  cleanup_free struct ucb_series *s = xcalloc (2 * lines + 1, sizeof *s);
  cleanup_free char **titles = xcalloc (n_c, sizeof *titles);
  double h = 0, y = 0;

  for (size_t i = 0, off = 0; i < n_ws; off += 2 * ws[i].n_lines, i++)
    charts_of (&ws[i], s + off, titles + 2 * i, c + 2 * i);
  for (size_t i = 0; i < n_c; i++)
    h += ucb_svg_chart_height (&c[i]);
  ucb_svg_open (f, h, standalone);
  for (size_t i = 0; i < n_c; i++)
    {
      ucb_svg_chart (f, &c[i], y);
      y += ucb_svg_chart_height (&c[i]);
      free (titles[i]);
    }
  ucb_svg_close (f);
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

/* One cell of the host/config table: row `row` for one input. */
static void
html_cell (FILE *f, const struct input *in, size_t row)
{
  static const char *const lists[] = { "workloads", "containers", "owners", "depths", "tasks" };
  json_t *host = json_object_get (in->doc, "host"), *cfg = json_object_get (in->doc, "config");

  switch (row)
    {
    case 0:
      ucb_xml_puts (f, str_of (json_object_get (host, "kernel"), "release", "unknown"));
      break;
    case 1:
      ucb_xml_puts (f, str_of (host, "cpu_model", "unknown"));
      break;
    case 2:
      fprintf (f, "%lld online, %lld allowed", int_of (host, "cpus_online", -1),
               int_of (host, "cpus_allowed", -1));
      break;
    case 3:
      ucb_xml_puts (f, str_of (host, "virtualization", "unknown"));
      break;
    case 4:
      fprintf (f, "%g s (warm-up %g s, interval %g s), %lld repeat(s)", num_of (cfg, "duration_s"),
               num_of (cfg, "warmup_s"), num_of (cfg, "interval_s"), int_of (cfg, "repeat", 1));
      break;
    default:
      html_list (f, json_object_get (cfg, lists[row - 5]));
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
         "<th>fairness</th></tr>\n",
         f);
  for (size_t i = 0; i < n_ws; i++)
    for (size_t j = 0; j < ws[i].n_lines; j++)
      for (size_t x = 0; x < ws[i].n_x; x++)
        {
          const struct line *l = &ws[i].lines[j];
          char lo[32], hi[32];
          if (l->reps[x] == 0)
            continue;
          ucb_fmt_num (lo, sizeof lo, l->lo[x]);
          ucb_fmt_num (hi, sizeof hi, l->hi[x]);
          fputs ("<tr><td>", f);
          ucb_xml_puts (f, ws[i].name);
          if (n_in > 1)
            {
              fputs ("</td><td>", f);
              ucb_xml_puts (f, in[l->file].base);
            }
          fputs ("</td><td>", f);
          ucb_xml_puts (f, l->owner);
          fprintf (f,
                   "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%zu</td><td>%.0f</td>"
                   "<td>%s-%s</td><td>%.3f</td><td>%.3f</td></tr>\n",
                   l->depth, l->tasks, ws[i].x[x], l->reps[x], l->ops[x], lo, hi, l->scal[x],
                   l->fair[x]);
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
         "svg { max-width: 100%; height: auto; }\n"
         "</style>\n</head>\n<body>\n<h1>ucbench report</h1>\n",
         f);
  html_inputs (f, in, n_in);
  write_svg (f, ws, n_ws, false);
  html_table (f, ws, n_ws, in, n_in);
  fputs ("</body>\n</html>\n", f);
}

static int
parse (int argc, char **argv, const char **output, bool *help, ucb_error_t *err)
{
  static const struct option longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  *output = NULL;
  *help = false;
  optind = 0;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":ho:", longopts, NULL)) != -1)
    switch (c)
      {
      case 'o':
        *output = optarg;
        break;
      case 'h':
        *help = true;
        return 0;
      case ':':
      case '?':
      default:
        return ucb_getopt_error (c, argv, err);
      }
  if (argc - optind < 1)
    return ucb_usage_error (err, "plot needs at least one result document (FILE.json)");
  if (*output == NULL)
    return ucb_usage_error (err, "plot needs --output REPORT.html or CHART.svg");
  return 0;
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
      size_t j;
      json_t *r;
      bool any = false;
      cleanup_free char *copy = xstrdup (paths[i]);

      in[i].path = paths[i];
      in[i].base = xstrdup (basename (copy));
      if (ucb_doc_load (paths[i], &in[i].doc, err) < 0)
        return -1;
      json_array_foreach (json_object_get (in[i].doc, "results"), j, r) any = any || measured (r);
      if (!any)
        return ucb_usage_error (err, "%s: no measured results to plot (a verify-only document?)",
                                paths[i]);
    }
  return 0;
}

static int
write_output (const char *path, bool html, const struct workload *ws, size_t n_ws,
              const struct input *in, size_t n_in, ucb_error_t *err)
{
  FILE *f = fopen (path, "we");
  int bad;

  if (f == NULL)
    return ucb_make_error (err, errno, "cannot open `%s`", path);
  if (html)
    write_html (f, ws, n_ws, in, n_in);
  else
    write_svg (f, ws, n_ws, true);
  bad = ferror (f);
  if (fclose (f) != 0 || bad)
    return ucb_make_error (err, bad ? EIO : errno, "cannot write `%s`", path);
  return 0;
}

int
ucb_cmd_plot (int argc, char **argv, ucb_error_t *err)
{
  const char *output;
  bool help, html = false;
  size_t n_in, n_ws = 0;
  struct input *in;
  struct workload *ws = NULL;
  int ret = -1;

  if (parse (argc, argv, &output, &help, err) < 0)
    return -1;
  if (help)
    {
      fputs (ucb_plot_usage, stdout);
      return 0;
    }
  if (output_is_html (output, &html, err) < 0)
    return -1;
  n_in = (size_t) (argc - optind);
  in = xcalloc (n_in, sizeof *in);
  if (load_inputs (argv + optind, n_in, in, err) < 0)
    goto out;
  /* Workloads in the order they first appear, over all files. */
  for (size_t f = 0; f < n_in; f++)
    {
      size_t i, k;
      json_t *r;
      json_array_foreach (json_object_get (in[f].doc, "results"), i, r)
      {
        const char *name = str_of (r, "workload", "?");
        if (!measured (r))
          continue;
        for (k = 0; k < n_ws && strcmp (ws[k].name, name) != 0; k++)
          ;
        if (k < n_ws)
          continue;
        ws = xrealloc (ws, (n_ws + 1) * sizeof *ws);
        collect (in, n_in, name, &ws[n_ws++]);
      }
    }
  ret = write_output (output, html, ws, n_ws, in, n_in, err);
out:
  for (size_t k = 0; k < n_ws; k++)
    workload_free (&ws[k]);
  free (ws);
  for (size_t i = 0; i < n_in; i++)
    {
      json_decref (in[i].doc);
      free (in[i].base);
    }
  free (in);
  return ret;
}
