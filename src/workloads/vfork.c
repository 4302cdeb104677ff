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

#include "../util.h"
#include "../workload.h"

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

/* Reap `pid`: only then is its NPROC charge gone (zombies stay charged). */
static int
reap (pid_t pid)
{
  while (waitpid (pid, NULL, 0) < 0)
    if (errno != EINTR)
      return -1;
  return 0;
}

static enum ucb_result
vfork_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  char *stack_top = (char *) ctx->priv + CHILD_STACK_SIZE; /* the stack grows down */

  for (uint64_t i = 0; i < iters; i++)
    {
      /* Returns once the child has exited (CLONE_VFORK): only the reap is left. */
      pid_t pid = clone (child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

      /* At the limit copy_process() refuses the charge with EAGAIN; no child exists. */
      if (pid < 0)
        {
          ucb_op_failed (ctx, errno);
          continue;
        }
      /* Only fails if our children are not ours to wait for (SIGCHLD ignored, ECHILD): then
       * nobody knows when the charge goes, so stop rather than report a wrong op. */
      if (reap (pid) < 0)
        {
          ucb_op_failed (ctx, errno);
          return UCB_FAIL;
        }
      ucb_op_done (ctx);
    }
  return UCB_OK;
}

static void
vfork_teardown (struct ucb_wctx *ctx)
{
  free (ctx->priv);
  ctx->priv = NULL;
}

const struct ucb_workload ucb_workload_vfork = {
  .name = "vfork",
  .summary = "vfork-style clone of a child that exits at once, then waitpid() it",
  .op = "clone(CLONE_VM|CLONE_VFORK|SIGCHLD) + child exit + waitpid",
  .counter = "NPROC",
  .locks = "tasklist_lock (global, write), pid allocation (pidmap_lock)",
  .rlimits = UCB_RLIM_NPROC,
  .peak = 1, /* the child, from clone until it is reaped */
  .batch = 50,
  .setup = vfork_setup,
  .loop = vfork_loop,
  .teardown = vfork_teardown,
};
