/* SPDX-License-Identifier: GPL-2.0-or-later */
/* script.c - a verify case as a table of steps (script.h). */
#include "config.h"

#include <sched.h>
#include <string.h>

#include "verify/probe.h"
#include "verify/probe-work.h"
#include "verify/script.h"

void
ucb_vobserve_fill (struct ucb_vresult *r, const char *name, enum ucb_vkind kind, long long expected,
                   long long count, long long tries, const char *errno_name,
                   long long errno_expected, long long errnum)
{
  if (name)
    ucb_vobserve_count (r, name, kind, expected, count, tries);
  if (errno_name)
    ucb_vobserve (r, errno_name, UCB_VITEM_ERRNO, errno_expected, errnum);
}

enum
{
  OP,    /* order: an enum ucb_vop */
  COUNT, /* order: at most; answer: how many */
};

/* Carry out one order: fill, drain, hold or count. */
static int
agent_do (struct ucb_probe_out *o, struct ucb_vkids *held, ucb_error_t *err)
{
  long max = (long) o->v[COUNT], n = 0;

  o->errnum = 0;
  switch ((enum ucb_vop) o->v[OP])
    {
    case UCB_VOP_FILL:
      n = ucb_vfill_rt (max, &o->errnum);
      break;
    case UCB_VOP_DRAIN:
      n = ucb_vdrain_rt ();
      break;
    case UCB_VOP_HOLD:
      n = ucb_vkids_fork (held, max, &o->errnum, err);
      break;
    case UCB_VOP_COUNT:
      n = ucb_vfork_count (max, &o->errnum, err);
      break;
    case UCB_VOP_START:
    case UCB_VOP_SIGQ:
    case UCB_VOP_CAP:
    case UCB_VOP_STOP:
    default:
      return ucb_make_error (err, 0, "internal: order %d to an agent", (int) o->v[OP]);
    }
  o->v[COUNT] = n;
  return n < 0 ? -1 : 0;
}

static int
agent_main (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct ucb_vkids held = UCB_VKIDS_NONE;
  int r = 0;

  (void) arg;
  for (;;)
    {
      /* The first report says it is ready; every next one answers an order. */
      if (ucb_probe_report (o, err) < 0 || ucb_probe_await (o, err) < 0)
        {
          r = -1;
          break;
        }
      if (o->v[OP] == UCB_VOP_STOP)
        break;
      if (agent_do (o, &held, err) < 0)
        {
          r = -1;
          break;
        }
    }
  ucb_vdrain_rt ();
  ucb_vkids_free (&held);
  return r;
}

static int
actor_start (struct ucb_probe *p, const struct ucb_vactor *a, uid_t base, ucb_error_t *err)
{
  struct ucb_probe_spec spec = {
    .what = a->what,
    .uid = a->ruid ? 0 : base + a->uid,
    .ruid = a->ruid ? base + a->uid : 0,
    .block_rt = true,
    .resource = a->resource,
    .soft = a->soft,
    .userns = a->container ? CLONE_NEWUSER : 0,
    .soft_inside = a->container ? RLIM_INFINITY : 0,
  };

  if (a->resource == 0)
    return ucb_vobserver (p, base + a->uid, err);
  return ucb_probe_start_report (p, &spec, agent_main, NULL, NULL, err);
}

/* Order the agent: the count in *n, the refusal's errno in *errnum. */
static int
actor_order (struct ucb_probe *p, enum ucb_vop op, long max, long *n, int *errnum, ucb_error_t *err)
{
  struct ucb_probe_out o;

  memset (&o, 0, sizeof o);
  o.v[OP] = op;
  o.v[COUNT] = max;
  if (ucb_probe_order (p, &o, err) < 0 || ucb_probe_next (p, &o, err) < 0)
    return -1;
  *n = (long) o.v[COUNT];
  *errnum = o.errnum;
  return 0;
}

/* Drain, end, reap an agent (kill an observer); with `err` already set just kill it. */
static int
actor_stop (struct ucb_probe *p, const struct ucb_vactor *a, ucb_error_t *err)
{
  struct ucb_probe_out o;

  if (p->fd < 0)
    return 0; /* never started, or stopped */
  if (*err || a->resource == 0)
    {
      ucb_probe_kill (p);
      return *err ? -1 : 0;
    }
  memset (&o, 0, sizeof o);
  o.v[OP] = UCB_VOP_STOP;
  if (ucb_probe_order (p, &o, err) < 0)
    {
      ucb_probe_kill (p);
      return -1;
    }
  return ucb_probe_finish (p, NULL, err);
}

/* One step on started actors; its observations. */
static int
script_step (struct ucb_vctx *ctx, struct ucb_probe *p, const struct ucb_vactor *actors,
             const struct ucb_vstep *s, ucb_error_t *err)
{
  long n = 0, tries;
  int errnum = 0;

  switch (s->op)
    {
    case UCB_VOP_START:
      return actor_start (&p[s->who], &actors[s->who], ctx->uid_base, err);
    case UCB_VOP_STOP:
      return actor_stop (&p[s->who], &actors[s->who], err);
    case UCB_VOP_SIGQ:
      n = ucb_vsigq (p[s->who].pid);
      break;
    case UCB_VOP_CAP:
      n = ucb_vcap_effective (p[s->who].pid, (int) s->max);
      break;
    case UCB_VOP_FILL:
    case UCB_VOP_DRAIN:
    case UCB_VOP_HOLD:
    case UCB_VOP_COUNT:
    default:
      if (actor_order (&p[s->who], s->op, s->max, &n, &errnum, err) < 0)
        return -1;
      break;
    }
  /* A fill, count or hold is a count of at most `max` tries: all of them admitted is "> cap". */
  tries = s->op == UCB_VOP_FILL || s->op == UCB_VOP_COUNT || s->op == UCB_VOP_HOLD ? s->max : 0;
  ucb_vobserve_fill (ctx->res, s->name, s->kind, s->expected, n, tries, s->errno_name,
                     s->errno_expected, errnum);
  return 0;
}

#define UCB_VACTORS_MAX 8

int
ucb_vscript (struct ucb_vctx *ctx, const struct ucb_vactor *actors, size_t nactors,
             const struct ucb_vstep *steps, size_t nsteps, ucb_error_t *err)
{
  struct ucb_probe p[UCB_VACTORS_MAX];
  bool later[UCB_VACTORS_MAX] = { false };

  if (nactors > UCB_VACTORS_MAX)
    return ucb_make_error (err, 0, "internal: a script of %zu actors", nactors);
  for (size_t s = 0; s < nsteps; s++)
    if (steps[s].who < 0 || (size_t) steps[s].who >= nactors)
      return ucb_make_error (err, 0, "internal: step %zu names actor %d of %zu", s + 1,
                             steps[s].who, nactors);
  for (size_t i = 0; i < nactors; i++)
    p[i] = (struct ucb_probe) UCB_PROBE_NONE;
  for (size_t s = 0; s < nsteps; s++)
    if (steps[s].op == UCB_VOP_START)
      later[steps[s].who] = true;
  for (size_t i = 0; i < nactors && !*err; i++)
    if (!later[i])
      (void) actor_start (&p[i], &actors[i], ctx->uid_base, err);
  for (size_t s = 0; s < nsteps && !*err; s++)
    (void) script_step (ctx, p, actors, &steps[s], err);
  for (size_t i = 0; i < nactors; i++)
    (void) actor_stop (&p[i], &actors[i], err);
  return *err ? -1 : 0;
}
