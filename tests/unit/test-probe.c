/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-probe.c - the probe harness of verify: values come back, a child's error comes back
 * with its message and code, a child killed by a signal or exiting without a word is reported
 * as such, reports and orders cross both ways, and a helper of the probe that outlives it does
 * not keep the case waiting; a script's steps become its observations, and a count that
 * reaches the safety cap reads "> cap".  Unprivileged: the probes stay as we are (uid 0 in the
 * spec). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "verify/probe.h"
#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/script.h"

static int
give_values (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) err;
  for (int i = 0; i < UCB_PROBE_NVAL; i++)
    o->v[i] = (int64_t) i * 1000000007LL - *(const int *) arg;
  o->errnum = EAGAIN;
  return 0;
}

static void
test_values (void)
{
  struct ucb_probe_spec spec = { .what = "the value probe" };
  struct ucb_probe_out o;
  ucb_error_t err = NULL;
  int minus = 3;

  memset (&o, 0, sizeof o);
  tap_check_int (ucb_probe_run (&spec, give_values, &minus, &o, &err), ==, 0);
  tap_check (err == NULL);
  tap_check_int (o.v[0], ==, -3);
  tap_check_int (o.v[UCB_PROBE_NVAL - 1], ==, (UCB_PROBE_NVAL - 1) * 1000000007LL - 3);
  tap_check_int (o.errnum, ==, EAGAIN);
}

static int
fail_with_error (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) arg, (void) o;
  return ucb_make_error (err, EACCES, "setresuid(%u) in the child", 4242u);
}

static void
test_child_error (void)
{
  struct ucb_probe_spec spec = { .what = "the failing probe" };
  struct ucb_probe_out o;
  ucb_error_t err = NULL;

  tap_check_int (ucb_probe_run (&spec, fail_with_error, NULL, &o, &err), <, 0);
  tap_check (err != NULL);
  if (err)
    {
      tap_check_str (err->msg, "the failing probe: setresuid(4242) in the child");
      tap_check_int (err->code, ==, EACCES);
    }
  ucb_error_free (&err);
}

static int
die_by_signal (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) arg, (void) o, (void) err;
  raise (SIGKILL);
  return 0;
}

static int
exit_silently (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) arg, (void) o, (void) err;
  _exit (3);
}

/* A helper that sleeps on past the probe's end, holding whatever the probe held. */
static int
leave_helper_and_exit (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t pid = ucb_vfork ();

  (void) arg, (void) o;
  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    {
      sleep (30); /* killed by PR_SET_PDEATHSIG once the probe is gone */
      _exit (0);
    }
  _exit (4);
}

static void
test_silent_ends (void)
{
  struct ucb_probe_spec spec = { .what = "the probe" };
  struct ucb_probe_out o;
  ucb_error_t err = NULL;
  uint64_t t0;

  tap_check_int (ucb_probe_run (&spec, die_by_signal, NULL, &o, &err), <, 0);
  tap_check (err && strstr (err->msg, "the probe was killed by signal 9") != NULL);
  if (err)
    printf ("# %s\n", err->msg);
  ucb_error_free (&err);
  tap_check_int (ucb_probe_run (&spec, exit_silently, NULL, &o, &err), <, 0);
  tap_check (err && strcmp (err->msg, "the probe exited with status 3 without reporting") == 0);
  ucb_error_free (&err);
  t0 = ucb_now_ns ();
  tap_check_int (ucb_probe_run (&spec, leave_helper_and_exit, NULL, &o, &err), <, 0);
  tap_check (err && strstr (err->msg, "exited with status 4") != NULL);
  tap_check_int (ucb_now_ns () - t0, <, 5000000000ull);
  ucb_error_free (&err);
}

/* Report ready; then, per order, answer twice its value; end on 0 with the sum. */
static int
doubler (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  struct ucb_probe_out order;
  int64_t sum = 0;

  (void) arg;
  if (ucb_probe_report (o, err) < 0)
    return -1;
  for (;;)
    {
      if (ucb_probe_await (&order, err) < 0)
        return -1;
      if (order.v[0] == 0)
        break;
      sum += order.v[0];
      o->v[0] = 2 * order.v[0];
      if (ucb_probe_report (o, err) < 0)
        return -1;
    }
  o->v[1] = sum;
  return 0;
}

