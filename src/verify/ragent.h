/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ragent.h - a generic rlimit agent for the matrix cells: a probe (probe.h) that becomes a
 * fresh uid, sits at depth 0, 1 or 2 of nested user namespaces, each created with a given soft
 * limit, sets its own soft limit innermost, then charges and releases units of one rlimit
 * (rlops.h) on order, so that the case process drives several agents and records alone. */
#ifndef UCB_RAGENT_H
#define UCB_RAGENT_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "verify/probe.h"
#include "verify/rlops.h"

/* RLIM_INFINITY in a place: "the hard limit" (ucb_vsoft), which is RLIM_INFINITY itself once
 * the case raised it (P4). */
#define UCB_RL_HARD RLIM_INFINITY

/* Where an agent sits: `depth` nested user namespaces of its own (0: the initial one), the
 * i-th created with soft limit snap[i], and its own soft limit innermost. */
struct ucb_rlplace
{
  int depth;
  rlim_t snap[2];
  rlim_t own;
};

struct ucb_rlagent
{
  struct ucb_probe p;
  const struct ucb_rlops *ops;
};
#define UCB_RLAGENT_NONE                                                                           \
  {                                                                                                \
    .p = UCB_PROBE_NONE                                                                            \
  }

/* What an order gives back. */
struct ucb_rlans
{
  long count;   /* charges taken / released */
  int errnum;   /* the refusal that ended a fill (0: none, it reached its max) */
  long refused; /* try: attempts refused with the errno asked for */
  long sigq;    /* SigQ of the agent (its level-0 SIGPENDING counter) */
  long held;    /* charges it holds now */
  long tries;   /* fill: the most it tried (its max, or less where its held table had no room
                 * for more): a count that reached it is capped */
  long sigq_n1; /* SIGPENDING at depth 2: SigQ of (N1, 0), its level 1; else -1 */
};

int ucb_rlagent_start (struct ucb_rlagent *a, const struct ucb_rlops *ops, const char *what,
                       uid_t uid, const struct ucb_rlplace *pl, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* Orders.  Each does nothing and returns -1 once `err` is set, so that a sequence is checked
 * once, at its end; otherwise 0 with *ans filled. */
/* Charge until refused or `max` charges (big ones with `big`): a known load. */
int ucb_rlagent_fill (struct ucb_rlagent *a, long max, bool big, struct ucb_rlans *ans,
                      ucb_error_t *err);
/* Charge until refused, up to the safety cap: ops->cap + 1 tries, so that a count of all of
 * them reads "> cap" (ans->tries: what it tried). */
int ucb_rlagent_fill_all (struct ucb_rlagent *a, struct ucb_rlans *ans, ucb_error_t *err);
/* How many fill_all()s of this process ended without a refusal: the kernel admitted more than
 * the cap (a count "> cap"), far above every expectation. */
long ucb_rlagent_capped (void);
/* `k` more attempts, each kept if admitted: ans->count admitted, ans->refused refused with
 * `errnum`. */
int ucb_rlagent_try (struct ucb_rlagent *a, long k, int errnum, struct ucb_rlans *ans,
                     ucb_error_t *err);
/* Release `k` charges (-1: all). */
int ucb_rlagent_release (struct ucb_rlagent *a, long k, struct ucb_rlans *ans, ucb_error_t *err);
/* Set its own soft limit (UCB_RL_HARD: the hard one). */
int ucb_rlagent_soft (struct ucb_rlagent *a, rlim_t soft, struct ucb_rlans *ans, ucb_error_t *err);
/* Make its exit the only release of what it holds (rlops for_exit), then kill it with SIGKILL
 * and reap it, and for NPROC its children, which die with it and come to us (the case process
 * is a subreaper).  Returns -1 with `err` set when they are not all gone within 2 s. */
int ucb_rlagent_exit_holding (struct ucb_rlagent *a, ucb_error_t *err);
/* Release everything, end, reap; its error if it failed.  With `err` already set just kill
 * it (an error path). */
int ucb_rlagent_stop (struct ucb_rlagent *a, ucb_error_t *err);

#endif
