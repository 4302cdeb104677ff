/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify-cells.c - the generic matrix cells notice a kernel that breaks their property:
 * the SIGPENDING operations are sabotaged in userspace the ways a kernel mutant would break
 * them (a refusal that also uncharges, a release that forgets, a charge that ignores the
 * bound; under the race of P8 only: one update lost, refusals turned into admissions, a
 * refusal while another charges at the bound admitted (check-before-add), and for NPROC a
 * churner that keeps one task), and the cells of that property must turn `fail`,
 * while the real operations pass.
 * Needs root and user namespaces (`ok 1 # SKIP why` without them).  That every observation
 * of every case can fail is test-verify-cases.c. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "host/userns.h"
#include "verify/cells.h"
#include "verify/rlagent.h"
#include "verify/rlimit-ops.h"
#include "verify/verify.h"
#include "uid-claim.h"

/* This program's uids (uid-claim.h), 100 per case run; each test at its own offset. */
#define CELL_UIDS(off) test_uids (2103000000u, 100000, (off))

/* Root, and user namespaces can be made here (the cases run in them). */
static bool
can_run_cases (void)
{
  return geteuid () == 0 && ucb_userns_probe () == 0;
}

static const struct ucb_rlops *real = &ucb_rlops[UCB_RL_SIGPENDING];

/* Take one queued SIGRTMIN without telling the books: a unit uncharged behind our back. */
static void
take_one (void)
{
  sigset_t set;
  struct timespec zero = { 0, 0 };

  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN);
  sigtimedwait (&set, NULL, &zero);
}

/* A refusal that also uncharges a unit (as a refusal uncharging a level it never charged). */
static int
charge_refusal_uncharges (struct ucb_rlheld *h, bool big)
{
  int e = real->charge (h, big);

  if (e == EAGAIN && h->n > 0)
    {
      take_one ();
      h->n--;
    }
  return e;
}

/* A release that forgets every other unit: it stays charged (pending). */
static void
release_forgets (struct ucb_rlheld *h)
{
  static unsigned calls;

  if (calls++ % 2)
    real->release (h);
  else
    h->n--;
}

/* A charge that takes a unit and then frees one: the bound never binds (a level skipped). */
static int
charge_ignores_bound (struct ucb_rlheld *h, bool big)
{
  int e = real->charge (h, big);

  if (e == 0 && h->n >= 3)
    take_one ();
  return e;
}

/* Units release_loses_racing() may still lose, in all the agents together: a page shared
 * with them (they are forked from us). */
static int *lose_budget;

/* While racing (P8), a release that forgets its unit once in the whole race, mid-race: the one
 * update a kernel loses when two CPUs decrement at once (the counter stays one high).  Before
 * and after the race it releases as it should, so only the race can show it. */
static void
release_loses_racing (struct ucb_rlheld *h)
{
  static unsigned calls;
  int left = 1;

  if (ucb_rlagent_racing && ++calls > 64
      && __atomic_compare_exchange_n (lose_budget, &left, 0, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST))
    h->n--;
  else
    real->release (h);
}

/* While racing (P8), now and then a refusal reported as an admission: to the harness a kernel
 * that admitted one more than the bound at that moment.  Outside the race the bound holds, so
 * only the units held at once can show it. */
static int
charge_passes_bound_racing (struct ucb_rlheld *h, bool big)
{
  static unsigned refusals;
  int e = real->charge (h, big);

  if (e == EAGAIN && ucb_rlagent_racing && ++refusals % 8 == 0)
    {
      h->n++;
      return 0;
    }
  return e;
}

/* In the rounds at the bound (P8), a refusal that overlapped another charger's charge (the
 * other inside as it began or as it ended, or ending meanwhile: inside it whole), turned into
 * an admission: a kernel that reads the level's count, compares it with the bound and only
 * then adds (check-before-add) admits both of two charges made at once at bound - 1.  One
 * charge at a time, and in the free race, the bound holds.  Overlap is what makes a round met
 * (rlagent-race.c): a charger ended while another was inside.  Checked at the end alone, a
 * refusal longer than the admission (the grandparent level's, which undoes two levels) that
 * began first escaped it: CI saw the cell pass on this sabotage three runs in a row. */
