/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h - the structures and helpers the files of the cgroup module share: layout.c
 * (read-only probing, layout.h), util.c (leaf helpers) and journal.c (the changes shared with
 * the janitor) at the bottom, share.c (what concurrent runs share) on them, v1.c and v2.c (the
 * backends) on those, hier.c and janitor.c above, and cgroup.c (the API of cgroup.h) on top.
 * Calls run only downwards; nothing here calls cgroup.c. */
#ifndef UCB_CG_INTERNAL_H
#define UCB_CG_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "host/cgroup/layout.h"

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

/* What ucbench is about to change, for the janitor to undo if ucbench dies: written before
 * each change (journal.c), so a change never made is listed at worst (its directory absent). */
enum ucb_cg_jkind
{
  UCB_CG_J_NONE,   /* retracted: the directory was someone else's (EEXIST) */
  UCB_CG_J_GROUP,  /* path: ucbench-<pid> of one hierarchy, with whatever is below it */
  UCB_CG_J_ENABLE, /* path: a group whose cgroup.subtree_control gets +ctrl */
  UCB_CG_J_LEAF,   /* path: X/ucbench-<pid>-self, where ucbench and the janitor move from X */
  UCB_CG_J_TURN,   /* path: the directory concurrent runs take turns on (share.c) */
};

struct ucb_cg_jentry
{
  int kind;    /* enum ucb_cg_jkind */
  bool v2;     /* GROUP: in the unified hierarchy (cgroup.kill) */
  bool shared; /* ENABLE: ucbench's record lists it (share.c): the last run out disables it */
  char ctrl[64];
  char path[PATH_MAX];
};

/* MAP_SHARED and anonymous, made before the janitor is forked. */
struct ucb_cg_journal
{
  size_t n; /* entries complete: stored with release, loaded with acquire */
  size_t cap;
  struct ucb_cg_jentry e[];
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
  struct ucb_cg_journal *journal;
  pid_t janitor;
  int janitor_fd;  /* our end; EOF without "D" (or ucbench's exit) starts the janitor */
  bool own_parent; /* no --cgroup=PARENT: the parents are ucbench's own cgroups */
  char *self_from; /* v2: ucbench's own group X, left for self_leaf; NULL when not moved */
  char *self_leaf; /* X/ucbench-<pid>-self */
  char *self_rel;  /* the same relative to the v2 mount (moved_self in the JSON) */
  bool self_moved; /* ucbench is in self_leaf now */
};

