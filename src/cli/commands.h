/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.h - the subcommand table: dispatch and `--help` both walk it. */
#ifndef UCB_COMMANDS_H
#define UCB_COMMANDS_H

#include <stdio.h>

#include "cli/options.h"
#include "core/error.h"

/* A subcommand gets argv with argv[0] = its own name and returns the exit status (0/1), or
 * < 0 with `err` set. */
struct ucb_command
{
  const char *name;
  int (*handler) (int argc, char **argv, ucb_error_t *err);
  const char *summary;
  const struct ucb_opt_table *opts; /* its options and --help (`ucbench help NAME`) */
};

int ucb_cmd_run (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_list (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_info (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_verify (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_compare (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_export (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_plot (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_model (int argc, char **argv, ucb_error_t *err);

/* The option tables of the commands (run's: options-table.h; help's: main.c). */
extern const struct ucb_opt_table ucb_verify_opts, ucb_compare_opts, ucb_export_opts, ucb_plot_opts,
    ucb_model_opts, ucb_list_opts, ucb_info_opts, ucb_help_opts;

#endif
