/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlimit-ops.h - the four ucounts rlimits as the matrix cells use them: how a probe charges one
 * unit, releases one, makes its exit the only release, the refusal's errno and the unit
 * (kernel-ucounts.md §2), so that one property runner serves every rlimit. */
#ifndef UCB_RLIMIT_OPS_H
#define UCB_RLIMIT_OPS_H

#include <stdbool.h>
#include <sys/resource.h>

#include "host/rlimit.h"

/* What a probe holds, enough to release each unit again (the last one first). */
#define UCB_RL_HELD_MAX 512
struct ucb_rlheld
{
  long n;                    /* charges held */
  bool big[UCB_RL_HELD_MAX]; /* a big charge (rlops.big_units units) */
  int id[UCB_RL_HELD_MAX];   /* NPROC: the child; MSGQUEUE: the queue; MEMLOCK: the segment */
  int name[UCB_RL_HELD_MAX]; /* MSGQUEUE: the queue's name number */
  int next_name;
  bool for_exit; /* for_exit() ran: only the exit releases now */
};

struct ucb_rlops
{
  enum ucb_rl rl;   /* its name and resource: ucb_rl_name, ucb_rl_resource */
  int refusal;      /* the errno at the bound (kernel-ucounts.md §0 rule 5) */
  const char *unit; /* what one unit is */
  bool ipc;         /* charges live in an IPC namespace: the probe makes one of its own */
  long self;        /* units a probe holds by being alive (NPROC: the task itself) */
  long cap;         /* a fill stops there at the latest: far above every expectation */
  long large;       /* P4: big charges expected without a refusal under RLIM_INFINITY */
  long big_units;   /* units of one big charge (1: a big charge is a unit) */
  /* The soft limit that admits exactly `units` at the own level: one byte less admits one
   * fewer (every fill lands on its bound). */
  rlim_t (*soft) (long units);
  /* The creator's soft limit that makes a parent bound of `units` on stock kernels, and the
   * bound that limit means by intent (MEMLOCK: the snapshot is in bytes but compared with
   * pages, kernel-ucounts.md §2.4, ULIM-19: `units` bytes, intended units / PAGE_SIZE). */
  rlim_t (*snap) (long units);
  long (*snap_intended) (long units);
  /* Charge one unit (a big charge with `big`): 0, or the errno of the refusal. */
  int (*charge) (struct ucb_rlheld *h, bool big);
  /* Release the last charge held. */
  void (*release) (struct ucb_rlheld *h);
  /* Make the holder's exit the only release of what it holds (MSGQUEUE: unlink the open
   * queues; MEMLOCK: attach and IPC_RMID the segments; the others release at exit anyway). */
  void (*for_exit) (struct ucb_rlheld *h);
  /* NULL, or: update the counter without holding anything, as fast as the kernel allows
   * (NPROC: the real uid flipped to uid 1 of the caller's user namespace and back; each flip's
   * commit_creds charges the new uid and releases the old one, no fork): 0, or the errno.
   * Needs a namespace that maps uids 0 and 1, and CAP_SETUID in it (rlagent.h `pair`). */
  int (*churn) (void);
};

extern const struct ucb_rlops ucb_rlops[UCB_RLS];

/* Whether the unit sizes are known here ("" when they are), else why not. */
const char *ucb_rlops_unsupported (const struct ucb_rlops *ops);

#endif
