/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-compare.c - `ucbench compare BASE.json HEAD.json` or `--base B.json... --head H.json...`:
 * the options; the comparison is report/compare.c, its statistics docs/statistics.md. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/lists.h"
#include "core/util.h"
#include "report/compare/compare.h"

/* Its help's head and tail; the rows between them are COMPARE_OPTIONS. */
#define COMPARE_HEAD                                                                               \
  "Usage: ucbench compare BASE.json HEAD.json [--threshold PCT]\n"                                 \
  "       [--normalize canary|none] [--format text|json] [--verbose]\n"                            \
  "       ucbench compare --base B1.json [--base B2.json...] --head H1.json\n"                     \
  "       [--head ...]\n"                                                                          \
  "Compare result documents point by point (matched by workload, containers, owner,\n"             \
  "depth, tasks and mode).  The run is the unit: per point, the ratio head/base of\n"              \
  "the geometric means of the repeats' per-container ops/s, with a 95% Welch t\n"                  \
  "interval on their logarithms.  With several documents a side (runs made at\n"                   \
  "different times, best interleaved), each document is one unit and the drift\n"                  \
  "between invocations is seen; with one a side that drift is assumed (--drift).\n"                \
  "Contended repeats are left out; a point left with too few shows the ratio of all\n"             \
  "its repeats, marked c, and each row names the flags of its repeats (contended,\n"               \
  "starved...).  Host and option differences (kernel, CPU, duration, pinning,\n"                   \
  "limits, seccomp, caps, cgroup, perf...), base against head or within a side, are\n"             \
  "named on the `# note:` line (-v: each in full; JSON: differences), not\n"                       \
  "failures.  Verdicts (Holm's adjustment over the table, family-wise alpha 0.05):\n"              \
  "  regression / improvement   the interval lies wholly below 1-PCT / above 1+PCT\n"              \
  "  no change                  the interval lies within 1 -/+ PCT\n"                              \
  "  inconclusive (~n ...)      wider: ~n repeats (documents) a side settle it\n"                  \
  "  inconclusive (1 repeat)    fewer than 2 runs a side: no run-to-run variance\n"                \
  "  inconclusive (contended)   too few runs left once contended repeats are out\n"                \
  "  inconclusive (metrics disagree)  CPU ns/op moved clearly the other way\n"                     \
  "Verify cases whose status changed are listed too.  See docs/statistics.md.\n"
#define COMPARE_TAIL                                                                               \
  "\n"                                                                                             \
  "Exit status: 0 no regression, 1 a regression that holds up or a verify case that\n"             \
  "newly fails, 2 bad input.\n"

#define COMPARE_OPTIONS(OPT, TEXT)                                                                 \
  OPT (BASE, "base", 0, REQUIRED, "FILE", "a base document (repeatable; for BASE.json HEAD.json)") \
  OPT (HEAD, "head", 0, REQUIRED, "FILE", "a head document (repeatable)")                          \
  OPT (THRESHOLD, "threshold", 0, REQUIRED, "PCT",                                                 \
       "smallest change that counts, in percent (default: 5)")                                     \
  OPT (DRIFT, "drift", 0, REQUIRED, "PCT",                                                         \
       "with one document a side: the run-to-run drift between\n"                                  \
       "invocations to assume, a CV in percent (default: 3,\n"                                     \
       "measured here; 0: the verdict is about these two\n"                                        \
       "invocations only)")                                                                        \
  OPT (NORMALIZE, "normalize", 0, REQUIRED, "canary|none",                                         \
       "canary: divide each repeat's ops/s by its host-speed\n"                                    \
       "canary (results[].canary) before the ratio, so that the\n"                                 \
       "vCPU's own speed drops out (default: none); documents\n"                                   \
       "without a canary are compared raw, with a warning")                                        \
  OPT (FORMAT, "format", 'f', REQUIRED, "text|json",                                               \
       "an aligned table for a mail, or JSON (default: text):\n"                                   \
       "its ops/s columns are each side's geometric mean, the\n"                                   \
       "ratio is of them; at most three lines come before it")                                     \
  OPT (VERBOSE, "verbose", 'v', NONE, NULL, "the text with the method, its legend and every note") \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")

