/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostinfo.c - probe the host (kernel, CPUs, namespaces, cgroups, caps) into a struct
 * ucb_hostinfo; the CLI writes it as the document's `host` object (cli/doc-host.c). */
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
#include "core/lists.h"
#include "core/util.h"
#include "host/caps.h"
#include "host/cgroup/layout.h"
#include "host/hostinfo.h"
#include "host/perf.h"
#include "host/rlimit.h"
#include "host/topology.h"
#include "host/userns.h"

static struct ucb_host_num
num (long long v)
{
  return (struct ucb_host_num){ .known = true, .v = v };
}

static struct ucb_host_num
int_file (const char *path)
{
  cleanup_free char *s = ucb_read_file_or_null (path);
  char *end;
  long long v;

  if (s == NULL)
    return (struct ucb_host_num){ 0 };
  errno = 0;
  v = strtoll (s, &end, 10);
  return errno == 0 && end != s && *end == '\0' ? num (v) : (struct ucb_host_num){ 0 };
}

/* Split `s` on any of `seps` into its non-empty words; NULL `s` stays unknown. */
static struct ucb_host_words
split_words (const char *s, const char *seps)
{
  cleanup_free char *copy = s ? xstrdup (s) : NULL;
  struct ucb_host_words w = { 0 };
  char *save = NULL;

  if (s == NULL)
    return w;
  w.known = true;
  w.v = xcalloc (strlen (s) / 2 + 1, sizeof *w.v); /* at most one word per two characters */
  for (char *t = strtok_r (copy, seps, &save); t; t = strtok_r (NULL, seps, &save))
    w.v[w.n++] = xstrdup (t);
  return w;
}

