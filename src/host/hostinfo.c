/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostinfo.c - probe the host (kernel, CPUs, namespaces, cgroups, caps) into a JSON object. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "core/errnames.h"
#include "core/json-util.h"
#include "core/lists.h"
#include "core/util.h"
#include "host/caps.h"
#include "host/cgroup/layout.h"
#include "host/hostinfo.h"
#include "host/perf.h"
#include "host/rlimit.h"
#include "host/topology.h"
#include "host/userns.h"

static json_t *
int_file (const char *path)
{
  cleanup_free char *s = ucb_read_file_or_null (path);
  char *end;
  long long v;

  if (s == NULL)
    return NULL;
  errno = 0;
  v = strtoll (s, &end, 10);
  return errno == 0 && end != s && *end == '\0' ? json_integer (v) : NULL;
}

/* Split `s` on any of `seps` into an array of non-empty strings; NULL `s` gives NULL. */
static json_t *
split_array (const char *s, const char *seps)
{
  cleanup_free char *copy = s ? xstrdup (s) : NULL;
  char *save = NULL;
  json_t *a;

  if (s == NULL)
    return NULL;
  a = ucb_json_checked (json_array ());
  for (char *t = strtok_r (copy, seps, &save); t; t = strtok_r (NULL, seps, &save))
    if (json_array_append_new (a, ucb_json_checked (json_string (t))) < 0)
      ucb_oom ();
  return a;
}

static char *
cpu_model (void)
{
  cleanup_free char *info = ucb_read_file_or_null ("/proc/cpuinfo");
  char *p = info ? strstr (info, "model name") : NULL;

  if (p == NULL || (p = strchr (p, ':')) == NULL)
    return NULL;
  p += 1 + strspn (p + 1, " \t");
  return xasprintf ("%.*s", (int) strcspn (p, "\n"), p);
}

/* The CPUs this process may run on, as a count and a list. */
static void
affinity (json_t **count, json_t **list)
{
  cleanup_free int *cpus = NULL;
  cleanup_free char *s = NULL;
  ucb_error_t e = NULL;
  size_t n = 0;

  if (ucb_allowed_cpus (&cpus, &n, &e) < 0)
    {
      ucb_error_free (&e);
      return;
    }
  s = ucb_format_cpu_list (cpus, n);
  *count = json_integer ((json_int_t) n);
  *list = ucb_json_str (s);
}

/* L3 domains, NUMA nodes and cpu0's SMT siblings as topology.c reads them (the placement of
 * --pin reads the same), over every online CPU; null what sysfs does not say. */
static void
topology_facts (json_t *host)
{
  struct ucb_topology t;
  ucb_error_t e = NULL;
  const struct ucb_cpu_topo *c0;
  size_t threads = 0;

  if (ucb_topology_read_online ("/", &t, &e) < 0)
    {
      ucb_error_free (&e);
      ucb_json_set (host, "threads_per_core", NULL);
      ucb_json_set (host, "l3_domains", NULL);
      ucb_json_set (host, "numa_nodes", NULL);
      return;
    }
  c0 = ucb_topology_cpu (&t, 0);
  for (size_t i = 0; c0 && c0->core_known && i < t.ncpus; i++)
    threads += t.cpu[i].core == c0->core;
  ucb_json_set (host, "threads_per_core", threads ? json_integer ((json_int_t) threads) : NULL);
  ucb_json_set (host, "l3_domains",
                strcmp (t.l3_source, "cache") == 0 && t.nl3 ? json_integer ((json_int_t) t.nl3)
                                                            : NULL);
  ucb_json_set (host, "numa_nodes",
                t.nodes_listed >= 0 ? json_integer ((json_int_t) t.nodes_listed) : NULL);
  ucb_topology_free (&t);
}

static json_t *
smt_active (void)
{
  cleanup_free char *s = ucb_read_file_or_null ("/sys/devices/system/cpu/smt/active");

  if (s == NULL || (strcmp (s, "0") != 0 && strcmp (s, "1") != 0))
    return NULL;
  return json_boolean (s[0] == '1');
}

#if defined(__x86_64__) || defined(__i386__)
static void
cpuid_signature (unsigned leaf, char sig[13])
{
  unsigned a, b, c, d;

  __cpuid (leaf, a, b, c, d);
  (void) a;
  memcpy (sig, &b, 4);
  memcpy (sig + 4, &c, 4);
  memcpy (sig + 8, &d, 4);
  sig[12] = '\0';
}
#endif

/* The hypervisor's CPUID signature names it.  Without CPUID (non-x86) only Xen says so in
 * sysfs, so anything else stays unknown. */
