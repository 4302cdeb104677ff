/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlagent.c - the generic rlimit agent of the matrix cells and the scripts (rlagent.h). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "verify/rlagent-agent.h"
#include "verify/rlagent.h"
#include "verify/probe-work.h"

/* SIGPENDING at depth 2: a child left sleeping in N1 as its uid 0 before N2 is made shows the
 * level-1 counter, (N1, 0), in its SigQ (kernel-ucounts.md §3).  Not for NPROC: a task. */
static pid_t n1_watcher = -1;

/* The place: each namespace created with its soft limit, the innermost with an IPC namespace
 * of its own where the charges live in one (at depth 0 the case's root made it); in a room
 * (P9) made inside it, waiting for room that freed namespaces leave (asynchronously). */
static int
take_place (const struct agent_arg *a, ucb_error_t *err)
{
  int res = ucb_rl_resource (a->ops->rl);
  uint64_t wait = a->pl.room > 0 ? UCB_VUSERNS_FREED_NS : 0;
  int ipc = a->ops->ipc && a->pl.ipc <= 0 ? CLONE_NEWIPC : 0; /* none where it joined one */

  if (a->pl.room > 0 && ucb_vuserns_join (a->pl.room, err) < 0)
    return ucb_error_wrap (err, "entering the room");
  /* A pair's namespace was made before us, with its map (ucb_rlagent_start). */
  for (int i = a->pl.pair ? 1 : 0; i < a->pl.depth; i++)
    {
      if (i == 1 && res == RLIMIT_SIGPENDING && (n1_watcher = ucb_vfork ()) == 0)
        for (;;)
          pause ();
      if (ucb_vsoft (res, a->pl.snap[i], err) < 0
          || ucb_vuserns_enter (i == a->pl.depth - 1 ? ipc : 0, wait, err) < 0)
        return ucb_error_wrap (err, "creating user namespace %d of %d", i + 1, a->pl.depth);
    }
  if (ucb_vsoft (res, a->pl.own, err) < 0)
    return ucb_error_wrap (err, "the own soft limit");
  return 0;
}

/* The fill, try and release orders: rlimit-ops.c's loops, the cases' own. */
static void
do_fill (const struct ucb_rlops *ops, struct ucb_rlheld *h, struct ucb_probe_out *o)
{
  int refused;

  o->v[TRIES] = ucb_rlops_room (ops, h, (long) o->v[ARG]);
  o->v[COUNT] = ucb_rlops_fill (ops, h, (long) o->v[TRIES], o->v[ARG2] != 0, &refused);
  o->errnum = refused;
}

static void
do_try (const struct ucb_rlops *ops, struct ucb_rlheld *h, struct ucb_probe_out *o)
{
  long refused;

  o->v[COUNT] = ucb_rlops_try (ops, h, (long) o->v[ARG], (int) o->v[ARG2], &refused);
  o->v[REFUSED] = refused;
}

static void
do_release (const struct ucb_rlops *ops, struct ucb_rlheld *h, long k, struct ucb_probe_out *o)
{
  o->v[COUNT] = ucb_rlops_release (ops, h, k);
}