static void
words_free (struct ucb_host_words *w)
{
  ucb_free_items (w->v, w->n);
  memset (w, 0, sizeof *w);
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
affinity (struct ucb_hostinfo *h)
{
  cleanup_free int *cpus = NULL;
  ucb_error_t e = NULL;
  size_t n = 0;

  if (ucb_allowed_cpus (&cpus, &n, &e) < 0)
    {
      ucb_error_free (&e);
      return;
    }
  h->cpus_allowed_list = ucb_format_cpu_list (cpus, n);
  h->cpus_allowed = num ((long long) n);
}

/* L3 domains, NUMA nodes and cpu0's SMT siblings as topology.c reads them (the placement of
 * --pin reads the same), over every online CPU; unknown what sysfs does not say, and for the
 * L3 domains why (h->why). */
static void
topology_facts (struct ucb_hostinfo *h)
{
  struct ucb_topology t;
  ucb_error_t e = NULL;
  const struct ucb_cpu_topo *c0;
  size_t threads = 0;

  if (ucb_topology_read_online ("/", &t, &e) < 0)
    {
      h->why.l3_error = xstrdup (e->msg);
      ucb_error_free (&e);
      return;
    }
  h->why.l3_source = t.l3_source;
  h->why.l3_assumed = t.nl3;
  c0 = ucb_topology_cpu (&t, 0);
  for (size_t i = 0; c0 && c0->core_known && i < t.ncpus; i++)
    threads += t.cpu[i].core == c0->core;
  if (threads)
    h->threads_per_core = num ((long long) threads);
  if (strcmp (t.l3_source, "cache") == 0 && t.nl3)
    h->l3_domains = num ((long long) t.nl3);
  if (t.nodes_listed >= 0)
    h->numa_nodes = num (t.nodes_listed);
  ucb_topology_free (&t);
}

static enum ucb_host_bool
smt_active (void)
{
  cleanup_free char *s = ucb_read_file_or_null ("/sys/devices/system/cpu/smt/active");

  if (s == NULL || (strcmp (s, "0") != 0 && strcmp (s, "1") != 0))
    return UCB_HOST_UNKNOWN;
  return s[0] == '1' ? UCB_HOST_YES : UCB_HOST_NO;
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
static void
probe_userns (struct ucb_hostinfo *h)
{
  int r = ucb_userns_probe ();

  h->userns.can_create = UCB_HOST_UNKNOWN;
  if (r == 0)
    h->userns.can_create = UCB_HOST_YES;
  else if (r > 0)
    {
      char buf[UCB_ERRNO_NAME_MAX];
      h->userns.can_create = UCB_HOST_NO;
      h->userns.create_errno = xstrdup (ucb_errno_name (r, buf));
    }
  else if (r != INT_MIN)
    {
      h->userns.can_create = UCB_HOST_NO; /* e.g. a seccomp filter that kills */
      h->userns.create_errno = xasprintf ("killed by signal %d", -r);
    }
  h->userns.max_user_namespaces = int_file ("/proc/sys/user/max_user_namespaces");
  h->userns.unprivileged_userns_clone = int_file ("/proc/sys/kernel/unprivileged_userns_clone");
  h->userns.apparmor_restrict_unprivileged_userns
      = int_file ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
}

static enum ucb_host_bool
cap_effective (cap_t cur, cap_value_t cap)
{
  cap_flag_value_t v;

  if (cur == NULL || cap_get_flag (cur, cap, CAP_EFFECTIVE, &v) < 0)
    return UCB_HOST_UNKNOWN;
  return v == CAP_SET ? UCB_HOST_YES : UCB_HOST_NO;
}

static void
probe_caps (struct ucb_hostinfo *h)
{
  cap_t cur = cap_get_proc ();
  char *text = cur ? cap_to_text (cur, NULL) : NULL;

  h->caps.effective = text ? xstrdup (text) : NULL;
  h->caps.cap_sys_resource = cap_effective (cur, CAP_SYS_RESOURCE);
  h->caps.cap_sys_admin = cap_effective (cur, CAP_SYS_ADMIN);
  h->caps.cap_ipc_lock = cap_effective (cur, CAP_IPC_LOCK);
  h->caps.cap_setuid = cap_effective (cur, CAP_SETUID);
  ucb_caps_probe (&h->caps.probe);
  h->caps.uid = getuid ();
  h->caps.euid = geteuid ();
  if (text)
    cap_free (text);
  if (cur)
    cap_free (cur);
}

static void
probe_rlimit (struct ucb_host_rlimit *out, const char *name, int resource)
{
  struct rlimit rl;

  out->name = name;
  out->known = getrlimit (resource, &rl) == 0;
  out->soft = out->known ? rl.rlim_cur : 0;
  out->hard = out->known ? rl.rlim_max : 0;
}

static void
probe_libraries (struct ucb_hostinfo *h)
{
#ifdef UCB_LIBCAP_VERSION
  h->libraries.libcap = UCB_LIBCAP_VERSION;
#endif
#ifdef HAVE_SECCOMP
  {
    const struct scmp_version *v = seccomp_version ();
    h->libraries.libseccomp = v ? xasprintf ("%u.%u.%u", v->major, v->minor, v->micro) : NULL;
  }
#endif
#if defined(HAVE_CGROUP) && defined(UCB_LIBCGROUP_VERSION)
  h->libraries.libcgroup = UCB_LIBCGROUP_VERSION;
#endif
#ifdef __GLIBC__
  h->libraries.libc = gnu_get_libc_version ();
#endif
  (void) h;
}

#ifdef HAVE_SECCOMP
#define SECCOMP_BUILT true
#define SECCOMP_FEATURE "available"
#else
#define SECCOMP_BUILT false
#define SECCOMP_FEATURE "unavailable (built --without-seccomp)"
#endif
#ifdef HAVE_CGROUP
#define CGROUP_FEATURE "available"
#else
#define CGROUP_FEATURE "unavailable (built --without-cgroup)"
#endif

/* The kernel, the CPUs and the memory. */
static void
probe_machine (struct ucb_hostinfo *h)
{
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  struct utsname u;
  struct sysinfo si;

  if (uname (&u) == 0)
    {
      h->hostname = xstrdup (u.nodename);
      h->kernel_release = xstrdup (u.release);
      h->kernel_version = xstrdup (u.version);
      h->arch = xstrdup (u.machine);
    }
  h->kernel_cmdline = ucb_read_file_or_null ("/proc/cmdline");
  h->cpu_model = cpu_model ();
  if (online > 0)
    h->cpus_online = num (online);
  affinity (h);
  h->smt = smt_active ();
  topology_facts (h);
  if (sysinfo (&si) == 0)
    h->memory_bytes = num ((long long) si.totalram * (long long) si.mem_unit);
  h->virtualization = virtualization ();
}

int
ucb_host_collect (struct ucb_hostinfo *h, ucb_error_t *err)
{
  cleanup_free char *lsm = NULL, *actions = NULL, *controllers = NULL, *controllers_path = NULL;
  const char *v2_mount;
  ucb_error_t e = NULL;

  (void) err; /* every probe degrades to unknown; only allocation failure is fatal (abort) */
  memset (h, 0, sizeof *h);
  /* First, before anything here is allocated: the probe forks, and valgrind checks the
   * child's memory at its _exit too, where objects half built here can read as lost. */
  probe_userns (h);
  probe_machine (h);
  if (ucb_read_file ("/sys/kernel/security/lsm", &lsm, &e) < 0)
    {
      h->why.lsms_errno = e->code; /* ENOENT: securityfs not mounted, or no such kernel */
      ucb_error_free (&e);
    }
  h->lsms = split_words (lsm, ",");
  h->cgroup_layout = ucb_cgroup_detect ();
  v2_mount = ucb_cg_v2_mount (h->cgroup_layout);
  controllers_path = v2_mount ? xasprintf ("%s/cgroup.controllers", v2_mount) : NULL;
  controllers = controllers_path ? ucb_read_file_or_null (controllers_path) : NULL;
  h->cgroup_v2_controllers = split_words (controllers, " ");
  probe_caps (h);
  for (enum ucb_rl rl = 0; rl < UCB_RLS; rl++)
    probe_rlimit (&h->rlimits[rl], ucb_rl_name (rl), ucb_rl_resource (rl));
  /* not a ucounts rlimit: recorded beside them */
  probe_rlimit (&h->rlimits[UCB_RLS], "NOFILE", RLIMIT_NOFILE);
  h->seccomp.available = SECCOMP_BUILT;
  actions = ucb_read_file_or_null ("/proc/sys/kernel/seccomp/actions_avail");
  h->seccomp.actions_avail = split_words (actions, " ");
  probe_libraries (h);
  h->feature_seccomp = SECCOMP_FEATURE;
  h->feature_cgroup = CGROUP_FEATURE;
  ucb_perf_probe (&h->perf);
  return 0;
}

void
ucb_hostinfo_free (struct ucb_hostinfo *h)
{
  free (h->hostname);
  free (h->kernel_release);
  free (h->kernel_version);
  free (h->kernel_cmdline);
  free (h->arch);
  free (h->cpu_model);
  free (h->cpus_allowed_list);
  free (h->virtualization);
  words_free (&h->lsms);
  words_free (&h->cgroup_v2_controllers);
  free (h->userns.create_errno);
  free (h->caps.effective);
  ucb_caps_probe_free (&h->caps.probe);
  words_free (&h->seccomp.actions_avail);
  free (h->libraries.libseccomp);
  free (h->why.l3_error);
  memset (h, 0, sizeof *h);
}
