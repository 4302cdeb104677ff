/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched.c - the harness's own scheduling: see sched.h. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

#include "core/sched.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

const char *
ucb_sched_raise (struct ucb_sched_saved *s)
{
  struct sched_param p = { .sched_priority = 1 };
  struct sched_param old = { 0 };
  int policy = sched_getscheduler (0);

  memset (s, 0, sizeof *s);
  if (policy < 0 || sched_getparam (0, &old) < 0)
    return "the scheduling policy cannot be read";
  s->policy = policy & ~SCHED_RESET_ON_FORK;
  s->priority = old.sched_priority;
  /* Already real-time (e.g. under chrt): keep what the user chose, but not for the containers,
   * which would then starve everything else (and ucbench) at thousands of tasks. */
  if ((s->policy == SCHED_FIFO || s->policy == SCHED_RR) && old.sched_priority >= 1)
    {
      if (sched_setscheduler (0, s->policy | SCHED_RESET_ON_FORK, &old) == 0)
        s->raised = true;
      return NULL;
    }
  if (sched_setscheduler (0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) < 0)
    return errno == EPERM ? "not permitted (needs CAP_SYS_NICE or RLIMIT_RTPRIO >= 1)"
                          : "SCHED_FIFO refused";
  s->raised = true;
  return NULL;
}

void
ucb_sched_restore (struct ucb_sched_saved *s)
{
  struct sched_param p = { .sched_priority = s->priority };

  if (!s->raised)
    return;
  (void) sched_setscheduler (0, s->policy, &p); /* lowering is always allowed */
  s->raised = false;
}

const char *
ucb_sched_policy_name (void)
{
  switch (sched_getscheduler (0) & ~SCHED_RESET_ON_FORK)
    {
    case SCHED_FIFO:
      return "SCHED_FIFO";
    case SCHED_RR:
      return "SCHED_RR";
    case SCHED_OTHER:
      return "SCHED_OTHER";
    case SCHED_BATCH:
      return "SCHED_BATCH";
    case SCHED_IDLE:
      return "SCHED_IDLE";
    default:
      return "unknown";
    }
}
