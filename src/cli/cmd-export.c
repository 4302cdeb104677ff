/* cmd-export.c - `ucbench export --to FORMAT FILE.json`: the options; the formats are
 * report/export.c. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/process.h"
#include "core/util.h"
#include "report/export.h"

const char ucb_export_usage[]
    = "Usage: ucbench export --to FORMAT FILE.json [--output OUT]\n"
      "Convert a ucbench-result/1 document for a CI dashboard or test reporter.\n"
      "\n"
      "  --to gab          github-action-benchmark customBiggerIsBetter: per-container ops/s;\n"
      "                    range = stddev across containers (of the samples for 1 container)\n"
      "  --to gab-smaller  github-action-benchmark customSmallerIsBetter: CPU ns/op\n"
      "  --to bmf          Bencher Metric Format: throughput (min/max across containers) and\n"
      "                    latency (CPU ns/op)\n"
      "  --to gbench       Google Benchmark JSON (iteration rows only)\n"
      "  --to lkp          LKP-style `key: value` lines, median over repeats\n"
      "  --to junit        JUnit XML of the verify verdicts\n"
      "  --to ktap         KTAP of the verify verdicts\n"
      "  --output OUT      write to OUT instead of stdout (JSON formats atomically)\n"
      "  -h, --help        show this help\n"
      "\n"
      "Benchmark names: WORKLOAD/OWNER/depth:D/tasks:T/MODE/containers:N, with /repeat:R\n"
      "appended (gab, bmf) when the document has repeats.  Only measured points (status ok)\n"
      "are exported.\n"
      "\n"
      "Exit status: 0 on success, 1 when OUT cannot be written, 2 for bad usage or a document\n"
      "without what FORMAT needs.\n";

struct xopts
{
  enum ucb_export_format format;
  bool have_format, help;
  const char *output, *input;
};

static int
export_opt (void *ctx, int c, const char *arg, ucb_error_t *err)
{
  struct xopts *o = ctx;

  switch (c)
    {
    case 't':
      o->have_format = false;
      for (size_t k = 0; k < UCB_EXPORT_N; k++)
        if (strcmp (arg, ucb_export_format_names[k]) == 0)
          {
            o->format = (enum ucb_export_format) k;
            o->have_format = true;
          }
      if (!o->have_format)
        return ucb_usage_error (err,
                                "invalid --to `%s` (expected gab, gab-smaller, bmf, gbench, "
                                "lkp, junit or ktap)",
                                arg);
      return 0;
    case 'o':
      o->output = arg;
      return 0;
    default:
      return 1;
    }
}

static int
parse (struct xopts *o, int argc, char **argv, ucb_error_t *err)
{
  static const struct option longopts[] = {
    { "to", required_argument, NULL, 't' },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };

  memset (o, 0, sizeof *o);
  if (ucb_getopt_each (argc, argv, "", longopts, export_opt, o, &o->help, err) < 0)
    return -1;
  if (o->help)
    return 0;
  if (!o->have_format)
    return ucb_usage_error (err, "export needs --to FORMAT (gab, gab-smaller, bmf, gbench, lkp, "
                                 "junit or ktap)");
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

  if (parse (&o, argc, argv, err) < 0)
    return -1;
  if (o.help)
    {
      fputs (ucb_export_usage, stdout);
      return 0;
    }
  r = ucb_export (o.format, o.input, o.output, err);
  if (ucb_interrupted ())
    {
      /* The writer finished (or left alone) the output first (report.c): end as interrupted. */
      if (r == 0)
        ucb_make_error (err, EINTR, "interrupted by signal %d: the output was written first",
                        ucb_interrupted ());
      (*err)->status = 128 + ucb_interrupted ();
      return -1;
    }
  return r;
}
