/* cmd-compare.c - `ucbench compare BASE.json HEAD.json`: the options; the comparison is
 * report/compare.c. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/util.h"
#include "report/compare.h"

const char ucb_compare_usage[]
    = "Usage: ucbench compare BASE.json HEAD.json [--threshold PCT] [--format text|json]\n"
      "Compare two result documents point by point (matched by workload, containers, owner,\n"
      "depth, tasks and mode): per-container ops/s of base and head, their spread, the change,\n"
      "and a verdict.  A change counts only if it exceeds the threshold and a two-sided\n"
      "Mann-Whitney U test on the per-interval samples (at least 3 a side, repeats pooled)\n"
      "gives p < 0.05.  Verify cases whose status changed are listed too.\n"
      "\n"
      "  --threshold PCT       smallest change that counts, in percent (default: 5)\n"
      "  --format text|json    an aligned table for a mail, or JSON (default: text)\n"
      "  -h, --help            show this help\n"
      "\n"
      "Exit status: 0 no regression, 1 a significant regression or a verify case that newly\n"
      "fails, 2 bad input.\n";

struct copts
{
  double threshold;
  enum ucb_format format;
  bool help;
};

static int
compare_opt (void *ctx, int c, const char *arg, ucb_error_t *err)
{
  struct copts *o = ctx;

  switch (c)
    {
    case 't':
      if (ucb_parse_seconds (arg, 0, 1000, &o->threshold) < 0)
        return ucb_usage_error (err, "invalid --threshold `%s`: a percentage from 0 to 1000", arg);
      return 0;
    case 'f':
      return ucb_parse_format (arg, &o->format, err) < 0 ? -1 : 0;
    default:
      return 1;
    }
}

static int
parse (int argc, char **argv, struct copts *o, ucb_error_t *err)
{
  static const struct option longopts[] = {
    { "threshold", required_argument, NULL, 't' },
    { "format", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };

  *o = (struct copts){ .threshold = 5, .format = UCB_FORMAT_TEXT };
  if (ucb_getopt_each (argc, argv, "", longopts, compare_opt, o, &o->help, err) < 0)
    return -1;
  if (!o->help && argc - optind != 2)
    return ucb_usage_error (err, "compare needs two documents, BASE.json and HEAD.json (got %d)",
                            argc - optind);
  return 0;
}

int
ucb_cmd_compare (int argc, char **argv, ucb_error_t *err)
{
  struct copts o;

  if (parse (argc, argv, &o, err) < 0)
    return -1;
  if (o.help)
    {
      fputs (ucb_compare_usage, stdout);
      return 0;
    }
  return ucb_compare (argv[optind], argv[optind + 1], o.threshold, o.format == UCB_FORMAT_JSON,
                      err);
}