static int
agent_main (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  const struct agent_arg *a = arg;
  const struct ucb_rlops *ops = a->ops;
  cleanup_free struct ucb_rlheld *h = xcalloc (1, sizeof *h);

  if (take_place (a, err) < 0)
    return -1;
  for (;;)
    {
      o->v[SIGQ] = ucb_vsigq (getpid ());
      o->v[HELD] = h->n;
      o->v[SIGQ_N1] = n1_watcher > 0 ? ucb_vsigq (n1_watcher) : -1;
      /* The first report says it is ready; every next one answers an order. */
      if (ucb_probe_report (o, err) < 0 || ucb_probe_await (o, err) < 0)
        return -1;
      o->errnum = 0;
      switch ((int) o->v[OP])
        {
        case 'f':
          do_fill (ops, h, o);
          break;
        case 't':
          do_try (ops, h, o);
          break;
        case 'r':
          do_release (ops, h, (long) o->v[ARG], o);
          break;
        case 's':
          if (ucb_vsoft (ucb_rl_resource (ops->rl), (rlim_t) o->v[ARG], err) < 0)
            return -1;
          break;
        case 'e':
          ops->for_exit (h);
          break;
        case 'x':
          o->v[COUNT]
              = ((ucb_rlagent_fn) (uintptr_t) o->v[ARG2]) (ops, h, (long) o->v[ARG], &o->errnum);
          break;
        case 'c':
          if (ucb_rlagent_do_race (a, h, (struct ucb_rlrace *) (uintptr_t) o->v[ARG], o, err) < 0)
            return -1;
          break;
        case 'b':
          if (ucb_rlagent_do_rounds (a, h, (struct ucb_rlrace *) (uintptr_t) o->v[ARG], o, err) < 0)
            return -1;
          break;
        default: /* 'q' */
          do_release (ops, h, -1, o);
          return 0;
        }
    }
}

int
ucb_rlagent_start (struct ucb_rlagent *a, const struct ucb_rlops *ops, const char *what, uid_t uid,
                   const struct ucb_rlplace *pl, ucb_error_t *err)
{
  struct agent_arg arg = { .ops = ops, .pl = *pl };
  struct ucb_probe_spec spec = {
    .what = what,
    .uid = pl->ruid ? 0 : uid,
    .ruid = pl->ruid ? uid : 0,
    .block_rt = true,
    /* At depth 0 the charges live in an IPC namespace that root makes (of init_user_ns). */
    .unshare = pl->depth == 0 && ops->ipc && pl->ipc <= 0 ? CLONE_NEWIPC : 0,
    .ipc = pl->ipc,
  };

  a->ops = ops;
  if (pl->pair)
    {
      /* Its namespace and two-uid map first: the probe harness's range map, written by us. */
      if (pl->depth != 1 || pl->room > 0 || pl->ruid || pl->ipc > 0)
        return ucb_make_error (err, 0, "internal: a uid pair: at depth 1 only, no room, ruid, ipc");
      spec.userns = CLONE_NEWUSER | (ops->ipc ? CLONE_NEWIPC : 0);
      spec.map_first = uid;
      spec.map_width = 2;
      spec.resource = ucb_rl_resource (ops->rl);
      spec.soft = pl->snap[0] ? pl->snap[0] : UCB_PROBE_SOFT_0;
    }
  return ucb_probe_start_report (&a->p, &spec, agent_main, &arg, NULL, err);
}

/* An order, sent; its answer is collected apart (the race sends to every agent first). */
static int
order_send (struct ucb_rlagent *a, int op, int64_t arg, long arg2, ucb_error_t *err)
{
  struct ucb_probe_out o;

  if (*err)
    return -1;
  memset (&o, 0, sizeof o);
  o.v[OP] = op;
  o.v[ARG] = arg;
  o.v[ARG2] = arg2;
  return ucb_probe_order (&a->p, &o, err);
}

static int
order_collect (struct ucb_rlagent *a, struct ucb_rlans *ans, ucb_error_t *err)
{
  struct ucb_probe_out o;

  memset (ans, 0, sizeof *ans);
  if (*err || ucb_probe_next (&a->p, &o, err) < 0)
    return -1;
  ans->count = (long) o.v[COUNT];
  ans->errnum = o.errnum;
  ans->refused = (long) o.v[REFUSED];
  ans->sigq = (long) o.v[SIGQ];
  ans->held = (long) o.v[HELD];
  ans->sigq_n1 = (long) o.v[SIGQ_N1];
  ans->tries = (long) o.v[TRIES];
  return 0;
}

static int
order (struct ucb_rlagent *a, int op, long arg, long arg2, struct ucb_rlans *ans, ucb_error_t *err)
{
  memset (ans, 0, sizeof *ans);
  if (order_send (a, op, arg, arg2, err) < 0)
    return -1;
  return order_collect (a, ans, err);
}

