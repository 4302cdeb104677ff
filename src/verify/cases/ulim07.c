/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim07.c - ULIM-07: no charge leaks after repeated refusals.
 *
 * A container of U created with soft SIGPENDING 5, raised inside, does 300 rounds of {queue
 * SIGRTMIN until refused, drain}: every round exactly 5 then EAGAIN, and afterwards its SigQ and
 * an observer's (U in the initial namespace) read 0.  The refusal comes from the level-1 check
 * in inc_rlimit_get_ucounts, whose unwind must undo the failing level too (432dc0654c61, v6.12-rc7;
 * without it, 5.15 .. 6.12-rc6 unless backported, each refusal leaked one unit of the parent
 * counter and the headroom shrank round by round).  Repeated with own soft 5 inside (the same
 * level-1 refusal) and, to cover the other unwind, with a container created with soft 10 and own
 * soft 5 inside: there the level-0 check in sig_get_ucounts refuses and dec_rlimit_put_ucounts
 * undoes every level.  The expectation is the fixed behaviour on every kernel: a kernel older
 * than 6.12 may or may not carry the backport, which uname cannot tell, so an unfixed one fails. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/probe-work.h"

#define ROUNDS 300

static const struct
{
  const char *label;
  rlim_t created, inside; /* soft at unshare, own soft inside (RLIM_INFINITY: raised) */
} phases[] = {
  { "raised inside", 5, RLIM_INFINITY },
  { "own soft 5 inside", 5, 5 },
  { "created 10, own 5", 10, 5 },
};

enum
{
  MIN,
  MAX,
  EAGAIN_ROUNDS,
  SIGQ,
  SIGQ_OBSERVER,
};

/* Beside an observer *arg of the container's owner. */
static int
rounds (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t obs = *(const pid_t *) arg;
  struct ucb_vrange range;

  if (ucb_vrounds (ROUNDS, ucb_vfill_drain_rt, UCB_VTRIES (5), &range, err) < 0)
    return -1;
  o->v[MIN] = range.lo;
  o->v[MAX] = range.hi;
  o->v[EAGAIN_ROUNDS] = range.eagain;
  o->v[SIGQ] = ucb_vsigq (getpid ());
  o->v[SIGQ_OBSERVER] = ucb_vsigq (obs);
  return 0;
}

static void
observe_phase (struct ucb_vresult *r, size_t p, const struct ucb_probe_out *o)
{
  static const struct
  {
    const char *what;
    enum ucb_vkind kind;
    int value;
  } items[] = {
    { "fewest queued in a round", UCB_VITEM_ADMITTED, MIN },
    { "most queued in a round", UCB_VITEM_ADMITTED, MAX },
    { "rounds ended by EAGAIN", UCB_VITEM_EXACT, EAGAIN_ROUNDS },
    { "SigQ inside at the end", UCB_VITEM_COUNTER, SIGQ },
    { "observer SigQ at the end", UCB_VITEM_COUNTER, SIGQ_OBSERVER },
  };
  static const long expected[] = { 5, 5, ROUNDS, 0, 0 };
  char name[UCB_VNAME_MAX];

  for (size_t i = 0; i < UCB_ARRAY_SIZE (items); i++)
    {
      snprintf (name, sizeof name, "%s: %s", phases[p].label, items[i].what);
      /* The rounds' counts are each of at most UCB_VTRIES (5) signals. */
      ucb_vobserve_count (r, name, items[i].kind, expected[i], o->v[items[i].value],
                          items[i].kind == UCB_VITEM_ADMITTED ? UCB_VTRIES (5) : 0);
    }
}

static int
ulim07_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  for (size_t p = 0; p < sizeof phases / sizeof phases[0]; p++)
    {
      pid_t obs;
      struct ucb_probe_spec spec = { .uid = ctx->uid_base + (uid_t) p,
                                     .resource = RLIMIT_SIGPENDING,
                                     .soft = phases[p].created,
                                     .userns = CLONE_NEWUSER,
                                     .soft_inside = phases[p].inside };
      struct ucb_probe_out o;

      if (ucb_probe_run_observed (spec.uid, &obs, &spec, rounds, &obs, &o, err) < 0)
        return ucb_error_wrap (err, "%s", phases[p].label);
      observe_phase (ctx->res, p, &o);
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim07 = {
  .id = "ULIM-07",
  .name = "sigpending-no-leak",
  .title = "SIGPENDING: 300 refused fills leave every level's counter intact",
  .rlimit = UCB_RL_SIGPENDING,
  .depends
  = "432dc0654c61 (6.12-rc7, backported to stable): without it headroom shrinks every round",
  .checks = "inc_rlimit_get_ucounts unwind of the failing level (432dc0654c61); "
            "sig_get_ucounts level-0 refusal -> dec_rlimit_put_ucounts over all levels",
  .run = ulim07_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P2 },
             { UCB_VLEVEL_PARENT, UCB_VPROP_P3 },
             { UCB_VLEVEL_OWN, UCB_VPROP_P2 } },
};
