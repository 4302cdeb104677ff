/* SPDX-License-Identifier: GPL-2.0-or-later */
/* script.c - a verify case as a table of steps (script.h): its agents are rlimit agents
 * (rlagent.h), its observers ucb_vobserver. */
#include "config.h"

#include "verify/probe-work.h"
#include "verify/rlagent.h"
#include "verify/script.h"

/* An agent at depth 0 with its own soft limit, or in a container created with it (the
 * creator's snapshot) and raised inside to the hard limit. */
static int
actor_start (struct ucb_rlagent *ag, const struct ucb_vactor *a, uid_t base, ucb_error_t *err)
{
  struct ucb_rlplace pl = { .depth = 0, .own = a->soft, .ruid = a->ruid };
  enum ucb_rl rl = a->resource == RLIMIT_NPROC ? UCB_RL_NPROC : UCB_RL_SIGPENDING;

  if (a->resource == 0)
    return ucb_vobserver (&ag->p, base + a->uid, err);
  if (a->resource != RLIMIT_SIGPENDING && a->resource != RLIMIT_NPROC)
    return ucb_make_error (err, 0, "internal: a script agent of rlimit %d", a->resource);
  if (a->container)
    pl = (struct ucb_rlplace){ .depth = 1, .snap = { a->soft }, .own = UCB_RL_HARD };
  return ucb_rlagent_start (ag, &ucb_rlops[rl], a->what, base + a->uid, &pl, err);
}

/* Release, end, reap an agent (kill an observer); with `err` already set just kill it. */
static int
actor_stop (struct ucb_rlagent *ag, const struct ucb_vactor *a, ucb_error_t *err)
{
  if (ag->p.fd >= 0 && a->resource == 0 && !*err)
    {
      ucb_probe_kill (&ag->p);
      return 0;
    }
  return ucb_rlagent_stop (ag, err);
}

/* Order an agent: the count in *n, the refusal's errno in *errnum.  A fill that its held table
 * cut short would read as a count to the cap: the script asked too much of one agent. */
static int
actor_order (struct ucb_rlagent *ag, const struct ucb_vstep *s, long *n, int *errnum,
             ucb_error_t *err)
{
  struct ucb_rlans ans, back;

  if (s->op == UCB_VOP_DRAIN)
    {
      if (ucb_rlagent_release (ag, -1, &ans, err) < 0)
        return -1;
      *n = ans.count;
      return 0;
    }
  if (ucb_rlagent_fill (ag, s->max, false, &ans, err) < 0)
    return -1;
  if (ans.tries < s->max)
    return ucb_make_error (err, 0, "internal: %s holds too many to try %ld more", ag->p.name,
                           s->max);
  if (s->op == UCB_VOP_COUNT && ucb_rlagent_release (ag, ans.count, &back, err) < 0)
    return -1;
  *n = ans.count;
  *errnum = ans.errnum;
  return 0;
}

/* One step on started actors; its observations. */
static int
script_step (struct ucb_vctx *ctx, struct ucb_rlagent *ag, const struct ucb_vactor *actors,
             const struct ucb_vstep *s, ucb_error_t *err)
{
  long n = 0, tries;
  int errnum = 0;

  switch (s->op)
    {
    case UCB_VOP_START:
      return actor_start (&ag[s->who], &actors[s->who], ctx->uid_base, err);
    case UCB_VOP_STOP:
      return actor_stop (&ag[s->who], &actors[s->who], err);
    case UCB_VOP_SIGQ:
      n = ucb_vsigq (ag[s->who].p.pid);
      break;
    case UCB_VOP_CAP:
      n = ucb_vcap_effective (ag[s->who].p.pid, (int) s->max);
      break;
    case UCB_VOP_FILL:
    case UCB_VOP_DRAIN:
    case UCB_VOP_HOLD:
    case UCB_VOP_COUNT:
    default:
      if (actors[s->who].resource == 0)
        return ucb_make_error (err, 0, "internal: order %d to an observer", (int) s->op);
      if (actor_order (&ag[s->who], s, &n, &errnum, err) < 0)
        return -1;
      break;
    }
  /* A fill, count or hold is a count of at most `max` tries: all of them admitted is "> cap". */
  tries = s->op == UCB_VOP_FILL || s->op == UCB_VOP_COUNT || s->op == UCB_VOP_HOLD ? s->max : 0;
  ucb_vobserve_fill (ctx->res, s->name, s->kind, s->expected, n, tries, s->errno_name,
                     s->errno_expected, errnum);
  return 0;
}

/* Signals are queued and drained by SIGPENDING agents, children held and counted by NPROC
 * ones: an agent charges its own rlimit only (rlimit-ops.h). */
static bool
order_fits (const struct ucb_vstep *s, const struct ucb_vactor *a)
{
  if (s->op == UCB_VOP_FILL || s->op == UCB_VOP_DRAIN)
    return a->resource == RLIMIT_SIGPENDING;
  if (s->op == UCB_VOP_HOLD || s->op == UCB_VOP_COUNT)
    return a->resource == RLIMIT_NPROC;
  return true;
}

#define UCB_VACTORS_MAX 8

int
ucb_vscript (struct ucb_vctx *ctx, const struct ucb_vactor *actors, size_t nactors,
             const struct ucb_vstep *steps, size_t nsteps, ucb_error_t *err)
{
  struct ucb_rlagent ag[UCB_VACTORS_MAX];
  bool later[UCB_VACTORS_MAX] = { false };

  if (nactors > UCB_VACTORS_MAX)
    return ucb_make_error (err, 0, "internal: a script of %zu actors", nactors);
  for (size_t s = 0; s < nsteps; s++)
    {
      if (steps[s].who < 0 || (size_t) steps[s].who >= nactors)
        return ucb_make_error (err, 0, "internal: step %zu names actor %d of %zu", s + 1,
                               steps[s].who, nactors);
      if (!order_fits (&steps[s], &actors[steps[s].who]))
        return ucb_make_error (err, 0, "internal: step %zu gives order %d to %s", s + 1,
                               (int) steps[s].op,
                               actors[steps[s].who].what ? actors[steps[s].who].what : "its agent");
    }
  for (size_t i = 0; i < nactors; i++)
    ag[i] = (struct ucb_rlagent) UCB_RLAGENT_NONE;
  for (size_t s = 0; s < nsteps; s++)
    if (steps[s].op == UCB_VOP_START)
      later[steps[s].who] = true;
  for (size_t i = 0; i < nactors && !*err; i++)
    if (!later[i])
      (void) actor_start (&ag[i], &actors[i], ctx->uid_base, err);
  for (size_t s = 0; s < nsteps && !*err; s++)
    (void) script_step (ctx, ag, actors, &steps[s], err);
  for (size_t i = 0; i < nactors; i++)
    (void) actor_stop (&ag[i], &actors[i], err);
  return *err ? -1 : 0;
}
