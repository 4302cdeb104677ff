/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-options.c - `ucbench run` option parsing: good input, defaults, and bad input. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "../tap.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/util.h"
#include "engine/workload.h"

static int
parse (struct ucb_run_options *o, ucb_error_t *err, const char *args)
{
  /* Split a space-separated command line; "run" is argv[0]. */
  char *copy = xstrdup (args), *save = NULL;
  char *argv[32] = { (char *) "run" };
  int argc = 1, r;

  for (char *t = strtok_r (copy, " ", &save); t && argc < 31; t = strtok_r (NULL, " ", &save))
    argv[argc++] = t;
  r = ucb_run_options_parse (o, argc, argv, 2, err);
  free (copy);
  return r;
}

/* Parse `args`, which must succeed without an error (said when it does not). */
static bool
parse_ok (struct ucb_run_options *o, const char *args)
{
  ucb_error_t err = NULL;
  int r = parse (o, &err, args);

  tap_check_int (r, ==, 0);
  tap_check (err == NULL);
  if (err)
    printf ("# `%s`: %s\n", args, err->msg);
  ucb_error_free (&err);
  return r == 0;
}

/* Expect a usage error (status 2) whose message mentions `needle`. */
static void
expect_bad (const char *args, const char *needle)
{
  struct ucb_run_options o;
  ucb_error_t err = NULL;

  tap_check_int (parse (&o, &err, args), <, 0);
  tap_check (err != NULL);
  if (err)
    {
      tap_check_int (err->status, ==, UCB_EXIT_USAGE);
      if (strstr (err->msg, needle) == NULL)
        {
          printf ("# `%s`: message \"%s\" lacks \"%s\"\n", args, err->msg, needle);
          tap_failed_checks++;
        }
    }
  ucb_error_free (&err);
  ucb_run_options_free (&o);
}

/* The sweep axes of a plan as one line, "workloads=signal containers=1,2,4 owners=shared
 * depths=1 tasks=1", so that a test checks each whole list, not some of its items. */
static const char *
axes (const struct ucb_plan *p)
{
  static char buf[512];
  FILE *f = fmemopen (buf, sizeof buf, "w");
  const struct
  {
    const char *name;
    const unsigned *v;
    size_t n;
  } lists[] = {
    { "containers", p->containers, p->n_containers },
    { "depths", p->depths, p->n_depths },
    { "tasks", p->tasks, p->n_tasks },
  };

  fputs ("workloads=", f);
  for (size_t i = 0; i < p->n_workloads; i++)
    fprintf (f, "%s%s", i ? "," : "", p->workloads[i]->name);
  fputs (" owners=", f);
  for (size_t i = 0; i < p->n_owners; i++)
    {
      char *name = ucb_owner_mode_name (&p->owners[i]);
      fprintf (f, "%s%s", i ? "," : "", name);
      free (name);
    }
  for (size_t k = 0; k < UCB_ARRAY_SIZE (lists); k++)
    {
      fprintf (f, " %s=", lists[k].name);
      for (size_t i = 0; i < lists[k].n; i++)
        fprintf (f, "%s%u", i ? "," : "", lists[k].v[i]);
    }
  fclose (f);
  return buf;
}

static void
test_defaults (void)
{
  struct ucb_run_options o;

  parse_ok (&o, "");
  /* nproc = 2: containers 1, 2, 4 */
  tap_check_str (axes (&o.plan),
                 "workloads=signal owners=shared,distinct containers=1,2,4 depths=1 tasks=1");
  tap_check_int (o.plan.repeat, ==, 1);
  tap_check_int (o.plan.pin, ==, UCB_PIN_AUTO);
  tap_check_int (o.format, ==, UCB_FORMAT_TEXT);
  tap_check_int (o.plan.uid_base, ==, UCB_DEFAULT_UID_BASE);
  tap_check (o.output == NULL);
  tap_check (!o.help);
  ucb_run_options_free (&o);
}

