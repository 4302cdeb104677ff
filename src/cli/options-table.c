/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options-table.c - what is made of a command's option table (options-table.h): getopt's long
 * options and short-option string, the getopt loop every command runs, its --help and the
 * option list the bash completion reads; and run's table. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "core/lists.h"
#include "core/util.h"

/* Where run's help text starts: after the longest option with its metavar ("  --caps
 * keep|drop|none|LIST") and a blank. */
UCB_OPT_TABLE (ucb_run_opts, UCB_RUN_OPTIONS, true, 29, UCB_RUN_HEAD, NULL);

/* getopt_long's result for the option of id `id`: its short letter when there is one (so -w and
 * --workload read the same), else a value above every letter (getopt_error tells them apart
 * so). */
#define LONG_ONLY_BASE 256

static int
getopt_val (const struct ucb_opt_row *r, int id)
{
  return r->short_name ? r->short_name : LONG_ONLY_BASE + id;
}

void
ucb_opt_getopt (const struct ucb_opt_table *t, char **shortopts, struct option **longopts)
{
  /* ':' first: a missing value is reported as ':', not printed by getopt (opterr = 0). */
  char *s = *shortopts = xcalloc (3 + 3 * t->n_rows, 1);
  struct option *lo = *longopts = xcalloc (t->n_rows + 1, sizeof *lo);
  int id = 0;

  if (t->in_order)
    *s++ = '+';
  *s++ = ':';
  for (size_t i = 0; i < t->n_rows; i++)
    {
      const struct ucb_opt_row *r = &t->rows[i];

      if (r->name == NULL)
        continue;
      *lo++ = (struct option){ r->name, (int) r->arg, NULL, getopt_val (r, id++) };
      if (r->short_name == 0)
        continue;
      *s++ = (char) r->short_name;
      if (r->arg != UCB_ARG_NONE)
        *s++ = ':';
      if (r->arg == UCB_ARG_OPTIONAL)
        *s++ = ':';
    }
}

int
ucb_opt_id (const struct ucb_opt_table *t, int c)
{
  int id = 0;

  for (size_t i = 0; i < t->n_rows; i++)
    if (t->rows[i].name && getopt_val (&t->rows[i], id++) == c)
      return id - 1;
  return -1;
}

/* `tok` is `--NAME[=..]` with NAME (or a prefix of it: getopt's abbreviations) the long form
 * of the option whose val is `val`. */
static bool
is_long_form (const char *tok, int val, const struct option *longopts)
{
  size_t len;

  if (strncmp (tok, "--", 2) != 0)
    return false;
  tok += 2;
  len = strcspn (tok, "=");
  for (const struct option *lo = longopts; lo->name; lo++)
    if (len > 0 && lo->val == val && strncmp (lo->name, tok, len) == 0)
      return true;
  return false;
}

/* `--NAME[=V]` that getopt_long refused: a prefix of several options (ambiguous), a value for
 * an option that takes none, or no option at all (the nearest suggested). */
static int
long_option_error (const char *tok, const struct option *longopts, ucb_error_t *err)
{
  size_t len = strcspn (tok + 2, "="), n = 0, nmatch = 0;
  cleanup_free char *name = xstrndup (tok + 2, len);
  cleanup_free char *dashed = NULL, *list = NULL;
  cleanup_free const char **names = NULL, **match = NULL;
  const struct option *hit = NULL;
  const char *near;

  while (longopts[n].name)
    n++;
  names = xcalloc (n + 1, sizeof *names);
  match = xcalloc (n + 1, sizeof *match);
  for (size_t i = 0; i < n; i++)
    {
      names[i] = longopts[i].name;
      if (len > 0 && strncmp (longopts[i].name, name, len) == 0)
        {
          match[nmatch++] = longopts[i].name;
          hit = &longopts[i];
          if (strlen (longopts[i].name) == len) /* exact: no other counts */
            {
              nmatch = 1;
              break;
            }
        }
    }
  if (nmatch > 1)
    {
      for (size_t i = 0; i < nmatch; i++)
        match[i] = xasprintf ("--%s", match[i]);
      list = ucb_names_text (match, nmatch, NULL);
      for (size_t i = 0; i < nmatch; i++)
        free ((char *) match[i]);
      return ucb_usage_error (err, "ambiguous option `%s`: the start of %s", tok, list);
    }
  if (nmatch == 1 && hit->has_arg == no_argument && tok[2 + len] == '=')
    return ucb_usage_error (err, "unknown option `%s`: --%s takes no value", tok, hit->name);
  near = ucb_nearest_name (names, n, name);
  if (near == NULL)
    return ucb_usage_error (err, "unknown option `%s`", tok);
  dashed = xasprintf ("--%s", near);
  return ucb_usage_error (err, "unknown option `%s`: did you mean `%s`?", tok, dashed);
}

