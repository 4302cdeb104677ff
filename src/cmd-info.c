/* cmd-info.c - `ucbench info`: describe this host; also the shared --format parser. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "hostinfo.h"
#include "util.h"

const char ucb_info_usage[]
    = "Usage: ucbench info [--format json|text]\n"
      "Describe this host: kernel, CPU topology, virtualization, user-namespace limits and\n"
      "whether they can be created, cgroup layout, capabilities, rlimits, seccomp, LSMs and\n"
      "library versions.  Probes that cannot be answered show as `unknown` (null in JSON).\n"
      "\n"
      "  --format json|text   output format (default: text)\n"
      "  -h, --help           show this help\n";

enum
{
  OPT_FORMAT = 256,
};

static const struct option format_longopts[] = {
  { "format", required_argument, NULL, OPT_FORMAT },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

int
ucb_parse_format_only (int argc, char **argv, const char *usage, int *json, ucb_error_t *err)
{
  int c;

  *json = 0;
  optind = 0; /* full re-initialisation: argv may be parsed more than once per process */
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+:h", format_longopts, NULL)) != -1)
    {
      switch (c)
        {
        case OPT_FORMAT:
          if (strcmp (optarg, "json") == 0)
            *json = 1;
          else if (strcmp (optarg, "text") == 0)
            *json = 0;
          else
            return ucb_usage_error (err, "invalid --format `%s` (expected json or text)", optarg);
          break;
        case 'h':
          fputs (usage, stdout);
          return 1;
        case ':':
          return ucb_usage_error (err, "option `%s` needs a value", argv[optind - 1]);
        case '?':
        default:
          if (optopt)
            return ucb_usage_error (err, "unknown option `-%c`", optopt);
          return ucb_usage_error (err, "unknown option `%s`", argv[optind - 1]);
        }
    }
  if (optind < argc)
    return ucb_usage_error (err, "unexpected argument `%s`", argv[optind]);
  return 0;
}

static int
print_json (json_t *host, ucb_error_t *err)
{
  json_t *doc = json_object ();

  if (doc == NULL)
    ucb_oom ();
  if (json_object_set_new (doc, "schema", json_string ("ucbench-info/1")) < 0
      || json_object_set (doc, "host", host) < 0)
    ucb_oom ();
  if (json_dumpf (doc, stdout, JSON_INDENT (2) | JSON_SORT_KEYS | JSON_REAL_PRECISION (10)) < 0
      || fputc ('\n', stdout) == EOF)
    {
      json_decref (doc);
      return ucb_make_error (err, 0, "cannot write the host description to standard output");
    }
  json_decref (doc);
  return 0;
}

int
ucb_cmd_info (int argc, char **argv, ucb_error_t *err)
{
  json_t *host = NULL;
  int json, r;

  r = ucb_parse_format_only (argc, argv, ucb_info_usage, &json, err);
  if (r != 0)
    return r < 0 ? r : 0;
  if (ucb_host_collect (&host, err) < 0)
    return ucb_error_wrap (err, "describe this host");
  if (json)
    r = print_json (host, err);
  else
    ucb_host_print_text (stdout, host);
  json_decref (host);
  return r;
}
