/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlagent-race.c - the race orders inside an rlimit agent (rlagent.h ucb_rlrace): the free race
 * of P8 with its churners, and the rounds at the bound, each charger one charge at the same
 * instant against a level held one short of its bound. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "verify/probe-work.h"
#include "verify/rlagent-agent.h"

/* ---- the race (rlagent.h ucb_rlrace) ---- */

bool ucb_rlagent_racing;

/* Books one more unit held by the racing agents, and the most they held at once. */
static void
race_add (struct ucb_rlrace *r)
{
  long now = __atomic_add_fetch (&r->held, 1, __ATOMIC_SEQ_CST);
  long most = __atomic_load_n (&r->most, __ATOMIC_SEQ_CST);

  while (now > most
         && !__atomic_compare_exchange_n (&r->most, &most, now, false, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST))
    ;
}

/* Release the last unit held: booked off before the kernel sees the release, so that the
 * books never count more than the kernel does. */
static void
race_release (const struct ucb_rlops *ops, struct ucb_rlheld *h, struct ucb_rlrace *r)
{
  long before = h->n;

  __atomic_sub_fetch (&r->held, 1, __ATOMIC_SEQ_CST);
  ops->release (h);
  /* A release that found fewer than it held (sig_release) drops the rest from the books. */
  if (h->n < before - 1)
    __atomic_sub_fetch (&r->held, before - 1 - h->n, __ATOMIC_SEQ_CST);
}

/* Whether the race is over at `now`: its time is up and enough happened, or its bound. */
static bool
race_over (const struct ucb_rlrace *r, uint64_t now)
{
  uint64_t ms = (now - r->start_ns) / 1000000u;

  if (ms >= (uint64_t) r->max_ms)
    return true;
  return ms >= (uint64_t) r->ms
         && __atomic_load_n (&r->admitted, __ATOMIC_RELAXED) >= r->min_admitted
         && __atomic_load_n (&r->refused, __ATOMIC_RELAXED) >= r->min_refused;
}

/* The agent that arrived `nth` (from 0) races on the nth allowed CPU, round robin: every
 * allowed CPU then charges at once, whatever the scheduler would have chosen (its children,
 * NPROC's, inherit it).  A failure only leaves the placement to the scheduler. */
static void
race_pin (long nth)
{
  /* The CPUs allowed before its first race: a later one (the rounds) pins among them again. */
  static cpu_set_t allowed;
  static int n = -1;
  cpu_set_t one;

  if (n < 0)
    n = sched_getaffinity (0, sizeof allowed, &allowed) < 0 ? 0 : CPU_COUNT (&allowed);
  if (n < 2)
    return;
  nth %= n;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET (cpu, &allowed) && nth-- == 0)
      {
        CPU_ZERO (&one);
        CPU_SET (cpu, &one);
        (void) sched_setaffinity (0, sizeof one, &one);
        return;
      }
}

/* Every agent has its order (all of them race at once), or the race's bound is spent. */
static void
race_barrier (struct ucb_rlrace *r, bool churner)
{
  uint64_t until = ucb_now_ns () + (uint64_t) r->max_ms * 1000000u;
  struct timespec ts = { 0, 100000 };

  /* Chargers and churners each spread over every allowed CPU (two churners on one CPU would
   * never update at once). */
  race_pin (__atomic_fetch_add (churner ? &r->churners_in : &r->chargers_in, 1, __ATOMIC_SEQ_CST));
  __atomic_add_fetch (&r->arrived, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n (&r->arrived, __ATOMIC_SEQ_CST) < r->agents && ucb_now_ns () < until)
    nanosleep (&ts, NULL);
  /* The first one through starts the clock; the others keep it. */
  {
    uint64_t zero = 0;
    __atomic_compare_exchange_n (&r->start_ns, &zero, ucb_now_ns (), false, __ATOMIC_SEQ_CST,
                                 __ATOMIC_SEQ_CST);
  }
}

