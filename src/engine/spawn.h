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
  pid_t pid;       /* owner process, also the container's process-group id */
  int sock;        /* our end of the SOCK_SEQPACKET sync socket */
  unsigned tasks;  /* READY messages expected */
  unsigned ready;  /* READY messages received */
  pid_t *task_pid; /* per task, as seen from here (SCM_CREDENTIALS; threads share one) */
  uid_t task_uid;  /* real uid of the tasks as seen from here, (uid_t) -1 if unknown */
  bool reaped;
  int status; /* wait status once reaped */
};

struct ucb_fleet
{
  size_t n; /* containers spawned so far */
  size_t cap;
  struct ucb_container *c;
  int start_rd, start_wr; /* start barrier: tasks poll() the read end (will-it-scale's trick) */
  /* Optional: told (at most every quarter second) how many containers are ready, of n. */
  void (*on_ready) (void *arg, size_t ready, size_t n);
  void *on_ready_arg;
};

int ucb_fleet_init (struct ucb_fleet *f, size_t cap, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Fork the owner process of one container; it builds the namespaces and runs `fn`. */
int ucb_fleet_spawn (struct ucb_fleet *f, const struct ucb_container_spec *spec,
                     ucb_task_main_fn fn, void *arg, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Wait until every container reported READY, or fail with the first child's error. */
int ucb_fleet_wait_ready (struct ucb_fleet *f, double timeout_s, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Release the start barrier: one write starts every task at once. */
int ucb_fleet_start (struct ucb_fleet *f, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Non-blocking health check while measuring: an error message or an early exit fails. */
int ucb_fleet_check (struct ucb_fleet *f, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* SIGKILL every container's process group and reap, orphans included; safe at any point,
 * twice. */
void ucb_fleet_destroy (struct ucb_fleet *f);

/* Task side: tell the parent this task is set up.  `task` is the task index. */
int ucb_task_ready (const struct ucb_task_env *env, unsigned task, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Task side: block until the start barrier is released (or the parent is gone). */
int ucb_task_wait_start (const struct ucb_task_env *env, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
