/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-host.c - the document's `host` object from host/hostinfo.h's struct (`ucbench info`, and
 * the `host` of run and verify documents).  Keys are set in the order `ucbench info` prints
 * them: report/info-text.c walks this object as it is built. */
#include "config.h"

#include <stdint.h>

#include "cli/doc.h"
#include "core/json-util.h"
#include "core/util.h"
#include "engine/ceiling.h"
#include "host/hostinfo.h"

static json_t *
num (struct ucb_host_num n)
{
  return n.known ? ucb_json_int (n.v) : NULL;
}

static json_t *
yes_no (enum ucb_host_bool b)
{
  return b == UCB_HOST_UNKNOWN ? NULL : json_boolean (b == UCB_HOST_YES);
}

static json_t *
words (const struct ucb_host_words *w)
{
  json_t *a;

  if (!w->known)
    return NULL;
  a = ucb_json_arr ();
  for (size_t i = 0; i < w->n; i++)
    ucb_json_push (a, ucb_json_checked (json_string (w->v[i])));
  return a;
}

static json_t *
userns (const struct ucb_hostinfo *h)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "max_user_namespaces", num (h->userns.max_user_namespaces));
  ucb_json_set (o, "unprivileged_userns_clone", num (h->userns.unprivileged_userns_clone));
  ucb_json_set (o, "apparmor_restrict_unprivileged_userns",
                num (h->userns.apparmor_restrict_unprivileged_userns));
  ucb_json_set (o, "can_create", yes_no (h->userns.can_create));
  ucb_json_set (o, "create_errno", ucb_json_str (h->userns.create_errno));
  return o;
}

/* host.capabilities: the caller's sets, the ones ucbench looks at, the caps probe's text, iab
 * and missing ({cap_name: what its absence disables}), and the uids. */
static json_t *
capabilities (const struct ucb_hostinfo *h)
{
  const struct ucb_caps_probe *p = &h->caps.probe;
  json_t *o = ucb_json_obj (), *missing = ucb_json_obj ();

  ucb_json_set (o, "effective", ucb_json_str (h->caps.effective));
  ucb_json_set (o, "cap_sys_resource", yes_no (h->caps.cap_sys_resource));
  ucb_json_set (o, "cap_sys_admin", yes_no (h->caps.cap_sys_admin));
  ucb_json_set (o, "cap_ipc_lock", yes_no (h->caps.cap_ipc_lock));
  ucb_json_set (o, "cap_setuid", yes_no (h->caps.cap_setuid));
  ucb_json_set (o, "text", ucb_json_str (p->text));
  ucb_json_set (o, "iab", ucb_json_str (p->iab));
  for (size_t i = 0; i < p->nmissing; i++)
    ucb_json_set (missing, p->missing[i].name, ucb_json_str (p->missing[i].disables));
  ucb_json_set (o, "missing", missing);
  ucb_json_set (o, "uid", ucb_json_int ((long long) h->caps.uid));
  ucb_json_set (o, "euid", ucb_json_int ((long long) h->caps.euid));
  return o;
}

/* {"SIGPENDING": {"soft", "hard"}, ..., "NOFILE": ...}, null where getrlimit failed. */
static json_t *
rlimits (const struct ucb_hostinfo *h)
{
  json_t *o = ucb_json_obj ();

  for (size_t i = 0; i < UCB_HOST_RLIMITS; i++)
    {
      const struct ucb_host_rlimit *rl = &h->rlimits[i];
      json_t *l = NULL;

      if (rl->known)
        {
          l = ucb_json_obj ();
          ucb_json_set (l, "soft", ucb_emit_limit_value ((uint64_t) rl->soft));
          ucb_json_set (l, "hard", ucb_emit_limit_value ((uint64_t) rl->hard));
        }
      ucb_json_set (o, rl->name, l);
    }
  return o;
}

static json_t *
seccomp (const struct ucb_hostinfo *h)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "available", json_boolean (h->seccomp.available));
  ucb_json_set (o, "actions_avail", words (&h->seccomp.actions_avail));
  return o;
}

/* host.libraries: jansson's version is this layer's to say (host/ does not link it). */
static json_t *
libraries (const struct ucb_hostinfo *h)
{
  json_t *o = ucb_json_obj ();

#if JANSSON_VERSION_HEX >= 0x020d00 /* jansson_version_str() is new in 2.13 */
  ucb_json_set (o, "jansson", ucb_json_str (jansson_version_str ()));
#else
  ucb_json_set (o, "jansson", ucb_json_str (JANSSON_VERSION));
#endif
  ucb_json_set (o, "libcap", ucb_json_str (h->libraries.libcap));
  ucb_json_set (o, "libseccomp", ucb_json_str (h->libraries.libseccomp));
  ucb_json_set (o, "libcgroup", ucb_json_str (h->libraries.libcgroup));
  ucb_json_set (o, "libc", ucb_json_str (h->libraries.libc));
  return o;
}

