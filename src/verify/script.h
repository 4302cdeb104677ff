/* SPDX-License-Identifier: GPL-2.0-or-later */
/* script.h - a verify case as a table of steps: agents (rlimit agents, rlagent.h, that charge
 * and release on order) and observers carry them out, and each step's values become its
 * observations.  Kept apart from rlagent.h and probe-work.h: it records observations
 * (verify.h), which their callers must not. */
#ifndef UCB_SCRIPT_H
#define UCB_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/util.h"
#include "verify/verify.h"

/* Who carries out the steps.  An agent (resource RLIMIT_SIGPENDING or RLIMIT_NPROC) is an
 * rlimit agent of that rlimit (rlagent.h; it blocks SIGRTMIN) that becomes `uid` with soft
 * `soft` and, with `container`, creates a user namespace (its snapshot: `soft`) and raises its
 * soft limit inside to the hard one; it then acts on order.  An observer (resource 0) sleeps as
 * `uid` in our namespace: its SigQ shows (init namespace, uid)'s counter.  `what` names it in
 * errors. */
struct ucb_vactor
{
  const char *what;
  uid_t uid; /* the case's uid_base + uid */
  int resource;
  rlim_t soft;
  bool container;
  bool ruid; /* an agent that becomes only the real uid (probe.h `.ruid`: euid 0 kept) */
};

enum ucb_vop
{
  UCB_VOP_START, /* start the actor here (else every actor starts before the first step) */
  UCB_VOP_FILL,  /* charge up to `max` units and hold them (SIGPENDING: queue SIGRTMIN to
                  * itself; NPROC: fork a sleeper): the count and the refusal's errno */
  UCB_VOP_DRAIN, /* release every unit it holds (SIGPENDING: take its queued SIGRTMIN): how many */
  UCB_VOP_HOLD,  /* a FILL (NPROC's name for it: the children stay) */
  UCB_VOP_COUNT, /* a FILL, then release what it took: the count, the errno */
  UCB_VOP_SIGQ,  /* read the actor's SigQ (from the case process) */
  UCB_VOP_CAP,   /* whether capability `max` is in the actor's effective set: 1 or 0 */
  UCB_VOP_STOP,  /* release everything, end the actor */
};

/* One step, and what it observes: the value (a count, SigQ) as `name` of `kind`, and the
 * refusal's errno as `errno_name`.  NULL names observe nothing. */
struct ucb_vstep
{
  int who; /* index into the actors */
  enum ucb_vop op;
  long max;
  const char *name;
  enum ucb_vkind kind;
  long long expected;
  const char *errno_name;
  long long errno_expected;
};

/* Start the actors, carry out the steps in order, recording their observations as they
 * come, then stop every actor.  0, or -1 with `err` set (the first error). */
int ucb_vscript (struct ucb_vctx *ctx, const struct ucb_vactor *actors, size_t nactors,
                 const struct ucb_vstep *steps, size_t nsteps, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* The run function of a case that is one script. */
#define UCB_VSCRIPT_RUN(fn, actors, steps)                                                         \
  static int fn (struct ucb_vctx *ctx, ucb_error_t *err)                                           \
  {                                                                                                \
    return ucb_vscript (ctx, actors, UCB_ARRAY_SIZE (actors), steps, UCB_ARRAY_SIZE (steps), err); \
  }

#endif
