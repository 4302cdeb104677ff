/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vfork.c - vfork-style clone of a child that exits at once, and reap it.
 *
 * One op = clone(CLONE_VM|CLONE_VFORK|SIGCHLD) of a child that exits at once + waitpid.  Same
 * NPROC accounting as fork: copy_creds() charges one task at every user-namespace level,
 * copy_process() checks it and release_task() uncharges it at the reap: exactly one charge and
 * one uncharge.  Lighter than fork (the mm is shared, not copied).  Also takes the global
 * tasklist_lock for writing (fork and reap) and the pid allocator's lock. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "core/util.h"
#include "engine/workload.h"

/* clone() with a stack of our own rather than glibc's vfork(): the child then never runs on,
 * and cannot scribble over, the frame of the task that is suspended in vfork (a signal handler
 * running in the child would), and the compiler has no returns-twice function to cope with.
 * posix_spawn() does the same.  Each task has its own stack (ctx->priv), so the tasks of a
 * thread-mode container can clone at the same time.  The child only returns, which glibc's
 * clone turns into the exit system call: no libc state is touched while the mm is shared.
 * 64 KiB leaves room for a signal handler; the child itself needs a few bytes. */
#define CHILD_STACK_SIZE (64 * 1024)

static int
child (void *arg)
{
  (void) arg;
  return 0;
}

static int
vfork_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  (void) err;
  ctx->priv = xcalloc (1, CHILD_STACK_SIZE); /* malloc's 16-byte alignment suits the ABI */
  return 0;
}

/* Returns once the child has exited (CLONE_VFORK): only the reap is left. */
static pid_t
vfork_spawn (struct ucb_wctx *ctx)
{
  char *stack_top = (char *) ctx->priv + CHILD_STACK_SIZE; /* the stack grows down */

  return clone (child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
}

static enum ucb_result
vfork_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  return ucb_child_loop (ctx, iters, vfork_spawn);
}

const struct ucb_workload ucb_workload_vfork = {
  .name = "vfork",
  .summary = "vfork-style clone of a child that exits at once, then waitpid() it",
  .op = "clone(CLONE_VM|CLONE_VFORK|SIGCHLD) + child exit + waitpid",
  .locks = "tasklist_lock (global, write), pid allocation (pidmap_lock)",
  .rlimits = UCB_RLIM_NPROC,
  .peak = 1, /* the child, from clone until it is reaped */
  .batch = 50,
  .setup = vfork_setup,
  .loop = vfork_loop,
};