/* v1.c (libcgroup; fails with a clear error in a build without it). */
int ucb_cg1_init (ucb_error_t *err) __attribute__ ((warn_unused_result));
int ucb_cg1_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                    size_t nkv, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Remove an empty group; EBUSY (with code EBUSY) when processes are left. */
int ucb_cg1_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* v2.c (plain cgroupfs). */
int ucb_cg2_enable (struct ucb_cgroup *cg, struct ucb_cg_hier *h, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_cg2_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                    size_t nkv, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Taking turns (share.c): each ENABLE entry of the journal bottom-up, disabled when it is
 * this run's own or still in ucbench's record, unless a group below still has it (EBUSY: a
 * run still there leaves later); then, with `leave`, the calling process back from the LEAF
 * entry's leaf into X (*out: it is not in a leaf).  How many could not be done. */
int ucb_cg2_release (const struct ucb_cg_journal *j, bool leave, bool *out);
/* Move the calling process (ucbench, or the janitor) from its leaf back into X; it fails
 * while X still has controllers.  Nothing to do for NULL.  0 or -1 with errno. */
int ucb_cg2_leave_leaf (const char *x);
/* rmdir the leaf, EBUSY retried (processes still exiting); NULL or ENOENT is done.  0 or -1
 * with errno. */
int ucb_cg2_remove_leaf (const char *leaf);

/* util.c: leaf helpers (paths, clocks, controller lists, killing and removing trees). */
#define UCB_CG_REMOVE_RETRY_MS 2000 /* EBUSY after a point: processes still exiting */
/* "/a/b" from "a//b/", "/./a/"; NULL for "..".  The root is "/". */
char *ucb_cg_norm_rel (const char *p);
/* `path` of /proc/self/cgroup relative to a mount of the hierarchy whose root is `root`. */
char *ucb_cg_rel_to_mount (const char *path, const char *root);
/* rel + "/" + name; rel "/" is the root. */
char *ucb_cg_join_rel (const char *rel, const char *name);
/* mount + rel: the directory. */
char *ucb_cg_dir_of (const char *mount, const char *rel);
uint64_t ucb_cg_ms_since (uint64_t t0);
void ucb_cg_sleep_ms (long ms);
int ucb_cg_access_error (ucb_error_t *err, const char *dir);
bool ucb_cg_ctrl_listed (char **list, size_t n, const char *ctrl);
/* Append `ctrl` to the list unless it is there. */
void ucb_cg_ctrl_add (char ***list, size_t *n, const char *ctrl);
/* SIGKILL every process in `dir` and the groups below it (cgroup.kill first when `use_kill`);
 * returns how many were still listed. */
size_t ucb_cg_kill_tree (const char *dir, bool use_kill);
/* rmdir the groups below `dir`, deepest first, then `dir`; 0 or -1 with errno. */
int ucb_cg_remove_tree (const char *dir);

/* share.c: what concurrent runs share in the unified hierarchy. */
#define UCB_CG_TURN_WAIT_MS 30000 /* a holder keeps the turn for milliseconds */
/* flock(LOCK_EX) on `dir`, waited for at most `ms`: the fd that holds it (close() gives it
 * back), or -1 with errno (ETIMEDOUT; EINTR when `interruptible` and a SIGINT, SIGTERM or
 * SIGHUP came: the setup stops, an undo must not). */
int ucb_cg2_turn_wait (const char *dir, long ms, bool interruptible);
/* Journal the turn on h->mount, then take it: the fd, or -1 with the error. */
int ucb_cg2_take_turn (struct ucb_cgroup *cg, const struct ucb_cg_hier *h, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Does ucbench's record of `dir` list `ctrl`?  1, 0, or -1 with errno (EOPNOTSUPP: no xattrs
 * on this cgroupfs, ENOENT: dir is gone). */
int ucb_cg2_recorded (const char *dir, const char *ctrl);
/* Add `ctrl` to the record of `dir`, or drop it (the xattr goes with the last); 0 or -1 with
 * errno.  Under the turn. */
int ucb_cg2_record (const char *dir, const char *ctrl, bool add);

/* journal.c */
/* Room for `cap` entries; NULL with the error when it cannot be mapped. */
struct ucb_cg_journal *ucb_cg_journal_new (size_t cap, ucb_error_t *err);
void ucb_cg_journal_free (struct ucb_cg_journal *j);
/* Record a change before making it: its index, or -1 (full, path too long): then do not make
 * it.  `ctrl` only for ENABLE. */
int ucb_cg_journal_add (struct ucb_cg_journal *j, enum ucb_cg_jkind kind, const char *path,
                        const char *ctrl, bool v2, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* An ENABLE entry of a controller ucbench's record lists: shared with the runs to come. */
int ucb_cg_journal_add_shared (struct ucb_cg_journal *j, const char *path, const char *ctrl,
                               ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Entry `index` is this run's own after all: its record could not be written. */
void ucb_cg_journal_unshare (struct ucb_cg_journal *j, int index);
/* The directory of entry `index` turned out to be someone else's: not ours to remove. */
void ucb_cg_journal_retract (struct ucb_cg_journal *j, int index);
/* How many entries are complete (0 for NULL). */
size_t ucb_cg_journal_count (const struct ucb_cg_journal *j);

/* hier.c: the hierarchies used, their parents, a group created or removed in either version. */
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

/* janitor.c: fork the janitor (cg->janitor, cg->janitor_fd) on cg->journal, before the first
 * change it guards. */
int ucb_cg_janitor_start (struct ucb_cgroup *cg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
