/* SPDX-License-Identifier: GPL-2.0-or-later */
/* meanings.c - the table of meanings (meanings.h).  Each choice is the consumer's own reading,
 * cited in docs/exporters.md "One table of meanings". */
#include "config.h"

#include <string.h>

#include "core/util.h"
#include "report/meanings.h"

const char *const ucb_meaning_names[UCB_MEANING_N] = {
  "pass",       "kernel-fail", "kernel-known-bug",    "skipped",
  "no-verdict", "clean",       "flagged-environment",
};

/* TAP 13 has only TODO and SKIP (a "not ok" with TODO is an expected failure: harnesses do
 * not fail on it); KTAP (ktap.rst) adds XFAIL, which kselftest writes on an "ok" line, and
 * ERROR on a "not ok" one.  JUnit has no expected failure: pytest writes one as <skipped
 * type="pytest.xfail">, ucbench as type="known-bug".  LAVA's results are pass, fail, skip and
 * unknown; lava-test-reference adds a URL to a result.  KCIDB v5.3: FAIL "reported the tested
 * code as faulty", ERROR "didn't complete due to a failure in its code", SKIP "not
 * applicable"; an issue with culprit.code and an incident per test is its known bug.
 *
 * A row is a status, its fields in the order of struct ucb_verdict_row: meaning, fails_run,
 * note; TAP 13 and KTAP {word, directive, diag}; JUnit element and type, LAVA result and
 * reference, KCIDB status and incident. */
/* clang-format off */
const struct ucb_verdict_row ucb_verdict_rows[UCB_VERDICT_ROWS] = {
  { "pass", UCB_MEANING_PASS, false, NULL,
    { "ok", NULL, false }, { "ok", NULL, false },
    NULL, NULL, "pass", false, "PASS", false },
  { "fail", UCB_MEANING_KERNEL_FAIL, true, NULL,
    { "not ok", NULL, true }, { "not ok", NULL, true },
    "failure", NULL, "fail", false, "FAIL", false },
  { "known-bug", UCB_MEANING_KNOWN_BUG, false, "known kernel bug",
    { "not ok", "TODO", false }, { "ok", "XFAIL", true },
    "skipped", "known-bug", "fail", true, "FAIL", true },
  { "skip", UCB_MEANING_SKIPPED, false, NULL,
    { "ok", "SKIP", false }, { "ok", "SKIP", false },
    "skipped", NULL, "skip", false, "SKIP", false },
  { "error", UCB_MEANING_NO_VERDICT, true, NULL,
    { "not ok", "ERROR", false }, { "not ok", "ERROR", true },
    "error", NULL, "unknown", false, "ERROR", false },
  /* A status this version does not know: no verdict, never silently a pass. */
  { NULL, UCB_MEANING_NO_VERDICT, true, NULL,
    { "not ok", "ERROR", false }, { "not ok", "ERROR", true },
    "error", NULL, "unknown", false, "ERROR", false },
};
/* clang-format on */

const struct ucb_verdict_row *
ucb_verdict_row (const char *status)
{
  for (size_t i = 0; i + 1 < UCB_VERDICT_ROWS; i++)
    if (status && strcmp (status, ucb_verdict_rows[i].status) == 0)
      return &ucb_verdict_rows[i];
  return &ucb_verdict_rows[UCB_VERDICT_ROWS - 1];
}

char *
ucb_verdict_note (const struct ucb_verdict_row *r, const char *status, const char *bug_id,
                  const char *bug_reference)
{
  if (r->note && bug_id)
    return xasprintf ("%s %s (%s): ", r->note, bug_id, bug_reference ? bug_reference : "?");
  if (r->note)
    return xasprintf ("%s: ", r->note);
  if (r->status == NULL)
    return xasprintf ("unknown status %s: ", status ? status : "(none)");
  return xstrdup ("");
}

/* A flagged point is still data (every dashboard keeps its history) that no alert or gate acts
 * on: Bencher's -bencher-ignore suffix mutes its alerts; gbench's label, not error_occurred
 * (which says the run failed); lkp-tests' etc/failure and etc/pass name no "flagged" stat, so
 * lkp compare neither counts it as a failure nor follows it as a KPI; KCIDB's DONE is "the
 * test completed ... produced a performance measurement", and its issue's culprit is the
 * harness, "the system controlling the execution of the test", not the code; LAVA's unknown
 * records the measurement without a verdict. */
const struct ucb_point_row ucb_point_rows[2] = {
  { UCB_MEANING_CLEAN, "-", NULL, NULL, NULL, NULL, "pass", "DONE", false,
    "may fail the job (fail-on-alert)" },
  { UCB_MEANING_FLAGGED, "` * FLAGS` after the text row; CSV's `contention.*`, `canary.*`",
    "flagged: ", "-bencher-ignore", "flagged: ", "flagged", "unknown", "DONE", true,
    "warns, never fails" },
};

const struct ucb_flag_row ucb_flag_rows[] = {
  { "starved", "a container did too few ops in the window to measure" },
  { "contended", "its tasks got less CPU than their fair share" },
  { "unjudged", "its tasks' CPU share could not be measured" },
  { "speed-moved", "the host's speed (the canary) moved during the window" },
  { NULL, NULL },
};

const char *
ucb_flag_why (const char *name, size_t len)
{
  for (size_t i = 0; ucb_flag_rows[i].name; i++)
    if (strlen (ucb_flag_rows[i].name) == len && strncmp (ucb_flag_rows[i].name, name, len) == 0)
      return ucb_flag_rows[i].why;
  return "ucbench calls its numbers not clean data";
}

bool
ucb_flag_next (const char **list, const char **flag, size_t *len)
{
  const char *s = *list;

  while (*s == ',')
    s++;
  if (*s == '\0')
    return false;
  *flag = s;
  *len = strcspn (s, ",");
  *list = s + *len;
  return true;
}
