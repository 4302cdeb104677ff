/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ceiling.h - how many containers this host allows: what bounds N (namespaces, pids, tasks,
 * RLIMIT_NPROC, the pids cgroup, file descriptors, memory), read before the first container,
 * and the arithmetic over those readings (kept apart so that tests can feed it fake ones). */
#ifndef UCB_CEILING_H
#define UCB_CEILING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "engine/plan.h"

#define UCB_CEIL_NONE UINT64_MAX /* a reading that bounds nothing (unlimited, unreadable) */

/* Namespace kinds, in --isolate order: user.max_<kind>_namespaces. */
enum ucb_ceil_ns
{
  UCB_NS_USER,
  UCB_NS_IPC,
  UCB_NS_PID,
  UCB_NS_MNT,
  UCB_NS_UTS,
  UCB_NS_NET,
  UCB_CEIL_NS
};

enum ucb_bound
{
  UCB_BOUND_NS, /* + enum ucb_ceil_ns: user.max_*_namespaces */
  UCB_BOUND_PID_MAX = UCB_CEIL_NS,
  UCB_BOUND_THREADS_MAX, /* kernel.threads-max */
  UCB_BOUND_NPROC,       /* RLIMIT_NPROC of the owner uid */
  UCB_BOUND_PIDS_CGROUP, /* pids.max of ucbench's cgroup and its ancestors */
  UCB_BOUND_NOFILE,      /* RLIMIT_NOFILE: one sync socket per container in ucbench */
  UCB_BOUND_MEMORY,      /* MemAvailable, or the memory cgroup's room */
  UCB_BOUNDS
};

/* What the host says, read once (ucb_ceiling_read) for the owner uids of one owner mode. */
struct ucb_ceiling_host
{
  uint64_t ns_max[UCB_CEIL_NS];  /* /proc/sys/user/max_<kind>_namespaces */
  uint64_t ns_used[UCB_CEIL_NS]; /* charged to the owner uid now (the most of any in range) */
  uint64_t pid_max, threads_max;
  uint64_t threads_used; /* tasks on the host now (/proc/loadavg) */
  uint64_t nproc_used;   /* tasks of the owner uid now (the most of any in range) */
  uint64_t nproc_soft;   /* ucbench's soft RLIMIT_NPROC, which owners inherit */
  uint64_t pids_room;    /* pids.max - pids.current, least over ucbench's pids cgroups */
  char pids_dir[256];    /* the cgroup that has the least room ("" when none bounds) */
  uint64_t nofile_hard;  /* RLIMIT_NOFILE hard limit */
  uint64_t mem_room;     /* bytes: MemAvailable, or less room in a memory cgroup */
  char mem_source[256];  /* "MemAvailable" or the memory cgroup's directory */
  uint64_t task_bytes;   /* estimated kernel and private memory of one container task */
};

/* What one point asks of the host, per container. */
struct ucb_ceiling_shape
{
  unsigned depth, tasks;
  bool threads;
  int clone_flags;   /* CLONE_NEW* besides the user namespace (depth >= 1) */
  uint64_t uids;     /* owner uids the containers spread over: 1 shared, 0 one each */
  bool nproc_exempt; /* owner uid 0: the kernel does not hold it to RLIMIT_NPROC */
  uint64_t nproc;    /* the owners' soft RLIMIT_NPROC (UCB_CEIL_NONE: unlimited) */
};

struct ucb_ceiling
{
  uint64_t allows[UCB_BOUNDS]; /* the most containers each bound allows (UCB_CEIL_NONE) */
  uint64_t containers;         /* the least of them */
  enum ucb_bound limit;        /* the bound that sets it */
};

/* Tasks one container is (processes and threads): every one a pid and a task of its owner. */
unsigned ucb_ceiling_tasks (const struct ucb_ceiling_shape *s);
/* The bounds of `s` on host `h`. */
void ucb_ceiling_of (const struct ucb_ceiling_host *h, const struct ucb_ceiling_shape *s,
                     struct ucb_ceiling *c);
/* "kernel.pid_max", "user.max_ipc_namespaces", "RLIMIT_NPROC", ... */
const char *ucb_bound_name (enum ucb_bound b);
/* What the bound reads and how to raise it so that `n` containers fit: "kernel.pid_max is
 * 32768 (143 tasks running, 1 a container); raise it: sysctl -w kernel.pid_max=N". */
char *ucb_ceiling_why (const struct ucb_ceiling_host *h, const struct ucb_ceiling_shape *s,
                       enum ucb_bound b, uint64_t n);

/* Read the host for owner uids lo..hi (ns_used, nproc_used: the most of any of them). */
void ucb_ceiling_read (struct ucb_ceiling_host *h, uid_t lo, uid_t hi, int ns_flags);
/* Refuse (exit status 2) a point of the plan with more containers than the host allows, in
 * one line naming the limit and how to raise it; `uid_base` is the default range in use. */
int ucb_ceiling_check (const struct ucb_plan *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The ceiling of `run -w getppid --owner shared` (depth 1, one task, default --isolate) at
 * the default uid base: what `ucbench info` shows. */
void ucb_ceiling_default (struct ucb_ceiling_host *h, struct ucb_ceiling_shape *s,
                          struct ucb_ceiling *c);

#endif
