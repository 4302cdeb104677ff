/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify-classes.c - the class a failing verdict names (issue 36): for each property P1 ...
 * P9, fabricated observations of each class it can produce, named as its cases name them, and
 * the word the verdict line must carry (over-admission, early denial, leak, underflow, pinned,
 * wrong errno); over-admission named first, a count before an errno; a known bug's value still a
 * known bug; "mismatch" left to EXACT alone.  The verdict's other rules: test-verify.c. */
#include "config.h"

#include <errno.h>

#include "../tap.h"
#include "core/util.h"
#include "verify/verify.h"

/* One observation that fails, and the class its verdict must begin with. */
struct row
{
  enum ucb_vprop prop;
  const char *name;
  enum ucb_vkind kind;
  long long expected, observed, tries;
  const char *what; /* PINNED */
  const char *class;
};

#define OVER "over-admission (limit bypass)"
#define LEAK "leak ("
#define UNDER "underflow ("

static const struct row rows[] = {
  { UCB_VPROP_P1, "admitted at the own bound", UCB_VITEM_ADMITTED, 4, 5, 261, NULL, OVER },
  { UCB_VPROP_P1, "admitted at the parent bound", UCB_VITEM_ADMITTED, 4, 3, 261, NULL,
    "early denial" },
  { UCB_VPROP_P1, "errno of the refusal", UCB_VITEM_ERRNO, EAGAIN, 0, 0, NULL, OVER },
  { UCB_VPROP_P1, "errno of the refusal", UCB_VITEM_ERRNO, EAGAIN, ENOMEM, 0, NULL, "wrong errno" },
  { UCB_VPROP_P1, "admitted again after the release", UCB_VITEM_READMITTED, 4, 3, 261, NULL, LEAK },
  { UCB_VPROP_P1, "admitted again after the release", UCB_VITEM_READMITTED, 4, 5, 261, NULL,
    OVER " after a release" },
  { UCB_VPROP_P2, "admitted of 8 attempts after the refusal", UCB_VITEM_ADMITTED, 0, 1, 8, NULL,
    OVER },
  { UCB_VPROP_P2, "of 8 attempts refused with the errno", UCB_VITEM_REFUSED, 8, 7, 0, NULL,
    "wrong errno" },
  { UCB_VPROP_P2, "SigQ of the agent after the refusals", UCB_VITEM_COUNTER, 4, 5, 0, NULL, LEAK },
  { UCB_VPROP_P2, "level-1 SigQ after the refusals", UCB_VITEM_COUNTER, 4, 3, 0, NULL, UNDER },
  { UCB_VPROP_P2, "level 1 after: admitted with own raised", UCB_VITEM_READMITTED, 6, 5, 261, NULL,
    LEAK },
  { UCB_VPROP_P3, "most admitted in 8 fill/release rounds", UCB_VITEM_ADMITTED, 4, 3, 261, NULL,
    "early denial" },
  { UCB_VPROP_P3, "fewest admitted in 8 fill/release rounds", UCB_VITEM_READMITTED, 4, 3, 261, NULL,
    LEAK },
  { UCB_VPROP_P3, "errno after the holder's exit", UCB_VITEM_ERRNO, EAGAIN, 0, 0, NULL, OVER },
  { UCB_VPROP_P3, "observer SigQ after the holder's exit", UCB_VITEM_COUNTER, 0, 1, 0, NULL, LEAK },
  { UCB_VPROP_P3, "observer SigQ after the holder's exit", UCB_VITEM_COUNTER, 0, -1, 0, NULL,
    UNDER },
  { UCB_VPROP_P3, "rounds ended by the refusal", UCB_VITEM_REFUSED, 8, 7, 0, NULL, "wrong errno" },
  { UCB_VPROP_P3, "(c) queue again once unlinked and closed", UCB_VITEM_ERRNO_RELEASED, 0, EMFILE,
    0, NULL, LEAK },
  { UCB_VPROP_P4, "charges admitted under RLIM_INFINITY", UCB_VITEM_ADMITTED, 64, 4, 0, NULL,
    "early denial" },
  { UCB_VPROP_P4, "errno under RLIM_INFINITY (none)", UCB_VITEM_ERRNO, 0, EAGAIN, 0, NULL,
    "early denial" },
  { UCB_VPROP_P4, "admitted at the finite bound beside it", UCB_VITEM_ADMITTED, 4, 5, 261, NULL,
    OVER },
  { UCB_VPROP_P5, "admitted to B while A holds them", UCB_VITEM_ADMITTED, 5, 6, 261, NULL, OVER },
  { UCB_VPROP_P5, "admitted to B once A released", UCB_VITEM_READMITTED, 7, 6, 261, NULL, LEAK },
  { UCB_VPROP_P5, "observer SigQ: the sum of A and B", UCB_VITEM_COUNTER, 7, 6, 0, NULL, UNDER },
  { UCB_VPROP_P6, "queued in B (owner U2) while A is full", UCB_VITEM_ADMITTED, 10, 0, 266, NULL,
    "early denial" },
  { UCB_VPROP_P6, "owner U2 (U1 full): children forked", UCB_VITEM_ADMITTED, 9, 10, 266, NULL,
    OVER },
  { UCB_VPROP_P6, "10/10: queued in B after A drained", UCB_VITEM_READMITTED, 6, 5, 263, NULL,
    LEAK },
  { UCB_VPROP_P7, "SigQ after legacy sends and kill(RT)", UCB_VITEM_ADMITTED, 6, 7, 264, NULL,
    OVER },
  { UCB_VPROP_P7, "SigQ after kill(SIGUSR1): override", UCB_VITEM_ADMITTED, 6, 5, 263, NULL,
    "early denial" },
  { UCB_VPROP_P7, "tgkill(RT) at the limit", UCB_VITEM_ERRNO, EAGAIN, 0, 0, NULL, OVER },
  { UCB_VPROP_P7, "kill(SIGUSR1) at the limit", UCB_VITEM_ERRNO, 0, EAGAIN, 0, NULL,
    "early denial" },
  { UCB_VPROP_P7, "SHM_LOCK by the owner at soft 0", UCB_VITEM_ERRNO, EPERM, ENOMEM, 0, NULL,
    "wrong errno" },
  { UCB_VPROP_P7, "SigQ after draining everything", UCB_VITEM_COUNTER, 0, 1, 0, NULL, LEAK },
  { UCB_VPROP_P8, "most held at once racing, at most the room", UCB_VITEM_ADMITTED, 4, 5, 16, NULL,
    OVER },
  { UCB_VPROP_P8, "admitted after the race", UCB_VITEM_READMITTED, 4, 3, 261, NULL, LEAK },
  { UCB_VPROP_P8, "admitted after the race", UCB_VITEM_READMITTED, 4, 5, 261, NULL,
    OVER " after a release" },
  { UCB_VPROP_P8, "errno of the refusals racing", UCB_VITEM_ERRNO, EAGAIN, EINTR, 0, NULL,
    "wrong errno" },
  { UCB_VPROP_P8, "observer SigQ after the race", UCB_VITEM_COUNTER, 0, 1, 0, NULL, LEAK },
  { UCB_VPROP_P8, "observer SigQ after the race", UCB_VITEM_COUNTER, 0, -1, 0, NULL, UNDER },
  { UCB_VPROP_P9, "user namespaces after round 1's own level", UCB_VITEM_PINNED, 3, 1, 4,
    "of round 1's own-level agent (its N2 and N1 above it)",
    "pinned: 2 user namespaces of round "
    "1's own-level agent" },
  { UCB_VPROP_P9, "user namespaces after round 2's parent level", UCB_VITEM_PINNED, 3, 2, 4,
    "of round 2's parent-level agents", "pinned: 1 user namespace of round 2's" },
  { UCB_VPROP_P9, "user namespaces after round 1's own level", UCB_VITEM_PINNED, 3, 4, 4, "",
    OVER " of user namespaces" },
  { UCB_VPROP_P9, "user namespaces the room allows first", UCB_VITEM_ADMITTED, 3, 2, 4, NULL,
    "early denial" },
  { UCB_VPROP_P9, "errno past the room's allowance", UCB_VITEM_ERRNO, ENOSPC, 0, 0, NULL, OVER },
  { UCB_VPROP_P9, "admitted past the bounds in the rounds", UCB_VITEM_ADMITTED, 0, 2, 36, NULL,
    OVER },
  { UCB_VPROP_P9, "own-level refusals with the errno", UCB_VITEM_REFUSED, 36, 35, 0, NULL,
    "wrong errno" },
  { UCB_VPROP_NONE, "nested user ns within 10 s of the reaping", UCB_VITEM_PINNED, 1, 0, 0, NULL,
    "pinned: 1 user namespace (a ucounts or namespace reference not put) outlives" },
};

