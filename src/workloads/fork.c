/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fork.c - fork() a child that exits at once, and reap it.
 *
 * One op = fork + the child's _exit(0) + waitpid.  copy_creds() charges RLIMIT_NPROC, one task,
 * at every user-namespace level (inc_rlimit_ucounts), copy_process() then checks it
 * (is_rlimit_overlimit) and reaping uncharges it (release_task -> dec_rlimit_ucounts): exactly
 * one charge and one uncharge.  Also takes the global tasklist_lock for writing (fork and
 * reap) and the pid allocator's lock, and copies the whole mm under its mmap_lock, which the
 * tasks of a thread-mode container share: this is the heavy NPROC op. */
#include "config.h"

#include <errno.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/workload.h"

static pid_t
fork_spawn (struct ucb_wctx *ctx)
{
  pid_t pid = fork ();

  (void) ctx;
  if (pid == 0)
    _exit (0); /* async-signal-safe: fine in a child of a threaded process */
  return pid;
}

static enum ucb_result
fork_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  return ucb_child_loop (ctx, iters, fork_spawn);
}

const struct ucb_workload ucb_workload_fork = {
  .name = "fork",
  .summary = "fork() a child that exits at once, then waitpid() it",
  .op = "fork + child _exit(0) + waitpid",
  .locks = "tasklist_lock (global, write), pid allocation (pidmap_lock)",
  .rlimits = UCB_RLIM_NPROC,
  .peak = 1, /* the child, from fork until it is reaped */
  .batch = 20,
  .loop = fork_loop,
};
