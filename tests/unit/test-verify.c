/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify.c - the verdict on faked observations: a match, each way a broken kernel
 * differs, the known bug, skip and error.  That every real case fails on perturbed
 * observations of its own is tests/integration/test-verify-cases.c (root, user namespaces). */
#include "config.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "host/caps.h"
#include "verify/probe.h"
#include "verify/verify.h"
#include "verify/probe-work.h"

/* A case for ucb_verify_run, its run() set by each test. */
static const struct ucb_vcase cases_fake = {
  .id = "TEST-1",
  .name = "fake",
  .title = "a fake case",
  .rlimit = UCB_RL_SIGPENDING,
  .checks = "",
  .depends = "",
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};

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
  char why[UCB_VDETAIL_MAX], seen[64];
  struct ucb_vresult r;

  memset (&r, 0, sizeof r);
  ucb_vobserve_count (&r, "admitted", UCB_VITEM_ADMITTED, 5, 262, 262);
  tap_check (ucb_vitem_capped (&r.items[0]));
  tap_check_str (ucb_vitem_observed_text (&r.items[0], seen, sizeof seen),
                 "> 261 (the harness's cap)");
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "observed > 261 (the harness's cap): over-admission") != NULL);
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
  ucb_vobserve_bug (&r, UCB_VBUG_MEMLOCK_UNITS, "locks", UCB_VITEM_ADMITTED, 0, 16, 16);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_KNOWN_BUG);
  /* The verdict names its bug: the observation's, for the JSON document and the TAP line. */
  tap_check (ucb_vknown_bug (&r) == &ucb_vbugs[UCB_VBUG_MEMLOCK_UNITS]);
  tap_check_str (ucb_vknown_bug (&r)->id, "memlock-units");
  r.items[0].observed = 0; /* a fixed kernel */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_PASS);
  tap_check (ucb_vknown_bug (&r) == NULL);
  r.items[0].observed = 17; /* neither intended nor the known bug: looser than both */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "locks: expected 0 (the known bug: 16), observed 17: over-admission (limit "
                      "bypass)");
  /* Stricter than the stock kernel (its bug admits 16): an early denial, never a bypass. */
  r.items[0].observed = 15;
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "locks: expected 0 (the known bug: 16), observed 15: early denial");
  /* ... and named after any other item's over-admission, which comes first. */
  ucb_vobserve (&r, "other", UCB_VITEM_ADMITTED, 2, 3);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "other: expected 2, observed 3: over-admission (limit bypass)");
  /* A bug that admits fewer than intended: between the two is early denial too, above both a
   * bypass. */
  memset (&r, 0, sizeof r);
  ucb_vobserve_bug (&r, UCB_VBUG_MEMLOCK_UNITS, "fewer", UCB_VITEM_ADMITTED, 6, 5, 4);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "early denial") != NULL);
  r.items[0].observed = 7;
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "over-admission") != NULL);
  r.items[0].observed = 4;
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_KNOWN_BUG);
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

/* ---- a case that runs out of time ---- */

static volatile bool forever = true;

/* A probe of an over-admitting kernel that is slow: it reports a count at the cap, then takes
 * forever over the rest. */
static int
slow_probe (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) arg;
  o->v[0] = UCB_VTRIES (4);
  if (ucb_probe_report (o, err) < 0)
    return -1;
  while (forever)
    pause ();
  return 0;
}

static int
run_slow_overadmitting (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the slow probe" };
  struct ucb_probe p = UCB_PROBE_NONE;
  struct ucb_probe_out o;

  if (ucb_probe_start_report (&p, &spec, slow_probe, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve_count (ctx->res, "admitted", UCB_VITEM_ADMITTED, 4, o.v[0], UCB_VTRIES (4));
  return ucb_probe_finish (&p, &o, err);
}

/* Slow, and nothing seen yet. */
static int
run_slow_silent (struct ucb_vctx *ctx, ucb_error_t *err)
{
  (void) ctx, (void) err;
  while (forever)
    pause ();
  return 0;
}

/* Slow but making progress (a step every 0.1 s) for longer than the idle budget. */
static int
run_slow_progressing (struct ucb_vctx *ctx, ucb_error_t *err)
{
  (void) err;
  for (int i = 0; i < 12; i++)
    {
      struct timespec ts = { 0, 100000000 };
      nanosleep (&ts, NULL);
      ucb_vprogress ();
    }
  ucb_vobserve (ctx->res, "admitted", UCB_VITEM_ADMITTED, 4, 4);
  return 0;
}

/* Progress forever. */
static int
run_endless (struct ucb_vctx *ctx, ucb_error_t *err)
{
  (void) ctx, (void) err;
  while (forever)
    {
      struct timespec ts = { 0, 50000000 };
      nanosleep (&ts, NULL);
      ucb_vprogress ();
    }
  return 0;
}

/* A case stopped by its time limit fails with the violation it had seen (issue 28: ULIM-12, 64
 * and 65 ended in `error` on an over-admitting kernel under emulation); one that had seen none
 * errs; one that keeps making progress is not stopped at the idle budget, only at the limit. */
static void
test_timeouts (void)
{
  static const struct
  {
    int (*run) (struct ucb_vctx *, ucb_error_t *);
    enum ucb_verdict want;
    const char *why;
  } cases[] = {
    { run_slow_overadmitting, UCB_VERDICT_FAIL,
      "admitted: expected 4, observed > 260 (the harness's cap): over-admission (limit bypass) "
      "(seen before the case timed out after " },
    { run_slow_silent, UCB_VERDICT_ERROR, "timed out after " },
    { run_slow_progressing, UCB_VERDICT_PASS, "" },
    { run_endless, UCB_VERDICT_ERROR, "timed out after 2 s (the limit of a case)" },
  };
  double idle = ucb_vcase_idle_s, limit = ucb_vcase_limit_s;
  struct ucb_kernel k = { 0 };
  char unmet[UCB_VDETAIL_MAX];

  if (ucb_vcase_unmet (&cases_fake, ucb_caps_effective (), true, unmet, sizeof unmet))
    {
      tap_skip ("needs CAP_SETUID, CAP_SETGID and CAP_KILL to run a case");
      return;
    }
  ucb_vcase_idle_s = 0.6;
  ucb_vcase_limit_s = 2;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (cases); i++)
    {
      struct ucb_vcase c = cases_fake;
      struct ucb_vrun v;

      c.run = cases[i].run;
      ucb_verify_run (&c, 2105000000u + (uid_t) i * 100, &k, &v);
      tap_check_int (v.verdict, ==, cases[i].want);
      if (strncmp (v.why, cases[i].why, strlen (cases[i].why)) != 0)
        printf ("# case %zu: why `%s`, expected it to begin `%s`\n", i, v.why, cases[i].why);
      tap_check (strncmp (v.why, cases[i].why, strlen (cases[i].why)) == 0);
    }
  ucb_vcase_idle_s = idle;
  ucb_vcase_limit_s = limit;
}

static const struct tap_test tests[] = {
  { "verdict: match, over-admission, early denial, wrong errno, leak", test_judge },
  { "verdict: a count that reached its cap reads \"> cap\", over-admission", test_capped_count },
  { "verdict: known bug vs fixed vs other, skip, error", test_known_bug_and_others },
  { "needs: missing capabilities and uid 0 of the initial user namespace named", test_needs },
  { "needs: every case declares the probes' capabilities", test_registry_needs },
  { "time: a case stopped late fails with what it saw, else errs; progress keeps it going",
    test_timeouts },
};

TAP_MAIN (tests)
