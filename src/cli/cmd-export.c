/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-export.c - `ucbench export --to FORMAT FILE.json`: the options; the formats are
 * report/export.c. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/lists.h"
#include "core/process.h"
#include "core/util.h"
#include "report/export/export.h"
#include "report/output.h"

/* Its help's head and tail; the rows between them are EXPORT_OPTIONS (--to's help is a row per
 * format). */
#define EXPORT_HEAD                                                                                \
  "Usage: ucbench export --to FORMAT FILE.json [--output OUT] [--origin NAME]\n"                   \
  "Convert a ucbench-result/1 document for a CI dashboard or test reporter.\n"
#define EXPORT_TAIL                                                                                \
  "\n"                                                                                             \
  "Benchmark names: WORKLOAD/OWNER/depth:D/tasks:T/MODE/containers:N, the same with\n"             \
  "and without --repeat: one series per point, its value the median over the\n"                    \
  "repeats.  Only measured points (status ok) are exported (kcidb: the others as\n"                \
  "SKIP or ERROR).  What a verdict or a flagged point becomes in each format:\n"                   \
  "docs/exporters.md.\n"                                                                           \
  "\n"                                                                                             \
  "Exit status: 0 on success, 1 when writing OUT failed midway (e.g. a full disk),\n"              \
  "2 for bad usage, an OUT that cannot be written, or a document without what\n"                   \
  "FORMAT needs.\n"

#define EXPORT_OPTIONS(OPT, TEXT)                                                                  \
  OPT (TO, "to", 't', REQUIRED, "FORMAT", NULL)                                                    \
  TEXT ("--to gab", "github-action-benchmark customBiggerIsBetter: per-container\n"                \
                    "ops/s; range = half the spread of the repeats, or the stddev\n"               \
                    "across containers (of the samples for 1 container)")                          \
  TEXT ("--to gab-smaller", "github-action-benchmark customSmallerIsBetter: CPU ns/op")            \
  TEXT ("--to bmf", "Bencher Metric Format: throughput (ops/s) and cpu_ns_per_op,\n"               \
                    "each with min/max over the repeats (across containers\n"                      \
                    "without)")                                                                    \
  TEXT ("--to gbench", "Google Benchmark JSON: a row per repeat,\n"                                \
                       "_mean/_median/_stddev/_cv aggregates with repeats; real_time\n"            \
                       "= 1e9 / total ops/s")                                                      \
  TEXT ("--to lkp", "what lkp-tests' programs/ucbench/parse prints\n"                              \
                    "(will-it-scale's key names; see examples/lkp)")                               \
  TEXT ("--to junit", "JUnit XML of the verify verdicts (junit-10.xsd)")                           \
  TEXT ("--to ktap", "KTAP of the verify verdicts")                                                \
  TEXT ("--to kcidb", "KernelCI KCIDB I/O schema v5.3: a test per verify case and\n"               \
                      "per metric; a known kernel bug as FAIL with an incident of\n"               \
                      "its issue")                                                                 \
  TEXT ("--to lava", "the lava-test-case calls of examples/lava, one a line")                      \
  OPT (ORIGIN, "origin", 0, REQUIRED, "NAME",                                                      \
       "KCIDB origin and id prefix (default: ucbench; [a-z0-9_]+)")                                \
  OPT (OUTPUT, "output", 'o', REQUIRED, "OUT",                                                     \
       "write to OUT instead of stdout (JSON formats atomically)")                                 \
  TEXT ("-t FORMAT", "the same as --to FORMAT")                                                    \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")

UCB_OPT_TABLE (ucb_export_opts, EXPORT_OPTIONS, false, 20, EXPORT_HEAD, EXPORT_TAIL);

struct xopts
{
  enum ucb_export_format format;
  bool have_format;
  const char *output, *input;
  struct ucb_export_opts x;
};

static int
export_opt (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  struct xopts *o = ctx;
  int k;

  switch (id)
    {
    case OPT_TO:
      k = ucb_name_index (ucb_export_format_names, UCB_EXPORT_N, arg);
      o->have_format = k >= 0;
      if (!o->have_format)
        return ucb_keyword_error (err, "invalid --to", arg, ucb_export_format_names, UCB_EXPORT_N,
                                  NULL);
      o->format = (enum ucb_export_format) k;
      return 0;
    case OPT_ORIGIN:
      o->x.origin = arg;
      return ucb_export_check_origin (arg, err);
    case OPT_OUTPUT:
      o->output = arg;
      return 0;
    default:
      return 1;
    }
}

static int
parse (struct xopts *o, int argc, char **argv, ucb_error_t *err)
{
  int r;

  memset (o, 0, sizeof *o);
  r = ucb_getopt_command (argc, argv, &ucb_export_opts, export_opt, o, err);
  if (r != 0)
    return r;
  if (!o->have_format)
    return ucb_usage_error (err, "export needs --to FORMAT (%s)", ucb_export_format_list);
  if (o->x.origin && o->format != UCB_EXPORT_KCIDB)
    return ucb_usage_error (err, "--origin is for --to kcidb only");
  if (argc - optind != 1)
    return ucb_usage_error (err, "export needs exactly one document FILE.json (got %d)",
                            argc - optind);
  o->input = argv[optind];
  return 0;
}

int
ucb_cmd_export (int argc, char **argv, ucb_error_t *err)
{
  struct xopts o;
  int r;

  r = parse (&o, argc, argv, err);
  if (r != 0)
    return r < 0 ? -1 : 0; /* 1: the help was shown */
  /* A path that cannot be written is the user's to change (2), found before any work. */
  if (o.output && ucb_report_check_output (o.output, err) < 0)
    return -1;
  r = ucb_export (o.format, o.input, o.output, &o.x, err);
  /* The writer finished (or left alone) the output first (output.c). */
  return ucb_interrupted_status (r, ": the output was written first", err);
}