static void
test_dialogue (void)
{
  struct ucb_probe_spec spec = { .what = "the doubler" };
  struct ucb_probe p = UCB_PROBE_NONE;
  struct ucb_probe_out o, order;
  ucb_error_t err = NULL;

  memset (&order, 0, sizeof order);
  tap_check_int (ucb_probe_start (&p, &spec, doubler, NULL, &err), ==, 0);
  tap_check_int (ucb_probe_next (&p, &o, &err), ==, 0);
  for (int i = 1; i <= 3; i++)
    {
      order.v[0] = i;
      tap_check_int (ucb_probe_order (&p, &order, &err), ==, 0);
      tap_check_int (ucb_probe_next (&p, &o, &err), ==, 0);
      tap_check_int (o.v[0], ==, 2 * i);
    }
  order.v[0] = 0;
  tap_check_int (ucb_probe_order (&p, &order, &err), ==, 0);
  tap_check_int (ucb_probe_finish (&p, &o, &err), ==, 0);
  tap_check_int (o.v[1], ==, 6);
  tap_check (err == NULL);
  /* A probe that fails while the case waits for its report: the error, not a hang. */
  tap_check_int (ucb_probe_start (&p, &spec, fail_with_error, NULL, &err), ==, 0);
  tap_check_int (ucb_probe_next (&p, &o, &err), <, 0);
  tap_check (err && strstr (err->msg, "setresuid(4242) in the child") != NULL);
  ucb_error_free (&err);
  ucb_probe_kill (&p);
}

/* Setup errors come back too: a soft limit of no rlimit; a uid change without privilege. */
static void
test_setup_error (void)
{
  struct ucb_probe_spec spec = { .what = "the setup probe", .resource = 4242, .soft = 5 };
  struct ucb_probe_out o;
  ucb_error_t err = NULL;
  int minus = 0;

  tap_check_int (ucb_probe_run (&spec, give_values, &minus, &o, &err), <, 0);
  tap_check (err && strcmp (err->msg, "the setup probe: getrlimit(4242)") == 0);
  tap_check (err && err->code == EINVAL);
  ucb_error_free (&err);
  if (geteuid () == 0)
    return; /* as root the uid change succeeds */
  spec = (struct ucb_probe_spec){ .uid = 2101999999u };
  tap_check_int (ucb_probe_run (&spec, give_values, &minus, &o, &err), <, 0);
  tap_check (err && strstr (err->msg, "the probe as uid 2101999999: ") != NULL);
  tap_check (err && err->code == EPERM);
  ucb_error_free (&err);
}

/* A script's steps run in order on its agents (as we are: uid offset 0 of uid_base 0) and
 * become observations, in order.  The level-0 counter is our uid's, which other tasks of ours
 * may hold units of at any moment (root's timers, other tests): the checks hold whatever they
 * hold (the drain takes exactly what the agent queued).  The forker holds and counts children
 * under the hard NPROC limit, far above them. */
static void
test_script (void)
{
  static const struct ucb_vactor actors[] = {
    { "the agent", 0, RLIMIT_SIGPENDING, 8, false },
    { "the forker", 0, RLIMIT_NPROC, RLIM_INFINITY, false },
  };
  static const struct ucb_vstep steps[] = {
    { 0, UCB_VOP_FILL, UCB_VTRIES (8), "queued", UCB_VITEM_ADMITTED, 8, "refused", EAGAIN },
    { 0, UCB_VOP_SIGQ, 0, "SigQ full", UCB_VITEM_COUNTER, 8 },
    { 0, UCB_VOP_DRAIN, 0, "drained", UCB_VITEM_EXACT, 8 },
    { 0, UCB_VOP_SIGQ, 0, "SigQ drained", UCB_VITEM_COUNTER, 0 },
    { 0, UCB_VOP_FILL, 2, NULL, UCB_VITEM_EXACT, 0 },
    { 1, UCB_VOP_HOLD, 3, "held", UCB_VITEM_EXACT, 3, "hold errno", 0 },
    { 1, UCB_VOP_COUNT, 2, "counted", UCB_VITEM_EXACT, 2 },
  };
  static const char *const names[] = { "queued",       "refused", "SigQ full",  "drained",
                                       "SigQ drained", "held",    "hold errno", "counted" };
  struct ucb_vresult res;
  struct ucb_kernel k = { 0 };
  struct ucb_vctx ctx = { .kernel = &k, .uid_base = 0, .res = &res };
  ucb_error_t err = NULL;

  memset (&res, 0, sizeof res);
  tap_check_int (
      ucb_vscript (&ctx, actors, UCB_ARRAY_SIZE (actors), steps, UCB_ARRAY_SIZE (steps), &err), ==,
      0);
  tap_check (err == NULL);
  ucb_error_free (&err);
  tap_check_int (res.n, ==, UCB_ARRAY_SIZE (names));
  for (size_t i = 0; i < res.n && i < UCB_ARRAY_SIZE (names); i++)
    tap_check_str (res.items[i].name, names[i]);
  if (res.n != UCB_ARRAY_SIZE (names))
    return;
  tap_check_int (res.items[0].observed, <=, 8);
  tap_check_int (res.items[1].observed, ==, EAGAIN);
  tap_check_int (res.items[1].kind, ==, UCB_VITEM_ERRNO);
  tap_check_int (res.items[2].observed, >=, res.items[0].observed);
  tap_check_int (res.items[2].kind, ==, UCB_VITEM_COUNTER);
  tap_check_int (res.items[3].observed, ==, res.items[0].observed);
  tap_check_int (res.items[5].observed, ==, 3);
  tap_check_int (res.items[6].observed, ==, 0);
  tap_check_int (res.items[7].observed, ==, 2);
}