/* *at = the latest of its value and now. */
static void
latest (uint64_t *at)
{
  uint64_t end = ucb_now_ns (), last = __atomic_load_n (at, __ATOMIC_SEQ_CST);

  while (
      end > last
      && !__atomic_compare_exchange_n (at, &last, end, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    ;
}

/* The race's end is the last agent's. */
static void
race_ended (struct ucb_rlrace *r, bool churner)
{
  if (!churner)
    {
      latest (&r->chargers_end_ns);
      __atomic_add_fetch (&r->chargers_out, 1, __ATOMIC_SEQ_CST);
    }
  latest (&r->end_ns);
}

/* A churner's race is over once every charger's is and `alone_ms` more have passed (or the
 * race's bound, twice over, is spent). */
static bool
churn_over (const struct ucb_rlrace *r, uint64_t now)
{
  uint64_t alone = (uint64_t) r->alone_ms * 1000000u;

  if (now - r->start_ns >= (uint64_t) r->max_ms * 1000000u + alone)
    return true;
  return __atomic_load_n (&r->chargers_out, __ATOMIC_SEQ_CST) >= r->agents - r->churners
         && now >= __atomic_load_n (&r->chargers_end_ns, __ATOMIC_SEQ_CST) + alone;
}

/* A pause of random length, 0-1023 loop turns (x: the agent's xorshift state): tasks on the
 * same kernel path fall into lockstep behind its spinlocks (ucounts_lock, uidhash_lock), a
 * fixed distance apart, and their updates of the shared counter would then never meet. */
static void
random_pause (uint32_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  for (volatile uint32_t i = *x & 1023u; i > 0; i--)
    ;
}

/* A churner's race: the counter updated as fast as it goes, nothing held (rlagent.h): beside
 * the chargers, then alone, where each churner has a CPU and they update at once far more
 * often than while a CPU is shared with chargers. */
static int
race_churn (const struct ucb_rlops *ops, struct ucb_rlrace *r, struct ucb_probe_out *o,
            ucb_error_t *err)
{
  long churns = 0;
  uint32_t x = (uint32_t) getpid () * 2654435761u | 1u;
  int e = 0;

  while (!churn_over (r, ucb_now_ns ()) && (e = ops->churn ()) == 0)
    {
      churns++;
      random_pause (&x);
    }
  ucb_rlagent_racing = false;
  race_ended (r, true);
  /* Booked once, at the end: an atomic add on the shared page per update would bounce its
   * cache line between the CPUs and slow the very updates it counts. */
  __atomic_add_fetch (&r->churns, churns, __ATOMIC_SEQ_CST);
  if (e)
    return ucb_make_error (err, e, "set*uid flip %ld of the race", churns + 1);
  o->v[COUNT] = churns;
  o->v[REFUSED] = 0;
  return 0;
}

int
ucb_rlagent_do_race (const struct agent_arg *a, struct ucb_rlheld *h, struct ucb_rlrace *r,
                     struct ucb_probe_out *o, ucb_error_t *err)
{
  const struct ucb_rlops *ops = a->ops;
  long admitted = 0, refused = 0, hold = r->hold < 1 ? 1 : r->hold > 8 ? 8 : r->hold;
  int e;

  if (r->magic != UCB_RLRACE_MAGIC)
    return ucb_make_error (err, 0, "internal: the race's page is not shared with the agent");
  race_barrier (r, a->pl.pair && ops->churn);
  ucb_rlagent_racing = true;
  if (a->pl.pair && ops->churn)
    return race_churn (ops, r, o, err);
  while (!race_over (r, ucb_now_ns ()))
    {
      if (h->n < hold)
        {
          if ((e = ops->charge (h, false)) == 0)
            {
              admitted++;
              __atomic_add_fetch (&r->admitted, 1, __ATOMIC_RELAXED);
              race_add (r);
              continue;
            }
          refused++;
          __atomic_add_fetch (&r->refused, 1, __ATOMIC_RELAXED);
          if (e != ops->refusal && o->errnum == 0)
            o->errnum = e;
          if (h->n == 0)
            continue;
        }
      race_release (ops, h, r);
    }
  while (h->n > 0)
    race_release (ops, h, r);
  ucb_rlagent_racing = false;
  race_ended (r, false);
  o->v[COUNT] = admitted;
  o->v[REFUSED] = refused;
  return 0;
}

/* ---- the rounds at the bound (rlagent.h ucb_rlrounds) ---- */

/* The page's rounds while this agent runs them (ucb_rlagent_others_charging). */
static struct ucb_rlrounds *rounds_on;

long
ucb_rlagent_others_charging (long *ended)
{
  struct ucb_rlrounds *w = rounds_on;
  long started;

  *ended = 0;
  if (!w)
    return 0;
  started = __atomic_load_n (&w->started, __ATOMIC_SEQ_CST);
  *ended = __atomic_load_n (&w->ended, __ATOMIC_SEQ_CST);
  return started - *ended - 1;
}

/* Spin until *at is at least `want`: false once the rounds are over (the gen -1) or stalled
 * (a wait past `until` ends them all).  Now and then it yields: on a busy host a peer
 * preempted on its CPU is waited for without keeping another task off this one. */
static bool
rounds_wait (struct ucb_rlrounds *w, const long *at, long want, uint64_t until)
{
  for (unsigned spins = 1;; spins++)
    {
      long v = __atomic_load_n (at, __ATOMIC_SEQ_CST);

      if (v >= want)
        return true;
      if (v < 0)
        return false;
      if (spins % 1024 != 0)
        continue;
      if (__atomic_load_n (&w->stalled, __ATOMIC_SEQ_CST) || ucb_now_ns () > until)
        {
          __atomic_store_n (&w->stalled, true, __ATOMIC_SEQ_CST);
          __atomic_store_n (&w->gen, -1, __ATOMIC_SEQ_CST);
          return false;
        }
      sched_yield ();
    }
}

/* The round's one charge, after the pause; it met another when, as it ends, another charger
 * has begun its charge and not ended it.  A charger preempted between its start and its end
 * (an involuntary context switch of its thread) may have let the other run its whole charge
 * meanwhile on the same CPU: on a busy host, mostly as the syscall returns.  Such a round's
 * meeting is not counted (rounds_close). */
static int
rounds_charge (const struct ucb_rlops *ops, struct ucb_rlheld *h, struct ucb_rlrounds *w,
               uint32_t *x)
{
  struct rusage r0, r1;
  long started;
  bool timed;
  int e;

  random_pause (x);
  timed = getrusage (RUSAGE_THREAD, &r0) == 0;
  __atomic_add_fetch (&w->started, 1, __ATOMIC_SEQ_CST);
  e = ops->charge (h, false);
  started = __atomic_load_n (&w->started, __ATOMIC_SEQ_CST);
  if (started > __atomic_add_fetch (&w->ended, 1, __ATOMIC_SEQ_CST))
    __atomic_store_n (&w->met_now, 1, __ATOMIC_SEQ_CST);
  if (!timed || getrusage (RUSAGE_THREAD, &r1) != 0 || r1.ru_nivcsw != r0.ru_nivcsw)
    __atomic_store_n (&w->preempted_now, 1, __ATOMIC_SEQ_CST);
  return e;
}

/* The last charger to settle closes round r (the others wait for the next gen): books it,
 * retries alone where none was admitted and the rounds ask for it, then opens the next round
 * or ends them. */
static void
rounds_close (const struct ucb_rlops *ops, struct ucb_rlheld *h, struct ucb_rlrounds *w, long r,
              int *other)
{
  long now = __atomic_load_n (&w->admitted_now, __ATOMIC_SEQ_CST), counted = now;
  uint64_t end = ucb_now_ns (), ms = (end - w->start_ns) / 1000000u;
  bool over;
  int e;

  if (now == 0 && w->retry_alone)
    {
      if ((e = ops->charge (h, false)) == 0)
        counted = 1;
      else if (e != ops->refusal && !*other)
        *other = e;
      ucb_rlops_release (ops, h, -1);
    }
  w->most = now > w->most ? now : w->most;
  w->one += counted == 1;
  if (__atomic_load_n (&w->met_now, __ATOMIC_SEQ_CST))
    {
      bool preempted = __atomic_load_n (&w->preempted_now, __ATOMIC_SEQ_CST);
      w->met += !preempted;
      w->met_preempted += preempted;
    }
  w->met_now = 0;
  w->preempted_now = 0;
  w->admitted_now = 0;
  w->rounds = r;
  w->end_ns = end;
  over = (ms >= (uint64_t) w->ms && w->met >= w->min_met) || ms >= (uint64_t) w->max_ms
         || __atomic_load_n (&w->stalled, __ATOMIC_SEQ_CST);
  __atomic_store_n (&w->gen, over ? -1 : r + 1, __ATOMIC_SEQ_CST);
}

int
ucb_rlagent_do_rounds (const struct agent_arg *a, struct ucb_rlheld *h, struct ucb_rlrace *race,
                       struct ucb_probe_out *o, ucb_error_t *err)
{
  struct ucb_rlrounds *w = &race->rounds;
  const struct ucb_rlops *ops = a->ops;
  uint32_t x = (uint32_t) getpid () * 2654435761u | 1u;
  long admitted = 0, refused = 0, c = w->chargers, nth;
  uint64_t until;
  int other = 0;

  if (race->magic != UCB_RLRACE_MAGIC || c < 1)
    return ucb_make_error (err, 0, "internal: the rounds' page is not shared with the agent");
  nth = __atomic_fetch_add (&w->in, 1, __ATOMIC_SEQ_CST);
  race_pin (nth);
  until = ucb_now_ns () + ((uint64_t) w->max_ms + 2000u) * 1000000u;
  if (nth == c - 1)
    {
      w->start_ns = ucb_now_ns ();
      __atomic_store_n (&w->gen, 1, __ATOMIC_SEQ_CST); /* the last to arrive opens round 1 */
    }
  rounds_on = w;
  ucb_rlagent_racing = true;
  for (long r = 1; rounds_wait (w, &w->gen, r, until); r++)
    {
      int e = rounds_charge (ops, h, w, &x);

      if (e == 0)
        {
          admitted++;
          __atomic_add_fetch (&w->admitted_now, 1, __ATOMIC_SEQ_CST);
        }
      else if (refused++, e != ops->refusal && !other)
        other = e;
      /* Every charge of the round has ended: only then is the admitted one released. */
      if (!rounds_wait (w, &w->ended, r * c, until))
        break;
      ucb_rlops_release (ops, h, -1);
      if (__atomic_add_fetch (&w->settled, 1, __ATOMIC_SEQ_CST) == r * c)
        rounds_close (ops, h, w, r, &other);
    }
  ucb_rlops_release (ops, h, -1); /* what a stalled round left */
  rounds_on = NULL;
  ucb_rlagent_racing = false;
  o->errnum = other;
  o->v[COUNT] = admitted;
  o->v[REFUSED] = refused;
  return 0;
}
