/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostinfo.h - what this host is: kernel, CPUs, namespaces, cgroups, security, libraries.  The
 * CLI writes it as the document's `host` object (cli/doc-host.c, docs/json.md). */
#ifndef UCB_HOSTINFO_H
#define UCB_HOSTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "host/caps.h"
#include "host/cgroup/layout.h"
#include "host/perf.h"
#include "host/rlimit.h"

/* A number a probe may leave unanswered (null in the document). */
struct ucb_host_num
{
  bool known;
  long long v;
};

/* A yes or no a probe may leave unanswered. */
enum ucb_host_bool
{
  UCB_HOST_UNKNOWN = -1,
  UCB_HOST_NO,
  UCB_HOST_YES,
};

/* The non-empty words of a file; `known` is false when the file could not be read. */
struct ucb_host_words
{
  bool known;
  char **v;
  size_t n;
};

/* getrlimit() of one resource; `known` is false when it failed. */
struct ucb_host_rlimit
{
  const char *name; /* "SIGPENDING", ... (host/rlimit.h), then "NOFILE" */
  bool known;
  rlim_t soft, hard; /* RLIM_INFINITY: unlimited */
};
/* The four ucounts rlimits in host/rlimit.h's order, and RLIMIT_NOFILE recorded beside them. */
#define UCB_HOST_RLIMITS (UCB_RLS + 1)

/* Why a probe left a value unknown, recorded when it ran, so that `ucbench info` says why
 * without probing again (report/info-text.c words it; the document has no field for it). */
struct ucb_host_why
{
  /* l3_domains: the topology read's error (owned; NULL when it was read), else its l3_source
   * (static; "cache" with no domain: no online CPU) and the L3 domains --pin and run assume. */
  char *l3_error;
  const char *l3_source;
  size_t l3_assumed;
  int lsms_errno; /* lsms: why /sys/kernel/security/lsm could not be read; 0 when it was */
};

/* Every string is owned (NULL: unknown) unless marked static. */
struct ucb_hostinfo
{
  char *hostname, *kernel_release, *kernel_version, *kernel_cmdline, *arch, *cpu_model;
  struct ucb_host_num cpus_online, cpus_allowed;
  char *cpus_allowed_list;
  enum ucb_host_bool smt;
  /* Over every online CPU, as host/topology.c reads them (what --pin places by). */
  struct ucb_host_num threads_per_core, l3_domains, numa_nodes;
  struct ucb_host_num memory_bytes;
  char *virtualization;
  struct ucb_host_words lsms;
  enum ucb_cg_layout cgroup_layout; /* UCB_CG_NONE: unknown */
  struct ucb_host_words cgroup_v2_controllers;
  struct
  {
    struct ucb_host_num max_user_namespaces, unprivileged_userns_clone,
        apparmor_restrict_unprivileged_userns;
    enum ucb_host_bool can_create;
    char *create_errno; /* errno name, or "killed by signal N"; NULL when it works */
  } userns;
  struct
  {
    char *effective; /* cap_to_text() of the caller's sets */
    enum ucb_host_bool cap_sys_resource, cap_sys_admin, cap_ipc_lock, cap_setuid;
    struct ucb_caps_probe probe; /* text, iab, missing */
    uid_t uid, euid;
  } caps;
  struct ucb_host_rlimit rlimits[UCB_HOST_RLIMITS];
  struct
  {
    bool available; /* built with libseccomp */
    struct ucb_host_words actions_avail;
  } seccomp;
  /* Versions of the libraries linked in (jansson's is the CLI's to say: it writes the JSON). */
  struct
  {
    const char *libcap, *libcgroup, *libc; /* static */
    char *libseccomp;
  } libraries;
  const char *feature_seccomp, *feature_cgroup; /* static: "available" or why not */
  struct ucb_perf_probe perf;
  struct ucb_host_why why;
};

/* Probe this host into `*h`.  Probes that cannot be answered stay unknown; only an internal
 * failure returns < 0 (none does now: allocation failure aborts).  Free with ucb_hostinfo_free,
 * also after a failure. */
int ucb_host_collect (struct ucb_hostinfo *h, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_hostinfo_free (struct ucb_hostinfo *h);
#define cleanup_hostinfo __attribute__ ((cleanup (ucb_hostinfo_free)))

#endif