static int
charge_checks_before_add (struct ucb_rlheld *h, bool big)
{
  long ended0, ended1;
  long inside0 = ucb_rlagent_others_charging (&ended0);
  int e = real->charge (h, big);
  long inside1 = ucb_rlagent_others_charging (&ended1);

  if (e == EAGAIN && (inside0 > 0 || inside1 > 0 || ended1 > ended0))
    {
      h->n++; /* nothing queued: the release finds nothing to take */
      return 0;
    }
  return e;
}

static const struct ucb_rlops *nproc = &ucb_rlops[UCB_RL_NPROC];

/* While racing (P8), once in all the churners' race, mid-race: a task started and kept until
 * the churner ends, the unit a lost decrement of (init_user_ns, U) leaves charged (the counter
 * one high), so the fill after the race admits one fewer.  Only a churner can do it: the
 * chargers' units are checked through their own books. */
static int
churn_keeps_task_racing (void)
{
  static unsigned calls;
  int left = 1;

  if (ucb_rlagent_racing && ++calls == 256
      && __atomic_compare_exchange_n (lose_budget, &left, 0, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST))
    {
      pid_t pid = ucb_vfork (); /* dies with the churner */
      if (pid < 0)
        return errno;
      if (pid == 0)
        for (;;)
          pause ();
    }
  return nproc->churn ();
}

static struct ucb_rlops sabotaged;
static int prop;
static enum ucb_vlevel level;

static int
run_sabotaged (struct ucb_vctx *ctx, ucb_error_t *err)
{
  ucb_vcell_check_reset ();
  /* As cases/matrix-cells.c runs a cell: which kernel first, where the counts tell them apart. */
  if (ucb_vcell_tells_kernels (&sabotaged, level, (enum ucb_vprop) prop)
      && ucb_vcell_which_kernel (ctx, &sabotaged, err) < 0)
    return -1;
  if (prop == 1)
    return ucb_vcell_p1 (ctx, &sabotaged, level, err);
  if (prop == 2)
    return ucb_vcell_p2 (ctx, &sabotaged, level, err);
  if (prop == 3)
    return ucb_vcell_p3 (ctx, &sabotaged, level, err);
  if (prop == 8)
    return ucb_vcell_p8 (ctx, &sabotaged, level, err);
  return ucb_vcell_p5 (ctx, &sabotaged, level, err);
}

static const struct ucb_vcase fake = {
  .id = "TEST-1",
  .name = "sabotaged",
  .title = "sabotaged SIGPENDING operations",
  .rlimit = UCB_RL_SIGPENDING,
  .checks = "",
  .depends = "",
  .run = run_sabotaged,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};

/* The last run verdict() made: its observations. */
static struct ucb_vrun last;

/* The verdict of property p at level l with the operations `ops`. */
static enum ucb_verdict
verdict (const struct ucb_rlops *ops, int p, enum ucb_vlevel l, uid_t base, char *why)
{
  struct ucb_kernel k;
  struct ucb_vrun *v = &last;
  ucb_error_t err = NULL;

  sabotaged = *ops;
  prop = p;
  level = l;
  if (ucb_kernel_probe (&k, &err) < 0)
    return UCB_VERDICT_ERROR;
  ucb_verify_run (&fake, base, &k, v);
  snprintf (why, UCB_VDETAIL_MAX, "%.*s", UCB_VDETAIL_MAX - 1, v->why);
  return v->verdict;
}

/* What the last run observed as `name`, and that less what it expected; LLONG_MIN when not
 * recorded. */
static long long
last_seen (const char *name)
{
  for (size_t i = 0; i < last.res.n; i++)
    if (strcmp (last.res.items[i].name, name) == 0)
      return last.res.items[i].observed;
  return LLONG_MIN;
}

static long long
last_off (const char *name)
{
  for (size_t i = 0; i < last.res.n; i++)
    if (strcmp (last.res.items[i].name, name) == 0)
      return last.res.items[i].observed - last.res.items[i].expected;
  return LLONG_MIN;
}

