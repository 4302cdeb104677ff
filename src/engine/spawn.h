/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn.h - the container engine: owner processes, nested user namespaces, the sync protocol. */
#ifndef UCB_SPAWN_H
#define UCB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/process.h"
#include "host/userns.h"

/* A soft limit the owner sets before it creates any namespace. */
struct ucb_soft_limit
{
  int resource;     /* RLIMIT_* */
  const char *name; /* "SIGPENDING", for messages */
  uint64_t soft;    /* RLIM_INFINITY for unlimited */
};

/* One container as the engine builds it. */
struct ucb_container_spec
{
  unsigned index;
  uid_t owner_uid;
  gid_t owner_gid;
  unsigned depth;       /* 0 = the tasks run as the owner uid in our user namespace */
  unsigned tasks;       /* tasks per container, >= 1 */
  bool threads;         /* tasks are threads of the container init, else processes */
  int clone_flags;      /* extra CLONE_NEW* for the innermost user namespace (depth >= 1) */
  const int *task_cpus; /* CPU of each task, -1 = not pinned; NULL = none pinned */
  const struct ucb_soft_limit *limits;
  size_t nlimits;
  /* Optional, run in the child with `hook_arg`: owner_hook in the owner process before it
   * takes the owner uid (still ucbench's credentials: joining a cgroup, and at depth 0 the
   * bounding set); init_hook in the container init once its namespaces exist and before any
   * task starts (capabilities, seccomp), so that every task inherits what it set. */
  int (*owner_hook) (void *arg, const struct ucb_container_spec *spec, ucb_error_t *err);
  int (*init_hook) (void *arg, const struct ucb_container_spec *spec, ucb_error_t *err);
  void *hook_arg;
};

/* Whether the owner process of `spec` is also its init and its one task (depth 1, one task
 * process, no new pid namespace): it unshares the namespaces instead of cloning a child. */
bool ucb_spec_owner_is_task (const struct ucb_container_spec *spec);
/* The tasks (processes and threads) a container is, all charged to RLIMIT_NPROC of its owner
 * uid: for --headroom near, and for anyone counting processes. */
unsigned ucb_container_processes (unsigned depth, unsigned tasks, bool threads, int clone_flags);

/* Runs in every task (a process or a thread of the container init) once the namespaces and
 * maps exist, pinned to its CPU.  It reports readiness with ucb_task_ready() and returns 0;
 * on failure it returns < 0 with `err` set, and the engine sends the error to the parent. */
struct ucb_task_env
{
  const struct ucb_container_spec *spec;
  int sync_fd;  /* child's end of the sync socket */
  int start_fd; /* read end of the start barrier */
};
typedef int (*ucb_task_main_fn) (void *arg, const struct ucb_task_env *env, unsigned task,
                                 ucb_error_t *err);

struct ucb_container
{
  pid_t pid;       /* owner process, our child; 0 until the spawner has reported it */
  int sock;        /* our end of the SOCK_SEQPACKET sync socket, -1 until then */
  unsigned tasks;  /* READY messages expected */
  unsigned ready;  /* READY messages received */
  pid_t *task_pid; /* per task, as seen from here (SCM_CREDENTIALS; threads share one) */
  uid_t task_uid;  /* real uid of the tasks as seen from here, (uid_t) -1 if unknown */
  bool reaped;
  int status;         /* wait status once reaped */
  bool owner_is_task; /* ucb_spec_owner_is_task(): the owner process runs the one task */
};

struct ucb_fleet
{
  size_t n; /* containers asked of the spawner */
  size_t cap;
  struct ucb_container *c;
  int start_rd, start_wr; /* start barrier: tasks poll() the read end (will-it-scale's trick) */
  pid_t spawner;          /* forks the owners; leads the process group of every container */
  int ctl;                /* our end of the spawner's socket: owner pids and sync sockets */
  size_t spawned;         /* containers the spawner has reported */
  bool spawner_gone;      /* its control socket ended (it is not reaped before destroy) */
  /* Optional: memory of ours that no container reads (the point's results): the spawner drops
   * its copy, so that no fork of an owner copies its page tables (megabytes at thousands of
   * containers, copied once per container). */
  void *spare;
  size_t spare_len;
  /* Optional: told (at most every quarter second) how many containers are ready, of n. */
  void (*on_ready) (void *arg, size_t ready, size_t n);
  void *on_ready_arg;
};

int ucb_fleet_init (struct ucb_fleet *f, size_t cap, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Fork the spawner, which forks the owner process of every container (each builds its
 * namespaces and runs `fn`) and reports them; ucb_fleet_wait_ready() takes the reports.  The
 * specs are read by the spawner, a copy of this process: they may go once this returns. */
int ucb_fleet_spawn_all (struct ucb_fleet *f, const struct ucb_container_spec *specs, size_t n,
                         ucb_task_main_fn fn, void *arg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Wait until every container reported READY, or fail with the first child's error. */
int ucb_fleet_wait_ready (struct ucb_fleet *f, double timeout_s, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Release the start barrier: one write starts every task at once. */
int ucb_fleet_start (struct ucb_fleet *f, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Non-blocking health check while measuring: an error message or an early exit fails. */
int ucb_fleet_check (struct ucb_fleet *f, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* SIGKILL the containers' process group (the spawner's) and reap, orphans included; safe at
 * any point, twice. */
void ucb_fleet_destroy (struct ucb_fleet *f);

/* Task side: tell the parent this task is set up.  `task` is the task index. */
int ucb_task_ready (const struct ucb_task_env *env, unsigned task, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Task side: block until the start barrier is released (or the parent is gone). */
int ucb_task_wait_start (const struct ucb_task_env *env, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