static void
test_full_command_line (void)
{
  struct ucb_run_options o;

  parse_ok (&o, "--workload getppid,signal --containers 1,4,64 --owner "
                "root,1000,2000-2003 --depth 0,3 --duration 2.5 --warmup 0 --interval "
                "0.25 --repeat 3 --pin 0-1 --output /tmp/x.json --format json --quiet "
                "--uid-base 3000000");
  tap_check_str (axes (&o.plan), "workloads=getppid,signal owners=root,1000,2000-2003 "
                                 "containers=1,4,64 depths=0,3 tasks=1");
  tap_check_int (o.plan.owners[1].kind, ==, UCB_OWNER_UID);
  tap_check_int (o.plan.owners[2].kind, ==, UCB_OWNER_RANGE);
  tap_check_near (o.plan.duration, 2.5, 1e-12);
  tap_check_near (o.plan.warmup, 0, 1e-12);
  tap_check_near (o.plan.interval, 0.25, 1e-12);
  tap_check_int (o.plan.repeat, ==, 3);
  tap_check_int (o.plan.pin, ==, UCB_PIN_LIST);
  tap_check_int (o.plan.n_pin_cpus, ==, 2);
  tap_check_str (o.output, "/tmp/x.json");
  tap_check_int (o.format, ==, UCB_FORMAT_JSON);
  tap_check (o.quiet);
  tap_check_int (o.plan.uid_base, ==, 3000000);
  ucb_run_options_free (&o);
}

static void
test_help (void)
{
  struct ucb_run_options o;

  parse_ok (&o, "--containers 2 --help");
  tap_check (o.help);
  ucb_run_options_free (&o);
}

static void
test_bad_input (void)
{
  expect_bad ("--containers 0", "`0`");
  expect_bad ("--containers 4194305", "4194305"); /* above any kernel's pids */
  expect_bad ("--containers 99999999999999999999", "99999999999999999999");
  expect_bad ("--containers -1", "-1");
  expect_bad ("--containers 4,,8", "empty item");
  expect_bad ("--containers 4,", "empty item");
  expect_bad ("--containers 4,4", "duplicate");
  expect_bad ("--containers abc", "abc");
  expect_bad ("--depth 33", "33");
  expect_bad ("--workload nosuch", "nosuch");
  expect_bad ("--owner everyone", "everyone");
  expect_bad ("--owner 0", "`0`");
  expect_bad ("--owner 10-5", "10-5");
  expect_bad ("--duration 0", "--duration");
  expect_bad ("--duration 1e999", "--duration");
  expect_bad ("--duration nan", "--duration");
  expect_bad ("--interval 5 --duration 1", "longer");
  expect_bad ("--repeat 0", "--repeat");
  expect_bad ("--pin 3-1", "3-1");
  expect_bad ("--pin 1,1", "twice");
  expect_bad ("--pin x", "x");
  expect_bad ("--format yaml", "yaml");
  expect_bad ("--bogus", "--bogus");
  expect_bad ("stray", "stray");
  expect_bad ("--containers", "needs a value");
  expect_bad ("--quiet=1", "--quiet=1");
  expect_bad ("-x", "`-x`");
  expect_bad ("--uid-base 4294967294 --owner distinct --containers 4", "--uid-base");
}

static void
test_cpu_list_roundtrip (void)
{
  int *cpus = NULL;
  size_t n = 0;
  ucb_error_t err = NULL;
  char *s;

  tap_check_int (ucb_parse_cpu_list ("8,0-3,5", &cpus, &n, &err), ==, 0);
  tap_check_int (n, ==, 6);
  s = ucb_format_cpu_list (cpus, n);
  tap_check_str (s, "0-3,5,8");
  free (s);
  free (cpus);
}

static void
test_owner_names (void)
{
  struct ucb_owner_mode *m = NULL;
  size_t n = 0;
  ucb_error_t err = NULL;
  const char *want[] = { "shared", "distinct", "root", "77", "5-9" };

  tap_check_int (ucb_parse_owner_list ("shared,distinct,root,77,5-9", &m, &n, &err), ==, 0);
  tap_check_int (n, ==, 5);
  for (size_t i = 0; i < n && i < 5; i++)
    {
      char *s = ucb_owner_mode_name (&m[i]);
      tap_check_str (s, want[i]);
      free (s);
    }
  free (m);
}

