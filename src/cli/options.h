/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.h - `ucbench run` options, parsed into a struct and passed down (no globals). */
#ifndef UCB_OPTIONS_H
#define UCB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <sys/types.h>

#include "cli/options-table.h"
#include "core/error.h"
#include "core/lists.h"
#include "engine/plan.h"

enum ucb_format
{
  UCB_FORMAT_TEXT,
  UCB_FORMAT_JSON,
  UCB_FORMAT_CSV, /* run and list: one row per point (workload), headers = the JSON keys */
};

/* `ucbench run` as given: the plan, and how its results are shown. */
struct ucb_run_options
{
  struct ucb_plan plan;
  char *output;
  enum ucb_format format;
  bool quiet;
  bool legend;         /* --legend: the text table's full legend (default: two lines) */
  bool help;           /* -h/--help was given: print the usage and do nothing else */
  bool progress;       /* resolved: stderr is a terminal and not --quiet */
  bool no_baseline;    /* --no-baseline: no 1-container point unless --containers has one */
  bool baseline_added; /* resolved: the 1-container point was added to --containers */
  /* What earlier --isolate and --caps options named: a repeated one adds to it, and an item
   * named twice is refused as within one list (so is an rlimit of two --limit). */
  int isolate_named; /* CLONE_NEW* flags, CLONE_NEWUSER for `user` */
  bool caps_given;
};

/* Parse `ucbench run` arguments (argv[0] is "run").  Defaults are filled for everything not
 * given; `ncpus` sizes the default container sweep (1, ncpus, 2*ncpus).  Usage errors carry
 * exit status 2. */
int ucb_run_options_parse (struct ucb_run_options *o, int argc, char **argv, unsigned ncpus,
                           ucb_error_t *err) __attribute__ ((warn_unused_result));
void ucb_run_options_free (struct ucb_run_options *o);

/* List parsers, exposed for the unit tests. */
int ucb_parse_uint_list (const char *s, unsigned min, unsigned max, unsigned **out, size_t *n,
                         const char *what, ucb_error_t *err) __attribute__ ((warn_unused_result));
int ucb_parse_owner_list (const char *s, struct ucb_owner_mode **out, size_t *n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* --limit: sets `limits`; an rlimit already set there (by an earlier --limit) or twice in `s`
 * is refused. */
int ucb_parse_limits (const char *s, struct ucb_limit *limits, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* options-runtime.c: --cgroup, --cpuset, --pids-max, --cgroup-set, --seccomp,
 * --seccomp-optimize, --caps, --perf: the option table's rows CGROUP..PERF, kept together. */
enum
{
  UCB_OPT_RUNTIME_FIRST = UCB_OPT_CGROUP,
  UCB_OPT_RUNTIME_LAST = UCB_OPT_PERF,
};
int ucb_runtime_option (struct ucb_runtime_options *rt, int opt, const char *arg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_runtime_validate (const struct ucb_plan *p, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_runtime_options_free (struct ucb_runtime_options *rt);
/* A --caps after another: its list joins `caps`; keep, drop and none stand alone, and a
 * capability in both is refused. */
int ucb_runtime_caps_again (struct ucb_caps *caps, const char *arg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* Shared by every subcommand's parser: json or text, and csv too when `csv`. */
int ucb_parse_format (const char *arg, enum ucb_format *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_parse_format_as (const char *arg, bool csv, enum ucb_format *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* "text", "json" or "csv", as --format takes it. */
const char *ucb_format_name (enum ucb_format f);
/* A duration: a number of seconds, or a number with a unit us, ms, s, m or h ("500ms", "2s",
 * "1.5m"); no sign, hex, inf or nan.  -1 when malformed or outside [min, max] seconds. */
int ucb_parse_duration (const char *s, double min, double max, double *out)
    __attribute__ ((warn_unused_result));
/* The same as option `--NAME`: the usage error names it, the range and the units. */
int ucb_parse_duration_opt (const char *name, const char *arg, double min, double max, double *out,
                            ucb_error_t *err) __attribute__ ((warn_unused_result));
/* The options of list and info: --format FORMATS (HELP the help beside it) and --help. */
#define UCB_FORMAT_ONLY_OPTIONS(OPT, TEXT, formats, help)                                          \
  OPT (FORMAT, "format", 'f', REQUIRED, formats, help)                                             \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")
/* Parse a table of UCB_FORMAT_ONLY_OPTIONS: json or text, and csv too when `csv`.  Returns 1
 * when the help was shown. */
int ucb_parse_format_only (int argc, char **argv, const struct ucb_opt_table *t, bool csv,
                           enum ucb_format *format, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
