/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shmlock.c - SHM_LOCK and SHM_UNLOCK of a one-page SysV shared memory segment.
 *
 * One op = shmctl(SHM_LOCK) + shmctl(SHM_UNLOCK) on a segment made in setup.  Locking charges
 * RLIMIT_MEMLOCK, ceil(size / PAGE_SIZE) = 1 page, at every user-namespace level (shmem_lock ->
 * user_shm_lock -> inc_rlimit_ucounts) and unlocking uncharges it (user_shm_unlock): exactly
 * one charge and one uncharge.  Both run under the global shmlock_user_lock spinlock; the
 * segment's own ipc and inode locks are per task. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/workload.h"

struct shmlock_state
{
  int id;       /* -1: no segment */
  bool removed; /* IPC_RMID done: the segment dies at the last detach */
  void *addr;   /* NULL: not attached */
};

static int
shmlock_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  struct shmlock_state *s = xcalloc (1, sizeof *s);
  void *addr;

  s->id = -1;
  ctx->priv = s;
  /* One page: the smallest charge there is, whatever the page size. */
  s->id = shmget (IPC_PRIVATE, (size_t) sysconf (_SC_PAGESIZE), IPC_CREAT | 0600);
  if (s->id < 0)
    return ucb_make_error (err, errno, "shmget");
  addr = shmat (s->id, NULL, 0);
  if (addr == (void *) -1)
    return ucb_make_error (err, errno, "shmat");
  s->addr = addr;
  /* Marked for removal at once, the segment lives exactly as long as the attachment, so it
   * dies with the task even on SIGKILL; SHM_LOCK still finds it by id (the id stays in the
   * idr until the last detach, only its key becomes private). */
  if (shmctl (s->id, IPC_RMID, NULL) < 0)
    return ucb_make_error (err, errno, "shmctl IPC_RMID");
  s->removed = true;
  return 0;
}

/* At the limit SHM_LOCK fails with ENOMEM; EPERM if RLIMIT_MEMLOCK is 0 and the task lacks
 * CAP_IPC_LOCK over the IPC namespace.  Nothing was charged, so nothing to undo. */
static int
shmlock_take (struct ucb_wctx *ctx, uintptr_t *held)
{
  const struct shmlock_state *s = ctx->priv;

  (void) held;
  return shmctl (s->id, SHM_LOCK, NULL) < 0 ? errno : 0;
}

/* Still locked after a failed SHM_UNLOCK: every later SHM_LOCK would succeed without charging
 * anything. */
static int
shmlock_release (struct ucb_wctx *ctx, uintptr_t held)
{
  const struct shmlock_state *s = ctx->priv;

  (void) held;
  return shmctl (s->id, SHM_UNLOCK, NULL) < 0 ? errno : 0;
}

static enum ucb_result
shmlock_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  return ucb_charge_loop (ctx, iters, shmlock_take, shmlock_release);
}

static void
shmlock_teardown (struct ucb_wctx *ctx)
{
  struct shmlock_state *s = ctx->priv;

  if (s == NULL)
    return;
  /* A segment still locked is uncharged when it is destroyed, at the detach below. */
  if (s->id >= 0 && !s->removed)
    (void) shmctl (s->id, IPC_RMID, NULL);
  if (s->addr != NULL)
    (void) shmdt (s->addr);
}

const struct ucb_workload ucb_workload_shmlock = {
  .name = "shmlock",
  .summary = "SHM_LOCK + SHM_UNLOCK of a one-page SysV shared memory segment",
  .op = "shmctl(SHM_LOCK) + shmctl(SHM_UNLOCK) on a one-page segment made in setup",
  .locks = "shmlock_user_lock (global spinlock, twice per op)",
  .rlimits = UCB_RLIM_MEMLOCK,
  /* The segment exists unremoved between shmget and IPC_RMID in setup: a container killed
   * there (an interrupted run's teardown, ucbench's own SIGKILL) would leave it in a shared
   * IPC namespace; a private one takes it along (a kill trial found one left). */
  .needs_ipc_ns = true,
  /* One locked page, in bytes like RLIMIT_MEMLOCK.  A constant, so the x86_64 page size;
   * setup() sizes the segment with sysconf, so a larger page means a larger charge. */
  .peak = 4096,
  .batch = 5000,
  .setup = shmlock_setup,
  .loop = shmlock_loop,
  .teardown = shmlock_teardown,
};
