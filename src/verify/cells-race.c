/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells-race.c - the generic matrix cell P8 exact under concurrency (cells.h): k agents of one
 * uid, placed as P1 places one, charge and release at once against the one counter of the
 * level checked, as the containers of one owner share (init_user_ns, U); for NPROC, whose
 * fork is slow, churners of U flip their real uid in namespaces of their own as well, each
 * flip two updates of (init_user_ns, U).  A lost update shows in the count admitted after the
 * race; an admission past the bound in the units held at once while racing.  Then, the level
 * held one short of its bound, one charger per CPU charges at once, round after round: exactly
 * one must be admitted each time (two: a kernel that checks the count before it adds)
 * (docs/verify.md "P8"). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/cells.h"

enum
{
  RACE_AGENTS_MIN = 4,    /* agents: 2 per online CPU, at least this many, */
  RACE_AGENTS_MAX = 64,   /* at most this many (a bound's fill stays below every rlimit's cap) */
  RACE_HOLD = 2,          /* units each agent holds at most: k agents want twice the room */
  RACE_MS = 500,          /* the race's window; longer only until enough happened, */
  RACE_MAX_MS = 5000,     /* never longer than this */
  RACE_MIN_EACH = 8,      /* per agent: admitted and refused charges a race needs to be judged */
  RACE_CHURNERS_MAX = 16, /* churners (rlops churn): one per online CPU, at most this many */
  RACE_MIN_CHURNS = 1000, /* per churner: updates a race needs to be judged */
  RACE_ALONE_MS = 500,    /* churners race on alone after the chargers' race */
  /* The rounds at the bound: at least ROUNDS_MS, on until in ROUNDS_MET rounds two charges
   * were in the kernel at once (they met, neither charger preempted meanwhile), never past
   * ROUNDS_MAX_MS; fewer than ROUNDS_MIN_MET met is a skip.  Here (2 CPUs) 300 ms run
   * 1 200-37 000 rounds, over 90 % of them met.
   * Under QEMU TCG -smp 2 with both vCPUs running, 2 000 SIGPENDING rounds ran in 300 ms, but
   * an NPROC round (two forks) takes some 20 ms: ROUNDS_MET keeps those going for ~3 s. */
  ROUNDS_MS = 300,
  ROUNDS_MET = 128,
  ROUNDS_MAX_MS = 3000,
  ROUNDS_MIN_MET = 32,
};

/* The cell's numbers: k agents, each below a bound of n units at the level, which leaves
 * `room` units for all of them together (NPROC: each agent is one task itself, and so is each
 * of the f churners, which sit at depth 1 under the same uid: counted at (init_user_ns, U)). */
struct race_plan
{
  long k, f, n;
  struct ucb_rlplace pl, churner;
  struct ucb_vexpect room;
};

static struct race_plan
race_plan (const struct ucb_rlops *ops, enum ucb_vlevel level)
{
  long cpus = sysconf (_SC_NPROCESSORS_ONLN), k = 2 * (cpus > 0 ? cpus : 1);
  struct race_plan p;

  p.k = k < RACE_AGENTS_MIN ? RACE_AGENTS_MIN : k > RACE_AGENTS_MAX ? RACE_AGENTS_MAX : k;
  p.f = !ops->churn ? 0 : cpus < 1 ? 1 : cpus > RACE_CHURNERS_MAX ? RACE_CHURNERS_MAX : cpus;
  /* Room for k units besides the agents and churners themselves: half of what the agents
   * want at once. */
  p.n = p.k + (p.k + p.f) * ops->self;
  p.pl = ucb_vcell_place (ops, level, p.n);
  p.room = ucb_vexpect_add (ucb_vcell_bound (ops, level, p.n), -(p.k + p.f) * ops->self);
  /* Whatever the level, a churner's flips meet at its namespace's parent level: the
   * (init_user_ns, U) that the level's bound applies to.  Its own limits never bind (a flip
   * is never refused). */
  p.churner = (struct ucb_rlplace){
    .depth = 1, .snap = { UCB_RL_HARD }, .own = UCB_RL_HARD, .pair = true
  };
  return p;
}

/* The most held at once, as recorded: a value within a kernel's room reads as that room (a
 * race need not fill the room at any one moment, and the books lag the kernel), a value
 * above the looser room as it is: the kernel held more than its bound allows. */
