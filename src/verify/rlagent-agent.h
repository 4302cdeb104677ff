/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlagent-agent.h - inside an rlimit agent (rlagent.c): the slots of its order and answer, what
 * it was started with, and the race orders that rlagent-race.c runs for it. */
#ifndef UCB_RLAGENT_AGENT_H
#define UCB_RLAGENT_AGENT_H

#include "verify/probe.h"
#include "verify/rlagent.h"

enum
{
  OP,      /* order: 'f' fill, 't' try, 'r' release, 's' soft, 'e' for exit, 'x' call, 'c' race,
            * 'b' rounds at the bound, 'q' quit */
  ARG,     /* order: max / k / soft / the race's page */
  ARG2,    /* order: fill: big; try: the errno; call: the function */
  COUNT,   /* answer */
  REFUSED, /* answer: try */
  SIGQ,    /* answer */
  HELD,    /* answer */
  SIGQ_N1, /* answer: SigQ of the watcher in N1, -1 without one */
  TRIES,   /* answer: fill: the most it tried (the held table may have room for fewer) */
};

struct agent_arg
{
  const struct ucb_rlops *ops;
  struct ucb_rlplace pl;
};

/* The orders 'c' (the race) and 'b' (rounds at the bound): 0, or -1 with `err` set. */
int ucb_rlagent_do_race (const struct agent_arg *a, struct ucb_rlheld *h, struct ucb_rlrace *r,
                         struct ucb_probe_out *o, ucb_error_t *err);
int ucb_rlagent_do_rounds (const struct agent_arg *a, struct ucb_rlheld *h, struct ucb_rlrace *race,
                           struct ucb_probe_out *o, ucb_error_t *err);

#endif