static void
test_pin_headroom_names (void)
{
  /* what the document records of each: ucb_pin_mode_name, ucb_headroom_names */
  static const struct
  {
    const char *args, *pin, *headroom;
  } cases[] = {
    { "--pin auto", "auto", "host" },      { "--pin none", "none", "host" },
    { "--pin spread", "spread", "host" },  { "--pin compact", "compact", "host" },
    { "--pin l3", "l3", "host" },          { "--pin 0", "list", "host" },
    { "--headroom near", "auto", "near" }, { "--headroom far --pin l3", "l3", "far" },
  };
  struct ucb_run_options o;

  for (size_t i = 0; i < UCB_ARRAY_SIZE (cases); i++)
    {
      if (parse_ok (&o, cases[i].args))
        {
          tap_check_str (ucb_pin_mode_name (o.plan.pin), cases[i].pin);
          tap_check_str (ucb_headroom_names[o.plan.headroom], cases[i].headroom);
        }
      ucb_run_options_free (&o);
    }
  /* names the document writes that are not choices of an option */
  expect_bad ("--pin list", "`list`");
  expect_bad ("--headroom host", "`host`");
  expect_bad ("--owner uid", "`uid`");
}

static void
test_limits_isolate_headroom (void)
{
  struct ucb_run_options o;
  char *name;

  parse_ok (&o, "--limit sigpending=5,MSGQUEUE=unlimited --limit NPROC=7 --isolate "
                "user,pid,net --tasks 2,4 --threads");
  tap_check (o.plan.limits[0].set && o.plan.limits[0].value == 5);
  tap_check (o.plan.limits[1].set && o.plan.limits[1].value == UCB_LIMIT_UNLIMITED);
  tap_check (!o.plan.limits[2].set);
  tap_check (o.plan.limits[3].set && o.plan.limits[3].value == 7);
  tap_check_int (o.plan.isolate, ==, CLONE_NEWPID | CLONE_NEWNET);
  name = ucb_isolate_name (o.plan.isolate);
  tap_check_str (name, "pid,net");
  free (name);
  tap_check_int (o.plan.n_tasks, ==, 2);
  tap_check (o.plan.threads);
  ucb_run_options_free (&o);
  /* headroom for the workload's counter, an explicit limit for another counter */
  parse_ok (&o, "--headroom far --limit NPROC=100");
  tap_check_int (o.plan.headroom, ==, UCB_HEADROOM_FAR);
  ucb_run_options_free (&o);
  /* the default: an IPC namespace per container */
  parse_ok (&o, "");
  tap_check_int (o.plan.isolate, ==, CLONE_NEWIPC);
  tap_check_int (o.plan.headroom, ==, UCB_HEADROOM_HOST);
  ucb_run_options_free (&o);
  expect_bad ("--limit SIGPENDING", "SIGPENDING");
  expect_bad ("--limit SIGPENDING=-1", "SIGPENDING=-1");
  expect_bad ("--limit NOFILE=3", "NOFILE");
  expect_bad ("--isolate user,time", "time");
  expect_bad ("--isolate ipc --depth 0,1", "--depth >= 1");
  expect_bad ("--headroom medium", "medium");
  expect_bad ("--headroom near --limit SIGPENDING=3", "both");
  expect_bad ("--workload mqueue --isolate user", "IPC namespace");
  expect_bad ("--workload mqueue --depth 0", "IPC namespace");
  expect_bad ("--tasks 1025", "1025");
  expect_bad ("--containers 8192 --tasks 1024", "tasks");
}

static void
test_repeat_auto (void)
{
  struct ucb_run_options o;

  parse_ok (&o, "--repeat auto --precision 1.5");
  tap_check (o.plan.repeat_auto);
  tap_check_int (o.plan.repeat, ==, 1);
  tap_check_near (o.plan.precision_pct, 1.5, 0);
  tap_check_near (o.plan.max_time_s, 0, 0); /* the default, worked out after round 1 */
  ucb_run_options_free (&o);
  parse_ok (&o, "--precision 0.001 --max-time 3 --repeat auto");
  tap_check (o.plan.repeat_auto);
  tap_check_near (o.plan.max_time_s, 3, 0);
  ucb_run_options_free (&o);
  parse_ok (&o, "--repeat auto --repeat 4"); /* the last one wins */
  tap_check (!o.plan.repeat_auto);
  tap_check_int (o.plan.repeat, ==, 4);
  ucb_run_options_free (&o);
  expect_bad ("--repeat auto", "--precision");
  expect_bad ("--precision 5", "--repeat auto");
  expect_bad ("--repeat 3 --precision 5", "--repeat auto");
  expect_bad ("--max-time 10", "--repeat auto");
  expect_bad ("--repeat auto --precision 0", "--precision `0`");
  expect_bad ("--repeat auto --precision 101", "`101`");
  expect_bad ("--repeat auto --precision x", "`x`");
  expect_bad ("--repeat auto --precision 5 --max-time 0", "--max-time");
  expect_bad ("--repeat auto --precision 5 --max-time -1", "--max-time");
  expect_bad ("--repeat automatic --precision 5", "`automatic`");
}