static char *
virtualization (void)
{
#if defined(__x86_64__) || defined(__i386__)
  static const struct
  {
    char sig[13];
    const char *name;
  } vendors[] = {
    { "KVMKVMKVM\0\0\0", "kvm" },    { "Linux KVM Hv", "kvm" },   { "VMwareVMware", "vmware" },
    { "Microsoft Hv", "hyperv" },    { "XenVMMXenVMM", "xen" },   { "TCGTCGTCGTCG", "qemu-tcg" },
    { "bhyve bhyve ", "bhyve" },     { "ACRNACRNACRN", "acrn" },  { "VBoxVBoxVBox", "virtualbox" },
    { " lrpepyh  vr", "parallels" }, { "QNXQVMBSQG\0\0", "qnx" },
  };
  unsigned a, b, c, d;
  char sig[13], kvm[13];

  if (!__get_cpuid (1, &a, &b, &c, &d) || !(c & (1u << 31)))
    {
      char *xen
          = ucb_read_file_or_null ("/sys/hypervisor/type"); /* Xen PV guests lack the CPUID bit */
      return xen ? xen : xstrdup ("none");
    }
  cpuid_signature (0x40000000, sig);
  if (strcmp (sig, "Microsoft Hv") == 0)
    {
      /* KVM with Hyper-V enlightenments shows Hyper-V first and itself at 0x40000100. */
      cpuid_signature (0x40000100, kvm);
      if (memcmp (kvm, "KVMKVMKVM\0\0\0", 12) == 0)
        return xstrdup ("kvm");
    }
  for (size_t i = 0; i < UCB_ARRAY_SIZE (vendors); i++)
    if (memcmp (sig, vendors[i].sig, 12) == 0)
      return xstrdup (vendors[i].name);
  return NULL; /* a hypervisor, but not one we know */
#else
  return ucb_read_file_or_null ("/sys/hypervisor/type");
#endif
}