static void
test_sabotage_fails (void)
{
  static const enum ucb_vlevel levels[]
      = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };
  struct ucb_rlops refusal = *real, leak = *real, unbound = *real;
  char why[UCB_VDETAIL_MAX];
  uid_t base = CELL_UIDS (0);

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  refusal.charge = charge_refusal_uncharges;
  leak.release = release_forgets;
  unbound.charge = charge_ignores_bound;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++, base += 1000)
    {
      struct
      {
        const struct ucb_rlops *ops;
        int prop;
        enum ucb_verdict want;
        const char *what;
        const char *class; /* the class its verdict names (verify.h enum ucb_vkind) */
      } runs[] = {
        { real, 2, UCB_VERDICT_PASS, "real operations, P2", "" },
        { real, 3, UCB_VERDICT_PASS, "real operations, P3", "" },
        /* One unit too many given back: the count below what is held, more admitted. */
        { &refusal, 2, UCB_VERDICT_FAIL, "a refusal that uncharges, P2", ": over-admission" },
        { &leak, 3, UCB_VERDICT_FAIL, "a release that forgets, P3", ": leak (" },
        { &unbound, 1, UCB_VERDICT_FAIL, "a bound that does not bind, P1", ": over-admission" },
        { &unbound, 5, UCB_VERDICT_FAIL, "a bound that does not bind, P5", ": over-admission" },
      };
      for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        {
          enum ucb_verdict got
              = verdict (runs[i].ops, runs[i].prop, levels[l], base + (uid_t) i * 100, why);
          if (got != runs[i].want || !strstr (why, runs[i].class))
            printf ("# %s at the %s level: %s (%s), expected %s naming `%s`\n", runs[i].what,
                    ucb_vlevel_name (levels[l]), ucb_verdict_name (got), why,
                    ucb_verdict_name (runs[i].want), runs[i].class);
          tap_check_int (got, ==, runs[i].want);
          tap_check (strstr (why, runs[i].class) != NULL);
        }
    }
}

/* The cells can run here and the sabotages' shared budget is mapped; else a skip says why. */
static bool
race_ready (void)
{
  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return false;
    }
  lose_budget
      = mmap (NULL, sizeof *lose_budget, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (lose_budget == MAP_FAILED)
    {
      tap_skip ("mmap for the shared budget failed");
      return false;
    }
  return true;
}

/* P8 at every level: the real operations pass; an update lost under the race fails the count
 * after it (or the SigQ after it), and leaves rounds at the bound with none admitted; an
 * admission past the bound under the race fails the units held at once; check-before-add
 * fails the rounds at the bound as over-admission.  Each failure must be the one its sabotage
 * causes. */
static void
test_race_sabotage_fails (void)
{
  static const enum ucb_vlevel levels[]
      = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };
  static const char most[] = "most admitted in a round at the bound";
  static const char one[] = "rounds at the bound with one admitted";
  struct ucb_rlops lost = *real, over = *real, cba = *real;
  uid_t base = CELL_UIDS (50000);

  if (!race_ready ())
    return;
  lost.release = release_loses_racing;
  over.charge = charge_passes_bound_racing;
  cba.charge = charge_checks_before_add;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++, base += 1000)
    {
      struct
      {
        const struct ucb_rlops *ops;
        enum ucb_verdict want;
        const char *why; /* in the reason of the failure */
        const char *what;
      } runs[] = {
        { real, UCB_VERDICT_PASS, "", "real operations, P8" },
        { &lost, UCB_VERDICT_FAIL, "after the race", "a release lost under the race, P8" },
        { &over, UCB_VERDICT_FAIL, "most held at once", "the bound passed under the race, P8" },
        { &cba, UCB_VERDICT_FAIL, most, "check-before-add at the bound, P8" },
      };
      for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        {
          char why[UCB_VDETAIL_MAX];
          enum ucb_verdict got;
          bool named;

          /* A sabotaged race is caught when two chargers meet inside its window, which a
           * loaded host can starve for a whole run (the clang pass of CI once let
           * check-before-add at the grandparent level pass): up to 3 runs, each one said. */
          for (int run = 1;; run++)
            {
              *lose_budget = 1;
              got = verdict (runs[i].ops, 8, levels[l], base + (uid_t) i * 100, why);
              if (runs[i].want != UCB_VERDICT_FAIL || got != UCB_VERDICT_PASS || run == 3)
                break;
              printf ("# %s at the %s level: passed in run %d of at most 3 (%s)\n", runs[i].what,
                      ucb_vlevel_name (levels[l]), run, why);
            }
          /* A busy host: too few rounds met for the cell to judge, and it said so. */
          if (got == UCB_VERDICT_SKIP && strstr (why, "too few to judge"))
            {
              static char busy[UCB_VDETAIL_MAX + 64];
              snprintf (busy, sizeof busy, "%s at the %s level: %s", runs[i].what,
                        ucb_vlevel_name (levels[l]), why);
              tap_skip (busy);
              break;
            }
          named = strstr (why, runs[i].why) != NULL;
          /* One unit lost: the counter one high, the fill after the race one fewer. */
          if (runs[i].ops == &lost)
            {
              tap_check_int (*lose_budget, ==, 0);
              tap_check_int (last_off ("admitted after the race"), ==, -1);
              tap_check_int (last_off ("observer SigQ after the race"), ==, 1);
              tap_check_int (last_seen (one), ==, 0); /* all refused in every round */
            }
          /* Two admitted in a round, named as such; the free race saw nothing. */
          if (runs[i].ops == &cba)
            {
              named = named && strstr (why, "over-admission") != NULL;
              tap_check (last_seen (most) >= 2);
              tap_check_int (last_off ("most held at once racing, at most the room"), ==, 0);
              tap_check_int (last_off ("admitted after the race"), ==, 0);
            }
          if (runs[i].ops == real)
            {
              tap_check_int (last_seen (most), ==, 1);
              tap_check_int (last_off (one), ==, 0);
              tap_check (last_seen (one) >= 32);
            }

          if (got != runs[i].want || !named)
            printf ("# %s at the %s level: %s (%s), expected %s naming `%s`\n", runs[i].what,
                    ucb_vlevel_name (levels[l]), ucb_verdict_name (got), why,
                    ucb_verdict_name (runs[i].want), runs[i].why);
          tap_check_int (got, ==, runs[i].want);
          tap_check (named);
        }
    }
  munmap (lose_budget, sizeof *lose_budget);
}

