/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* A count whose every try was admitted is "> cap", never a count; a fill of exactly the
 * expected load is not capped. */
static void
test_capped_count (void)
{
  char why[UCB_VDETAIL_MAX], seen[32];
  struct ucb_vresult r;

  memset (&r, 0, sizeof r);
  ucb_vobserve_count (&r, "admitted", UCB_VITEM_ADMITTED, 5, 262, 262);
  tap_check (ucb_vitem_capped (&r.items[0]));
  tap_check_str (ucb_vitem_observed_text (&r.items[0], seen, sizeof seen), "> 261");
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "observed > 261: over-admission") != NULL);
  memset (&r, 0, sizeof r);
  ucb_vobserve_count (&r, "admitted", UCB_VITEM_ADMITTED, 5, 7, 262); /* refused at 8 */
  tap_check (!ucb_vitem_capped (&r.items[0]));
  tap_check_str (ucb_vitem_observed_text (&r.items[0], seen, sizeof seen), "7");
  memset (&r, 0, sizeof r);
  ucb_vobserve_count (&r, "held", UCB_VITEM_ADMITTED, 3, 3, 3); /* an exact load, all taken */
  tap_check (!ucb_vitem_capped (&r.items[0]));
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_PASS);
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

/* What a case needs, checked up front: each missing capability named, uid 0 of the initial
 * namespace named, nothing when everything is there. */
static void
test_needs (void)
{
  const struct ucb_vcase c
      = { .id = "ULIM-XX", .needs_caps = UCB_VCAP (CAP_IPC_LOCK), .needs_init_root = true };
  const struct ucb_vcase plain = { .id = "ULIM-YY" };
  uint64_t all = UCB_VNEEDS_PROBES | c.needs_caps;
  char why[UCB_VDETAIL_MAX] = "";

  tap_check (!ucb_vcase_unmet (&c, all | UCB_VCAP (CAP_CHOWN), true, why, sizeof why));
  tap_check (ucb_vcase_unmet (&c, 0, false, why, sizeof why));
  tap_check_str (why, "needs uid 0 of the initial user namespace and CAP_KILL, CAP_SETGID, "
                      "CAP_SETUID, CAP_IPC_LOCK (run as root on the host)");
  tap_check (ucb_vcase_unmet (&c, UCB_VNEEDS_PROBES, true, why, sizeof why));
  tap_check_str (why, "needs CAP_IPC_LOCK (run as root without dropping capabilities)");
  tap_check (ucb_vcase_unmet (&c, all, false, why, sizeof why));
  tap_check_str (why, "needs uid 0 of the initial user namespace (run as root on the host)");
  /* What every case needs is needed without being listed. */
  tap_check (ucb_vcase_unmet (&plain, UCB_VCAP (CAP_SETUID), true, why, sizeof why));
  tap_check_str (why, "needs CAP_KILL, CAP_SETGID (run as root without dropping capabilities)");
  tap_check (!ucb_vcase_unmet (&plain, UCB_VNEEDS_PROBES, false, why, sizeof why));
}

/* Every case becomes fresh uids and kills its probes: each is skipped without those
 * capabilities instead of failing in a probe. */
static void
test_registry_needs (void)
{
  for (size_t i = 0; ucb_vcases[i]; i++)
    {
      char why[UCB_VDETAIL_MAX] = "";
      tap_check (ucb_vcase_unmet (ucb_vcases[i], 0, true, why, sizeof why));
      tap_check (strstr (why, "CAP_SETUID") != NULL);
    }
}

static const struct tap_test tests[] = {
  { "verdict: match, over-admission, early denial, wrong errno, leak", test_judge },
  { "verdict: a count that reached its cap reads \"> cap\", over-admission", test_capped_count },
  { "verdict: known bug vs fixed vs other, skip, error", test_known_bug_and_others },
  { "needs: missing capabilities and uid 0 of the initial user namespace named", test_needs },
  { "needs: every case declares the probes' capabilities", test_registry_needs },
};

TAP_MAIN (tests)
