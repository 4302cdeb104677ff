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
  const char *usage; /* full help text, printed by `ucbench help NAME` and `NAME --help` */
  void (*write_usage) (FILE *f); /* or, when `usage` is NULL, what writes it (run: its table) */
};

int ucb_cmd_run (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_list (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_info (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_verify (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_compare (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_export (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_plot (int argc, char **argv, ucb_error_t *err);
int ucb_cmd_model (int argc, char **argv, ucb_error_t *err);

extern const char ucb_list_usage[];
extern const char ucb_info_usage[];
extern const char ucb_verify_usage[];
extern const char ucb_compare_usage[];
extern const char ucb_export_usage[];
extern const char ucb_plot_usage[];
extern const char ucb_model_usage[];

#endif