/* P8 NPROC at every level: with the real operations the churners flip their uid (each churner
 * at least RACE_MIN_CHURNS = 1000 times, or the cell skips) and the cell passes; a churner that
 * keeps one task, as a lost decrement would, fails the count after the race by one. */
static void
test_race_churn (void)
{
  static const enum ucb_vlevel levels[]
      = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };
  static const char flips[] = "set*uid flips racing: the churners', the page's";
  struct ucb_rlops keeps = *nproc;
  long cpus = sysconf (_SC_NPROCESSORS_ONLN);
  uid_t base = CELL_UIDS (60000);

  if (!race_ready ())
    return;
  keeps.churn = churn_keeps_task_racing;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++, base += 1000)
    {
      static char skipped[UCB_VDETAIL_MAX]; /* a skip's reason outlives the call */
      char why[UCB_VDETAIL_MAX];
      enum ucb_verdict got;

      *lose_budget = 1;
      got = verdict (nproc, 8, levels[l], base, why);
      if (got == UCB_VERDICT_SKIP)
        {
          /* A busy host: the race too small to judge says so with its numbers. */
          snprintf (skipped, sizeof skipped, "%s", why);
          tap_skip (skipped);
          continue;
        }
      if (got != UCB_VERDICT_PASS)
        printf ("# real NPROC operations, P8 at the %s level: %s (%s)\n",
                ucb_vlevel_name (levels[l]), ucb_verdict_name (got), why);
      tap_check_int (got, ==, UCB_VERDICT_PASS);
      tap_check_int (last_off (flips), ==, 0);
      /* RACE_MIN_CHURNS by each of the f = CPUs (at most 16) churners, or the cell skips. */
      tap_check (last_seen (flips) >= 1000 * (cpus < 16 ? cpus : 16));

      got = verdict (&keeps, 8, levels[l], base + 100, why);
      if (got != UCB_VERDICT_FAIL || !strstr (why, "after the race"))
        printf ("# a churner keeping a task, P8 at the %s level: %s (%s)\n",
                ucb_vlevel_name (levels[l]), ucb_verdict_name (got), why);
      tap_check_int (*lose_budget, ==, 0);
      tap_check_int (got, ==, UCB_VERDICT_FAIL);
      tap_check_int (last_off ("admitted after the race"), ==, -1);
    }
  munmap (lose_budget, sizeof *lose_budget);
}

static const struct ucb_rlops *memlock = &ucb_rlops[UCB_RL_MEMLOCK];

/* A MEMLOCK charge refused whenever the own limit is the hard one (a bug of one configuration,
 * as mutant 31 is of RLIM_INFINITY): the parent cells' agents raise their own limit to the hard
 * one, so their counts all fall to 0, the intended values, offsetting the known units bug of a
 * stock kernel. */