static void
one (struct ucb_vresult *r, const struct row *w)
{
  if (w->kind == UCB_VITEM_PINNED)
    ucb_vobserve_pinned (r, w->name, w->what, w->expected, w->observed, w->tries);
  else
    ucb_vobserve_count (r, w->name, w->kind, w->expected, w->observed, w->tries);
}

/* Each row alone, after an observation that matches: fail, naming its class right after
 * "NAME: expected E, observed O: ". */
static void
test_each_class (void)
{
  bool seen[UCB_VPROPS] = { false };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (rows); i++)
    {
      const struct row *w = &rows[i];
      struct ucb_vresult r;
      char why[UCB_VDETAIL_MAX], seen_text[64], head[UCB_VDETAIL_MAX];

      memset (&r, 0, sizeof r);
      ucb_vobserve (&r, "a match", UCB_VITEM_EXACT, 1, 1);
      one (&r, w);
      tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
      snprintf (head, sizeof head, "%s: expected %lld, observed %s: %s", w->name, w->expected,
                ucb_vitem_observed_text (&r.items[1], seen_text, sizeof seen_text), w->class);
      if (strncmp (why, head, strlen (head)) != 0)
        printf ("# %s: `%s`, expected it to begin `%s`\n", ucb_vprop_name (w->prop), why, head);
      tap_check (strncmp (why, head, strlen (head)) == 0);
      seen[w->prop] = true;
    }
  for (int p = UCB_VPROP_P1; p <= UCB_VPROP_P9; p++)
    tap_check (seen[p]);
}