static long
most_seen (long most, struct ucb_vexpect room)
{
  long lo = room.want < room.bug ? room.want : room.bug;
  long hi = room.want < room.bug ? room.bug : room.want;

  return most <= lo ? lo : most <= hi ? hi : most;
}

/* The first agent fills until refused and releases everything: the count the counter allows. */
static void
race_fill (struct ucb_vctx *ctx, struct ucb_rlagent *a, const char *when, struct ucb_vexpect room,
           long *count, ucb_error_t *err)
{
  struct ucb_rlans f, rel;
  char name[UCB_VNAME_MAX];

  ucb_rlagent_fill_all (a, &f, err);
  ucb_rlagent_release (a, -1, &rel, err);
  if (*err)
    return;
  if (count)
    *count = f.count;
  snprintf (name, sizeof name, "admitted %s the race", when);
  /* After the race the fill is a refill: a lost decrement reads as a leak, a lost increment as
   * over-admission. */
  if (count)
    ucb_vcell_check_fill (ctx->res, name, room, &f);
  else
    ucb_vcell_check_refill (ctx->res, name, room, &f);
  snprintf (name, sizeof name, "errno %s the race", when);
  ucb_vobserve (ctx->res, name, UCB_VITEM_ERRNO, a->ops->refusal, f.errnum);
}

/* The race: every agent gets its order before any answer is read.  What the agents answered
 * (their own counts) is compared with what the shared page booked: the totals show the race's
 * size, and that the page the held check rests on saw every charge. */
static void
race_run (struct ucb_vctx *ctx, struct ucb_rlagent *ag, const struct race_plan *p,
          struct ucb_rlrace *race, ucb_error_t *err)
{
  const struct ucb_rlops *ops = ag[0].ops;
  long admitted = 0, refused = 0, churns = 0;
  int other = 0;

  for (long i = 0; i < p->k + p->f; i++)
    ucb_rlagent_race_send (&ag[i], race, err);
  for (long i = 0; i < p->k + p->f; i++)
    {
      struct ucb_rlans a;
      if (ucb_rlagent_race_collect (&ag[i], &a, err) < 0)
        return;
      if (i >= p->k)
        {
          churns += a.count;
          continue;
        }
      admitted += a.count;
      refused += a.refused;
      other = other ? other : a.errnum;
    }
  /* The books never exceed what the kernel counts: more than the room was admitted at once.
   * At most k * RACE_HOLD can be seen: that many reads "> cap". */
  if (race->admitted > 0)
    ucb_vcell_check_count (ctx->res, "most held at once racing, at most the room", p->room,
                           most_seen (race->most, p->room), p->k * RACE_HOLD);
  if (refused > 0)
    ucb_vobserve (ctx->res, "errno of the refusals racing", UCB_VITEM_ERRNO, ops->refusal,
                  other ? other : ops->refusal);
  ucb_vobserve (ctx->res, "admitted racing: the agents', the page's", UCB_VITEM_EXACT, admitted,
                race->admitted);
  ucb_vobserve (ctx->res, "refused racing: the agents', the page's", UCB_VITEM_EXACT, refused,
                race->refused);
  if (p->f > 0)
    ucb_vobserve (ctx->res, "set*uid flips racing: the churners', the page's", UCB_VITEM_EXACT,
                  churns, race->churns);
}

/* A race too small to judge (no refusal, or hardly any charge: a slow machine) is a skip
 * with what it measured, unless what was seen fails already. */
static void
race_judge_size (struct ucb_vctx *ctx, const struct race_plan *p, const struct ucb_rlrace *race)
{
  char why[UCB_VDETAIL_MAX];
  double ms = race->end_ns > race->start_ns ? (double) (race->end_ns - race->start_ns) / 1e6 : 0;

  long min_churns = RACE_MIN_CHURNS * p->f;

  if (race->admitted >= race->min_admitted && race->refused >= race->min_refused
      && race->churns >= min_churns)
    return;
  if (ucb_vjudge (ctx->res, why, sizeof why) == UCB_VERDICT_FAIL)
    return;
  if (p->f > 0)
    ucb_vskip (ctx->res,
               "the race was too small to judge: %ld charges admitted, %ld refused and %ld "
               "set*uid flips in %.0f ms by %ld agents and %ld churners (at least %ld, %ld and "
               "%ld needed)",
               race->admitted, race->refused, race->churns, ms, p->k, p->f, race->min_admitted,
               race->min_refused, min_churns);
  else
    ucb_vskip (ctx->res,
               "the race was too small to judge: %ld charges admitted and %ld refused in %.0f ms "
               "by %ld agents (at least %ld and %ld needed)",
               race->admitted, race->refused, ms, p->k, race->min_admitted, race->min_refused);
}

