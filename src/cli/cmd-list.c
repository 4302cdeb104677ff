/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-list.c - `ucbench list`: every registered workload, what one op is, what it charges. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/commands.h"
#include "cli/doc.h"
#include "cli/options.h"
#include "core/json-util.h"
#include "core/util.h"
#include "engine/workload.h"
#include "report/csv.h"

#define LIST_HEAD                                                                                  \
  "Usage: ucbench list [-f|--format json|text|csv]\n"                                              \
  "List the workloads: what exactly one op is, the ucount (rlimit) it charges, the\n"              \
  "global kernel locks it also takes, and whether this build can run it.\n"
#define LIST_OPTIONS(OPT, TEXT)                                                                    \
  UCB_FORMAT_ONLY_OPTIONS (OPT, TEXT, "json|text|csv",                                             \
                           "output format (default: text); csv: one row per\n"                     \
                           "workload, the JSON keys as headers")
UCB_OPT_TABLE (ucb_list_opts, LIST_OPTIONS, true, 30, LIST_HEAD, NULL);

/* Registry strings are all set today; a missing one must not crash `list`. */
static const char *
or_none (const char *s)
{
  return s ? s : "none";
}

static json_t *
workload_json (const struct ucb_workload *w)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "name", ucb_json_str (w->name));
  ucb_json_set (o, "summary", ucb_json_str (w->summary));
  ucb_json_set (o, "op", ucb_json_str (w->op));
  ucb_json_set (o, "counter", ucb_json_str (ucb_workload_counter (w)));
  ucb_json_set (o, "locks", ucb_json_str (w->locks));
  ucb_json_set (o, "rlimits", ucb_emit_rlimits (w->rlimits));
  ucb_json_set (o, "supported", json_boolean (w->unsupported_reason == NULL));
  ucb_json_set (o, "unsupported_reason", ucb_json_str (w->unsupported_reason));
  return o;
}

/* The document, or its workloads[] as CSV rows. */
static int
print_json (bool csv, ucb_error_t *err)
{
  json_t *doc = ucb_json_obj (), *arr = ucb_json_arr ();
  int r = 0;

  for (size_t i = 0; ucb_workloads[i]; i++)
    ucb_json_push (arr, workload_json (ucb_workloads[i]));
  ucb_json_set (doc, "schema", ucb_json_str ("ucbench-list/1"));
  ucb_json_set (doc, "workloads", arr);
  if (csv)
    ucb_csv_write_rows (stdout, arr);
  else
    r = ucb_json_write (doc, stdout, err);
  json_decref (doc);
  return r;
}

static void
print_text (void)
{
  int wname = (int) strlen ("NAME"), wcounter = (int) strlen ("COUNTER");

  for (size_t i = 0; ucb_workloads[i]; i++)
    {
      const struct ucb_workload *w = ucb_workloads[i];
      if ((int) strlen (or_none (w->name)) > wname)
        wname = (int) strlen (or_none (w->name));
      if ((int) strlen (ucb_workload_counter (w)) > wcounter)
        wcounter = (int) strlen (ucb_workload_counter (w));
    }
  printf ("%-*s  %-*s  %s\n", wname, "NAME", wcounter, "COUNTER", "STATUS");
  for (size_t i = 0; ucb_workloads[i]; i++)
    {
      const struct ucb_workload *w = ucb_workloads[i];

      printf ("%-*s  %-*s  ", wname, or_none (w->name), wcounter, ucb_workload_counter (w));
      if (w->unsupported_reason)
        printf ("unsupported: %s\n", w->unsupported_reason);
      else
        printf ("ok\n");
      printf ("    %s\n", or_none (w->summary));
      printf ("    op: %s\n", or_none (w->op));
      printf ("    locks: %s\n", or_none (w->locks));
    }
}

int
ucb_cmd_list (int argc, char **argv, ucb_error_t *err)
{
  enum ucb_format format;
  int r;

  r = ucb_parse_format_only (argc, argv, &ucb_list_opts, true, &format, err);
  if (r != 0)
    return r < 0 ? r : 0;
  if (format != UCB_FORMAT_TEXT)
    return print_json (format == UCB_FORMAT_CSV, err);
  print_text ();
  return 0;
}
