/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options-table.h - the shape of every command's option table, and `ucbench run`'s.  A command's
 * options are written once, as rows of an X-macro; getopt's long options and short-option
 * string, the command's --help and `ucbench help --options` (what the bash completion offers)
 * are all made from them (options-table.c), so adding an option is one OPT row and one case in
 * its parser.  run's parser is options.c (options-runtime.c for the rows CGROUP..PERF, which
 * stay together: that parser takes their range); each other command's table is in its cmd-*.c. */
#ifndef UCB_OPTIONS_TABLE_H
#define UCB_OPTIONS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* The rows, in --help order:
 *   OPT (ID, long name, short letter or 0, value, metavar, help)
 *     value: NONE, REQUIRED (--name V, -x V) or OPTIONAL (--name[=V] only); metavar: the V
 *     shown in --help, NULL without a value; help: its lines joined by \n, the first beside the
 *     option, the others under it; NULL: not shown (TEXT rows say it).  The common options
 *     have a short form (getopt style: -d2s, -d 2s, -qf csv).  Every table ends with HELP.
 *   TEXT (label, help): a --help line that is no option: a value of one ("--to gab") with its
 *     help beside it, or with help NULL a heading, shown after a blank line.
 * A command's ids are OPT_ID, in row order (UCB_OPT_TABLE); run's are also UCB_OPT_ID. */
