/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg.h - line charts as SVG text, drawn by ucbench itself (no plotting program needed). */
#ifndef UCB_SVG_H
#define UCB_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One line of a chart: a value per x category; NaN where the series has no point. */
struct ucb_series
{
  const char *label;
  const double *y;
  const double *lo, *hi; /* error bar ends per category, or NULL for no bars */
  /* Per category: why the point is not clean data, drawn hollow with this in its tooltip;
   * NULL (or "") where it is clean; the array NULL when none is. */
  char *const *flags;
};

struct ucb_chart
{
  const char *title, *note, *x_label, *y_label; /* note: a grey subtitle, or NULL */
  const long long *x;                           /* categories (container counts), ascending */
  size_t n_x;
  const struct ucb_series *series;
  size_t n_series;
  double ref; /* a dashed horizontal reference line (ideal scalability 1.0), or NaN */
  /* The legend entry of a hollow marker (what makes a point not clean data), or NULL when no
   * point of the chart is flagged. */
  const char *flagged;
};

#define UCB_SVG_WIDTH 960

/* Height that ucb_svg_chart() uses for `c` (more series need a taller legend). */
double ucb_svg_chart_height (const struct ucb_chart *c);
/* `<svg>` start tag; `xml_decl` for a standalone file, false when inlined into HTML. */
void ucb_svg_open (FILE *f, double height, bool xml_decl);
/* Draw `c` with its top edge at `y0`. */
void ucb_svg_chart (FILE *f, const struct ucb_chart *c, double y0);
/* Footnotes under the charts: a "Notes" heading, then each of `notes` wrapped at word
 * boundaries to the width; the height they take (0 for none), and drawing them at `y0`. */
double ucb_svg_notes_height (char *const *notes, size_t n);
void ucb_svg_notes (FILE *f, char *const *notes, size_t n, double y0);
void ucb_svg_close (FILE *f);

/* A short readable number: 240k, 1.25M, 0.5; "-" for NaN. */
void ucb_fmt_num (char *buf, size_t len, double v);

#endif
