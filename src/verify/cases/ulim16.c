/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim16.c - ULIM-16: RLIMIT_MSGQUEUE charges the exact queue cost, and the boundary is exact.
 *
 * mqueue_get_inode charges maxmsg * msgsize + maxmsg * sizeof (struct msg_msg) +
 * min (maxmsg, MQ_PRIO_MAX) * sizeof (struct posix_msg_tree_node) bytes at creation: on
 * x86_64 (6.18 layouts) maxmsg * (msgsize + 96).  With soft = 2 * cost two queues are created
 * and the third gets EMFILE; with 2 * cost - 1 only one.  Runs in a user and IPC namespace of
 * its own, so no queue can outlive the case. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

static const struct
{
  long maxmsg, msgsize; /* 0: the defaults (NULL attr), 10 x 8192 */
} shapes[] = { { 1, 1024 }, { 10, 100 }, { 0, 0 } };

static long
cost (long maxmsg, long msgsize)
{
  if (maxmsg == 0)
    maxmsg = 10, msgsize = 8192;
  return maxmsg * (msgsize + 48 + 48); /* sizeof msg_msg, posix_msg_tree_node: x86_64 */
}

_Static_assert(UCB_VTRIES (2) <= UCB_RL_HELD_MAX, "the queues fit the held table");

static int
ulim16_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  if (*ucb_rlops_unsupported (&ucb_rlops[UCB_RL_MSGQUEUE]))
    {
      ucb_vskip (ctx->res, "the queue cost formula is known for x86_64 only (struct sizes)");
      return 0;
    }
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int minus = 0; minus < 2; minus++)
      {
        long c = cost (shapes[s].maxmsg, shapes[s].msgsize);
        char name[UCB_VNAME_MAX], errno_name[UCB_VNAME_MAX], what[32];
        struct ucb_probe_spec spec = { .what = what,
                                       .uid = ctx->uid_base + (uid_t) (s * 2 + (size_t) minus),
                                       .resource = RLIMIT_MSGQUEUE,
                                       .soft = (rlim_t) (2 * c - minus),
                                       .userns = CLONE_NEWUSER | CLONE_NEWIPC };
        struct ucb_rlshape shape = { .mq_maxmsg = shapes[s].maxmsg,
                                     .mq_msgsize = shapes[s].msgsize,
                                     .mq_defaults = shapes[s].maxmsg == 0 };
        struct ucb_vcount queues = { &ucb_rlops[UCB_RL_MSGQUEUE], &shape, UCB_VTRIES (2) };
        struct ucb_probe_out o;

        snprintf (what, sizeof what, "the probe of shape %zu", s + 1);
        if (ucb_probe_run (&spec, ucb_vcount, &queues, &o, err) < 0)
          return -1;
        snprintf (name, sizeof name, "%ldx%ld queues at %ld B", shapes[s].maxmsg ?: 10,
                  shapes[s].msgsize ?: 8192, 2 * c - minus);
        snprintf (errno_name, sizeof errno_name, "errno after %ldx%ld queues at %ld B",
                  shapes[s].maxmsg ?: 10, shapes[s].msgsize ?: 8192, 2 * c - minus);
        ucb_vobserve_fill (ctx->res, name, UCB_VITEM_ADMITTED, minus ? 1 : 2, o.v[0], queues.tries,
                           errno_name, EMFILE, o.errnum);
      }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim16 = {
  .id = "ULIM-16",
  .name = "msgqueue-cost",
  .title = "MSGQUEUE: a queue costs maxmsg*(msgsize+96) B (x86_64); the boundary is exact",
  .rlimit = UCB_RL_MSGQUEUE,
  .depends = "x86_64 struct msg_msg / posix_msg_tree_node sizes (6.18); skip elsewhere",
  .checks = "mqueue_get_inode: inc_rlimit_ucounts(MSGQUEUE, mq_bytes) under mq_lock, EMFILE",
  .run = ulim16_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};