static void
test_durations (void)
{
  static const struct
  {
    const char *arg;
    double seconds;
  } good[] = {
    { "2", 2 },    { "2s", 2 },          { "500ms", 0.5 }, { "1.5s", 1.5 },
    { "1m", 60 },  { "0.5m", 30 },       { "1h", 3600 },   { ".25", 0.25 },
    { "2e0s", 2 }, { "250000us", 0.25 }, { "100ms", 0.1 },
  };
  static const char *const bad[] = { "2x",  "-1s", "1e400s", "",    "ms",   "s",    "+2s",
                                     "2 s", "2S",  "0x10",   "inf", "nans", "2ms5", "1e-400" };
  struct ucb_run_options o;
  double v;

  for (size_t i = 0; i < UCB_ARRAY_SIZE (good); i++)
    {
      v = -1;
      tap_check_int (ucb_parse_duration (good[i].arg, 0, 1e6, &v), ==, 0);
      tap_check_near (v, good[i].seconds, 1e-12);
    }
  for (size_t i = 0; i < UCB_ARRAY_SIZE (bad); i++)
    if (ucb_parse_duration (bad[i], 0.1, 1e6, &v) == 0)
      {
        printf ("# duration `%s` was taken as %g\n", bad[i], v);
        tap_failed_checks++;
      }
  /* The range is in seconds, after the unit. */
  tap_check_int (ucb_parse_duration ("50ms", 0.1, 10, &v), <, 0);
  tap_check_int (ucb_parse_duration ("1m", 0.1, 10, &v), <, 0);
  parse_ok (&o, "--duration 1.5s --warmup 200ms --interval 100ms");
  tap_check_near (o.plan.duration, 1.5, 1e-12);
  tap_check_near (o.plan.warmup, 0.2, 1e-12);
  tap_check_near (o.plan.interval, 0.1, 1e-12);
  ucb_run_options_free (&o);
  parse_ok (&o, "--repeat auto --precision 2 --max-time 2m");
  tap_check_near (o.plan.max_time_s, 120, 1e-12);
  ucb_run_options_free (&o);
  /* One line naming the option, the range and the units. */
  expect_bad ("--duration 2x", "invalid --duration `2x`: expected a duration from 0.1s to 86400s");
  expect_bad ("--duration -1s", "ms, s, m or h");
  expect_bad ("--warmup 1e400s", "--warmup `1e400s`");
  expect_bad ("--interval ms", "--interval `ms`");
  expect_bad ("--duration=", "--duration ``");
  expect_bad ("--duration 2d", "`2d`");
  expect_bad ("--interval 5ms", "--interval `5ms`"); /* below 0.01 s */
  expect_bad ("--repeat auto --precision 2 --max-time 8d", "--max-time");
}