#define UCB_RUN_OPTIONS(OPT, TEXT)                                                                 \
  OPT (WORKLOAD, "workload", 'w', REQUIRED, "NAME[,..]",                                           \
       "workloads to run (default: signal; `ucbench list`)")                                       \
  OPT (CONTAINERS, "containers", 'c', REQUIRED, "N[,N..]",                                         \
       "containers per point, 1-4096 (default:\n"                                                  \
       "1,NPROC,2*NPROC); 1 is added when missing: scale\n"                                        \
       "divides by it")                                                                            \
  OPT (NO_BASELINE, "no-baseline", 0, NONE, NULL, "do not add the 1-container point")              \
  OPT (OWNER, "owner", 0, REQUIRED, "MODE[,MODE..]",                                               \
       "who creates each container's user namespace:\n"                                            \
       "shared, distinct, root, self (your own uid), UID\n"                                        \
       "or UID-UID (default: shared,distinct; self when\n"                                         \
       "ucbench lacks CAP_SETUID/CAP_SETGID); the modes\n"                                         \
       "take turns, repeat by repeat; shared with distinct\n"                                      \
       "ends with their contrast (ratio, 95 % CI, verdict)")                                       \
  OPT (DEPTH, "depth", 0, REQUIRED, "D[,D..]",                                                     \
       "user-namespace nesting, 0-32 (0 = none; default: 1)")                                      \
  OPT (TASKS, "tasks", 't', REQUIRED, "T[,T..]",                                                   \
       "tasks PER CONTAINER, 1-1024 (default: 1); a point\n"                                       \
       "runs N x T tasks in all (will-it-scale's -t and\n"                                         \
       "LKP's nr_task count the total)")                                                           \
  OPT (THREADS, "threads", 0, NONE, NULL,                                                          \
       "tasks are threads of one process per container\n"                                          \
       "(default: one process per task)")                                                          \
  OPT (LIMIT, "limit", 0, REQUIRED, "RLIMIT=V[,..]",                                               \
       "soft limits set by the owner before it creates the\n"                                      \
       "namespace (so also its rlimit_max): SIGPENDING,\n"                                         \
       "MSGQUEUE (bytes), MEMLOCK (bytes), NPROC; V a\n"                                           \
       "number or unlimited; repeatable: the lists add up,\n"                                      \
       "each rlimit given once")                                                                   \
  OPT (HEADROOM, "headroom", 0, REQUIRED, "near|far",                                              \
       "limit of the workload's counter (default: as\n"                                            \
       "started): near = exactly its peak use, far = the\n"                                        \
       "hard limit")                                                                               \
  OPT (ISOLATE, "isolate", 0, REQUIRED, "NS[,NS..]",                                               \
       "namespaces per container: user,ipc,pid,mnt,uts,net\n"                                      \
       "(default: user,ipc; depth 0 has none); repeatable:\n"                                      \
       "the lists add up, each namespace given once")                                              \
  OPT (DURATION, "duration", 'd', REQUIRED, "TIME",                                                \
       "measured time per point (default: 3s); every TIME\n"                                       \
       "is seconds, or a number with a unit: us, ms, s, m,\n"                                      \
       "h (500ms, 2s, 1.5m)")                                                                      \
  OPT (WARMUP, "warmup", 0, REQUIRED, "TIME",                                                      \
       "unmeasured time after the start barrier\n"                                                 \
       "(default: 1s)")                                                                            \
  OPT (INTERVAL, "interval", 0, REQUIRED, "TIME", "sampling interval (default: 500ms)")            \
  OPT (REPEAT, "repeat", 'r', REQUIRED, "R|auto",                                                  \
       "run each point R times (default: 1); auto: repeat\n"                                       \
       "the sweep in rounds, every point once a round,\n"                                          \
       "until each point's 95 % CI is within --precision")                                         \
  OPT (PRECISION, "precision", 0, REQUIRED, "PCT",                                                 \
       "with --repeat auto: the CI half-width to reach, in\n"                                      \
       "% of the per-container ops/s (from 3 uncontended\n"                                        \
       "repeats)")                                                                                 \
  OPT (MAX_TIME, "max-time", 0, REQUIRED, "TIME",                                                  \
       "with --repeat auto: stop then even if not reached\n"                                       \
       "(default: 10 times the first round's time)")                                               \
  OPT (CONTENTION_THRESHOLD, "contention-threshold", 0, REQUIRED, "F",                             \
       "a task is contended in an interval where the tasks\n"                                      \
       "taking turns on its CPU got under F of their fair\n"                                       \
       "share (1 owning one, CPUs/tasks when they share),\n"                                       \
       "0 < F <= 1\n"                                                                              \
       "(default: 0.9); a repeat with more than a tenth of\n"                                      \
       "its samples contended is marked, one with a share\n"                                       \
       "it could not measure is marked unjudged")                                                  \
  OPT (PIN, "pin", 0, REQUIRED, "MODE",                                                            \
       "task placement: auto (one task per allowed CPU in\n"                                       \
       "number order; default), spread (one task per L3\n"                                         \
       "domain round-robin, cores before SMT siblings),\n"                                         \
       "compact (fill an L3 domain before the next), l3\n"                                         \
       "(compact, results grouped by L3 domains spanned),\n"                                       \
       "none, or a CPULIST such as 0-3,8")                                                         \
  OPT (UID_BASE, "uid-base", 0, REQUIRED, "UID", "first default owner uid (default: 2100000000)")  \
  TEXT ("Containers as runtimes make them:", NULL)                                                 \
  OPT (CGROUP, "cgroup", 0, OPTIONAL, "PARENT",                                                    \
       "one cgroup per container, under PARENT/ucbench-PID\n"                                      \
       "(default PARENT: the cgroup ucbench runs in);\n"                                           \
       "cgroup v1, hybrid and v2 layouts")                                                         \
  OPT (CPUSET, "cpuset", 0, NONE, NULL, "each container's cpuset = the CPUs of its tasks")         \
  OPT (PIDS_MAX, "pids-max", 0, REQUIRED, "N", "pids.max of each container's cgroup")              \
  OPT (CGROUP_SET, "cgroup-set", 0, REQUIRED, "FILE=VALUE",                                        \
       "also write FILE in each container's cgroup\n"                                              \
       "(e.g. memory.max=1G; repeatable)")                                                         \
  OPT (SECCOMP, "seccomp", 0, REQUIRED, "docker|none|FILE",                                        \
       "seccomp filter in each container: Docker's default\n"                                      \
       "profile, none (default), or a Docker JSON file")                                           \
  OPT (SECCOMP_OPTIMIZE, "seccomp-optimize", 0, REQUIRED, "1|2",                                   \
       "libseccomp filter layout: 1 default, 2 binary tree")                                       \
  OPT (CAPS, "caps", 0, REQUIRED, "keep|drop|none|LIST",                                           \
       "capabilities each container keeps: keep (all,\n"                                           \
       "default), drop (Docker's default set), none, or a\n"                                       \
       "list such as chown,kill; also sets no-new-privs;\n"                                        \
       "repeatable: lists add up, each capability given\n"                                         \
       "once (keep, drop and none stand alone)")                                                   \
  OPT (PERF, "perf", 0, NONE, NULL,                                                                \
       "count cycles, instructions, cache misses, HITM and\n"                                      \
       "context switches per op (perf_event_open); events\n"                                       \
       "the host lacks are reported as unavailable")                                               \
  TEXT ("Output:", NULL)                                                                           \
  OPT (OUTPUT, "output", 'o', REQUIRED, "FILE",                                                    \
       "write the JSON document to FILE (the table still\n"                                        \
       "goes to stdout)")                                                                          \
  OPT (FORMAT, "format", 'f', REQUIRED, "text|json|csv",                                           \
       "what stdout shows (default: text): the table, the\n"                                       \
       "document, or one CSV row per results[] entry with\n"                                       \
       "the document's keys as headers (summary.cv, ...)")                                         \
  OPT (QUIET, "quiet", 'q', NONE, NULL, "no progress and no table; errors only")                   \
  OPT (LEGEND, "legend", 0, NONE, NULL,                                                            \
       "under the table, the full legend: each column's\n"                                         \
       "JSON key and every mark (default: two lines)")                                             \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")