/* The two misnamings of issue 36, word for word. */
static void
test_issue_lines (void)
{
  struct ucb_vresult r;
  char why[UCB_VDETAIL_MAX];

  memset (&r, 0, sizeof r);
  ucb_vobserve_count (&r, "SigQ after legacy sends and kill(RT)", UCB_VITEM_ADMITTED, 6, 7, 264);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "SigQ after legacy sends and kill(RT): expected 6, observed 7: "
                      "over-admission (limit bypass)");
  memset (&r, 0, sizeof r);
  ucb_vobserve_pinned (&r, "user namespaces after round 1's own level",
                       "of round 1's own-level agent (its N2 and N1 above it: a reference on "
                       "(N2, U) not put)",
                       3, 1, 4);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "user namespaces after round 1's own level: expected 3, observed 1: pinned: "
                      "2 user namespaces of round 1's own-level agent (its N2 and N1 above it: a "
                      "reference on (N2, U) not put) outlive their tasks: each stays allocated "
                      "and counted against max_user_namespaces for good (repeated, the owner can "
                      "make none)");
  /* A count of all the room's tries: "> cap", over-admission of namespaces. */
  memset (&r, 0, sizeof r);
  ucb_vobserve_pinned (&r, "user namespaces the frame allows, room closed", "", 4, 5, 5);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "user namespaces the frame allows, room closed: expected 4, observed > 4 "
                      "(the harness's cap): over-admission (limit bypass) of user namespaces: the "
                      "room's count fell below what lives (underflow)");
}

/* Several fail: an over-admitted count is named whatever comes before it, then a call admitted
 * where its refusal was due, then the first of the rest. */