/* Start the k agents, then the f churners; the first error ends it (they are stopped by the
 * caller). */
static void
race_start (struct ucb_vctx *ctx, const struct ucb_rlops *ops, struct ucb_rlagent *ag,
            const struct race_plan *p, ucb_error_t *err)
{
  for (long i = 0; i < p->k + p->f && !*err; i++)
    {
      char what[48]; /* "racing agent " and any long */
      bool churner = i >= p->k;
      snprintf (what, sizeof what, "%s %ld", churner ? "churner" : "racing agent",
                churner ? i - p->k + 1 : i + 1);
      if (ucb_rlagent_start (&ag[i], ops, what, ctx->uid_base, churner ? &p->churner : &p->pl, err)
          < 0)
        return;
    }
}

/* The rounds' chargers: one per allowed CPU, at least 2, fewer than the k agents (agent 1
 * holds the level one short of its bound). */
static long
rounds_chargers (long k)
{
  cpu_set_t allowed;
  long c = 2;

  if (sched_getaffinity (0, sizeof allowed, &allowed) == 0 && CPU_COUNT (&allowed) > c)
    c = CPU_COUNT (&allowed);
  return c < k - 1 ? c : k - 1;
}

/* What the rounds saw besides their page. */
struct rounds_seen
{
  long c;                /* chargers */
  struct ucb_rlans hold; /* agent 1's fill to one short of the bound */
  long refused;          /* the chargers' refusals, summed */
  int other;             /* a refusal's errno other than the rlimit's */
};

/* The rounds at the bound: agent 1 holds c0 - 1 units (c0: what it was admitted before the
 * race, the room), so the level's counter is one short of its bound, while agents 2 .. c + 1
 * charge once each at the same instant, round after round (rlagent.h ucb_rlrounds); then it
 * releases them. */
static void
rounds_run (struct ucb_rlagent *ag, const struct race_plan *p, struct ucb_rlrace *race, long c0,
            struct rounds_seen *s, ucb_error_t *err)
{
  struct ucb_rlans rel;

  memset (s, 0, sizeof *s);
  s->c = rounds_chargers (p->k);
  ucb_rlagent_fill (&ag[0], c0 > 0 ? c0 - 1 : 0, false, &s->hold, err);
  race->rounds = (struct ucb_rlrounds){
    .chargers = s->c,
    .ms = ROUNDS_MS,
    .min_met = ROUNDS_MET,
    .max_ms = ROUNDS_MAX_MS,
    /* fork adds to the counters (copy_creds) before it checks them (is_rlimit_overlimit):
     * two forks at once may both be refused, and one alone after them must be admitted. */
    .retry_alone = ag[0].ops->rl == UCB_RL_NPROC,
  };
  for (long i = 1; i <= s->c; i++)
    ucb_rlagent_rounds_send (&ag[i], race, err);
  for (long i = 1; i <= s->c; i++)
    {
      struct ucb_rlans a;
      if (ucb_rlagent_race_collect (&ag[i], &a, err) < 0)
        return;
      s->refused += a.refused;
      s->other = s->other ? s->other : a.errnum;
    }
  ucb_rlagent_release (&ag[0], -1, &rel, err);
}

/* Recorded after the count after the race, so that a lost update is named there first: one
 * admitted in every round, none where the room is 0.  More in a round is over-admission;
 * fewer rounds with one than rounds run, early denial (none admitted: an update lost). */
static void
rounds_judge (struct ucb_vctx *ctx, const struct ucb_rlops *ops, const struct race_plan *p,
              const struct ucb_rlrounds *w, const struct rounds_seen *s)
{
  struct ucb_vexpect one = ucb_vexpect (p->room.want > 0, p->room.bug > 0);

  ucb_vcell_check_fill (ctx->res, "held for the rounds, one short of the bound",
                        ucb_vexpect_add (p->room, -1), &s->hold);
  /* Each of the c chargers tries once a round: all c admitted is a count at its cap. */
  ucb_vcell_check_count (ctx->res, "most admitted in a round at the bound", one, w->most, s->c);
  ucb_vcell_check (ctx->res, "rounds at the bound with one admitted", UCB_VITEM_ADMITTED,
                   ucb_vexpect (one.want * w->rounds, one.bug * w->rounds), w->one);
  if (s->refused > 0)
    ucb_vobserve (ctx->res, "errno of the refusals at the bound", UCB_VITEM_ERRNO, ops->refusal,
                  s->other ? s->other : ops->refusal);
}

