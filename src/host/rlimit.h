/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlimit.h - the four rlimits the kernel charges to ucounts: their one index, bit, name and
 * setrlimit resource, for every layer (workloads, run's limits, verify's cases and cells,
 * the host record). */
#ifndef UCB_RLIMIT_H
#define UCB_RLIMIT_H

#include <stdbool.h>

/* In this order everywhere: JSON objects, tables, the verify matrix's rows. */
enum ucb_rl
{
  UCB_RL_SIGPENDING,
  UCB_RL_MSGQUEUE,
  UCB_RL_MEMLOCK,
  UCB_RL_NPROC,
  UCB_RL_NONE, /* not an rlimit (a control workload, the non-rlimit ucounts case) */
};
#define UCB_RLS 4 /* the rlimits proper: UCB_RL_NONE is not one */

/* A set of rlimits (what one op of a workload charges). */
#define UCB_RLIM_BIT(rl) (1u << (rl))
#define UCB_RLIM_NONE 0u
#define UCB_RLIM_SIGPENDING UCB_RLIM_BIT (UCB_RL_SIGPENDING)
#define UCB_RLIM_MSGQUEUE UCB_RLIM_BIT (UCB_RL_MSGQUEUE)
#define UCB_RLIM_MEMLOCK UCB_RLIM_BIT (UCB_RL_MEMLOCK)
#define UCB_RLIM_NPROC UCB_RLIM_BIT (UCB_RL_NPROC)

/* "SIGPENDING", "MSGQUEUE", "MEMLOCK", "NPROC"; "none" for UCB_RL_NONE (or out of range). */
const char *ucb_rl_name (enum ucb_rl rl);
/* RLIMIT_SIGPENDING ...; -1 for UCB_RL_NONE. */
int ucb_rl_resource (enum ucb_rl rl);
/* The rlimit named `name` (any case; "none" is UCB_RL_NONE): false if none is. */
bool ucb_rl_parse (const char *name, enum ucb_rl *out);
/* The first rlimit of the set `bits` (UCB_RLIM_*), UCB_RL_NONE for the empty set. */
enum ucb_rl ucb_rl_first (unsigned bits);

#endif