/* The sysctls only hint; the reliable answer is to try it in a throw-away child. */
static json_t *
probe_userns (void)
{
  cleanup_free char *why = NULL;
  json_t *o, *can = NULL;
  int r;

  r = ucb_userns_probe ();
  if (r == 0)
    can = json_true ();
  else if (r > 0)
    {
      can = json_false ();
      char buf[UCB_ERRNO_NAME_MAX];
      why = xstrdup (ucb_errno_name (r, buf));
    }
  else if (r != INT_MIN)
    {
      can = json_false (); /* e.g. a seccomp filter that kills */
      why = xasprintf ("killed by signal %d", -r);
    }
  o = ucb_json_checked (json_object ());
  ucb_json_set (o, "max_user_namespaces", int_file ("/proc/sys/user/max_user_namespaces"));
  ucb_json_set (o, "unprivileged_userns_clone",
                int_file ("/proc/sys/kernel/unprivileged_userns_clone"));
  ucb_json_set (o, "apparmor_restrict_unprivileged_userns",
                int_file ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"));
  ucb_json_set (o, "can_create", can);
  ucb_json_set (o, "create_errno", ucb_json_str (why));
  return o;
}

static json_t *
cap_effective (cap_t cur, cap_value_t cap)
{
  cap_flag_value_t v;

  if (cur == NULL || cap_get_flag (cur, cap, CAP_EFFECTIVE, &v) < 0)
    return NULL;
  return json_boolean (v == CAP_SET);
}

static json_t *
probe_caps (void)
{
  cap_t cur = cap_get_proc ();
  char *text = cur ? cap_to_text (cur, NULL) : NULL;
  json_t *o = ucb_json_checked (json_object ());

  ucb_json_set (o, "effective", ucb_json_str (text));
  ucb_json_set (o, "cap_sys_resource", cap_effective (cur, CAP_SYS_RESOURCE));
  ucb_json_set (o, "cap_sys_admin", cap_effective (cur, CAP_SYS_ADMIN));
  ucb_json_set (o, "cap_ipc_lock", cap_effective (cur, CAP_IPC_LOCK));
  ucb_json_set (o, "cap_setuid", cap_effective (cur, CAP_SETUID));
  {
    json_t *more = ucb_caps_probe_json (); /* text, iab, missing */
    json_object_update (o, more);
    json_decref (more);
  }
  ucb_json_set (o, "uid", json_integer ((json_int_t) getuid ()));
  ucb_json_set (o, "euid", json_integer ((json_int_t) geteuid ()));

  if (text)
    cap_free (text);
  if (cur)
    cap_free (cur);
  return o;
}

static json_t *
rlim_value (rlim_t v)
{
  if (v == RLIM_INFINITY || v > (rlim_t) INT64_MAX)
    return json_string ("unlimited");
  return json_integer ((json_int_t) v);
}

/* o[name] = {"soft", "hard"} of `resource`, null if getrlimit fails. */
static void
set_rlimit (json_t *o, const char *name, int resource)
{
  struct rlimit rl;
  json_t *l = NULL;

  if (getrlimit (resource, &rl) == 0)
    l = ucb_json_checked (json_pack ("{s:o, s:o}", "soft", rlim_value (rl.rlim_cur), "hard",
                                     rlim_value (rl.rlim_max)));
  ucb_json_set (o, name, l);
}

static json_t *
probe_rlimits (void)
{
  json_t *o = ucb_json_checked (json_object ());

  for (enum ucb_rl rl = 0; rl < UCB_RLS; rl++)
    set_rlimit (o, ucb_rl_name (rl), ucb_rl_resource (rl));
  set_rlimit (o, "NOFILE", RLIMIT_NOFILE); /* not a ucounts rlimit: recorded beside them */
  return o;
}

static json_t *
probe_libraries (void)
{
  cleanup_free char *seccomp = NULL;
  const char *libcap = NULL, *libcgroup = NULL, *libc = NULL;
  json_t *o = ucb_json_checked (json_object ());

#ifdef UCB_LIBCAP_VERSION
  libcap = UCB_LIBCAP_VERSION;
#endif
#ifdef HAVE_SECCOMP
  {
    const struct scmp_version *v = seccomp_version ();
    seccomp = v ? xasprintf ("%u.%u.%u", v->major, v->minor, v->micro) : NULL;
  }
#endif
#if defined(HAVE_CGROUP) && defined(UCB_LIBCGROUP_VERSION)
  libcgroup = UCB_LIBCGROUP_VERSION;
#endif
#ifdef __GLIBC__
  libc = gnu_get_libc_version ();
#endif
#if JANSSON_VERSION_HEX >= 0x020d00 /* jansson_version_str() is new in 2.13 */
  ucb_json_set (o, "jansson", ucb_json_str (jansson_version_str ()));
#else
  ucb_json_set (o, "jansson", ucb_json_str (JANSSON_VERSION));
#endif
  ucb_json_set (o, "libcap", ucb_json_str (libcap));
  ucb_json_set (o, "libseccomp", ucb_json_str (seccomp));
  ucb_json_set (o, "libcgroup", ucb_json_str (libcgroup));
  ucb_json_set (o, "libc", ucb_json_str (libc));
  return o;
}

#ifdef HAVE_SECCOMP
#define SECCOMP_BUILT 1
#define SECCOMP_FEATURE "available"
#else
#define SECCOMP_BUILT 0
#define SECCOMP_FEATURE "unavailable (built --without-seccomp)"
#endif
#ifdef HAVE_CGROUP
#define CGROUP_FEATURE "available"
#else
#define CGROUP_FEATURE "unavailable (built --without-cgroup)"
#endif

int
ucb_host_collect (json_t **out, ucb_error_t *err)
{
  /* First, before anything here is allocated: the probe forks, and valgrind checks the
   * child's memory at its _exit too, where objects half built here can read as lost. */
  json_t *userns = probe_userns ();
  cleanup_free char *cmdline = ucb_read_file_or_null ("/proc/cmdline"), *model = cpu_model ();
  cleanup_free char *virt = virtualization (),
                    *lsm = ucb_read_file_or_null ("/sys/kernel/security/lsm");
  cleanup_free char *actions = ucb_read_file_or_null ("/proc/sys/kernel/seccomp/actions_avail");
  cleanup_free char *controllers = NULL, *controllers_path = NULL;
  json_t *host = ucb_json_checked (json_object ()), *kernel = ucb_json_checked (json_object ());
  json_t *allowed = NULL, *allowed_list = NULL;
  enum ucb_cg_layout layout = ucb_cgroup_detect ();
  const char *v2_mount = ucb_cg_v2_mount (layout);
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  struct utsname u;
  struct sysinfo si;
  int have_u = uname (&u) == 0, have_si = sysinfo (&si) == 0;

  (void) err; /* every probe degrades to null; only allocation failure is fatal (abort) */
  affinity (&allowed, &allowed_list);
  controllers_path = v2_mount ? xasprintf ("%s/cgroup.controllers", v2_mount) : NULL;
  controllers = controllers_path ? ucb_read_file_or_null (controllers_path) : NULL;
  ucb_json_set (host, "hostname", have_u ? ucb_json_str (u.nodename) : NULL);
  ucb_json_set (kernel, "release", have_u ? ucb_json_str (u.release) : NULL);
  ucb_json_set (kernel, "version", have_u ? ucb_json_str (u.version) : NULL);
  ucb_json_set (kernel, "cmdline", ucb_json_str (cmdline));
  ucb_json_set (host, "kernel", kernel);
  ucb_json_set (host, "arch", have_u ? ucb_json_str (u.machine) : NULL);
  ucb_json_set (host, "cpu_model", ucb_json_str (model));
  ucb_json_set (host, "cpus_online", online > 0 ? json_integer (online) : NULL);
  ucb_json_set (host, "cpus_allowed", allowed);
  ucb_json_set (host, "cpus_allowed_list", allowed_list);
  ucb_json_set (host, "smt", smt_active ());
  topology_facts (host);
  ucb_json_set (host, "memory_bytes",
                have_si ? json_integer ((json_int_t) si.totalram * (json_int_t) si.mem_unit)
                        : NULL);
  ucb_json_set (host, "virtualization", ucb_json_str (virt));
  ucb_json_set (host, "lsms", split_array (lsm, ","));
  ucb_json_set (host, "cgroup_layout",
                layout == UCB_CG_NONE ? NULL : ucb_json_str (ucb_cg_layout_name (layout)));
  ucb_json_set (host, "cgroup_v2_controllers", split_array (controllers, " "));
  ucb_json_set (host, "userns", userns);
  ucb_json_set (host, "capabilities", probe_caps ());
  ucb_json_set (host, "rlimits", probe_rlimits ());
  ucb_json_set (host, "seccomp",
                ucb_json_checked (json_pack ("{s:b, s:o?}", "available", SECCOMP_BUILT,
                                             "actions_avail", split_array (actions, " "))));
  ucb_json_set (host, "libraries", probe_libraries ());
  ucb_json_set (host, "features",
                ucb_json_checked (json_pack ("{s:s, s:s}", "seccomp", SECCOMP_FEATURE, "cgroup",
                                             CGROUP_FEATURE)));
  {
    struct ucb_perf_probe pp;
    ucb_perf_probe (&pp);
    ucb_json_set (host, "perf", ucb_perf_probe_json (&pp));
  }
  *out = host;
  return 0;
}

/* ---- text form: one `a.b.c: value` line per leaf, values aligned ---- */

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

/* Why l3_domains is null: no level-3 cache in sysfs (cpuN/cache, absent in some guests), so
 * the count would be a guess; the domains --pin and run then use are said too, so that info
 * and a run's config.pin.topology (l3_source) tell one story. */
static char *
l3_null_text (void)
{
  struct ucb_topology t;
  ucb_error_t e = NULL;
  char *s;

  if (ucb_topology_read_online ("/", &t, &e) < 0)
    {
      s = xasprintf ("unknown: %s", e->msg);
      ucb_error_free (&e);
      return s;
    }
  if (strcmp (t.l3_source, "cache") == 0) /* null only when no CPU is online to describe */
    s = xstrdup ("unknown: no online CPU in sysfs");
  else
    s = xasprintf ("unknown: sysfs has no level-3 cache (cpu*/cache/index*); --pin and run "
                   "assume %s: %zu (l3_source %s)",
                   strcmp (t.l3_source, "package") == 0 ? "one L3 domain per package"
                                                        : "one L3 domain",
                   t.nl3, t.l3_source);
  ucb_topology_free (&t);
  return s;
}

/* What null means at `key` (a dotted path; `parent` holds it), as docs/json.md says: the text
 * form never shows a bare "unknown". */
static char *
null_text (const char *key, const json_t *parent)
{
  static const struct
  {
    const char *key, *text;
  } why[] = {
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
    return l3_null_text ();
  if (strcmp (key, "lsms") == 0)
    return xasprintf ("unknown: cannot read /sys/kernel/security/lsm: %s (securityfs not "
                      "mounted, or a kernel without it)",
                      access ("/sys/kernel/security/lsm", R_OK) == 0
                          ? "empty or unreadable when probed"
                          : strerror (errno));
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
  for (size_t i = 0; i < UCB_ARRAY_SIZE (why); i++)
    if (strcmp (key, why[i].key) == 0)
      return xstrdup (why[i].text);
  return xstrdup ("unknown: not readable on this host (null in --format json)");
}

/* Two passes over the same walk: `width` NULL measures into `max`, otherwise prints. */
static void
walk (FILE *f, const json_t *obj, const char *prefix, size_t *max, const size_t *width)
{
  const char *k;
  json_t *v;

  json_object_foreach ((json_t *) obj, k, v)
  {
    cleanup_free char *key = prefix ? xasprintf ("%s.%s", prefix, k) : xstrdup (k);
    cleanup_free char *text = NULL;

    if (json_is_object (v))
      walk (f, v, key, max, width);
    else if (width == NULL)
      *max = strlen (key) > *max ? strlen (key) : *max;
    else
      {
        text = json_is_null (v) ? null_text (key, obj) : value_text (v);
        fprintf (f, "%s:%*s %s\n", key, (int) (*width - strlen (key)), "", text);
      }
  }
}

void
ucb_host_print_text (FILE *f, const json_t *host)
{
  size_t max = 0;

  if (!json_is_object (host))
    return;
  walk (f, host, NULL, &max, NULL);
  walk (f, host, NULL, &max, &max);
}