/* A kernel that never refuses: the count stops at the safety cap and reads cap + 1, errno 0,
 * and the verdict is over-admission (soft = hard: the hard limit must exceed the cap). */
static void
test_cap (void)
{
  static const struct ucb_vactor actors[]
      = { { "the agent", 0, RLIMIT_SIGPENDING, RLIM_INFINITY, false } };
  static const struct ucb_vstep steps[] = {
    { 0, UCB_VOP_FILL, UCB_VTRIES (5), "queued", UCB_VITEM_ADMITTED, 5, "refused", EAGAIN },
  };
  struct ucb_vresult res;
  struct ucb_kernel k = { 0 };
  struct ucb_vctx ctx = { .kernel = &k, .uid_base = 0, .res = &res };
  ucb_error_t err = NULL;
  char why[UCB_VDETAIL_MAX];
  struct rlimit rl;

  if (getrlimit (RLIMIT_SIGPENDING, &rl) < 0
      || (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2 * UCB_VTRIES (5)))
    {
      tap_skip ("hard RLIMIT_SIGPENDING below twice the cap");
      return;
    }
  memset (&res, 0, sizeof res);
  tap_check_int (ucb_vscript (&ctx, actors, 1, steps, 1, &err), ==, 0);
  ucb_error_free (&err);
  tap_check_int (res.n, ==, 2);
  tap_check_int (res.items[0].observed, ==, UCB_VCOUNT_CAP (5) + 1);
  tap_check_int (res.items[1].observed, ==, 0);
  tap_check_int (ucb_vjudge (&res, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "over-admission") != NULL);
}

/* An agent that fails (a soft limit above the hard one) ends the script with its error, named
 * after it; a step that names no actor, or gives an agent another rlimit's order, is refused
 * before anything starts. */
static void
test_script_errors (void)
{
  static const struct ucb_vactor bad[]
      = { { "the bad agent", 0, RLIMIT_SIGPENDING, (rlim_t) -3, false } };
  static const struct ucb_vstep steps[] = {
    { 0, UCB_VOP_FILL, 3, "queued", UCB_VITEM_ADMITTED, 3 },
  };
  static const struct ucb_vstep stray[] = {
    { 1, UCB_VOP_FILL, 3, "queued", UCB_VITEM_ADMITTED, 3 },
  };
  static const struct ucb_vstep misfit[] = {
    { 0, UCB_VOP_HOLD, 3, "held", UCB_VITEM_EXACT, 3 },
  };
  struct ucb_vresult res;
  struct ucb_kernel k = { 0 };
  struct ucb_vctx ctx = { .kernel = &k, .uid_base = 0, .res = &res };
  ucb_error_t err = NULL;

  memset (&res, 0, sizeof res);
  tap_check_int (ucb_vscript (&ctx, bad, 1, steps, 1, &err), <, 0);
  tap_check (err != NULL && strstr (err->msg, "the bad agent") != NULL);
  tap_check_int (res.n, ==, 0);
  ucb_error_free (&err);
  tap_check_int (ucb_vscript (&ctx, bad, 1, stray, 1, &err), <, 0);
  tap_check (err != NULL && strstr (err->msg, "names actor 1 of 1") != NULL);
  ucb_error_free (&err);
  /* A SIGPENDING agent holds no children: an order of another rlimit is refused, not carried
   * out with signals. */
  tap_check_int (ucb_vscript (&ctx, bad, 1, misfit, 1, &err), <, 0);
  tap_check (err != NULL && strstr (err->msg, "gives order") != NULL);
  tap_check_int (res.n, ==, 0);
  ucb_error_free (&err);
}

static const struct tap_test tests[] = {
  { "a probe's values and errno come back", test_values },
  { "a child's error comes back with its message and code", test_child_error },
  { "killed by a signal, exiting without a word: reported as such, without a hang",
    test_silent_ends },
  { "reports and orders cross both ways; an error instead of a report", test_dialogue },
  { "a setup failure (rlimit, uid change) comes back as the child's error", test_setup_error },
  { "a script's steps run in order and become its observations, in order", test_script },
  { "a count that reaches the safety cap reads cap + 1 and is judged over-admission", test_cap },
  { "a failing agent ends its script with its error; a stray or misfit step is refused",
    test_script_errors },
};

TAP_MAIN (tests)
