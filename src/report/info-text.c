/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info-text.c - `ucbench info`'s text form, drawn from the document's `host` object: one
 * `a.b.c: value` line per leaf in the object's order, values aligned, and for a null what it
 * means on this host (docs/json.md), with the reasons the probe recorded (struct ucb_host_why).
 * Nothing here probes the host: the text says what the document holds, found at one moment. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/info-text.h"

static char *
value_text (const json_t *v)
{
  switch (json_typeof (v))
    {
    case JSON_STRING:
      return xstrdup (json_string_value (v));
    case JSON_INTEGER:
      return xasprintf ("%" JSON_INTEGER_FORMAT, json_integer_value (v));
    case JSON_REAL:
      return xasprintf ("%g", json_real_value (v));
    case JSON_TRUE:
      return xstrdup ("true");
    case JSON_FALSE:
      return xstrdup ("false");
    case JSON_NULL: /* null_text() says why; never reached from walk() */
      return xstrdup ("null");
    case JSON_ARRAY:
      {
        char *s = xstrdup (json_array_size (v) ? "" : "(none)");
        size_t i;
        json_t *e;
        json_array_foreach (v, i, e)
        {
          cleanup_free char *item = value_text (e);
          char *next = xasprintf ("%s%s%s", s, i ? "," : "", item);
          free (s);
          s = next;
        }
        return s;
      }
    case JSON_OBJECT: /* only inside arrays: walk() flattens the others */
    default:
      {
        char *s = json_dumps (v, JSON_COMPACT | JSON_SORT_KEYS);
        if (s == NULL)
          ucb_oom ();
        return s;
      }
    }
}

/* Said where the probe left no reason (a caller without one). */
#define UNKNOWN_TEXT "unknown: not readable on this host (null in --format json)"

/* Why l3_domains is null: no level-3 cache in sysfs (cpuN/cache, absent in some guests), so
 * the count would be a guess; the domains --pin and run then use are said too, so that info
 * and a run's config.pin.topology (l3_source) tell one story. */
static char *
l3_null_text (const struct ucb_host_why *why)
{
  if (why && why->l3_error)
    return xasprintf ("unknown: %s", why->l3_error);
  if (why == NULL || why->l3_source == NULL)
    return xstrdup (UNKNOWN_TEXT);
  if (strcmp (why->l3_source, "cache") == 0) /* null only when no CPU is online to describe */
    return xstrdup ("unknown: no online CPU in sysfs");
  return xasprintf ("unknown: sysfs has no level-3 cache (cpu*/cache/index*); --pin and run "
                    "assume %s: %zu (l3_source %s)",
                    strcmp (why->l3_source, "package") == 0 ? "one L3 domain per package"
                                                            : "one L3 domain",
                    why->l3_assumed, why->l3_source);
}

/* Why lsms is null: the error reading /sys/kernel/security/lsm gave when it was probed. */
static char *
lsms_null_text (const struct ucb_host_why *why)
{
  if (why == NULL || why->lsms_errno == 0)
    return xstrdup ("unknown: cannot read /sys/kernel/security/lsm (securityfs not mounted, "
                    "or a kernel without it)");
  return xasprintf ("unknown: cannot read /sys/kernel/security/lsm: %s (securityfs not "
                    "mounted, or a kernel without it)",
                    strerror (why->lsms_errno));
}

/* What null means at `key` (a dotted path; `parent` holds it), as docs/json.md says: the text
 * form never shows a bare "unknown". */
static char *
null_text (const char *key, const json_t *parent, const struct ucb_host_why *why)
{
  static const struct
  {
    const char *key, *text;
  } fixed[] = {
    { "cpu_model", "unknown: /proc/cpuinfo has no `model name` line" },
    { "numa_nodes", "unknown: no /sys/devices/system/node (a kernel without CONFIG_NUMA)" },
    { "cgroup_layout", "unknown: /sys/fs/cgroup is neither cgroup2 nor tmpfs" },
    { "cgroup_v2_controllers", "none: no cgroup2 mount (a legacy cgroup layout)" },
    { "userns.unprivileged_userns_clone",
      "absent: this kernel has no /proc/sys/kernel/unprivileged_userns_clone (a Debian "
      "patch); elsewhere user.max_user_namespaces and the LSMs decide" },
    { "userns.apparmor_restrict_unprivileged_userns",
      "absent: this kernel has no /proc/sys/kernel/apparmor_restrict_unprivileged_userns (an "
      "Ubuntu AppArmor sysctl)" },
    { "userns.can_create", "unknown: the probe child could not be forked" },
    { "seccomp.actions_avail", "unknown: /proc/sys/kernel/seccomp/actions_avail cannot be read" },
    { "libraries.libseccomp", "none: built --without-seccomp" },
    { "libraries.libcgroup", "none: built --without-cgroup" },
    { "libraries.libc", "unknown: not glibc" },
  };
  const json_t *can;

  if (strcmp (key, "l3_domains") == 0)
    return l3_null_text (why);
  if (strcmp (key, "lsms") == 0)
    return lsms_null_text (why);
  if (strcmp (key, "userns.create_errno") == 0)
    {
      can = json_object_get (parent, "can_create");
      return xstrdup (json_is_true (can) ? "none: creating a user namespace works"
                                         : "unknown: the probe child could not be forked");
    }
  /* perf.reason, perf.events.NAME.reason: null when the event counts. */
  if (strncmp (key, "perf.", 5) == 0 && strcmp (strrchr (key, '.'), ".reason") == 0)
    return xstrdup (json_is_true (json_object_get (parent, "available"))
                        ? "none: it counts"
                        : "unknown: perf_event_open() gave no reason");
  if (strncmp (key, "capabilities.", 13) == 0)
    return xstrdup ("unknown: libcap cannot read the capability sets");
  if (strncmp (key, "rlimits.", 8) == 0)
    return xstrdup ("unknown: getrlimit() failed");
  for (size_t i = 0; i < UCB_ARRAY_SIZE (fixed); i++)
    if (strcmp (key, fixed[i].key) == 0)
      return xstrdup (fixed[i].text);
  return xstrdup (UNKNOWN_TEXT);
}

/* Two passes over the same walk: `width` NULL measures into `max`, otherwise prints. */
static void
walk (FILE *f, const json_t *obj, const char *prefix, size_t *max, const size_t *width,
      const struct ucb_host_why *why)
{
  const char *k;
  json_t *v;

  json_object_foreach ((json_t *) obj, k, v)
  {
    cleanup_free char *key = prefix ? xasprintf ("%s.%s", prefix, k) : xstrdup (k);
    cleanup_free char *text = NULL, *shown = NULL, *line = NULL;

    if (json_is_object (v))
      walk (f, v, key, max, width, why);
    else if (width == NULL)
      {
        shown = ucb_escape_controls (key);
        *max = strlen (shown) > *max ? strlen (shown) : *max;
      }
    else
      {
        /* One line a leaf, whatever the host (a hostname, a CPU model) said. */
        shown = ucb_escape_controls (key);
        text = json_is_null (v) ? null_text (key, obj, why) : value_text (v);
        line = ucb_escape_controls (text);
        fprintf (f, "%s:%*s %s\n", shown, (int) (*width - strlen (shown)), "", line);
      }
  }
}

void
ucb_info_print_text (FILE *f, const json_t *host, const struct ucb_host_why *why)
{
  size_t max = 0;

  if (!json_is_object (host))
    return;
  walk (f, host, NULL, &max, NULL, why);
  walk (f, host, NULL, &max, &max, why);
}
