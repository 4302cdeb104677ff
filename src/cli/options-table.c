/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options-table.c - what is made of the `ucbench run` option table (options-table.h): the rows
 * as data, getopt's long options and short-option string, and `ucbench run --help`. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "cli/options-table.h"
#include "core/util.h"

#define UCB_RUN_ROW(id, name, short_name, arg, metavar, help)                                      \
  { NULL, UCB_OPT_##id, name, short_name, UCB_ARG_##arg, metavar, help },
#define UCB_RUN_HEADING(heading) { heading, -1, NULL, 0, UCB_ARG_NONE, NULL, NULL },
const struct ucb_run_opt_row ucb_run_opt_rows[]
    = { UCB_RUN_OPTIONS (UCB_RUN_ROW, UCB_RUN_HEADING) };
const size_t ucb_run_opt_n_rows = UCB_ARRAY_SIZE (ucb_run_opt_rows);

/* What comes before the rows in --help. */
static const char usage_head[]
    = "Usage: ucbench run [OPTION]...\n"
      "Run workloads in N containers (user namespaces), report per-container ops/s.\n"
      "List-valued options run every combination (a sweep).\n"
      "\n";

/* Where the help text starts: after the longest option with its metavar ("  --caps
 * keep|drop|none|LIST") and a blank.  A longer one gets its help on the next line. */
#define HELP_COLUMN 29

/* getopt_long's result for a row: the short letter when there is one (so -w and --workload
 * read the same), else a value above every letter (ucb_getopt_error tells them apart so). */
#define LONG_ONLY_BASE 256

static int
getopt_val (const struct ucb_run_opt_row *r)
{
  return r->short_name ? r->short_name : LONG_ONLY_BASE + r->id;
}

/* Sized by the table: "+", then at most "x::" per option, then the NUL. */
static char shortopts[2 + 3 * UCB_RUN_N_OPTS];
static struct option longopts[UCB_RUN_N_OPTS + 1]; /* zeroed: the terminator is there */

static void
build_getopt (void)
{
  static bool built; /* option parsing runs on the main thread, before any other exists */
  char *s = shortopts;
  size_t n = 0;

  if (built)
    return;
  *s++ = '+';
  for (size_t i = 0; i < ucb_run_opt_n_rows; i++)
    {
      const struct ucb_run_opt_row *r = &ucb_run_opt_rows[i];

      if (r->name == NULL || r->id == UCB_OPT_HELP)
        continue;
      longopts[n++] = (struct option){ r->name, (int) r->arg, NULL, getopt_val (r) };
      if (r->short_name == 0)
        continue;
      *s++ = (char) r->short_name;
      if (r->arg != UCB_ARG_NONE)
        *s++ = ':';
      if (r->arg == UCB_ARG_OPTIONAL)
        *s++ = ':';
    }
  *s = '\0';
  built = true;
}

const char *
ucb_run_shortopts (void)
{
  build_getopt ();
  return shortopts;
}

const struct option *
ucb_run_longopts (void)
{
  build_getopt ();
  return longopts;
}

int
ucb_run_opt_id (int c)
{
  for (size_t i = 0; i < ucb_run_opt_n_rows; i++)
    if (ucb_run_opt_rows[i].name && getopt_val (&ucb_run_opt_rows[i]) == c)
      return ucb_run_opt_rows[i].id;
  return -1;
}

/* "  -d, --duration TIME" or "  --cgroup[=PARENT]", then the help lines in their column. */
static void
write_option (FILE *f, const struct ucb_run_opt_row *r)
{
  int n;

  if (r->short_name)
    n = fprintf (f, "  -%c, --%s", r->short_name, r->name);
  else
    n = fprintf (f, "  --%s", r->name);
  if (r->arg == UCB_ARG_REQUIRED)
    n += fprintf (f, " %s", r->metavar);
  else if (r->arg == UCB_ARG_OPTIONAL)
    n += fprintf (f, "[=%s]", r->metavar);
  if (n >= HELP_COLUMN)
    {
      fputc ('\n', f);
      n = 0;
    }
  fprintf (f, "%*s", HELP_COLUMN - n, "");
  for (const char *h = r->help;;)
    {
      size_t len = strcspn (h, "\n");

      fwrite (h, 1, len, f);
      fputc ('\n', f);
      if (h[len] == '\0')
        return;
      h += len + 1;
      fprintf (f, "%*s", HELP_COLUMN, "");
    }
}

void
ucb_run_usage (FILE *f)
{
  fputs (usage_head, f);
  for (size_t i = 0; i < ucb_run_opt_n_rows; i++)
    if (ucb_run_opt_rows[i].name)
      write_option (f, &ucb_run_opt_rows[i]);
    else
      fprintf (f, "\n%s\n", ucb_run_opt_rows[i].heading);
}
