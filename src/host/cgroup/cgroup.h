/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.h - a cgroup per container (run --cgroup): v1 via libcgroup, v2 via plain cgroupfs. */
#ifndef UCB_CGROUP_H
#define UCB_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "host/cgroup/layout.h"

struct ucb_cgroup_opts
{
  const char *parent; /* --cgroup=PARENT; NULL = ucbench's own cgroup in each hierarchy */
  bool cpuset;        /* each container's cpuset.cpus = its tasks' CPUs */
  uint64_t pids_max;  /* 0 = unset; pids.max of each container group */
  char **set;         /* --cgroup-set FILE=VALUE, written in each container group */
  size_t nset;
};

/* One per `ucbench run`: ucbench-<pid> in each hierarchy used, the subtree_control changes to
 * undo, the container groups and the janitor process. */
struct ucb_cgroup;

/* The --cgroup-set checks of ucb_cgroup_open alone (usage errors), for the option parser: bad
 * input fails before anything is probed or created. */
int ucb_cgroup_check_opts (const struct ucb_cgroup_opts *o, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Check the options, create ucbench-<pid> under the parent in every hierarchy used, enable the
 * controllers it needs (v2) and start the janitor, which removes everything if ucbench dies.
 * Without PARENT, when v2 controllers must be enabled in ucbench's own non-root group X and
 * ucbench is alone in it, ucbench first moves into the leaf X/ucbench-<pid>-self.
 * Bad --cgroup-set or --cgroup=PARENT is a usage error. */
int ucb_cgroup_open (const struct ucb_cgroup_opts *o, struct ucb_cgroup **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Create c<index> in every hierarchy with the limits; `cpus` (may repeat, any order) become
 * cpuset.cpus with --cpuset, and ncpus == 0 means the parent's CPUs. */
int ucb_cgroup_create (struct ucb_cgroup *cg, unsigned index, const int *cpus, size_t ncpus,
                       ucb_error_t *err) __attribute__ ((warn_unused_result));
/* In a forked child (root, before its uid change and its first child): move getpid() into
 * c<index> of every hierarchy.  Allocates nothing unless it fails. */
int ucb_cgroup_attach_self (const struct ucb_cgroup *cg, unsigned index, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* rmdir every c<i>; a process still inside is killed (the backstop) and EBUSY retried ~2 s. */
int ucb_cgroup_remove_containers (struct ucb_cgroup *cg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Remove everything, undo the subtree_control changes, move ucbench back from its leaf, stop
 * and reap the janitor (which finishes the job if this could not).  Safe on NULL and twice;
 * sets *cg to NULL. */
void ucb_cgroup_close (struct ucb_cgroup **cg);
/* The janitor's pid (a child of ucbench until close), or 0. */
pid_t ucb_cgroup_janitor_pid (const struct ucb_cgroup *cg);

/* What the run set up, for the document (`config.runtime.cgroup`, written by the CLI): the
 * strings point into `cg` and live until ucb_cgroup_close. */
struct ucb_cgroup_info
{
  enum ucb_cg_layout layout;
  pid_t pid; /* the <pid> of ucbench-<pid> */
  bool cpuset;
  uint64_t pids_max;                              /* 0 = unset */
  const char *const *set_file, *const *set_value; /* --cgroup-set, as given */
  size_t nset;
  size_t nhier;           /* ucb_cgroup_hier_info 0 .. nhier - 1 */
  size_t nchanges;        /* ucb_cgroup_change_info 0 .. nchanges - 1 */
  const char *moved_self; /* the leaf ucbench moved into, relative to the v2 mount; or NULL */
};
/* One hierarchy used. */
struct ucb_cgroup_hier_info
{
  const char *name; /* v1: its controllers as /proc/self/cgroup lists them; v2: "unified" */
  int version;
  const char *backend; /* "libcgroup" (v1) or "cgroupfs" (v2) */
  const char *mount;
  const char *const *controllers; /* the ones ucbench uses here */
  size_t ncontrollers;
  const char *parent, *group; /* relative to the mount: the parent and ucbench-<pid> */
};
void ucb_cgroup_info (const struct ucb_cgroup *cg, struct ucb_cgroup_info *out);
void ucb_cgroup_hier_info (const struct ucb_cgroup *cg, size_t i, struct ucb_cgroup_hier_info *out);
/* A pre-existing group whose cgroup.subtree_control ucbench changed, and the controller. */
void ucb_cgroup_change_info (const struct ucb_cgroup *cg, size_t i, const char **dir,
                             const char **controller);

/* A created container's groups, copied: the document is written after they are removed. */
struct ucb_cgroup_container_info
{
  unsigned index;
  size_t ngroups;
  char **hier;       /* per group: the name of its hierarchy */
  char **group;      /* per group: its path relative to the hierarchy's mount */
  char *cpuset_cpus; /* cpuset.cpus written, or NULL */
};
/* NULL when container `index` has no groups. */
struct ucb_cgroup_container_info *ucb_cgroup_container_info (const struct ucb_cgroup *cg,
                                                             unsigned index);
void ucb_cgroup_container_info_free (struct ucb_cgroup_container_info *ci);

/* The module's own files (and its tests) see its structures and helpers. */
#ifdef UCB_CGROUP_INTERNAL
#include "host/cgroup/internal.h"
#endif

#endif
