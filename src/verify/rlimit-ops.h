/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlimit-ops.h - the four ucounts rlimits as every probe charges them: how a probe charges one
 * unit, releases one, makes its exit the only release, the refusal's errno and the unit
 * (kernel-ucounts.md §2), so that one property runner serves every rlimit; and the fills,
 * releases and counts over them that the agents (rlagent.c) and the hand-written cases' probes
 * share, one loop each. */
#ifndef UCB_RLIMIT_OPS_H
#define UCB_RLIMIT_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "host/rlimit.h"

/* What one charge is where the unit does not serve a case (all zero: the unit). */
struct ucb_rlshape
{
  /* SIGPENDING: queue to this process (0: to ourselves; SIGRTMIN blocked: block_rt, probe.h); what
   * is queued to another is that process's to take, not the sender's to release. */
  pid_t sig_to;
  long mq_maxmsg, mq_msgsize; /* MSGQUEUE: queues of maxmsg x msgsize (0: the unit's) */
  bool mq_defaults;           /* MSGQUEUE: the IPC namespace's default queue (a NULL attr) */
  /* MEMLOCK: SHM_LOCK these segments of the caller's in turn (the k-th held is shm_ids[k]),
   * not one-page segments made per charge: a refused one is kept, a release SHM_UNLOCKs. */
  const int *shm_ids;
  long shm_n;
};

/* What a probe holds, enough to release each unit again (the last one first).  A count tries
 * UCB_VTRIES (expectation) = expectation + 257 units (probe-work.h): the most any case holds
 * here, ULIM-15's 306 children, fits (SIGPENDING keeps a count only: ULIM-06 tries 1247). */
#define UCB_RL_HELD_MAX 512
struct ucb_rlheld
{
  long n;                    /* charges held */
  bool big[UCB_RL_HELD_MAX]; /* a big charge (rlops.big_units units) */
  int id[UCB_RL_HELD_MAX];   /* NPROC: the child; MSGQUEUE: the queue; MEMLOCK: the segment */
  int name[UCB_RL_HELD_MAX]; /* MSGQUEUE: the queue's name number */
  bool for_exit;             /* for_exit() ran: only the exit releases now */
  struct ucb_rlshape shape;  /* what each charge is */
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
  /* Its generic cells (cases/matrix-cells.c): the kernel path they check, and what they need
   * besides UCB_VNEEDS_PROBES (UCB_VCAP bits). */
  const char *checks;
  uint64_t needs_caps;
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

/* Room in h's held table for `want` more charges: SIGPENDING keeps a count only (all of
 * them); pre-made segments, as many as are left. */
long ucb_rlops_room (const struct ucb_rlops *ops, const struct ucb_rlheld *h, long want);
/* Charge up to `max` units (big ones with `big`), within the room, until refused: how many
 * were charged; the refusal's errno in *refused (0: none, `max` or the room was reached). */
long ucb_rlops_fill (const struct ucb_rlops *ops, struct ucb_rlheld *h, long max, bool big,
                     int *refused);
/* `k` charges (within the room) whatever each answers: how many were admitted; in *refused
 * how many were refused with `errnum`. */
long ucb_rlops_try (const struct ucb_rlops *ops, struct ucb_rlheld *h, long k, int errnum,
                    long *refused);
/* Release the last `k` held (k < 0: all), the last first: how many were released (SIGPENDING:
 * taken; a release that finds nothing left to take ends it). */
long ucb_rlops_release (const struct ucb_rlops *ops, struct ucb_rlheld *h, long k);
/* A count that gives back what it took: fill up to `max` charges of `shape` (NULL: the unit),
 * then release them.  How many; the refusal's errno in *refused. */
long ucb_rlops_count (const struct ucb_rlops *ops, const struct ucb_rlshape *shape, long max,
                      int *refused);
/* SIGPENDING between processes: queue SIGRTMIN to `to` (0: our process; a tid: that thread),
 * charged to it, until refused or `max`: how many, the refusal's errno in *refused; they stay
 * queued, the receiver's to take.  Take `n` queued to us (SIGPENDING holds a count only): how
 * many were taken. */
long ucb_rlops_send (const struct ucb_rlops *ops, pid_t to, long max, int *refused);
long ucb_rlops_take (const struct ucb_rlops *ops, long n);

/* Whether the unit sizes are known here ("" when they are), else why not. */
const char *ucb_rlops_unsupported (const struct ucb_rlops *ops);

#endif