UCB_OPT_TABLE (ucb_compare_opts, COMPARE_OPTIONS, false, 24, COMPARE_HEAD, COMPARE_TAIL);

struct copts
{
  double threshold, drift;
  enum ucb_format format;
  bool verbose;
  enum ucb_normalize normalize;
  const char **base, **head;
  size_t n_base, n_head;
};

static void
add (const char ***v, size_t *n, const char *arg)
{
  *v = xrealloc (*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = arg;
}

static int
compare_opt (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  static const char *const normalize[] = { "canary", "none" };
  struct copts *o = ctx;
  int k;

  switch (id)
    {
    case OPT_THRESHOLD:
      if (ucb_parse_seconds (arg, 0, 99, &o->threshold) < 0 || !(o->threshold > 0))
        return ucb_usage_error (err, "invalid --threshold `%s`: a percentage above 0, below 100",
                                arg);
      return 0;
    case OPT_FORMAT:
      return ucb_parse_format (arg, &o->format, err) < 0 ? -1 : 0;
    case OPT_DRIFT:
      if (ucb_parse_seconds (arg, 0, 50, &o->drift) < 0)
        return ucb_usage_error (err, "invalid --drift `%s`: a percentage from 0 to 50", arg);
      return 0;
    case OPT_NORMALIZE:
      k = ucb_name_index (normalize, UCB_ARRAY_SIZE (normalize), arg);
      if (k < 0)
        return ucb_keyword_error (err, "invalid --normalize", arg, normalize,
                                  UCB_ARRAY_SIZE (normalize), NULL);
      o->normalize = k == 0 ? UCB_NORMALIZE_CANARY : UCB_NORMALIZE_NONE;
      return 0;
    case OPT_VERBOSE:
      o->verbose = true;
      return 0;
    case OPT_BASE:
      add (&o->base, &o->n_base, arg);
      return 0;
    case OPT_HEAD:
      add (&o->head, &o->n_head, arg);
      return 0;
    default:
      return 1;
    }
}

static int
parse (int argc, char **argv, struct copts *o, ucb_error_t *err)
{
  int rest, r;

  *o = (struct copts){ .threshold = 5, .drift = UCB_COMPARE_DRIFT_PCT, .format = UCB_FORMAT_TEXT };
  r = ucb_getopt_command (argc, argv, &ucb_compare_opts, compare_opt, o, err);
  if (r != 0)
    return r;
  rest = argc - optind;
  if (o->n_base || o->n_head)
    {
      if (rest)
        return ucb_usage_error (err,
                                "compare takes either BASE.json HEAD.json or --base/--head, "
                                "not both (`%s`)",
                                argv[optind]);
      if (!o->n_base || !o->n_head)
        return ucb_usage_error (err, "compare needs at least one --base and one --head document");
      return 0;
    }
  if (rest != 2)
    return ucb_usage_error (err, "compare needs two documents, BASE.json and HEAD.json (got %d)",
                            rest);
  add (&o->base, &o->n_base, argv[optind]);
  add (&o->head, &o->n_head, argv[optind + 1]);
  return 0;
}

int
ucb_cmd_compare (int argc, char **argv, ucb_error_t *err)
{
  struct copts o;
  struct ucb_compare_args a;
  int ret;

  ret = parse (argc, argv, &o, err);
  if (ret != 0)
    ret = ret < 0 ? -1 : 0; /* 1: the help was shown */
  else
    {
      a = (struct ucb_compare_args){ .base = o.base,
                                     .head = o.head,
                                     .n_base = o.n_base,
                                     .n_head = o.n_head,
                                     .threshold_pct = o.threshold,
                                     .drift_pct = o.drift,
                                     .json = o.format == UCB_FORMAT_JSON,
                                     .verbose = o.verbose,
                                     .normalize = o.normalize };
      ret = ucb_compare (&a, err);
    }
  free (o.base);
  free (o.head);
  return ret;
}