static void
test_short_options (void)
{
  struct ucb_run_options o;

  parse_ok (&o, "-w getppid,fork -c 1,3 -t 2 -d 500ms -r 2 -o /tmp/y.json -f csv -q");
  tap_check_str (axes (&o.plan), "workloads=getppid,fork owners=shared,distinct containers=1,3 "
                                 "depths=1 tasks=2");
  tap_check_near (o.plan.duration, 0.5, 1e-12);
  tap_check_int (o.plan.repeat, ==, 2);
  tap_check_str (o.output, "/tmp/y.json");
  tap_check_int (o.format, ==, UCB_FORMAT_CSV);
  tap_check (o.quiet);
  ucb_run_options_free (&o);
  /* getopt forms: the value attached, and flags bundled before an option with a value. */
  parse_ok (&o, "-d2s -c4 -qfjson");
  tap_check_near (o.plan.duration, 2, 1e-12);
  tap_check_int (o.plan.n_containers, ==, 2); /* the 1-container baseline added first */
  tap_check_int (o.plan.containers[0], ==, 1);
  tap_check_int (o.plan.containers[1], ==, 4);
  tap_check (o.baseline_added);
  tap_check (o.quiet);
  tap_check_int (o.format, ==, UCB_FORMAT_JSON);
  ucb_run_options_free (&o);
  parse_ok (&o, "--no-baseline -c4,8");
  tap_check_int (o.plan.n_containers, ==, 2);
  tap_check_int (o.plan.containers[0], ==, 4);
  tap_check (!o.baseline_added);
  ucb_run_options_free (&o);
  parse_ok (&o, "-c 8,1");
  tap_check_int (o.plan.n_containers, ==, 2); /* it has one: nothing added, order kept */
  tap_check_int (o.plan.containers[0], ==, 8);
  tap_check (!o.baseline_added);
  ucb_run_options_free (&o);
  parse_ok (&o, "-h");
  tap_check (o.help);
  ucb_run_options_free (&o);
  expect_bad ("-d", "`-d` needs a value");
  expect_bad ("-d 2x", "--duration `2x`");
  expect_bad ("-c 0", "`0`");
  expect_bad ("-f xml", "expected json, text or csv");
  expect_bad ("-z", "unknown option `-z`");
  expect_bad ("--quiet -zq", "unknown option `-z`"); /* not the token before */
  expect_bad ("--qui=1", "unknown option `--qui=1`");
  expect_bad ("--format=csv --quiet=yes", "unknown option `--quiet=yes`");
  expect_bad ("-V", "unknown option `-V`"); /* -V is ucbench's --version, not run's */
}

/* The keyword helpers of core/lists.c: distance, nearest, the list as text. */
static void
test_keyword_helpers (void)
{
  static const char *const names[] = { "auto", NULL, "spread", "compact", "l3", "none" };
  static const char *const one[] = { "near" };
  char *s;

  tap_check_int ((int) ucb_edit_distance ("dokcer", "docker"), ==, 1); /* a swap is one edit */
  tap_check_int ((int) ucb_edit_distance ("kitten", "sitting"), ==, 3);
  tap_check_int ((int) ucb_edit_distance ("", "abc"), ==, 3);
  tap_check_int ((int) ucb_edit_distance ("SPREAD", "spread"), ==, 0);
  tap_check_str (ucb_nearest_name (names, UCB_ARRAY_SIZE (names), "sprad"), "spread");
  tap_check_str (ucb_nearest_name (names, UCB_ARRAY_SIZE (names), "compcat"), "compact");
  tap_check_str (ucb_nearest_name (names, UCB_ARRAY_SIZE (names), "l4"), "l3");
  /* 2 edits reach a short name from almost anything: a name of 3 or fewer takes 1 */
  tap_check (ucb_nearest_name (names, UCB_ARRAY_SIZE (names), "x9") == NULL);
  tap_check (ucb_nearest_name (names, UCB_ARRAY_SIZE (names), "xyzzy") == NULL);
  tap_check (ucb_nearest_name (names, UCB_ARRAY_SIZE (names), "") == NULL);
  s = ucb_names_text (names, UCB_ARRAY_SIZE (names), NULL);
  tap_check_str (s, "auto, spread, compact, l3 or none");
  free (s);
  s = ucb_names_text (names, UCB_ARRAY_SIZE (names), "a CPU list");
  tap_check_str (s, "auto, spread, compact, l3, none or a CPU list");
  free (s);
  s = ucb_names_text (one, 1, NULL);
  tap_check_str (s, "near");
  free (s);
  s = ucb_names_text (one, 1, "far");
  tap_check_str (s, "near or far");
  free (s);
}

