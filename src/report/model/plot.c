/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.c - the model's chart: per series, per-container ops/s against N on a log2 axis:
 * every repeat used (dots) and left out (hollow), the fitted curve, the 95 % band of the curve
 * (the profile interval at each N drawn), the predictions with their intervals.  The axes are
 * drawn here (svg.c's charts have categories, not a continuous N). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "report/model/parts.h"
#include "report/svg.h"

#define LEFT 80.0
#define TOP 64.0
#define PLOT_W 600.0
#define PLOT_H 260.0
#define HEIGHT (TOP + PLOT_H + 60.0)
#define BAND_STEPS 48
#define COLOUR "#4e79a7"
#define PRED_COLOUR "#f28e2b"

struct frame
{
  double y0, xmax, top; /* chart's top edge; largest N on the axis; largest ops/s */
};

static double
px (const struct frame *fr, double n)
{
  return LEFT + PLOT_W * log2 (n) / log2 (fr->xmax);
}

/* The y of `v`, kept inside the plot (a band that leaves it is clipped at its edge). */
static double
py (const struct frame *fr, double v)
{
  double y = fr->y0 + TOP + PLOT_H - PLOT_H * v / fr->top;
  return y < fr->y0 + TOP ? fr->y0 + TOP : y;
}

static void
axes (FILE *f, const struct frame *fr, const char *title, const char *note)
{
  double bottom = fr->y0 + TOP + PLOT_H, step;
  char num[32];

  fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"16\" font-weight=\"bold\">", LEFT,
           fr->y0 + 24);
  ucb_xml_puts (f, title);
  fprintf (f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", LEFT, fr->y0 + 44);
  ucb_xml_puts (f, note);
  fputs ("</text>\n", f);
  step = pow (10, floor (log10 (fr->top / 5)));
  step *= fr->top / step > 25 ? 5 : fr->top / step > 10 ? 2 : 1;
  for (double v = 0; v <= fr->top * (1 + 1e-9); v += step)
    {
      ucb_fmt_num (num, sizeof num, v);
      fprintf (f,
               "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
               LEFT, LEFT + PLOT_W, py (fr, v), py (fr, v), LEFT - 6, py (fr, v) + 4, num);
    }
  for (double n = 1; n <= fr->xmax * (1 + 1e-9); n *= 2)
    fprintf (f,
             "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n"
             "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
             px (fr, n), px (fr, n), bottom, bottom + 5, px (fr, n), bottom + 19, n);
  fprintf (f,
           "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#333\"/>\n"
           "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">containers (N, log scale)</text>\n"
           "<text transform=\"rotate(-90 18 %.1f)\" x=\"18\" y=\"%.1f\" "
           "text-anchor=\"middle\">ops/s per container</text>\n",
           LEFT, fr->y0 + TOP, bottom, LEFT + PLOT_W, LEFT + PLOT_W / 2, bottom + 42,
           fr->y0 + TOP + PLOT_H / 2, fr->y0 + TOP + PLOT_H / 2);
}

/* The band (the curve's 95 % interval at each N) as one closed path, and the curve. */
static void
curve (FILE *f, const struct frame *fr, const struct ucb_usl_fit *fit)
{
  struct ucb_usl_pred p[BAND_STEPS + 1];

  for (size_t i = 0; i <= BAND_STEPS; i++)
    ucb_usl_predict (fit, pow (fr->xmax, (double) i / BAND_STEPS), &p[i]);
  fputs ("<path class=\"band\" fill=\"" COLOUR "\" fill-opacity=\"0.18\" stroke=\"none\" d=\"", f);
  for (size_t i = 0; i <= BAND_STEPS; i++)
    fprintf (f, "%s%.1f %.1f", i ? "L" : "M", px (fr, p[i].n),
             py (fr, isfinite (p[i].x.hi) ? p[i].x.hi : fr->top));
  for (size_t i = BAND_STEPS + 1; i-- > 0;)
    fprintf (f, "L%.1f %.1f", px (fr, p[i].n), py (fr, p[i].x.lo));
  fputs ("Z\"/>\n<polyline class=\"fit\" fill=\"none\" stroke=\"" COLOUR
         "\" stroke-width=\"2\" points=\"",
         f);
  for (size_t i = 0; i <= BAND_STEPS; i++)
    fprintf (f, "%.1f,%.1f ", px (fr, p[i].n), py (fr, p[i].x.est));
  fputs ("\"/>\n", f);
}

static void
dots (FILE *f, const struct frame *fr, const struct ucb_usl_series *s)
{
  char num[32];

  for (size_t i = 0; i < s->m; i++)
    {
      ucb_fmt_num (num, sizeof num, s->x[i]);
      fprintf (f,
               "<circle class=\"used\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"" COLOUR "\">"
               "<title>N=%.0f: %s</title></circle>\n",
               px (fr, s->n[i]), py (fr, s->x[i]), s->n[i], num);
    }
  for (size_t i = 0; i < s->n_left; i++)
    {
      fprintf (f,
               "<circle class=\"left-out\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" "
               "stroke=\"#888\" stroke-width=\"2\"><title>N=%lld repeat %lld, left out: ",
               px (fr, (double) s->left[i].containers), fr->y0 + TOP + PLOT_H - 6,
               s->left[i].containers, s->left[i].repeat);
      ucb_xml_puts (f, s->left[i].why);
      fputs ("</title></circle>\n", f);
    }
}

/* Whether the prediction at n is drawn (not refused: usl-doc.h). */
static bool
drawn (const struct ucb_usl_series *s, unsigned n)
{
  cleanup_free char *why = ucb_usl_prediction_refusal (s, n);
  return why == NULL;
}

static void
predictions (FILE *f, const struct frame *fr, const struct ucb_usl_series *s, const unsigned *pred,
             size_t n_pred)
{
  char num[32];

  for (size_t k = 0; k < n_pred; k++)
    {
      struct ucb_usl_pred p;
      double x;

      if (!drawn (s, pred[k]))
        continue;
      ucb_usl_predict (&s->fit, pred[k], &p);
      x = px (fr, pred[k]);
      ucb_fmt_num (num, sizeof num, p.x.est);
      fprintf (f,
               "<g class=\"prediction\"><path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
               "stroke=\"" PRED_COLOUR "\" stroke-width=\"2\"/>"
               "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"" PRED_COLOUR "\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"" PRED_COLOUR "\">"
               "N=%u: %s</text></g>\n",
               x, py (fr, p.x.lo), py (fr, isfinite (p.x.hi) ? p.x.hi : fr->top), x - 5,
               py (fr, p.x.lo), x + 5, x - 5, py (fr, isfinite (p.x.hi) ? p.x.hi : fr->top), x + 5,
               x, py (fr, p.x.est), x - 8, py (fr, p.x.est) - 8, pred[k], num);
    }
}

static void
legend (FILE *f, const struct frame *fr, bool fitted)
{
  static const char *const rows[]
      = { "a repeat used", "a repeat left out (at the bottom)", "the fitted USL",
          "its 95% interval", "a prediction, 95% interval" };
  double lx = LEFT + PLOT_W + 30;

  for (size_t r = 0; r < UCB_ARRAY_SIZE (rows) && (fitted || r < 2); r++)
    {
      double y = fr->y0 + TOP + 8 + 20.0 * (double) r;
      if (r == 0 || r == 4)
        fprintf (f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", lx + 12, y,
                 r ? PRED_COLOUR : COLOUR);
      else if (r == 1)
        fprintf (f,
                 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"#888\" "
                 "stroke-width=\"2\"/>",
                 lx + 12, y);
      else
        fprintf (
            f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"%s\" fill=\"" COLOUR "\"%s/>", lx,
            y - (r == 2 ? 1.5 : 6), r == 2 ? "3" : "12", r == 2 ? "" : " fill-opacity=\"0.18\"");
      fprintf (f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", lx + 30, y + 4, rows[r]);
    }
}

/* The frame of series `s`: N up to the largest measured or predicted, ops/s up to the largest
 * observation or lambda's interval, with a margin. */
static struct frame
frame_of (const struct ucb_usl_series *s, const unsigned *pred, size_t n_pred, double y0)
{
  struct frame fr = { y0, 2, 0 };

  for (size_t i = 0; i < s->m; i++)
    {
      fr.xmax = s->n[i] > fr.xmax ? s->n[i] : fr.xmax;
      fr.top = s->x[i] > fr.top ? s->x[i] : fr.top;
    }
  for (size_t i = 0; i < s->n_left; i++)
    fr.xmax = (double) s->left[i].containers > fr.xmax ? (double) s->left[i].containers : fr.xmax;
  for (size_t k = 0; k < n_pred && s->status == UCB_USL_OK; k++)
    fr.xmax = pred[k] > fr.xmax && drawn (s, pred[k]) ? pred[k] : fr.xmax;
  if (s->status == UCB_USL_OK && isfinite (s->fit.lambda.hi) && s->fit.lambda.hi > fr.top)
    fr.top = s->fit.lambda.hi;
  fr.xmax = pow (2, ceil (log2 (fr.xmax)));
  fr.top = fr.top > 0 ? fr.top * 1.1 : 1;
  return fr;
}

void
ucb_usl_plot_svg (FILE *f, const struct ucb_usl_model *m, const unsigned *pred, size_t n_pred,
                  const char *name)
{
  cleanup_free char **notes = xcalloc (m->n + 1, sizeof *notes);
  size_t n_notes = 0;

  for (size_t i = 0; i < m->n; i++)
    if (m->s[i].reason)
      {
        cleanup_free char *title = ucb_usl_series_name (&m->s[i]);
        notes[n_notes++] = xasprintf ("%s: refused: %s", title, m->s[i].reason);
      }
  if (m->n == 0)
    notes[n_notes++] = xstrdup ("no series in the document");
  ucb_svg_open (f, HEIGHT * (double) m->n + ucb_svg_notes_height (notes, n_notes), true);
  for (size_t i = 0; i < m->n; i++)
    {
      const struct ucb_usl_series *s = &m->s[i];
      struct frame fr = frame_of (s, pred, n_pred, HEIGHT * (double) i);
      cleanup_free char *title = ucb_usl_series_name (s);
      cleanup_free char *note
          = s->status == UCB_USL_OK
                ? xasprintf ("%s: lambda %.4g, sigma %.3g, kappa %.3g; residual %.1f%%", name,
                             s->fit.lambda.est, s->fit.sigma.est, s->fit.kappa.est,
                             100 * expm1 (s->fit.s))
                : xasprintf ("%s: not fitted (see the notes below)", name);

      axes (f, &fr, title, note);
      if (s->status == UCB_USL_OK)
        curve (f, &fr, &s->fit);
      dots (f, &fr, s);
      if (s->status == UCB_USL_OK)
        predictions (f, &fr, s, pred, n_pred);
      legend (f, &fr, s->status == UCB_USL_OK);
    }
  ucb_svg_notes (f, notes, n_notes, HEIGHT * (double) m->n);
  for (size_t i = 0; i < n_notes; i++)
    free (notes[i]);
  ucb_svg_close (f);
}
