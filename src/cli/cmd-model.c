/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-model.c - `ucbench model FILE [--predict N,...]`: the options; FILE's forms are
 * report/model-table.c, the model report/usl-report.c, its statistics docs/statistics.md. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/process.h"
#include "core/util.h"
#include "report/output.h"
#include "report/model/model.h"

#define MAX_PREDICT 1000000u

/* Its help's head and tail; the rows between them are MODEL_OPTIONS. */
#define MODEL_HEAD                                                                                 \
  "Usage: ucbench model FILE [--predict N[,N...]] [-f text|json] [-o OUT]\n"                       \
  "       [--plot CHART.svg]\n"                                                                    \
  "Fit Gunther's Universal Scalability Law to each series (workload, owner, depth,\n"              \
  "tasks, mode) of a `ucbench run` document, or to your own numbers: per container\n"              \
  "  X(N) = lambda / (1 + sigma (N-1) + kappa N (N-1))\n"                                          \
  "lambda: ops/s of one container alone; sigma: contention (a serialised share);\n"                \
  "kappa: coherency (a cache line bounced between the N containers).  Least\n"                     \
  "squares on the log of every repeat's per-container ops/s, sigma and kappa >= 0,\n"              \
  "each with a 95% profile likelihood interval; the residual, and the measured\n"                  \
  "against the fitted ops/s.  Only repeats whose tasks each had a CPU of their own\n"              \
  "are used (not contended, not starved, N x tasks within the CPUs); a series with\n"              \
  "fewer than 3 such container counts, or too few repeats to measure the noise, is\n"              \
  "refused with the reason.  FILE, told apart by its content:\n"                                   \
  "  a `ucbench run` JSON document;\n"                                                             \
  "  a table: per line N, ops/s per container and optionally the repeat, separated\n"              \
  "    by commas or blanks; a header line and `#` comments allowed; rows of one N\n"               \
  "    without a repeat column are its repeats;\n"                                                 \
  "  will-it-scale's runtest.py output (tasks,processes,...,linear): each task a\n"                \
  "    container, its ops/s processes / tasks; concatenated runs are repeats.\n"                   \
  "See docs/statistics.md (installed in /usr/share/doc/ucbench/docs/).\n"
#define MODEL_TAIL                                                                                 \
  "\n"                                                                                             \
  "Exit status: 0 every series fitted, 1 a series refused (the reason is printed)\n"               \
  "or an output write failed midway, 2 bad input.\n"

#define MODEL_OPTIONS(OPT, TEXT)                                                                   \
  OPT (PREDICT, "predict", 0, REQUIRED, "N[,N...]",                                                \
       "also predict per-container ops/s and the scale\n"                                          \
       "X(N)/lambda at these container counts, each with its 95%\n"                                \
       "interval (beyond the largest N measured it extrapolates,\n"                                \
       "and says so; it is refused when the lack-of-fit test\n"                                    \
       "rejects the law's shape)")                                                                 \
  OPT (PLOT, "plot", 0, REQUIRED, "CHART.svg",                                                     \
       "draw each series: the repeats, the fitted curve, its 95%\n"                                \
       "band and the predictions")                                                                 \
  OPT (FORMAT, "format", 'f', REQUIRED, "text|json",                                               \
       "a table, or the ucbench-model/1 JSON (default: text)")                                     \
  OPT (OUTPUT, "output", 'o', REQUIRED, "OUT",                                                     \
       "write the table or JSON to OUT (atomically), not stdout")                                  \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")

UCB_OPT_TABLE (ucb_model_opts, MODEL_OPTIONS, false, 24, MODEL_HEAD, MODEL_TAIL);

struct mopts
{
  struct ucb_model_args a;
  unsigned *predict;
  enum ucb_format format;
};

static int
model_opt (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  struct mopts *o = ctx;

  switch (id)
    {
    case OPT_PREDICT:
      free (o->predict);
      o->predict = NULL;
      return ucb_parse_uint_list (arg, 1, MAX_PREDICT, &o->predict, &o->a.n_predict, "--predict",
                                  err);
    case OPT_PLOT:
      o->a.plot = arg;
      return 0;
    case OPT_FORMAT:
      return ucb_parse_format (arg, &o->format, err);
    case OPT_OUTPUT:
      o->a.output = arg;
      return 0;
    default:
      return 1;
    }
}

static int
parse (struct mopts *o, int argc, char **argv, ucb_error_t *err)
{
  const char *dot;
  int r;

  r = ucb_getopt_command (argc, argv, &ucb_model_opts, model_opt, o, err);
  if (r != 0)
    return r;
  if (argc - optind != 1)
    return ucb_usage_error (err, "model needs exactly one document or table FILE (got %d)",
                            argc - optind);
  o->a.input = argv[optind];
  o->a.json = o->format == UCB_FORMAT_JSON;
  dot = o->a.plot ? strrchr (o->a.plot, '.') : NULL;
  if (o->a.plot && (dot == NULL || strchr (dot, '/') || strcasecmp (dot, ".svg") != 0))
    return ucb_usage_error (err, "--plot `%s`: the chart is SVG, name it .svg", o->a.plot);
  /* A path that cannot be written is the user's to change (2), found before any work. */
  if ((o->a.output && ucb_report_check_output (o->a.output, err) < 0)
      || (o->a.plot && ucb_report_check_output (o->a.plot, err) < 0))
    return -1;
  return 0;
}

int
ucb_cmd_model (int argc, char **argv, ucb_error_t *err)
{
  struct mopts o = { .format = UCB_FORMAT_TEXT };
  int r = parse (&o, argc, argv, err);

  if (r == 0)
    {
      o.a.predict = o.predict;
      r = ucb_model (&o.a, err);
      /* A signal while an output was written (signals are deferred then): that output is
       * whole, and the exit status says the signal (128 + N), as export's does. */
      if (r >= 0 && ucb_interrupted_status (0, ": the output was written first", err) < 0)
        r = -1;
    }
  else if (r > 0)
    r = 0; /* the help was shown */
  free (o.predict);
  return r;
}