static void
test_order (void)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (rows); i++)
    {
      struct ucb_vresult r;
      char why[UCB_VDETAIL_MAX];

      if (strncmp (rows[i].class, OVER, strlen (OVER)) == 0)
        continue;
      memset (&r, 0, sizeof r);
      one (&r, &rows[i]);
      ucb_vobserve (&r, "errno at the bound", UCB_VITEM_ERRNO, EAGAIN, 0);
      ucb_vobserve_count (&r, "admitted at the bound", UCB_VITEM_ADMITTED, 4, 6, 261);
      tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
      tap_check_str (why, "admitted at the bound: expected 4, observed 6: " OVER);
      r.items[2].observed = 4; /* the count right: the errno's over-admission */
      tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
      tap_check_str (why, "errno at the bound: expected 11, observed 0: " OVER
                          ": admitted where refused was due");
      r.items[1].observed = EAGAIN; /* only the row's own: its class */
      tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
      tap_check (strstr (why, rows[i].class) != NULL);
    }
}

/* A known bug's value is the known bug, whatever the kind; a leak beside it still fails. */
static void
test_known_bug (void)
{
  static const enum ucb_vkind kinds[]
      = { UCB_VITEM_ADMITTED, UCB_VITEM_READMITTED, UCB_VITEM_COUNTER, UCB_VITEM_PINNED };
  char why[UCB_VDETAIL_MAX];

  for (size_t k = 0; k < UCB_ARRAY_SIZE (kinds); k++)
    {
      struct ucb_vresult r;

      memset (&r, 0, sizeof r);
      ucb_vobserve_bug (&r, UCB_VBUG_MEMLOCK_UNITS, "locks", kinds[k], 0, 16, 16);
      tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_KNOWN_BUG);
      tap_check_str (why, "locks: intended 0, observed 16 (the known bug)");
      ucb_vobserve (&r, "SigQ after the drain", UCB_VITEM_COUNTER, 0, 1);
      tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
      tap_check_str (why, "SigQ after the drain: expected 0, observed 1: " LEAK
                          "a release or refusal did not return what was charged)");
    }
}

/* Every kind and direction names a class; "mismatch" is EXACT's alone. */
static void
test_mismatch_only_exact (void)
{
  for (int kind = UCB_VITEM_ADMITTED; kind <= UCB_VITEM_PINNED; kind++)
    for (int d = -1; d <= 1; d += 2)
      {
        struct ucb_vresult r;
        char why[UCB_VDETAIL_MAX];
        bool errno_kind = kind == UCB_VITEM_ERRNO || kind == UCB_VITEM_ERRNO_RELEASED;
        long long expected = errno_kind ? (d < 0 ? 0 : EAGAIN) : 4;
        long long observed = errno_kind ? (d < 0 ? EAGAIN : 0) : 4 + d;

        if (kind == UCB_VITEM_REFUSED && d > 0)
          continue; /* more refused than tried: nothing to name */
        memset (&r, 0, sizeof r);
        ucb_vobserve (&r, "item", (enum ucb_vkind) kind, expected, observed);
        tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
        if ((strstr (why, ": mismatch") != NULL) != (kind == UCB_VITEM_EXACT))
          printf ("# kind %d, %s: `%s`\n", kind, d < 0 ? "fewer" : "more", why);
        tap_check ((strstr (why, ": mismatch") != NULL) == (kind == UCB_VITEM_EXACT));
      }
}

static const struct tap_test tests[] = {
  { "each property's classes: over-admission, early denial, leak, underflow, pinned, errno",
    test_each_class },
  { "the misnamings of issue 36: ULIM-08's kill(RT), P9's pinned namespaces", test_issue_lines },
  { "several fail: an over-admitted count first, then an admitted call", test_order },
  { "a known bug's value stays the known bug, whatever the kind", test_known_bug },
  { "every kind names a class; mismatch is EXACT's alone", test_mismatch_only_exact },
};

TAP_MAIN (tests)
