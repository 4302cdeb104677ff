/* SPDX-License-Identifier: GPL-2.0-or-later */
/* getppid.c - the control workload: one cheap syscall that charges no ucount.
 *
 * Anything that slows getppid down as containers are added (scheduling, SMT, the VM) is not
 * ucounts contention; compare every rlimit workload against it. */
#include "config.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "engine/workload.h"

static enum ucb_result
getppid_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  for (uint64_t i = 0; i < iters; i++)
    {
      /* syscall() rather than getppid(): no libc caching may ever turn it into a no-op. */
      (void) syscall (SYS_getppid);
      ucb_op_done (ctx);
    }
  return UCB_OK;
}

const struct ucb_workload ucb_workload_getppid = {
  .name = "getppid",
  .summary = "control: getppid(), charges no ucount",
  .op = "one getppid() system call",
  .locks = "none",
  .rlimits = UCB_RLIM_NONE,
  .peak = 0,
  .batch = 10000,
  .loop = getppid_loop,
};