int
ucb_rlagent_race_send (struct ucb_rlagent *a, struct ucb_rlrace *race, ucb_error_t *err)
{
  return order_send (a, 'c', (int64_t) (uintptr_t) race, 0, err);
}

int
ucb_rlagent_rounds_send (struct ucb_rlagent *a, struct ucb_rlrace *race, ucb_error_t *err)
{
  return order_send (a, 'b', (int64_t) (uintptr_t) race, 0, err);
}

int
ucb_rlagent_race_collect (struct ucb_rlagent *a, struct ucb_rlans *ans, ucb_error_t *err)
{
  return order_collect (a, ans, err);
}

/* Fills of this case process that stopped at the cap, not at a refusal. */
static long capped;

long
ucb_rlagent_capped (void)
{
  return capped;
}

int
ucb_rlagent_fill (struct ucb_rlagent *a, long max, bool big, struct ucb_rlans *ans,
                  ucb_error_t *err)
{
  return order (a, 'f', max, big, ans, err);
}

int
ucb_rlagent_fill_all (struct ucb_rlagent *a, struct ucb_rlans *ans, ucb_error_t *err)
{
  int r = order (a, 'f', a->ops->cap + 1, false, ans, err);

  if (r == 0 && ans->errnum == 0)
    capped++;
  return r;
}

int
ucb_rlagent_try (struct ucb_rlagent *a, long k, int errnum, struct ucb_rlans *ans, ucb_error_t *err)
{
  return order (a, 't', k, errnum, ans, err);
}

int
ucb_rlagent_call (struct ucb_rlagent *a, ucb_rlagent_fn fn, long arg, struct ucb_rlans *ans,
                  ucb_error_t *err)
{
  return order (a, 'x', arg, (long) (uintptr_t) fn, ans, err);
}

int
ucb_rlagent_release (struct ucb_rlagent *a, long k, struct ucb_rlans *ans, ucb_error_t *err)
{
  return order (a, 'r', k, 0, ans, err);
}

int
ucb_rlagent_soft (struct ucb_rlagent *a, rlim_t soft, struct ucb_rlans *ans, ucb_error_t *err)
{
  return order (a, 's', (long) soft, 0, ans, err);
}

/* Reap `n` children of ours that are not probes we know (the orphans of a killed agent), until
 * `ns` pass with none reaped: hundreds of them (a kernel that over-admits, up to the cap) on a
 * busy host take longer than any fixed time, while one that never goes still ends the wait. */
static long
reap_orphans (long n, uint64_t ns)
{
  uint64_t deadline = ucb_now_ns () + ns;
  long got = 0;

  while (got < n && ucb_now_ns () < deadline)
    {
      pid_t r = waitpid (-1, NULL, WNOHANG);
      struct timespec ts = { 0, 500000 };

      if (r > 0)
        {
          got++;
          deadline = ucb_now_ns () + ns;
        }
      else if (r < 0 && errno != EINTR)
        break;
      else
        nanosleep (&ts, NULL);
    }
  return got;
}

int
ucb_rlagent_exit_holding (struct ucb_rlagent *a, ucb_error_t *err)
{
  struct ucb_rlans ans;
  long children;

  if (order (a, 'e', 0, 0, &ans, err) < 0)
    return -1;
  children = a->ops->self ? ans.held : 0;
  ucb_probe_kill (&a->p);
  if (reap_orphans (children, 2000000000ull) < children)
    return ucb_make_error (
        err, 0, "the %ld children of %s were not all reaped (2 s passed with none reaped)",
        children, a->p.name);
  return 0;
}

int
ucb_rlagent_stop (struct ucb_rlagent *a, ucb_error_t *err)
{
  if (a->p.fd < 0)
    return 0; /* never started, or already gone */
  /* With `err` already set order_send sends nothing: just kill it. */
  if (order_send (a, 'q', 0, 0, err) < 0)
    {
      ucb_probe_kill (&a->p);
      return -1;
    }
  return ucb_probe_finish (&a->p, NULL, err);
}
