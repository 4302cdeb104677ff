/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify-cases.c - a verify case that cannot fail is a defect: every real case, run as
 * root with fresh uids in user namespaces, passes here (or is the known bug), and its own
 * observations, perturbed the ways a broken kernel would (one more or one fewer admitted,
 * another errno, a counter that does not return to zero), must turn its verdict into `fail`.
 * And on a kernel that over-admits (faked: every soft limit the probes set is the hard one),
 * each count that ran to the harness's cap must say so ("> cap"), never read as a count.
 * Without root or user namespaces: `ok 1 # SKIP why`.  The verdict itself on faked
 * observations is tests/unit/test-verify.c. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "host/userns.h"
#include "verify/probe.h"
#include "verify/verify.h"
#include "uid-claim.h"

/* This program's uids (uid-claim.h), 100 per case run; each test at its own offset. */
#define CASE_UIDS(off) test_uids (2102000000u, 100000, (off))

/* Root, and user namespaces can be made here (the cases run in them). */
static bool
can_run_cases (void)
{
  return geteuid () == 0 && ucb_userns_probe () == 0;
}

/* Every case: real run passes (or is the known bug), and every perturbation fails it. */
static void
test_every_case_can_fail (void)
{
  struct ucb_kernel k;
  ucb_error_t err = NULL;

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cases");
      return;
    }
  tap_check_int (ucb_kernel_probe (&k, &err), ==, 0);
  for (size_t i = 0; ucb_vcases[i]; i++)
    {
      struct ucb_vrun v;
      char why[UCB_VDETAIL_MAX];

      /* A uid range of its own: verify.py may run the cases at the same time. */
      ucb_verify_run (ucb_vcases[i], CASE_UIDS ((uid_t) i * 100), &k, &v);
      if (v.verdict == UCB_VERDICT_SKIP)
        continue;
      if (v.verdict != UCB_VERDICT_PASS && v.verdict != UCB_VERDICT_KNOWN_BUG)
        {
          printf ("# %s: %s: %s\n", v.c->id, ucb_verdict_name (v.verdict), v.why);
          tap_failed_checks++;
          continue;
        }
      tap_check (v.res.n > 0);
      for (size_t it = 0; it < v.res.n; it++)
        {
          struct ucb_vitem *x = &v.res.items[it];
          long long orig = x->observed;
          long long wrong[3] = { x->expected + 1, x->expected - 1,
                                 x->kind == UCB_VITEM_ERRNO || x->kind == UCB_VITEM_ERRNO_RELEASED
                                     ? (x->expected == EPERM ? ENOMEM : EPERM)
                                     : x->expected + 7 };
          for (int w = 0; w < 3; w++)
            {
              enum ucb_verdict got;
              if (x->has_bug_value && wrong[w] == x->bug_value)
                continue;
              x->observed = wrong[w];
              got = ucb_vjudge (&v.res, why, sizeof why);
              if (got != UCB_VERDICT_FAIL)
                {
                  printf ("# %s: item `%s` observed %lld (expected %lld) judged %s\n", v.c->id,
                          x->name, wrong[w], x->expected, ucb_verdict_name (got));
                  tap_failed_checks++;
                }
            }
          x->observed = orig;
        }
    }
}

/* A kernel that over-admits (faked: every soft limit a probe sets is the hard one, thousands,
 * probe.h ucb_vsoft_loose): the counts run to the harness's caps, and each one that did must
 * say so, "> cap" and listed as capped, never read as the kernel's count.  A count over its
 * expectation that does not know its cap (no tries) would print the cap as a count. */
static void
test_overadmitting_kernel (void)
{
  struct ucb_kernel k;
  ucb_error_t err = NULL;
  size_t failed = 0, ran = 0;

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cases");
      return;
    }
  tap_check_int (ucb_kernel_probe (&k, &err), ==, 0);
  ucb_vsoft_loose = true;
  for (size_t i = 0; ucb_vcases[i]; i++)
    {
      struct ucb_vrun v;

      ucb_verify_run (ucb_vcases[i], CASE_UIDS (50000 + (uid_t) i * 100), &k, &v);
      if (v.verdict == UCB_VERDICT_SKIP)
        continue;
      ran++;
      failed += v.verdict == UCB_VERDICT_FAIL;
      if (v.verdict == UCB_VERDICT_ERROR)
        {
          /* A case that ends in `error` hides its observations. */
          printf ("# %s: error: %s\n", v.c->id, v.why);
          tap_failed_checks++;
        }
      for (size_t it = 0; it < v.res.n; it++)
        {
          const struct ucb_vitem *x = &v.res.items[it];
          char seen[64];

          bool count = x->kind == UCB_VITEM_ADMITTED || x->kind == UCB_VITEM_READMITTED
                       || x->kind == UCB_VITEM_PINNED;

          if (!count || x->observed <= x->expected || x->tries > 0)
            continue;
          printf ("# %s (%s): `%s` expected %lld, observed %s: a count without its cap\n", v.c->id,
                  ucb_verdict_name (v.verdict), x->name, x->expected,
                  ucb_vitem_observed_text (x, seen, sizeof seen));
          tap_failed_checks++;
        }
    }
  ucb_vsoft_loose = false;
  /* The fake over-admits: most cases must see it (a fake that changed nothing proves none of
   * the above). */
  printf ("# %zu of %zu cases that ran failed on the over-admitting kernel\n", failed, ran);
  tap_check (ran > 0 && failed * 2 > ran);
}

static const struct tap_test tests[] = {
  { "every case passes here and fails on each perturbed observation", test_every_case_can_fail },
  { "on a kernel that over-admits, every count that reached a cap says so",
    test_overadmitting_kernel },
};

TAP_MAIN (tests)
