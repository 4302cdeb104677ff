/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.c - line charts as SVG text: axes, ticks, error bars, legend; every string escaped. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "report/svg.h"

#define LEFT 80.0    /* room for the y tick labels and the rotated y label */
#define TOP 64.0     /* title and note */
#define PLOT_W 560.0 /* the legend takes the rest of UCB_SVG_WIDTH, on the right */
#define PLOT_H 260.0
#define BOTTOM 56.0 /* x tick labels and x label */
#define LEGEND_ROW 20.0
#define PAD 30.0 /* keeps the first and last category off the axes */

/* Tableau 10: distinct, and still tellable apart by most colour-blind readers. */
static const char *const palette[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };
#define N_PALETTE (sizeof palette / sizeof palette[0])

void
ucb_fmt_num (char *buf, size_t len, double v)
{
  static const struct
  {
    double scale;
    const char *suffix;
  } units[] = { { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };

  if (!isfinite (v))
    {
      snprintf (buf, len, "-");
      return;
    }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (fabs (v) >= units[i].scale)
      {
        snprintf (buf, len, "%.3g%s", v / units[i].scale, units[i].suffix);
        return;
      }
  snprintf (buf, len, "%.3g", v);
}

/* 1, 2 or 5 times a power of ten, at least `x`: tick steps a reader can add up. */
static double
nice_step (double x)
{
  double p = pow (10, floor (log10 (x))), m = x / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* Text does not wrap in SVG: lines of at most this many bytes (about 6.5 px a character of a
 * 12 px sans-serif) for the footnotes and for the legend's room right of the plot. */
#define NOTE_CHARS 140
#define LEGEND_CHARS 40

/* The length of the line that starts at `s`: up to `max` bytes, cut after a space when there is
 * one, after a comma else, never inside a UTF-8 character.  It looks at no more than max + 1
 * bytes: wrapping a note is linear in its length, not quadratic. */
static size_t
wrap_line (const char *s, size_t max)
{
  size_t n = strnlen (s, max + 1), cut;

  if (n <= max)
    return n;
  for (cut = max; cut > 0 && s[cut - 1] != ' '; cut--)
    ;
  for (size_t c = max; cut == 0 && c > 0; c--)
    if (s[c - 1] == ',')
      cut = c;
  if (cut == 0)
    for (cut = max; cut > 1 && ((unsigned char) s[cut] & 0xc0) == 0x80; cut--)
      ;
  return cut;
}

static size_t
wrapped_lines (const char *s, size_t max)
{
  size_t n = 0;
  do
    {
      s += wrap_line (s, max);
      n++;
    }
  while (*s);
  return n;
}

double
ucb_svg_chart_height (const struct ucb_chart *c)
{
  double plot = TOP + PLOT_H + BOTTOM;
  size_t rows = c->n_series + (c->flagged ? wrapped_lines (c->flagged, LEGEND_CHARS) : 0);
  double legend = TOP + LEGEND_ROW * (double) rows + 20;
  return plot > legend ? plot : legend;
}

void
ucb_svg_open (FILE *f, double height, bool xml_decl)
{
  if (xml_decl)
    fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf (f,
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
           "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
           "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
           UCB_SVG_WIDTH, height, UCB_SVG_WIDTH, height);
}

void
ucb_svg_close (FILE *f)
{
  fputs ("</svg>\n", f);
}

static double
y_max (const struct ucb_chart *c)
{
  double m = isfinite (c->ref) ? c->ref : 0;
  for (size_t s = 0; s < c->n_series; s++)
    for (size_t i = 0; i < c->n_x; i++)
      {
        const struct ucb_series *se = &c->series[s];
        double v = se->hi && isfinite (se->hi[i]) ? se->hi[i] : se->y[i];
        if (isfinite (v) && v > m)
          m = v;
        if (isfinite (se->y[i]) && se->y[i] > m)
          m = se->y[i];
      }
  return m > 0 ? m : 1;
}

static double
x_at (const struct ucb_chart *c, size_t i)
{
  if (c->n_x < 2)
    return LEFT + PLOT_W / 2;
  return LEFT + PAD + (PLOT_W - 2 * PAD) * (double) i / (double) (c->n_x - 1);
}

static void
draw_axes (FILE *f, const struct ucb_chart *c, double y0, double top, double step)
{
  double bottom = y0 + TOP + PLOT_H;
  char num[32];

  fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"16\" font-weight=\"bold\">", LEFT, y0 + 24);
  ucb_xml_puts (f, c->title);
  fputs ("</text>\n", f);
  if (c->note)
    {
      fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", LEFT, y0 + 44);
      ucb_xml_puts (f, c->note);
      fputs ("</text>\n", f);
    }
  /* Horizontal grid lines with their tick labels; lround keeps 0.1 + 0.2 from adding a tick. */
  for (long k = 0, n = lround (top / step); k <= n; k++)
    {
      double v = (double) k * step, y = bottom - PLOT_H * v / top;
      ucb_fmt_num (num, sizeof num, v);
      fprintf (f,
               "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
               LEFT, LEFT + PLOT_W, y, y, LEFT - 6, y + 4, num);
    }
  for (size_t i = 0; i < c->n_x; i++)
    fprintf (f,
             "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n"
             "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>\n",
             x_at (c, i), x_at (c, i), bottom, bottom + 5, x_at (c, i), bottom + 19, c->x[i]);
  fprintf (f,
           "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#333\"/>\n"
           "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
           LEFT, y0 + TOP, bottom, LEFT + PLOT_W, LEFT + PLOT_W / 2, bottom + 42);
  ucb_xml_puts (f, c->x_label);
  fprintf (f,
           "</text>\n<text transform=\"rotate(-90 %.1f %.1f)\" x=\"%.1f\" y=\"%.1f\" "
           "text-anchor=\"middle\">",
           18.0, y0 + TOP + PLOT_H / 2, 18.0, y0 + TOP + PLOT_H / 2);
  ucb_xml_puts (f, c->y_label);
  fputs ("</text>\n", f);
  if (isfinite (c->ref))
    {
      double y = bottom - PLOT_H * c->ref / top;
      fprintf (f,
               "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
               "stroke-dasharray=\"6 4\"/>\n",
               LEFT, LEFT + PLOT_W, y, y);
    }
}

static void
draw_series (FILE *f, const struct ucb_chart *c, size_t s, double y0, double top)
{
  const struct ucb_series *se = &c->series[s];
  const char *col = palette[s % N_PALETTE];
  double bottom = y0 + TOP + PLOT_H;
  /* Past ten series the colours repeat; a dash pattern keeps the lines apart. */
  const char *dash = s >= N_PALETTE ? " stroke-dasharray=\"5 3\"" : "";
  char num[32];

  fputs ("<g class=\"series\"><title>", f);
  ucb_xml_puts (f, se->label);
  fprintf (f, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col,
           dash);
  for (size_t i = 0; i < c->n_x; i++)
    if (isfinite (se->y[i]))
      fprintf (f, "%.1f,%.1f ", x_at (c, i), bottom - PLOT_H * se->y[i] / top);
  fputs ("\"/>\n", f);
  for (size_t i = 0; i < c->n_x; i++)
    {
      double x = x_at (c, i);
      if (!isfinite (se->y[i]))
        continue;
      if (se->lo && se->hi && isfinite (se->lo[i]) && isfinite (se->hi[i]))
        {
          double a = bottom - PLOT_H * se->lo[i] / top, b = bottom - PLOT_H * se->hi[i] / top;
          fprintf (f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\"/>\n",
                   x, a, b, x - 4, a, x + 4, x - 4, b, x + 4, col);
        }
      ucb_fmt_num (num, sizeof num, se->y[i]);
      if (se->flags && se->flags[i] && *se->flags[i])
        {
          /* Hollow: the median of repeats that ucbench says are not clean data. */
          fprintf (f,
                   "<circle class=\"flagged\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" "
                   "stroke=\"%s\" stroke-width=\"2\"><title>N=%lld: %s, flagged: ",
                   x, bottom - PLOT_H * se->y[i] / top, col, c->x[i], num);
          ucb_xml_puts (f, se->flags[i]);
          fputs ("</title></circle>\n", f);
        }
      else
        fprintf (f,
                 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>N=%lld: %s</title>"
                 "</circle>\n",
                 x, bottom - PLOT_H * se->y[i] / top, col, c->x[i], num);
    }
  fputs ("</g>\n", f);
}

void
ucb_svg_chart (FILE *f, const struct ucb_chart *c, double y0)
{
  double step = nice_step (y_max (c) / 5), top = ceil (y_max (c) / step) * step;
  double lx = LEFT + PLOT_W + 30;

  draw_axes (f, c, y0, top, step);
  for (size_t s = 0; s < c->n_series; s++)
    draw_series (f, c, s, y0, top);
  for (size_t s = 0; s < c->n_series; s++)
    {
      double y = y0 + TOP + 8 + LEGEND_ROW * (double) s;
      fprintf (f,
               "<g class=\"legend\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"%s\" stroke-width=\"3\"%s/><text x=\"%.1f\" y=\"%.1f\">",
               lx, lx + 24, y, y, palette[s % N_PALETTE],
               s >= N_PALETTE ? " stroke-dasharray=\"5 3\"" : "", lx + 30, y + 4);
      ucb_xml_puts (f, c->series[s].label);
      fputs ("</text></g>\n", f);
    }
  if (c->flagged)
    {
      double y = y0 + TOP + 8 + LEGEND_ROW * (double) c->n_series;
      fprintf (f,
               "<g class=\"legend flagged\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
               "fill=\"white\" stroke=\"#555\" stroke-width=\"2\"/>",
               lx + 12, y);
      for (const char *s = c->flagged; *s; y += LEGEND_ROW)
        {
          size_t len = wrap_line (s, LEGEND_CHARS);
          cleanup_free char *line = xasprintf ("%.*s", (int) len, s);

          fprintf (f, "<text x=\"%.1f\" y=\"%.1f\">", lx + 30, y + 4);
          ucb_xml_puts (f, line);
          fputs ("</text>", f);
          s += len;
        }
      fputs ("</g>\n", f);
    }
}

/* ---- notes ---------------------------------------------------------------------------------- */

#define NOTE_ROW 16.0
#define NOTE_HEAD 40.0 /* the heading, and room under it */

double
ucb_svg_notes_height (char *const *notes, size_t n)
{
  size_t lines = 0;

  for (size_t i = 0; i < n; i++)
    lines += wrapped_lines (notes[i], NOTE_CHARS);
  return n ? NOTE_HEAD + NOTE_ROW * (double) lines + 12 : 0;
}

void
ucb_svg_notes (FILE *f, char *const *notes, size_t n, double y0)
{
  double y = y0 + NOTE_HEAD;

  if (n == 0)
    return;
  fprintf (f,
           "<g class=\"notes\"><text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" "
           "font-weight=\"bold\">Notes</text>\n",
           LEFT, y0 + 18);
  for (size_t i = 0; i < n; i++)
    for (const char *s = notes[i]; *s; y += NOTE_ROW)
      {
        size_t len = wrap_line (s, NOTE_CHARS);
        cleanup_free char *line = xasprintf ("%.*s", (int) len, s);

        fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", s == notes[i] ? LEFT : LEFT + 12,
                 y);
        ucb_xml_puts (f, line);
        fputs ("</text>\n", f);
        s += len;
      }
  fputs ("</g>\n", f);
}
