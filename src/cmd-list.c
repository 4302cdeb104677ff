/* cmd-list.c - `ucbench list`: every registered workload, what one op is, what it charges. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "util.h"
#include "workload.h"

const char ucb_list_usage[]
    = "Usage: ucbench list [--format json|text]\n"
      "List the workloads: what exactly one op is, the ucount (rlimit) it charges, the global\n"
      "kernel locks it also takes, and whether this build can run it.\n"
      "\n"
      "  --format json|text   output format (default: text)\n"
      "  -h, --help           show this help\n";

static const struct
{
  unsigned bit;
  const char *name;
} rlimit_names[] = {
  { UCB_RLIM_SIGPENDING, "SIGPENDING" },
  { UCB_RLIM_MSGQUEUE, "MSGQUEUE" },
  { UCB_RLIM_MEMLOCK, "MEMLOCK" },
  { UCB_RLIM_NPROC, "NPROC" },
};

/* Registry strings are all set today; a missing one must not crash `list`. */
static const char *
or_none (const char *s)
{
  return s ? s : "none";
}

static void
set (json_t *o, const char *k, json_t *v)
{
  if (v == NULL || json_object_set_new (o, k, v) < 0)
    ucb_oom ();
}

static json_t *
str_or_null (const char *s)
{
  return s ? json_string (s) : json_null ();
}

static json_t *
workload_json (const struct ucb_workload *w)
{
  json_t *o = json_object (), *rl = json_array ();

  if (o == NULL || rl == NULL)
    ucb_oom ();
  set (o, "name", str_or_null (w->name));
  set (o, "summary", str_or_null (w->summary));
  set (o, "op", str_or_null (w->op));
  set (o, "counter", str_or_null (w->counter));
  set (o, "locks", str_or_null (w->locks));
  for (size_t i = 0; i < UCB_ARRAY_SIZE (rlimit_names); i++)
    if ((w->rlimits & rlimit_names[i].bit)
        && json_array_append_new (rl, json_string (rlimit_names[i].name)) < 0)
      ucb_oom ();
  set (o, "rlimits", rl);
  set (o, "supported", json_boolean (w->unsupported_reason == NULL));
  set (o, "unsupported_reason", str_or_null (w->unsupported_reason));
  return o;
}

static int
print_json (ucb_error_t *err)
{
  json_t *doc = json_object (), *arr = json_array ();
  int r = 0;

  if (doc == NULL || arr == NULL)
    ucb_oom ();
  for (size_t i = 0; ucb_workloads[i]; i++)
    if (json_array_append_new (arr, workload_json (ucb_workloads[i])) < 0)
      ucb_oom ();
  set (doc, "schema", json_string ("ucbench-list/1"));
  set (doc, "workloads", arr);
  if (json_dumpf (doc, stdout, JSON_INDENT (2) | JSON_SORT_KEYS | JSON_REAL_PRECISION (10)) < 0
      || fputc ('\n', stdout) == EOF)
    r = ucb_make_error (err, 0, "cannot write the workload list to standard output");
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
      if ((int) strlen (or_none (w->counter)) > wcounter)
        wcounter = (int) strlen (or_none (w->counter));
    }
  printf ("%-*s  %-*s  %s\n", wname, "NAME", wcounter, "COUNTER", "STATUS");
  for (size_t i = 0; ucb_workloads[i]; i++)
    {
      const struct ucb_workload *w = ucb_workloads[i];

      printf ("%-*s  %-*s  ", wname, or_none (w->name), wcounter, or_none (w->counter));
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
  int json, r;

  r = ucb_parse_format_only (argc, argv, ucb_list_usage, &json, err);
  if (r != 0)
    return r < 0 ? r : 0;
  if (json)
    return print_json (err);
  print_text ();
  return 0;
}
