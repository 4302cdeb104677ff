/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run-args.h - `ucbench run` options from one string, for the unit tests that need a parsed
 * struct ucb_run_options (2 CPUs allowed, as on the build machine). */
#ifndef UCB_TEST_RUN_ARGS_H
#define UCB_TEST_RUN_ARGS_H

#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "core/error.h"
#include "core/util.h"

/* `args` split at spaces after "run": ucb_run_options_parse()'s result (the error dropped). */
static inline int
parse (struct ucb_run_options *o, const char *args)
{
  char *copy = xstrdup (args), *save = NULL;
  char *argv[32] = { (char *) "run" };
  int argc = 1, r;
  ucb_error_t err = NULL;

  for (char *t = strtok_r (copy, " ", &save); t && argc < 31; t = strtok_r (NULL, " ", &save))
    argv[argc++] = t;
  r = ucb_run_options_parse (o, argc, argv, 2, &err);
  ucb_error_free (&err);
  free (copy);
  return r;
}

#endif
