/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostinfo-probes.c - host.capabilities' text, iab and missing, and host.perf, built from
 * host/caps.h's and host/perf.h's structs for hostinfo.c, which still builds the `host` object
 * below the CLI.  cli/doc-runtime.c writes config.runtime.perf from the same struct in the
 * same form ($defs/perf_probe of the schema); this file goes when hostinfo.c's JSON moves to
 * the CLI. */
#include "config.h"

#include "core/json-util.h"
#include "host/caps.h"
#include "host/hostinfo.h"
#include "host/perf.h"

json_t *
ucb_caps_probe_json (void)
{
  struct ucb_caps_probe p;
  json_t *o = ucb_json_obj (), *missing = ucb_json_obj ();

  ucb_caps_probe (&p);
  ucb_json_set (o, "text", ucb_json_str (p.text));
  ucb_json_set (o, "iab", ucb_json_str (p.iab));
  for (size_t i = 0; i < p.nmissing; i++)
    ucb_json_set (missing, p.missing[i].name, ucb_json_str (p.missing[i].disables));
  ucb_json_set (o, "missing", missing);
  ucb_caps_probe_free (&p);
  return o;
}

json_t *
ucb_perf_probe_json (const struct ucb_perf_probe *p)
{
  json_t *o = ucb_json_obj (), *ev = ucb_json_obj ();

  ucb_json_set (o, "available", json_boolean (p->hardware));
  ucb_json_set (o, "reason", p->hardware ? json_null () : ucb_json_str (p->hardware_reason));
  ucb_json_set (o, "perf_event_paranoid", p->paranoid == -99 ? NULL : ucb_json_int (p->paranoid));
  for (int e = 0; e < UCB_PERF_NEVENTS; e++)
    {
      json_t *one = ucb_json_obj ();
      ucb_json_set (one, "available", json_boolean (p->available[e]));
      ucb_json_set (one, "reason", p->available[e] ? json_null () : ucb_json_str (p->reason[e]));
      if (e == UCB_PERF_HITM && p->available[e])
        ucb_json_set (one, "alias", ucb_json_str (p->hitm_alias));
      ucb_json_set (ev, ucb_perf_event_name ((enum ucb_perf_event) e), one);
    }
  ucb_json_set (o, "events", ev);
  return o;
}
