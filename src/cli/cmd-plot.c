/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-plot.c - `ucbench plot FILE.json... --output report.html|chart.svg`: the options; the
 * charts are report/plot.c. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "core/util.h"
#include "report/output.h"
#include "report/plot/plot.h"

/* Its help's head and tail; the rows between them are PLOT_OPTIONS. */
#define PLOT_HEAD                                                                                  \
  "Usage: ucbench plot FILE.json [FILE.json ...] --output REPORT.html|CHART.svg\n"                 \
  "Draw, per workload, the per-container ops/s and the scalability of the measured\n"              \
  "points against the container count: one line per owner mode (and per file when\n"               \
  "several are given).  A marker is the median over repeats; its error bar spans\n"                \
  "the smallest to the largest per-interval per-container rate.  CHART.svg gets all\n"             \
  "charts stacked in one SVG; REPORT.html a self-contained report: host, config,\n"                \
  "the charts and a table of the points.\n"
#define PLOT_TAIL                                                                                  \
  "\n"                                                                                             \
  "Exit status: 0 written, 1 writing the output failed midway (e.g. a full disk),\n"               \
  "2 bad input or an output that cannot be written.\n"

#define PLOT_OPTIONS(OPT, TEXT)                                                                    \
  OPT (OUTPUT, "output", 'o', REQUIRED, "FILE",                                                    \
       "the file to write; its extension (.svg, .html): the format")                               \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")

UCB_OPT_TABLE (ucb_plot_opts, PLOT_OPTIONS, false, 22, PLOT_HEAD, PLOT_TAIL);

static int
parse (int argc, char **argv, const char **output, ucb_error_t *err)
{
  int r;

  *output = NULL;
  /* --output: the one option besides --help */
  r = ucb_getopt_command (argc, argv, &ucb_plot_opts, ucb_opt_store_arg, output, err);
  if (r != 0)
    return r;
  if (argc - optind < 1)
    return ucb_usage_error (err, "plot needs at least one result document (FILE.json)");
  if (*output == NULL)
    return ucb_usage_error (err, "plot needs --output REPORT.html or CHART.svg");
  /* A path that cannot be written is the user's to change (2), found before any work. */
  return ucb_report_check_output (*output, err);
}

int
ucb_cmd_plot (int argc, char **argv, ucb_error_t *err)
{
  const char *output;
  int r = parse (argc, argv, &output, err);

  if (r != 0)
    return r < 0 ? -1 : 0; /* 1: the help was shown */
  return ucb_plot (argv + optind, (size_t) (argc - optind), output, err);
}
