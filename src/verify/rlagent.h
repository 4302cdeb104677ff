/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlagent.h - the generic rlimit agent of the matrix cells and the scripts (script.h): a probe
 * (probe.h) that becomes a fresh uid, sits at depth 0, 1 or 2 of nested user namespaces, each
 * created with a given soft limit, sets its own soft limit innermost, then charges and releases
 * units of one rlimit (rlimit-ops.h) on order, so that the case process drives several agents
 * and records alone. */
#ifndef UCB_RLAGENT_H
#define UCB_RLAGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "verify/probe.h"
#include "verify/rlimit-ops.h"

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
  int room;  /* > 0: an fd (the case process's) of a user namespace of the agent's uid that it
              * enters first (setns) and makes its namespaces in (P9, cells-pin.c) */
  int ipc;   /* > 0: an fd of an IPC namespace (the case process's) that the agent enters as
              * root before it becomes its uid (probe.h `.ipc`) and keeps: no IPC namespace of its
              * own, so that tasks of other uids share its SysV objects (cells-release-ipc.c) */
  bool pair; /* depth 1 only: the namespace maps 0 to the agent's uid and 1 to the next uid
              * (the case process writes the map: two uids need a writer with CAP_SETUID
              * outside), so that the agent can flip its real uid (rlops churn); in a race
              * (P8) such an agent churns instead of charging */
  bool ruid; /* not with `pair`: the agent becomes only the real uid (probe.h `.ruid`: euid 0,
              * root's capabilities kept), charged to that uid's counters */
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
/* An order of the caller's own: `fn` runs in the agent on what it holds (the agent is forked
 * from the case process: the function's address is the same there), with `arg`; its value is
 * ans->count, the errno it sets ans->errnum. */
typedef long (*ucb_rlagent_fn) (const struct ucb_rlops *ops, struct ucb_rlheld *h, long arg,
                                int *errnum);
int ucb_rlagent_call (struct ucb_rlagent *a, ucb_rlagent_fn fn, long arg, struct ucb_rlans *ans,
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

/* ---- the race (P8, cells-race.c): agents of one uid charge and release at once ---- */

/* The rounds at the bound (ucb_rlagent_rounds_send): the level's counter one short of its
 * bound (another agent holds the rest), `chargers` agents, each pinned to an allowed CPU of its
 * own, charge once each at the same instant, round after round, and the one admitted releases
 * before the next round starts.  The case process zeroes it and sets the first fields. */
struct ucb_rlrounds
{
  long chargers;    /* the rounds start once this many chargers have their order */
  long ms;          /* rounds go on at least this long, */
  long min_met;     /* and past it until in this many two charges met (`met`, below), */
  long max_ms;      /* but never longer (CLOCK_MONOTONIC) */
  bool retry_alone; /* a round with none admitted at once: its last charger charges once more
                     * alone, and that counts as the round's one (NPROC: fork adds before it
                     * checks, so two forks at once may both be refused) */
  /* Kept by the chargers. */
  long in;            /* chargers that have their order: the i-th is pinned to the i-th CPU */
  long gen;           /* the round that may start (0: none yet; -1: the rounds are over) */
  long started;       /* over all rounds: charges begun (after the pause), */
  long ended;         /* charges ended, */
  long settled;       /* chargers done with their round (released what was admitted) */
  long admitted_now;  /* admitted in the round being run */
  long met_now;       /* 1: in the round being run a charge ended while another was inside */
  long preempted_now; /* 1: a charger of that round was preempted during its charge (two may
                       * have taken turns on one CPU: their meeting proves nothing) */
  long rounds;        /* rounds run */
  long most;          /* the most admitted at once in one round */
  long one;           /* rounds with exactly one admitted (at once, or by the retry alone) */
  long met;           /* rounds in which two charges were inside the kernel at once, neither
                       * charger preempted meanwhile */
  long met_preempted; /* rounds that met only with a charger preempted: not counted as met */
  bool stalled;       /* a charger waited past max_ms + 2 s for the others (a busy host) */
  uint64_t start_ns, end_ns;
};

/* What the racing agents share.  It lives in a MAP_SHARED anonymous mapping that the case
 * process makes before it starts the agents: they are forked from it, so they share the page
 * (its address is the same in them).  The agents update it atomically. */
struct ucb_rlrace
{
  uint64_t magic; /* UCB_RLRACE_MAGIC: an agent refuses any other page */
  /* Set by the case process before the orders. */
  long agents;       /* the race starts once this many agents have their order */
  long hold;         /* units an agent holds at most */
  long ms;           /* race at least this long, */
  long min_admitted; /* and past it only until this many charges were admitted */
  long min_refused;  /* and this many refused in all, */
  long max_ms;       /* but never longer (CLOCK_MONOTONIC) */
  long churners;     /* of the agents, churners (placed with `pair`): they race on */
  long alone_ms;     /* this long after the last charger's end, the CPUs to themselves */
  /* Kept by the agents. */
  long arrived;             /* agents that have their order (chargers and churners) */
  long chargers_in;         /* of them chargers, and churners: each role is pinned round robin on */
  long churners_in;         /* its own */
  long held;                /* units all of them hold: + 1 after an admitted charge, - 1 before a
                             * release, so it never exceeds what the kernel counts for them */
  long most;                /* the most `held` reached */
  long admitted;            /* charges admitted while racing, all agents */
  long refused;             /* charges refused while racing */
  long churns;              /* churners' updates (rlops churn calls), added at each one's end */
  long chargers_out;        /* chargers that have ended */
  uint64_t chargers_end_ns; /* the last charger's end */
  uint64_t start_ns;        /* the race's start (CLOCK_MONOTONIC) */
  uint64_t end_ns;          /* the last agent's end */
  struct ucb_rlrounds rounds;
};
#define UCB_RLRACE_MAGIC 0x75636272616365ull /* "ucbrace" */

/* Order the race: the agent waits until `race->agents` have the order (at most max_ms), then
 * until the race ends charges one unit while it holds fewer than `race->hold` and releases one
 * otherwise or when refused (ops->charge, ops->release: the kernel's own paths), and finally
 * releases everything; an agent placed with `pair` calls ops->churn instead, holding nothing.  Sent
 * to every agent before any answer is collected: each is a process of its own, so they race. */
int ucb_rlagent_race_send (struct ucb_rlagent *a, struct ucb_rlrace *race, ucb_error_t *err);
/* Its answer: ans->count admitted (a churner: its churns), ans->refused refused, ans->errnum
 * the errno of a refusal other than ops->refusal (0: none), ans->held 0. */
int ucb_rlagent_race_collect (struct ucb_rlagent *a, struct ucb_rlans *ans, ucb_error_t *err);
/* Order the rounds at the bound (race->rounds, above): each charge made after a random pause
 * of 0-1023 loop turns, so that the chargers do not fall into lockstep.  The answer, by
 * ucb_rlagent_race_collect: ans->count admitted and ans->refused refused at once (retries
 * alone not counted), ans->errnum as the race's. */
int ucb_rlagent_rounds_send (struct ucb_rlagent *a, struct ucb_rlrace *race, ucb_error_t *err);
/* In an agent: true while it races (the rounds too).  For the tests only: their sabotaged
 * operations go wrong under the race alone, as a kernel's lost update would. */
extern bool ucb_rlagent_racing;
/* In an agent in the rounds at the bound: how many other chargers are inside their charge now
 * (begun, not ended), and in *ended the charges ended so far; 0 elsewhere.  For the tests only
 * (a check-before-add kernel admits both of two charges made at once). */
long ucb_rlagent_others_charging (long *ended);

#endif