/* getopt_long's ':' (missing value) or '?' (unknown option) result.  optopt holds a short
 * option's letter, or a long option's `val` (>= 256 here), or 0 for an unknown long option. */
static int
getopt_error (int c, char **argv, ucb_error_t *err)
{
  if (c == ':')
    return ucb_usage_error (err, "option `%s` needs a value", argv[optind - 1]);
  if (optopt > 0 && optopt < LONG_ONLY_BASE)
    return ucb_usage_error (err, "unknown option `-%c`", optopt);
  return ucb_usage_error (err, "unknown option `%s`", argv[optind - 1]);
}

int
ucb_getopt_each (int argc, char **argv, const struct ucb_opt_table *t, ucb_opt_fn fn, void *ctx,
                 bool *help, ucb_error_t *err)
{
  cleanup_free char *opts = NULL;
  cleanup_free struct option *longopts = NULL;
  int c;

  ucb_opt_getopt (t, &opts, &longopts);
  *help = false;
  optind = 0; /* full re-initialisation: argv may be parsed more than once per process */
  opterr = 0;
  while ((c = getopt_long (argc, argv, opts, longopts, NULL)) != -1)
    {
      int id = c == ':' || c == '?' ? -1 : ucb_opt_id (t, c), r;

      /* A long form refused: unknown or ambiguous (optopt 0), or given a value it does not
       * take (optopt its val: --quiet=1).  Else a short option, argv[optind - 1] perhaps
       * the token before its group. */
      if (c == '?' && (optopt == 0 || is_long_form (argv[optind - 1], optopt, longopts))
          && strncmp (argv[optind - 1], "--", 2) == 0)
        return long_option_error (argv[optind - 1], longopts, err);
      if (id < 0)
        return getopt_error (c, argv, err);
      if (strcmp (longopts[id].name, "help") == 0)
        {
          *help = true;
          return 0;
        }
      r = fn (ctx, id, optarg, err);
      if (r < 0)
        return -1;
      if (r > 0) /* a row its parser does not take */
        return getopt_error (c, argv, err);
    }
  return 0;
}

int
ucb_getopt_command (int argc, char **argv, const struct ucb_opt_table *t, ucb_opt_fn fn, void *ctx,
                    ucb_error_t *err)
{
  bool help;

  if (ucb_getopt_each (argc, argv, t, fn, ctx, &help, err) < 0)
    return -1;
  if (help)
    ucb_opt_usage (t, stdout);
  return help;
}

int
ucb_opt_store_arg (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  (void) id, (void) err;
  *(const char **) ctx = arg;
  return 0;
}

/* `text`'s lines, the first from column `at`, the others indented to `column`. */
static void
write_help (FILE *f, int at, int column, const char *text)
{
  fprintf (f, "%*s", at >= column ? 2 : column - at, "");
  for (const char *h = text;;)
    {
      size_t len = strcspn (h, "\n");

      fwrite (h, 1, len, f);
      fputc ('\n', f);
      if (h[len] == '\0')
        return;
      h += len + 1;
      fprintf (f, "%*s", column, "");
    }
}

/* "  -d, --duration TIME" or "  --cgroup[=PARENT]" or a TEXT row's label, then its help. */
static void
write_row (FILE *f, const struct ucb_opt_row *r, int column)
{
  int n;

  if (r->label && r->help == NULL)
    {
      fprintf (f, "\n%s\n", r->label);
      return;
    }
  if (r->help == NULL) /* shown by TEXT rows */
    return;
  if (r->label)
    n = fprintf (f, "  %s", r->label);
  else if (r->short_name)
    n = fprintf (f, "  -%c, --%s", r->short_name, r->name);
  else
    n = fprintf (f, "  --%s", r->name);
  if (r->arg == UCB_ARG_REQUIRED)
    n += fprintf (f, " %s", r->metavar);
  else if (r->arg == UCB_ARG_OPTIONAL)
    n += fprintf (f, "[=%s]", r->metavar);
  write_help (f, n, column, r->help);
}

void
ucb_opt_usage (const struct ucb_opt_table *t, FILE *f)
{
  fprintf (f, "%s\n", t->head);
  for (size_t i = 0; i < t->n_rows; i++)
    write_row (f, &t->rows[i], t->help_column);
  if (t->tail)
    fputs (t->tail, f);
}

void
ucb_opt_list (const struct ucb_opt_table *t, FILE *f)
{
  for (size_t i = 0; i < t->n_rows; i++)
    {
      const struct ucb_opt_row *r = &t->rows[i];
      const char *eq = r->arg == UCB_ARG_REQUIRED ? "=" : "";

      if (r->name == NULL)
        continue;
      if (r->short_name)
        fprintf (f, "-%c%s\n", r->short_name, eq);
      fprintf (f, "--%s%s\n", r->name, eq);
    }
}
