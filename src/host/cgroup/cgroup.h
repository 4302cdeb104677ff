/* cgroup.h - a cgroup per container (run --cgroup): v1 via libcgroup, v2 via plain cgroupfs. */
#ifndef UCB_CGROUP_H
#define UCB_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "core/error.h"

enum ucb_cg_layout
{
  UCB_CG_NONE,    /* no cgroup filesystem at /sys/fs/cgroup */
  UCB_CG_LEGACY,  /* tmpfs with v1 hierarchies only */
  UCB_CG_HYBRID,  /* v1 hierarchies + cgroup2 at /sys/fs/cgroup/unified */
  UCB_CG_UNIFIED, /* cgroup2 at /sys/fs/cgroup */
};

/* "none" "legacy" "hybrid" "unified". */
const char *ucb_cg_layout_name (enum ucb_cg_layout l);
/* statfs on /sys/fs/cgroup: libcgroup 2.0.2 cannot tell (ecosystem.md 2, pitfall 8). */
enum ucb_cg_layout ucb_cgroup_detect (void);

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

/* {layout, pid, cpuset, pids_max, set{}, hierarchies[{name, version, backend, mount,
 * controllers[], parent, group}], subtree_control_changes[{dir, controller}], moved_self} */
json_t *ucb_cgroup_json (const struct ucb_cgroup *cg);
/* {index, groups{<hierarchy name>: path}, cpuset_cpus} of a created container; NULL if not. */
json_t *ucb_cgroup_container_json (const struct ucb_cgroup *cg, unsigned index);

/* The path in /proc/<pid>/cgroup of the v2 hierarchy (controller NULL or "") or of the v1
 * hierarchy holding `controller`; NULL if absent or unreadable. */
char *ucb_cgroup_path_of (pid_t pid, const char *controller);

#ifdef UCB_CGROUP_INTERNAL
/* ---- shared by cgroup.c, cgroup-util.c, cgroup-janitor.c, cgroup-v1.c and cgroup-v2.c ---- */

struct ucb_cg_kv
{
  const char *file;
  const char *value;
};

struct ucb_cg_hier
{
  int version;  /* 1: libcgroup, 2: cgroupfs */
  char *name;   /* v1: its controllers as /proc/self/cgroup lists them; v2: "unified" */
  char *mount;  /* mount point */
  char **ctrls; /* the controllers ucbench uses here */
  size_t nctrls;
  char *parent_rel; /* "/" or "/a/b": relative to the mount */
  char *group_rel;  /* parent_rel + "/ucbench-<pid>" */
  char *group_dir;  /* mount + group_rel */
  bool created;
  char *cpuset_cpus; /* v1 cpuset: the parent's (v1 needs cpus and mems before a task joins) */
  char *cpuset_mems;
};

struct ucb_cg_change
{
  char *dir; /* a pre-existing group whose cgroup.subtree_control ucbench changed */
  char *ctrl;
};

struct ucb_cg_container
{
  bool created;
  char *cpus;   /* cpuset.cpus written, or NULL */
  char **procs; /* per hierarchy: <group>/c<i>/cgroup.procs, for attach_self */
  char **rel;   /* per hierarchy: group_rel + "/c<i>" */
};

struct ucb_cgroup
{
  enum ucb_cg_layout layout;
  pid_t pid;
  bool cpuset;
  uint64_t pids_max;
  char **set_file, **set_value;
  size_t nset;
  struct ucb_cg_hier *h;
  size_t nh;
  struct ucb_cg_change *changes;
  size_t nchanges;
  struct ucb_cg_container *c;
  size_t nc;
  pid_t janitor;
  int janitor_fd;  /* our end; EOF without "D" (or ucbench's exit) starts the janitor */
  bool own_parent; /* no --cgroup=PARENT: the parents are ucbench's own cgroups */
  char *self_from; /* v2: ucbench's own group X, left for self_leaf; NULL when not moved */
  char *self_leaf; /* X/ucbench-<pid>-self */
  char *self_rel;  /* the same relative to the v2 mount (moved_self in the JSON) */
  bool self_moved; /* ucbench is in self_leaf now */
};

/* cgroup-v1.c (libcgroup; fails with a clear error in a build without it). */
int ucb_cg1_init (ucb_error_t *err) __attribute__ ((warn_unused_result));
int ucb_cg1_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                    size_t nkv, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Remove an empty group; EBUSY (with code EBUSY) when processes are left. */
int ucb_cg1_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* cgroup-v2.c (plain cgroupfs). */
int ucb_cg2_enable (struct ucb_cgroup *cg, struct ucb_cg_hier *h, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_cg2_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                    size_t nkv, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Disable what ucbench enabled, bottom-up; how many it could not. */
int ucb_cg2_revert (struct ucb_cgroup *cg);
/* Move the calling process (ucbench, or the janitor it forked) from self_leaf back into X;
 * it fails while X still has controllers.  0 or -1 with errno. */
int ucb_cg2_leave_leaf (const struct ucb_cgroup *cg);
/* rmdir self_leaf, EBUSY retried (processes still exiting); 0 or -1 with errno. */
int ucb_cg2_remove_leaf (const struct ucb_cgroup *cg);

/* cgroup.c */
bool ucb_cg_ctrl_listed (char **list, size_t n, const char *ctrl);
/* Append `ctrl` to the list unless it is there. */
void ucb_cg_ctrl_add (char ***list, size_t *n, const char *ctrl);

/* cgroup-util.c: the layout, /proc parsing, paths, the hierarchies used, removal. */
#define UCB_CG_REMOVE_RETRY_MS 2000 /* EBUSY after a point: processes still exiting */
/* rel + "/" + name; rel "/" is the root. */
char *ucb_cg_join_rel (const char *rel, const char *name);
/* mount + rel: the directory. */
char *ucb_cg_dir_of (const char *mount, const char *rel);
uint64_t ucb_cg_ms_since (uint64_t t0);
void ucb_cg_sleep_ms (long ms);
int ucb_cg_access_error (ucb_error_t *err, const char *dir);
/* SIGKILL every process in `dir` and the groups below it (cgroup.kill first when `use_kill`);
 * returns how many were still listed. */
size_t ucb_cg_kill_tree (const char *dir, bool use_kill);
/* rmdir the groups below `dir`, deepest first, then `dir`; 0 or -1 with errno. */
int ucb_cg_remove_tree (const char *dir);
/* Each controller of `need` to the hierarchy that has it, parent_rel = ucbench's own cgroup. */
int ucb_cg_resolve_hierarchies (struct ucb_cgroup *cg, char **need, size_t nneed, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* --cgroup=PARENT as every hierarchy's parent_rel; a usage error for `..`. */
int ucb_cg_resolve_parent (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Every parent exists, is writable and (v2, no PARENT, systemd) delegated. */
int ucb_cg_check_parents (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_cg_hier_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                        size_t nkv, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Remove one empty group; processes still inside after a point are killed (the backstop) and
 * EBUSY retried for UCB_CG_REMOVE_RETRY_MS. */
int ucb_cg_hier_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* cgroup-janitor.c: fork the janitor (cg->janitor, cg->janitor_fd). */
int ucb_cg_janitor_start (struct ucb_cgroup *cg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
#endif

#endif