static int
charge_refused_at_hard (struct ucb_rlheld *h, bool big)
{
  struct rlimit rl;

  if (getrlimit (RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == rl.rlim_max)
    return ENOMEM;
  return memlock->charge (h, big);
}

/* A known-bug cell cannot pass because a second bug offsets the known one (issue 28, ULIM-53):
 * which kernel this is is told apart on its own, before the cell's counts. */
static void
test_offset_known_bug (void)
{
  struct ucb_rlops offset = *memlock;
  char why[UCB_VDETAIL_MAX];
  enum ucb_verdict stock;

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  offset.charge = charge_refused_at_hard;
  stock = verdict (memlock, 2, UCB_VLEVEL_PARENT, CELL_UIDS (10000), why);
  if (stock != UCB_VERDICT_KNOWN_BUG)
    {
      /* A fixed kernel: refusing everything there is the intended count. */
      printf ("# real MEMLOCK operations, P2 at the parent level: %s (%s)\n",
              ucb_verdict_name (stock), why);
      tap_check_int (stock, ==, UCB_VERDICT_PASS);
      tap_skip ("this kernel has no units bug to offset");
      return;
    }
  for (int p = 2; p <= 3; p++)
    {
      enum ucb_verdict got
          = verdict (&offset, p, UCB_VLEVEL_PARENT, CELL_UIDS (10000 + 100u * p), why);
      if (got != UCB_VERDICT_FAIL)
        printf ("# the offsetting bug, P%d at the parent level: %s (%s)\n", p,
                ucb_verdict_name (got), why);
      tap_check_int (got, ==, UCB_VERDICT_FAIL);
    }
}

/* Own soft limit soft(N) admits exactly N units, soft(N) - 1 (one byte, page or unit less) one
 * fewer: every fill of the cells lands exactly on its bound (MSGQUEUE's limits had half a
 * queue of slack, so no off-by-one at the bound could show). */
static int
run_exact (struct ucb_vctx *ctx, ucb_error_t *err)
{
  const struct ucb_rlops *ops = &sabotaged;

  for (int less = 0; less < 2; less++)
    {
      struct ucb_rlplace pl = { .depth = 0, .own = ops->soft (CELL_N) - (rlim_t) less };
      struct ucb_rlagent a = UCB_RLAGENT_NONE;
      struct ucb_rlans f;
      char name[UCB_VNAME_MAX];

      if (ucb_rlagent_start (&a, ops, "the agent", ctx->uid_base + (uid_t) less, &pl, err) < 0)
        return -1;
      ucb_rlagent_fill_all (&a, &f, err);
      if (ucb_rlagent_stop (&a, err) < 0)
        return -1;
      snprintf (name, sizeof name, "admitted at own soft(%d)%s", CELL_N, less ? " - 1" : "");
      ucb_vobserve_count (ctx->res, name, UCB_VITEM_ADMITTED, CELL_N - less - ops->self, f.count,
                          f.tries);
    }
  return 0;
}

static void
test_exact_bounds (void)
{
  uid_t base = CELL_UIDS (20000);

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  for (enum ucb_rl r = 0; r < UCB_RLS; r++, base += 100)
    {
      struct ucb_vcase c = fake;
      struct ucb_kernel k = { 0 };
      struct ucb_vrun v;

      if (*ucb_rlops_unsupported (&ucb_rlops[r]))
        {
          tap_skip (ucb_rlops_unsupported (&ucb_rlops[r]));
          continue;
        }
      sabotaged = ucb_rlops[r];
      c.run = run_exact;
      ucb_verify_run (&c, base, &k, &v);
      if (v.verdict != UCB_VERDICT_PASS)
        printf ("# %s: %s (%s)\n", ucb_rl_name (r), ucb_verdict_name (v.verdict), v.why);
      tap_check_int (v.verdict, ==, UCB_VERDICT_PASS);
    }
}

static const struct tap_test tests[] = {
  { "sabotaged SIGPENDING operations fail the cells of their property", test_sabotage_fails },
  { "every rlimit's fill lands exactly on its bound", test_exact_bounds },
  { "a second bug that offsets the known one does not make a pass", test_offset_known_bug },
  { "P8: an update lost or a bound passed under the race fails, the real race passes",
    test_race_sabotage_fails },
  { "P8 NPROC: churners flip their uid; one keeping a task fails the count after the race",
    test_race_churn },
};

TAP_MAIN (tests)