/* A mistyped keyword: the keywords listed, the nearest suggested, exit status 2 (issue 24). */
static void
test_suggestions (void)
{
  expect_bad ("--pin sprad", "invalid --pin `sprad`: did you mean `spread`? (expected auto, "
                             "spread, compact, l3, none or a CPU list");
  expect_bad ("--pin foo", "invalid --pin `foo` (expected auto, spread, compact, l3, none");
  expect_bad ("--pin 0-3x", "CPU list item `0-3x`"); /* a CPU list, mistyped */
  expect_bad ("--seccomp dokcer", "no such --seccomp profile file `dokcer`: did you mean "
                                  "`docker`?");
  expect_bad ("--caps dorp", "did you mean `drop`? (expected keep, drop, none or a list");
  expect_bad ("--caps xyzzy", "invalid --caps `xyzzy` (expected keep, drop, none");
  expect_bad ("--isolate user,usr", "`usr`: did you mean `user`? (expected user, ipc");
  expect_bad ("--owner sahred", "`sahred`: did you mean `shared`? (expected shared, distinct");
  expect_bad ("--owner 0", "use `root` for uid 0");
  expect_bad ("--format jsn", "`jsn`: did you mean `json`?");
  expect_bad ("--headroom naer", "`naer`: did you mean `near`? (expected near or far)");
  expect_bad ("-w signl", "`signl`: did you mean `signal`? (expected signal, ");
  expect_bad ("--limit NPORC=5", "`NPORC`: did you mean `NPROC`? (expected SIGPENDING, ");
  expect_bad ("--limit NPROC=unlimted",
              "`NPROC=unlimted`: did you mean `unlimited`? (expected a number");
  expect_bad ("--contaners 2", "unknown option `--contaners`: did you mean `--containers`?");
  expect_bad ("--treads", "did you mean `--threads`?");
  expect_bad ("--c 2", "ambiguous option `--c`: the start of --containers, ");
  expect_bad ("--threads=1", "--threads takes no value");
  expect_bad ("--frobnicate", "unknown option `--frobnicate`");
}

/* One command's table (options-table.h): every row complete and unique, getopt's short and long
 * options made from it, and --help showing every row; *n_out: its options. */
