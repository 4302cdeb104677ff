/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostinfo.h - what this host is: kernel, CPUs, namespaces, cgroups, security, libraries. */
#ifndef UCB_HOSTINFO_H
#define UCB_HOSTINFO_H

#include <jansson.h>

#include "core/error.h"

/* Collect the `host` object of the result document (see docs/json.md).  Probes that cannot
 * be answered become null; only an internal failure returns < 0. */
int ucb_host_collect (json_t **out, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Print the host object as aligned `key: value` lines for `ucbench info`. */
void ucb_host_print_text (FILE *f, const json_t *host);

/* hostinfo-probes.c: parts of `host` built from host/caps.h's and host/perf.h's structs (they
 * move to the CLI with the rest of the `host` object).  {text, iab, missing: {cap_name: what
 * it disables}} of the caller's capabilities; host.perf. */
struct ucb_perf_probe;
json_t *ucb_caps_probe_json (void);
json_t *ucb_perf_probe_json (const struct ucb_perf_probe *p);

#endif