/* The most containers `run --owner shared` may have here now (depth 1, one task, the default
 * --isolate), the bound that sets it, how to raise it, and what each bound alone allows. */
static json_t *
ceiling (void)
{
  struct ucb_ceiling_host h;
  struct ucb_ceiling_shape s;
  struct ucb_ceiling c;
  json_t *o = ucb_json_obj (), *bounds = ucb_json_obj ();
  cleanup_free char *why = NULL;
  cleanup_free char *iso = ucb_isolate_name (UCB_ISOLATE_DEFAULT_FLAGS);
  cleanup_free char *shape
      = xasprintf ("--owner shared --depth 1 --tasks 1 --isolate user%s%s", *iso ? "," : "", iso);

  ucb_ceiling_default (&h, &s, &c);
  why = ucb_ceiling_why (&h, &s, c.limit, 0);
  ucb_json_set (o, "containers", ucb_emit_limit_value (c.containers));
  ucb_json_set (o, "limit", ucb_json_str (ucb_bound_name (c.limit)));
  ucb_json_set (o, "why", ucb_json_str (why));
  ucb_json_set (o, "shape", ucb_json_str (shape));
  ucb_json_set (o, "task_bytes", ucb_json_int ((long long) h.task_bytes));
  for (int b = 0; b < UCB_BOUNDS; b++) /* a bound that limits nothing here is left out */
    if (c.allows[b] != UCB_CEIL_NONE)
      ucb_json_set (bounds, ucb_bound_name ((enum ucb_bound) b),
                    ucb_json_int ((long long) c.allows[b]));
  ucb_json_set (o, "bounds", bounds);
  return o;
}

json_t *
ucb_emit_host (const struct ucb_hostinfo *h)
{
  json_t *host = ucb_json_obj (), *kernel = ucb_json_obj (), *features = ucb_json_obj ();

  ucb_json_set (host, "hostname", ucb_json_str (h->hostname));
  ucb_json_set (kernel, "release", ucb_json_str (h->kernel_release));
  ucb_json_set (kernel, "version", ucb_json_str (h->kernel_version));
  ucb_json_set (kernel, "cmdline", ucb_json_str (h->kernel_cmdline));
  ucb_json_set (host, "kernel", kernel);
  ucb_json_set (host, "arch", ucb_json_str (h->arch));
  ucb_json_set (host, "cpu_model", ucb_json_str (h->cpu_model));
  ucb_json_set (host, "cpus_online", num (h->cpus_online));
  ucb_json_set (host, "cpus_allowed", num (h->cpus_allowed));
  ucb_json_set (host, "cpus_allowed_list", ucb_json_str (h->cpus_allowed_list));
  ucb_json_set (host, "smt", yes_no (h->smt));
  ucb_json_set (host, "threads_per_core", num (h->threads_per_core));
  ucb_json_set (host, "l3_domains", num (h->l3_domains));
  ucb_json_set (host, "numa_nodes", num (h->numa_nodes));
  ucb_json_set (host, "memory_bytes", num (h->memory_bytes));
  ucb_json_set (host, "virtualization", ucb_json_str (h->virtualization));
  ucb_json_set (host, "lsms", words (&h->lsms));
  ucb_json_set (host, "cgroup_layout",
                h->cgroup_layout == UCB_CG_NONE
                    ? NULL
                    : ucb_json_str (ucb_cg_layout_name (h->cgroup_layout)));
  ucb_json_set (host, "cgroup_v2_controllers", words (&h->cgroup_v2_controllers));
  ucb_json_set (host, "userns", userns (h));
  ucb_json_set (host, "capabilities", capabilities (h));
  ucb_json_set (host, "rlimits", rlimits (h));
  ucb_json_set (host, "seccomp", seccomp (h));
  ucb_json_set (host, "libraries", libraries (h));
  ucb_json_set (features, "seccomp", ucb_json_str (h->feature_seccomp));
  ucb_json_set (features, "cgroup", ucb_json_str (h->feature_cgroup));
  ucb_json_set (host, "features", features);
  ucb_json_set (host, "perf", ucb_emit_perf_probe (&h->perf));
  ucb_json_set (host, "ceiling", ceiling ());
  return host;
}

int
ucb_host_object (json_t **out, ucb_error_t *err)
{
  cleanup_hostinfo struct ucb_hostinfo h = { 0 };

  *out = NULL;
  if (ucb_host_collect (&h, err) < 0)
    return -1;
  *out = ucb_emit_host (&h);
  return 0;
}
