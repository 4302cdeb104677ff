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

static int
parse (int argc, char **argv, double *thr, enum ucb_format *fmt, bool *help, ucb_error_t *err)
{
  static const struct option longopts[] = {
    { "threshold", required_argument, NULL, 't' },
    { "format", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  *thr = 5;
  *fmt = UCB_FORMAT_TEXT;
  *help = false;
  optind = 0;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":h", longopts, NULL)) != -1)
    switch (c)
      {
      case 't':
        if (ucb_parse_seconds (optarg, 0, 1000, thr) < 0)
          return ucb_usage_error (err, "invalid --threshold `%s`: a percentage from 0 to 1000",
                                  optarg);
        break;
      case 'f':
        if (ucb_parse_format (optarg, fmt, err) < 0)
          return -1;
        break;
      case 'h':
        *help = true;
        return 0;
      case ':':
      case '?':
      default:
        return ucb_getopt_error (c, argv, err);
      }
  if (argc - optind != 2)
    return ucb_usage_error (err, "compare needs two documents, BASE.json and HEAD.json (got %d)",
                            argc - optind);
  return 0;
}

int
ucb_cmd_compare (int argc, char **argv, ucb_error_t *err)
{
  double thr;
  enum ucb_format fmt;
  bool help;

  if (parse (argc, argv, &thr, &fmt, &help, err) < 0)
    return -1;
  if (help)
    {
      fputs (ucb_compare_usage, stdout);
      return 0;
    }
  return ucb_compare (argv[optind], argv[optind + 1], thr, fmt == UCB_FORMAT_JSON, err);
}
