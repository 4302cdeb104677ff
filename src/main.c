/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - the command table and dispatch; one of the two places that may end the process. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/lists.h"
#include "core/util.h"
#include "core/version.h"

static int cmd_help (int argc, char **argv, ucb_error_t *err);

#define HELP_HEAD                                                                                  \
  "Usage: ucbench help [COMMAND]\n"                                                                \
  "Show the help of COMMAND, or the list of commands.\n"
#define HELP_OPTIONS(OPT, TEXT)                                                                    \
  OPT (OPTIONS, "options", 0, REQUIRED, "COMMAND",                                                 \
       "list COMMAND's options, one a line, `=` after\n"                                           \
       "those that take a value (for shell completion)")                                           \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")
UCB_OPT_TABLE (ucb_help_opts, HELP_OPTIONS, true, 21, HELP_HEAD, NULL);

static const struct ucb_command commands[] = {
  { "run", ucb_cmd_run, "run workloads in N containers; per-container throughput; JSON",
    &ucb_run_opts },
  { "verify", ucb_cmd_verify, "check limit enforcement across the user-namespace hierarchy",
    &ucb_verify_opts },
  { "compare", ucb_cmd_compare, "base vs head: %change, spread, significance; exit 1 on regression",
    &ucb_compare_opts },
  { "export", ucb_cmd_export, "convert a result document for CI dashboards (gab, bmf, junit, ...)",
    &ucb_export_opts },
  { "plot", ucb_cmd_plot, "draw ops/s and scalability vs containers as SVG or an HTML report",
    &ucb_plot_opts },
  { "model", ucb_cmd_model, "fit the Universal Scalability Law per series: sigma, kappa, predict",
    &ucb_model_opts },
  { "list", ucb_cmd_list, "workloads: what one op is, which counter it hits", &ucb_list_opts },
  { "info", ucb_cmd_info, "this host: kernel, CPUs, user namespaces, cgroups, caps, LSMs",
    &ucb_info_opts },
  { "help", cmd_help, "show the help of a command", &ucb_help_opts },
  { NULL, NULL, NULL, NULL },
};

static const struct ucb_command *
find_command (const char *name)
{
  for (const struct ucb_command *c = commands; c->name; c++)
    if (strcmp (c->name, name) == 0)
      return c;
  return NULL;
}

/* Whether ucbench(1) is installed: under the configured mandir, or under the prefix this binary
 * runs from (a DESTDIR or moved install, which man-db finds through PATH); Debian gzips it. */
static bool
man_page_installed (void)
{
  char exe[PATH_MAX], here[PATH_MAX + 32], path[PATH_MAX + 64];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  const char *dirs[] = { UCB_MANDIR, NULL };
  char *slash;

  if (n > 0 && (exe[n] = '\0', slash = strrchr (exe, '/')) != NULL)
    {
      *slash = '\0';
      snprintf (here, sizeof here, "%s/../share/man", exe);
      dirs[1] = here;
    }
  for (size_t i = 0; i < 2 && dirs[i]; i++)
    for (int gz = 0; gz < 2; gz++)
      {
        snprintf (path, sizeof path, "%s/man1/ucbench.1%s", dirs[i], gz ? ".gz" : "");
        if (access (path, R_OK) == 0)
          return true;
      }
  return false;
}

/* A name that is no command: the commands listed, the nearest suggested. */
static int
unknown_command (const char *name, ucb_error_t *err)
{
  static const char *const options[] = { "--help", "--version" }; /* and -h, -V: too short */
  const char *names[UCB_ARRAY_SIZE (commands)];

  if (name[0] == '-') /* before the command: only ucbench's own options */
    return ucb_keyword_error (err, "unknown option", name, options, UCB_ARRAY_SIZE (options),
                              "a command");

  for (size_t i = 0; i < UCB_ARRAY_SIZE (commands); i++)
    names[i] = commands[i].name; /* the last is NULL, which the keyword helpers skip */
  return ucb_keyword_error (err, "unknown command", name, names, UCB_ARRAY_SIZE (names), NULL);
}

static void
print_main_help (FILE *f)
{
  fprintf (f, "Usage: ucbench COMMAND [OPTION]...\n"
              "Measure and verify per-user-namespace resource accounting (ucounts).\n\n"
              "Commands:\n");
  for (const struct ucb_command *c = commands; c->name; c++)
    fprintf (f, "  %-8s %s\n", c->name, c->summary);
  fprintf (f, "\n  -h, --help     show this help\n"
              "  -V, --version  show the version\n\n"
              "`ucbench run` with no options runs a short default sweep (signal workload;\n"
              "1, NPROC and 2*NPROC containers; shared and distinct owners).\n"
              "`ucbench help COMMAND` shows the options of COMMAND; see also ucbench(1)");
  fputs (man_page_installed () ? ".\n"
                               : "\n(not installed: mandoc -a man/ucbench.1 in the source tree).\n",
         f);
}

static int
cmd_help (int argc, char **argv, ucb_error_t *err)
{
  const struct ucb_command *c;
  const char *options = NULL, *name;
  /* --options: the one option besides --help */
  int r = ucb_getopt_command (argc, argv, &ucb_help_opts, ucb_opt_store_arg, &options, err);

  if (r != 0)
    return r < 0 ? -1 : 0;
  if (argc - optind + (options != NULL) > 1)
    return ucb_usage_error (err, "help takes one command name, got %d",
                            argc - optind + (options != NULL));
  name = options ? options : argv[optind];
  if (name == NULL)
    {
      print_main_help (stdout);
      return 0;
    }
  c = find_command (name);
  if (c == NULL)
    return unknown_command (name, err);
  if (options)
    ucb_opt_list (c->opts, stdout);
  else
    ucb_opt_usage (c->opts, stdout);
  return 0;
}

static int
cmd_version (int argc, char **argv, ucb_error_t *err)
{
  (void) argc, (void) argv, (void) err;
  printf ("ucbench %s\n", ucb_version);
  return 0;
}

static int
cmd_main_help (int argc, char **argv, ucb_error_t *err)
{
  (void) argc, (void) argv, (void) err;
  print_main_help (stdout);
  return 0;
}

int
main (int argc, char **argv)
{
  int (*handler) (int, char **, ucb_error_t *);
  ucb_error_t err = NULL;
  int r;

  if (argc < 2)
    {
      print_main_help (stderr);
      return UCB_EXIT_USAGE;
    }
  if (strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "--help") == 0)
    handler = cmd_main_help;
  else if (strcmp (argv[1], "-V") == 0 || strcmp (argv[1], "--version") == 0)
    handler = cmd_version;
  else
    {
      const struct ucb_command *c = find_command (argv[1]);
      if (c == NULL)
        {
          unknown_command (argv[1], &err);
          return ucb_error_report (&err);
        }
      handler = c->handler;
    }
  r = handler (argc - 1, argv + 1, &err);
  /* Whatever printed it (help, a table, JSON), output that did not reach stdout is a failure:
   * a full disk or a closed pipe must not look like success. */
  if ((fflush (stdout) != 0 || ferror (stdout)) && r >= 0)
    {
      ucb_make_error (&err, errno, "cannot write to standard output");
      r = -1;
    }
  if (r < 0)
    return ucb_error_report (&err);
  return r;
}
