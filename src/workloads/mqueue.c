/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mqueue.c - create and destroy the smallest POSIX message queue.
 *
 * One op = mq_open(O_CREAT|O_EXCL) + mq_close + mq_unlink of one queue.  Creating the queue
 * inode charges RLIMIT_MSGQUEUE bytes at every user-namespace level (mqueue_get_inode ->
 * inc_rlimit_ucounts) and its eviction after the last close and the unlink uncharges them
 * (mqueue_evict_inode -> dec_rlimit_ucounts): exactly one charge and one uncharge.  Also takes
 * the global mq_lock spinlock, about four times per op, for every queue in the system. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "engine/workload.h"

/* The smallest queue: one 8-byte message.  Its charge (ipc/mqueue.c, mqueue_get_inode) is
 *   maxmsg * msgsize + maxmsg * sizeof (struct msg_msg)
 *   + min (maxmsg, MQ_PRIO_MAX) * sizeof (struct posix_msg_tree_node)
 * = maxmsg * (msgsize + 96) on x86_64 6.18, where both structs are 48 bytes: 104 bytes.  The
 * struct sizes depend on the ABI and the kernel config, so QUEUE_BYTES is the x86_64 figure. */
#define QUEUE_MAXMSG 1
#define QUEUE_MSGSIZE 8
#define QUEUE_BYTES (QUEUE_MAXMSG * (QUEUE_MSGSIZE + 96))

struct mqueue_state
{
  struct mq_attr attr;
  char name[64];
};

static int
mqueue_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  struct mqueue_state *s = xcalloc (1, sizeof *s);
  int n;

  s->attr.mq_maxmsg = QUEUE_MAXMSG;
  s->attr.mq_msgsize = QUEUE_MSGSIZE;
  /* One name per task, reused by every op: it is free again once mq_unlink returns. */
  n = snprintf (s->name, sizeof s->name, "/ucb.%lu.%u.%u", ctx->runid, ctx->container, ctx->task);
  if (n < 0 || (size_t) n >= sizeof s->name)
    {
      free (s);
      return ucb_make_error (err, ENAMETOOLONG, "queue name for task %u", ctx->task);
    }
  ctx->priv = s;
  return 0;
}

/* At the limit the charge is refused with EMFILE; nothing was created. */
static int
mqueue_take (struct ucb_wctx *ctx, uintptr_t *held)
{
  const struct mqueue_state *s = ctx->priv;
  mqd_t q = mq_open (s->name, O_CREAT | O_EXCL | O_RDWR, 0600, &s->attr);

  if (q == (mqd_t) -1)
    return errno;
  *held = (uintptr_t) q;
  return 0;
}

/* A queue left open or linked stays charged and makes every later op fail with EEXIST, so
 * either failure ends the task rather than corrupting the rest of the run. */
static int
mqueue_release (struct ucb_wctx *ctx, uintptr_t held)
{
  const struct mqueue_state *s = ctx->priv;

  return mq_close ((mqd_t) held) < 0 || mq_unlink (s->name) < 0 ? errno : 0;
}

static enum ucb_result
mqueue_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  return ucb_charge_loop (ctx, iters, mqueue_take, mqueue_release);
}

static void
mqueue_teardown (struct ucb_wctx *ctx)
{
  struct mqueue_state *s = ctx->priv;

  if (s == NULL)
    return;
  /* Only a loop that stopped between mq_open and mq_unlink leaves the name; ENOENT is fine. */
  (void) mq_unlink (s->name);
}

const struct ucb_workload ucb_workload_mqueue = {
  .name = "mqueue",
  .summary = "create and destroy a one-message POSIX message queue",
  .op = "mq_open(O_CREAT|O_EXCL, maxmsg 1, msgsize 8) + mq_close + mq_unlink",
  .locks = "mq_lock (global spinlock, about 4 times per op)",
  .rlimits = UCB_RLIM_MSGQUEUE,
  .peak = QUEUE_BYTES, /* one queue between mq_open and its eviction */
  .needs_ipc_ns = true,
  .batch = 500,
  .setup = mqueue_setup,
  .loop = mqueue_loop,
  .teardown = mqueue_teardown,
};