static void
check_table (const char *cmd, const struct ucb_opt_table *t, size_t *n_out)
{
  cleanup_free char *s0 = NULL, *usage = NULL, *listed = NULL, *prefix = NULL;
  cleanup_free struct option *lo = NULL;
  const char *s;
  size_t n_opts = 0, n_short = 0, len = 0, list_len = 0;
  bool help = false;
  FILE *f;

  printf ("# the option table of ucbench %s\n", cmd); /* which one a failure is in */
  ucb_opt_getopt (t, &s0, &lo);
  for (size_t i = 0; i < t->n_rows; i++)
    {
      const struct ucb_opt_row *r = &t->rows[i];

      if (r->name == NULL) /* a TEXT row */
        {
          tap_check (r->label && *r->label && r->short_name == 0);
          continue;
        }
      tap_check (*r->name && r->label == NULL && (r->help == NULL || *r->help));
      tap_check ((r->metavar != NULL) == (r->arg != UCB_ARG_NONE));
      for (size_t j = 0; j < i; j++)
        {
          const struct ucb_opt_row *q = &t->rows[j];

          if (q->name && strcmp (q->name, r->name) == 0)
            tap_fail (__FILE__, __LINE__, "two rows are --%s", r->name);
          if (q->name && r->short_name && q->short_name == r->short_name)
            tap_fail (__FILE__, __LINE__, "--%s and --%s are both -%c", q->name, r->name,
                      r->short_name);
        }
      help = strcmp (r->name, "help") == 0; /* the last row */
      n_short += r->short_name != 0;
      /* getopt's long option is the row's, and its result leads back to the row. */
      tap_require (lo[n_opts].name != NULL);
      tap_check_str (lo[n_opts].name, r->name);
      tap_check_int (lo[n_opts].has_arg, ==, r->arg);
      tap_check_int (ucb_opt_id (t, lo[n_opts].val), ==, n_opts);
      if (r->short_name)
        tap_check_int (ucb_opt_id (t, r->short_name), ==, n_opts);
      n_opts++;
    }
  tap_check (help && t->rows[t->n_rows - 1].short_name == 'h');
  tap_check (lo[n_opts].name == NULL);
  *n_out = n_opts;

  /* The short-option string read as getopt reads it: each letter a row's, with its value. */
  s = s0;
  if (t->in_order)
    tap_require (*s++ == '+');
  tap_require (*s++ == ':');
  for (; *s; n_short--)
    {
      int id = ucb_opt_id (t, *s), colons = 0, k = -1;

      tap_require (id >= 0);
      for (s++; *s == ':'; s++)
        colons++;
      for (size_t i = 0; i < t->n_rows; i++)
        if (t->rows[i].name && ++k == id)
          tap_check_int (colons, ==, (int) t->rows[i].arg);
    }
  tap_check_int (n_short, ==, 0);

  /* --help: its usage line, every option shown on a line of its own (or by a TEXT row),
   * every heading after a blank line; --options: every option, `=` after a value. */
  f = open_memstream (&usage, &len);
  tap_require (f != NULL);
  ucb_opt_usage (t, f);
  fclose (f);
  f = open_memstream (&listed, &list_len);
  tap_require (f != NULL);
  ucb_opt_list (t, f);
  fclose (f);
  prefix = xasprintf ("Usage: ucbench %s", cmd);
  tap_check (strncmp (usage, prefix, strlen (prefix)) == 0);
  for (size_t i = 0; i < t->n_rows; i++)
    {
      const struct ucb_opt_row *r = &t->rows[i];
      const char *eq = r->arg == UCB_ARG_REQUIRED ? "=" : "";
      cleanup_free char *needle
          = r->label          ? xasprintf (r->help ? "\n  %s " : "\n\n%s\n", r->label)
            : r->help == NULL ? xasprintf ("\n  --%s ", r->name) /* "  --to gab" */
            : r->short_name   ? xasprintf ("\n  -%c, --%s", r->short_name, r->name)
                              : xasprintf ("\n  --%s", r->name);
      cleanup_free char *item = r->name ? xasprintf ("\n--%s%s\n", r->name, eq) : NULL;

      if (strstr (usage, needle) == NULL)
        tap_fail (__FILE__, __LINE__, "--help lacks \"%s\"", needle + 1);
      if (item && strstr (listed, item) == NULL && strncmp (listed, item + 1, strlen (item + 1)))
        tap_fail (__FILE__, __LINE__, "--options lacks \"%s\"", item + 1);
    }
}

/* Every command's option table; run's ids are its rows. */
static void
test_option_tables (void)
{
  static const struct
  {
    const char *cmd;
    const struct ucb_opt_table *t;
  } tables[] = {
    { "run", &ucb_run_opts },         { "verify", &ucb_verify_opts },
    { "compare", &ucb_compare_opts }, { "export", &ucb_export_opts },
    { "plot", &ucb_plot_opts },       { "model", &ucb_model_opts },
    { "list", &ucb_list_opts },       { "info", &ucb_info_opts },
  };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (tables); i++)
    {
      size_t n = 0;

      check_table (tables[i].cmd, tables[i].t, &n);
      if (tables[i].t == &ucb_run_opts)
        tap_check_int (n, ==, UCB_RUN_N_OPTS);
    }
}

static const struct tap_test tests[] = {
  { "keyword helpers: edit distance, nearest name, the list as text", test_keyword_helpers },
  { "a mistyped keyword or long option gets the nearest suggested", test_suggestions },
  { "durations with units: 500ms, 2s, 1m; bad ones refused", test_durations },
  { "short options -w -c -t -d -r -o -f -q", test_short_options },
  { "--repeat auto, --precision, --max-time", test_repeat_auto },
  { "--limit, --isolate, --headroom, --tasks, --threads", test_limits_isolate_headroom },
  { "defaults of a bare `run`", test_defaults },
  { "every option parsed", test_full_command_line },
  { "--help", test_help },
  { "the option tables: rows complete and unique; getopt's options, --help and --options made "
    "from them",
    test_option_tables },
  { "bad input is a usage error naming the value", test_bad_input },
  { "CPU list parse and format", test_cpu_list_roundtrip },
  { "owner mode names round-trip", test_owner_names },
  { "--pin and --headroom names round-trip; list and host are not choices",
    test_pin_headroom_names },
};

TAP_MAIN (tests)
