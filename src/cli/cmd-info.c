/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c - `ucbench info`: describe this host; also the shared --format parser. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/commands.h"
#include "cli/doc.h"
#include "cli/options.h"
#include "core/json-util.h"
#include "core/util.h"
#include "host/hostinfo.h"
#include "report/info-text.h"

#define INFO_HEAD                                                                                  \
  "Usage: ucbench info [-f|--format json|text]\n"                                                  \
  "Describe this host: kernel, CPU topology, virtualization, user-namespace limits\n"              \
  "and whether they can be created, cgroup layout, capabilities, rlimits, seccomp,\n"              \
  "LSMs, library versions, and the most containers this host allows (ceiling.*)\n"                 \
  "with the limit that sets it.  A probe without an answer says why (`absent: ...`,\n"             \
  "`unknown: ...`; null in JSON).\n"
#define INFO_OPTIONS(OPT, TEXT)                                                                    \
  UCB_FORMAT_ONLY_OPTIONS (OPT, TEXT, "json|text", "output format (default: text)")
UCB_OPT_TABLE (ucb_info_opts, INFO_OPTIONS, true, 27, INFO_HEAD, NULL);

static int
print_json (json_t *host, ucb_error_t *err)
{
  json_t *doc = ucb_json_obj ();
  int r;

  ucb_json_set (doc, "schema", ucb_json_str ("ucbench-info/1"));
  ucb_json_set (doc, "host", json_incref (host));
  r = ucb_json_write (doc, stdout, err);
  json_decref (doc);
  return r;
}

int
ucb_cmd_info (int argc, char **argv, ucb_error_t *err)
{
  cleanup_hostinfo struct ucb_hostinfo h = { 0 };
  cleanup_json json_t *host = NULL;
  enum ucb_format format;
  int r;

  r = ucb_parse_format_only (argc, argv, &ucb_info_opts, false, &format, err);
  if (r != 0)
    return r < 0 ? r : 0;
  if (ucb_host_collect (&h, err) < 0)
    return ucb_error_wrap (err, "describe this host");
  host = ucb_emit_host (&h);
  /* The text is drawn from the same object the JSON shows, so the two always agree; a null's
   * reason is what the same probe found (h.why), never a second look at the host. */
  if (format == UCB_FORMAT_JSON)
    r = print_json (host, err);
  else
    ucb_info_print_text (stdout, host, &h.why);
  return r;
}
