/* test-verify.c - a verify case that cannot fail is a defect: the verdict is tested on faked
 * observations, and every real case's own observations, perturbed the ways a broken kernel
 * would (one more or one fewer admitted, another errno, a counter that does not return to
 * zero), must turn its verdict into `fail`. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "verify/verify.h"

static struct ucb_vresult
fake (long long expected, long long observed, enum ucb_vkind kind)
{
  struct ucb_vresult r;
  memset (&r, 0, sizeof r);
  ucb_vobserve (&r, "ok item", UCB_VITEM_EXACT, 1, 1);
  ucb_vobserve (&r, "the item", kind, expected, observed);
  return r;
}

static void
test_judge (void)
{
  char why[UCB_VDETAIL_MAX];
  struct ucb_vresult r;

  r = fake (5, 5, UCB_VITEM_ADMITTED);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_PASS);
  r = fake (5, 6, UCB_VITEM_ADMITTED);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "over-admission") != NULL);
  r = fake (5, 4, UCB_VITEM_ADMITTED);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "early denial") != NULL);
  r = fake (EAGAIN, EPERM, UCB_VITEM_ERRNO);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "wrong errno") != NULL);
  r = fake (0, 1, UCB_VITEM_COUNTER);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "leak") != NULL);
  /* over-admission is named even when an earlier item is also wrong */
  memset (&r, 0, sizeof r);
  ucb_vobserve (&r, "errno", UCB_VITEM_ERRNO, EAGAIN, 0);
  ucb_vobserve (&r, "admitted", UCB_VITEM_ADMITTED, 5, 9);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "over-admission") != NULL);
}

static void
test_known_bug_and_others (void)
{
  char why[UCB_VDETAIL_MAX];
  struct ucb_vresult r;

  memset (&r, 0, sizeof r);
  ucb_vobserve_bug (&r, "locks", UCB_VITEM_ADMITTED, 0, 16, 16);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_KNOWN_BUG);
  r.items[0].observed = 0; /* a fixed kernel */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_PASS);
  r.items[0].observed = 17; /* neither intended nor the known bug */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  memset (&r, 0, sizeof r);
  ucb_vskip (&r, "needs %s", "CAP_SYS_RESOURCE");
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_SKIP);
  tap_check_str (why, "needs CAP_SYS_RESOURCE");
  memset (&r, 0, sizeof r);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_ERROR);
  snprintf (r.error, sizeof r.error, "fork: boom");
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_ERROR);
  tap_check_str (ucb_verdict_name (UCB_VERDICT_KNOWN_BUG), "known-bug");
}

static bool
can_run_cases (void)
{
  pid_t pid;
  int st;

  if (geteuid () != 0)
    return false;
  pid = fork ();
  if (pid == 0)
    _exit (unshare (CLONE_NEWUSER) == 0 ? 0 : 1);
  return pid > 0 && waitpid (pid, &st, 0) == pid && WIFEXITED (st) && WEXITSTATUS (st) == 0;
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
      ucb_verify_run (ucb_vcases[i], 2102000000u + (uid_t) i * 100, &k, &v);
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
          long long wrong[3]
              = { x->expected + 1, x->expected - 1,
                  x->kind == UCB_VITEM_ERRNO ? (x->expected == EPERM ? ENOMEM : EPERM)
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

static const struct tap_test tests[] = {
  { "verdict: match, over-admission, early denial, wrong errno, leak", test_judge },
  { "verdict: known bug vs fixed vs other, skip, error", test_known_bug_and_others },
  { "every case passes here and fails on each perturbed observation", test_every_case_can_fail },
};

TAP_MAIN (tests)