/* Rounds whose charges hardly met (a busy host; under QEMU, vCPUs that took turns) are a skip
 * with what they measured, unless what was seen decides already (or the race skipped). */
static void
rounds_judge_size (struct ucb_vctx *ctx, const struct ucb_rlrounds *w, long c)
{
  char why[UCB_VDETAIL_MAX];
  double ms = w->end_ns > w->start_ns ? (double) (w->end_ns - w->start_ns) / 1e6 : 0;

  if (!w->stalled && w->met >= ROUNDS_MIN_MET)
    return;
  if (ctx->res->skip[0] || ucb_vjudge (ctx->res, why, sizeof why) != UCB_VERDICT_PASS)
    return;
  ucb_vskip (ctx->res,
             "the rounds at the bound were too few to judge: in %ld of %ld rounds (%.0f ms, %ld "
             "chargers) two charges were in the kernel at once, no charger preempted meanwhile "
             "(in %ld more, one was)%s (at least %d needed)",
             w->met, w->rounds, ms, c, w->met_preempted,
             w->stalled ? ", and a charger stalled" : "", ROUNDS_MIN_MET);
}

static void
race_steps (struct ucb_vctx *ctx, struct ucb_rlagent *ag, const struct race_plan *p,
            struct ucb_rlrace *race, const struct ucb_probe *obs, ucb_error_t *err)
{
  struct rounds_seen s;
  long c0 = 0;

  /* Before: the count one agent gets while the others hold nothing. */
  race_fill (ctx, &ag[0], "before", p->room, &c0, err);
  race->agents = p->k + p->f;
  race->churners = p->f;
  race->alone_ms = RACE_ALONE_MS;
  race->hold = RACE_HOLD;
  race->ms = RACE_MS;
  race->max_ms = RACE_MAX_MS;
  race->min_admitted = c0 > 0 ? RACE_MIN_EACH * p->k : 0; /* a room of 0 admits none */
  race->min_refused = RACE_MIN_EACH * p->k;
  race_run (ctx, ag, p, race, err);
  if (*err)
    return;
  if (obs->pid > 0)
    ucb_vobserve (ctx->res, "observer SigQ after the race", UCB_VITEM_COUNTER, 0,
                  ucb_vcell_sigq (obs));
  rounds_run (ag, p, race, c0, &s, err);
  /* After: the same count.  A lost increment leaves the counter one low, so the fill admits
   * one more (over-admission); a lost decrement one high, one fewer (early denial). */
  race_fill (ctx, &ag[0], "after", p->room, NULL, err);
  if (*err)
    return;
  rounds_judge (ctx, ag[0].ops, p, &race->rounds, &s);
  race_judge_size (ctx, p, race);
  rounds_judge_size (ctx, &race->rounds, s.c);
}

int
ucb_vcell_p8 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
              ucb_error_t *err)
{
  struct race_plan p = race_plan (ops, level);
  struct ucb_probe obs = UCB_PROBE_NONE;
  cleanup_free struct ucb_rlagent *ag = xcalloc ((size_t) (p.k + p.f), sizeof *ag);
  /* Made before the agents start: they are forked, so they share it. */
  struct ucb_rlrace *race
      = mmap (NULL, sizeof *race, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

  if (race == MAP_FAILED)
    return ucb_make_error (err, errno, "mmap for the race's page");
  race->magic = UCB_RLRACE_MAGIC;
  for (long i = 0; i < p.k + p.f; i++)
    ag[i] = (struct ucb_rlagent) UCB_RLAGENT_NONE;
  if (ucb_vcell_observer (ops, &obs, ctx->uid_base, err) == 0)
    race_start (ctx, ops, ag, &p, err);
  if (!*err)
    race_steps (ctx, ag, &p, race, &obs, err);
  /* Every agent is stopped and reaped, on error paths too (killed there): what it held lives
   * in its own IPC namespace or is its own task, and goes with it. */
  for (long i = p.k + p.f - 1; i >= 0; i--)
    ucb_rlagent_stop (&ag[i], err);
  ucb_probe_kill (&obs);
  munmap (race, sizeof *race);
  return *err ? -1 : 0;
}
