/* test-verify.c - the verdict on faked observations: a match, each way a broken kernel
 * differs, the known bug, skip and error.  That every real case fails on perturbed
 * observations of its own is tests/integration/test-verify-cases.c (root, user namespaces). */
#include "config.h"

#include <errno.h>

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

static const struct tap_test tests[] = {
  { "verdict: match, over-admission, early denial, wrong errno, leak", test_judge },
  { "verdict: known bug vs fixed vs other, skip, error", test_known_bug_and_others },
};

TAP_MAIN (tests)