#define UCB_RUN_HEAD                                                                               \
  "Usage: ucbench run [OPTION]...\n"                                                               \
  "Run workloads in N containers (user namespaces), report per-container ops/s.\n"                 \
  "List-valued options run every combination (a sweep).\n"

/* A table's ids: OPT_ID, in row order (UCB_OPT_TABLE defines them). */
#define UCB_OPT_ENUM(id, name, short_name, arg, metavar, help) OPT_##id,
#define UCB_OPT_NO_TEXT(label, help)

/* run's ids UCB_OPT_WORKLOAD.., in table order: the case labels of its parsers. */
#define UCB_RUN_OPT_ID(id, name, short_name, arg, metavar, help) UCB_OPT_##id,
enum ucb_run_opt
{
  UCB_RUN_OPTIONS (UCB_RUN_OPT_ID, UCB_OPT_NO_TEXT) UCB_RUN_N_OPTS
};

/* The value an option takes: getopt_long's has_arg (no_argument, required_argument,
 * optional_argument). */
enum ucb_opt_arg
{
  UCB_ARG_NONE,
  UCB_ARG_REQUIRED,
  UCB_ARG_OPTIONAL,
};

/* One row: an option (name set), or a TEXT row (label set). */
struct ucb_opt_row
{
  const char *name;
  int short_name;
  enum ucb_opt_arg arg;
  const char *metavar;
  const char *help;
  const char *label;
};

/* A command's options and its --help: `head`, the rows, then `tail`. */
struct ucb_opt_table
{
  const char *head; /* the usage lines and what the command does (a blank line follows) */
  const struct ucb_opt_row *rows;
  size_t n_rows;
  const char *tail; /* after the rows (the exit status), or NULL */
  int help_column;  /* where the help text starts; a longer option gets two blanks */
  bool in_order;    /* options end at the first operand (getopt's `+`) */
};

/* A table from its X-macro: UCB_OPT_TABLE (ucb_foo_opts, UCB_FOO_OPTIONS, in_order, column,
 * head, tail) defines `const struct ucb_opt_table ucb_foo_opts` and the ids OPT_* of its rows. */
#define UCB_OPT_ROW(id, name, short_name, arg, metavar, help)                                      \
  { name, short_name, UCB_ARG_##arg, metavar, help, NULL },
#define UCB_OPT_TEXT_ROW(label, help) { NULL, 0, UCB_ARG_NONE, NULL, help, label },
#define UCB_OPT_TABLE(var, OPTIONS, in_order_, column, head_, tail_)                               \
  enum                                                                                             \
  {                                                                                                \
    OPTIONS (UCB_OPT_ENUM, UCB_OPT_NO_TEXT)                                                        \
  };                                                                                               \
  static const struct ucb_opt_row var##_rows[] = { OPTIONS (UCB_OPT_ROW, UCB_OPT_TEXT_ROW) };      \
  const struct ucb_opt_table var                                                                   \
      = { head_, var##_rows, sizeof var##_rows / sizeof var##_rows[0], tail_, column, in_order_ }

extern const struct ucb_opt_table ucb_run_opts;

/* getopt's view of a table: the short options (with a leading `:`, and `+` when in_order) and
 * the long ones, NULL-terminated; free both.  `struct option` stays in options-table.c. */
struct option;
void ucb_opt_getopt (const struct ucb_opt_table *t, char **shortopts, struct option **longopts);
/* The id (row order, OPT_*) of getopt_long's result `c`, or -1 when no row has it. */
int ucb_opt_id (const struct ucb_opt_table *t, int c);
/* The command's --help: head, every row, tail. */
void ucb_opt_usage (const struct ucb_opt_table *t, FILE *f);
/* `ucbench help --options`: each option form a line, `=` after one that takes the next word. */
void ucb_opt_list (const struct ucb_opt_table *t, FILE *f);

/* One option of a command: `id` its row (OPT_*), `arg` its value.  0 = taken, < 0 = an error
 * (in `err`), > 0 = not taken (an unknown option). */
typedef int (*ucb_opt_fn) (void *ctx, int id, const char *arg, ucb_error_t *err);
/* The getopt_long loop of every command: -h/--help (the HELP row) sets *help and ends the loop;
 * a missing value, an unknown or ambiguous option is the usage error.  Operands start at
 * optind. */
int ucb_getopt_each (int argc, char **argv, const struct ucb_opt_table *t, ucb_opt_fn fn, void *ctx,
                     bool *help, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* ucb_getopt_each that prints the help on stdout.  Returns 1 when it did (the command is done),
 * 0 with the operands from optind on, < 0 on a usage error. */
int ucb_getopt_command (int argc, char **argv, const struct ucb_opt_table *t, ucb_opt_fn fn,
                        void *ctx, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* The ucb_opt_fn of a command whose one option besides --help takes a value: that value into
 * the `const char *` that ctx points to. */
int ucb_opt_store_arg (void *ctx, int id, const char *arg, ucb_error_t *err);

#endif
