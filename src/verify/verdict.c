/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verdict.c - a case's observations and its verdict (verify.h): what is recorded, and the one
 * place that names the class of a mismatch (over-admission, early denial, leak, pinned,
 * underflow, wrong errno), so that every output says the same of the same observations. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verify/probe.h"
#include "verify/verify.h"

/* Record `x`, complete before it counts: the parent may judge a case it stopped at any moment
 * (a timeout), and must never see an observation without its cap or its known-bug value. */
static void
add_item (struct ucb_vresult *r, const struct ucb_vitem *x)
{
  const char *name = x->name;

  if (r->n >= UCB_VITEMS_MAX)
    {
      snprintf (r->error, sizeof r->error, "internal: more than %d observations", UCB_VITEMS_MAX);
      return;
    }
  for (size_t i = 0; i < r->n; i++)
    if (strcmp (r->items[i].name, name) == 0)
      {
        /* Names key the JSON objects: a repeated one would hide a value. */
        snprintf (r->error, sizeof r->error, "internal: observation `%s` recorded twice", name);
        return;
      }
  r->items[r->n] = *x;
  __atomic_store_n (&r->n, r->n + 1, __ATOMIC_RELEASE);
  ucb_vprogress ();
}

static struct ucb_vitem
item (const char *name, enum ucb_vkind kind, long long expected, long long observed,
      long long tries)
{
  struct ucb_vitem it
      = { .kind = kind, .expected = expected, .observed = observed, .tries = tries };

  snprintf (it.name, sizeof it.name, "%s", name);
  return it;
}

void
ucb_vobserve (struct ucb_vresult *r, const char *name, enum ucb_vkind kind, long long expected,
              long long observed)
{
  ucb_vobserve_count (r, name, kind, expected, observed, 0);
}

void
ucb_vobserve_count (struct ucb_vresult *r, const char *name, enum ucb_vkind kind,
                    long long expected, long long observed, long long tries)
{
  struct ucb_vitem it = item (name, kind, expected, observed, tries);

  add_item (r, &it);
}

void
ucb_vobserve_fill (struct ucb_vresult *r, const char *name, enum ucb_vkind kind, long long expected,
                   long long count, long long tries, const char *errno_name,
                   long long errno_expected, long long errnum)
{
  if (name)
    ucb_vobserve_count (r, name, kind, expected, count, tries);
  if (errno_name)
    ucb_vobserve (r, errno_name, UCB_VITEM_ERRNO, errno_expected, errnum);
}

bool
ucb_vitem_capped (const struct ucb_vitem *it)
{
  /* A fill of exactly the expected load (tries == expected) that is all admitted is the
   * expectation, not a cap. */
  return it->tries > it->expected && it->observed >= it->tries;
}

const char *
ucb_vitem_observed_text (const struct ucb_vitem *it, char *buf, size_t len)
{
  if (ucb_vitem_capped (it))
    snprintf (buf, len, "> %lld (the harness's cap)", it->tries - 1);
  else
    snprintf (buf, len, "%lld", it->observed);
  return buf;
}

void
ucb_vobserve_bug (struct ucb_vresult *r, enum ucb_vbug bug, const char *name, enum ucb_vkind kind,
                  long long expected, long long observed, long long bug_value)
{
  ucb_vobserve_bug_count (r, bug, name, kind, expected, observed, bug_value, 0);
}

void
ucb_vobserve_bug_count (struct ucb_vresult *r, enum ucb_vbug bug, const char *name,
                        enum ucb_vkind kind, long long expected, long long observed,
                        long long bug_value, long long tries)
{
  struct ucb_vitem it = item (name, kind, expected, observed, tries);

  it.has_bug_value = true;
  it.bug_value = bug_value;
  it.bug = bug;
  add_item (r, &it);
}

void
ucb_vskip (struct ucb_vresult *r, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (r->skip, sizeof r->skip, fmt, ap);
  va_end (ap);
}

void
ucb_vobserve_pinned (struct ucb_vresult *r, const char *name, const char *what, long long expected,
                     long long observed, long long tries)
{
  struct ucb_vitem it = item (name, UCB_VITEM_PINNED, expected, observed, tries);

  snprintf (it.what, sizeof it.what, "%s", what ? what : "");
  add_item (r, &it);
}

/* Whether `it` is a count of admissions (more than expected: more admitted than the bound). */
static bool
is_count (const struct ucb_vitem *it)
{
  return it->kind == UCB_VITEM_ADMITTED || it->kind == UCB_VITEM_READMITTED
         || it->kind == UCB_VITEM_PINNED;
}

static bool
is_errno (const struct ucb_vitem *it)
{
  return it->kind == UCB_VITEM_ERRNO || it->kind == UCB_VITEM_ERRNO_RELEASED;
}

/* An admitted count beyond what any known kernel admits: the intended value, and a known bug's
 * where the case has one.  A count between the intended and a known bug's looser value is
 * stricter than the stock kernel: an early denial, never a bypass. */
static bool
over_admitted (const struct ucb_vitem *it)
{
  return is_count (it) && it->observed > it->expected
         && !(it->has_bug_value && it->observed <= it->bug_value);
}

/* A call that had to be refused succeeded. */
static bool
errno_admitted (const struct ucb_vitem *it)
{
  return is_errno (it) && it->expected != 0 && it->observed == 0;
}

/* The class of a pinned count: how many user namespaces outlive their tasks, which, and why it
 * matters. */
static void
pinned_class (const struct ucb_vitem *it, char *buf, size_t len)
{
  long long n = it->expected - it->observed;

  snprintf (buf, len,
            "pinned: %lld user namespace%s %s %s: each stays allocated and counted against "
            "max_user_namespaces for good (repeated, the owner can make none)",
            n, n == 1 ? "" : "s",
            it->what[0] ? it->what : "(a ucounts or namespace reference not put)",
            n == 1 ? "outlives its tasks" : "outlive their tasks");
}

/* The class of a mismatch of `it` (observed != expected, not the known bug's value), by its kind
 * and direction (enum ucb_vkind): the one place that names it. */
static const char *
mismatch_class (const struct ucb_vitem *it, char *buf, size_t len)
{
  bool more = it->observed > it->expected;

  if (over_admitted (it))
    return it->kind == UCB_VITEM_READMITTED
               ? "over-admission (limit bypass) after a release: it returned more than was "
                 "charged (underflow)"
           : it->kind == UCB_VITEM_PINNED
               ? "over-admission (limit bypass) of user namespaces: the room's count fell below "
                 "what lives (underflow)"
               : "over-admission (limit bypass)";
  if (errno_admitted (it))
    return "over-admission (limit bypass): admitted where refused was due";
  switch (it->kind)
    {
    case UCB_VITEM_ADMITTED:
      return "early denial";
    case UCB_VITEM_READMITTED:
      return more ? "early denial" : "leak (a release did not return what was charged)";
    case UCB_VITEM_PINNED:
      pinned_class (it, buf, len);
      return buf;
    case UCB_VITEM_COUNTER:
      return more ? "leak (a release or refusal did not return what was charged)"
                  : "underflow (the count fell below what is charged)";
    case UCB_VITEM_ERRNO:
      return it->expected == 0 ? "early denial" : "wrong errno";
    case UCB_VITEM_ERRNO_RELEASED:
      return it->expected == 0 ? "leak (refused after a release that had to make room)"
                               : "wrong errno";
    case UCB_VITEM_REFUSED:
      return more ? "mismatch" : "wrong errno";
    case UCB_VITEM_EXACT:
    default:
      return "mismatch";
    }
}

/* The observation that makes `r` a known bug when nothing worse is there: the last whose value
 * is a known bug's (over-admitted counts never are: over_admitted excludes them). */
static const struct ucb_vitem *
bug_item (const struct ucb_vresult *r)
{
  const struct ucb_vitem *bug = NULL;

  for (size_t i = 0; i < r->n; i++)
    if (r->items[i].observed != r->items[i].expected && r->items[i].has_bug_value
        && r->items[i].observed == r->items[i].bug_value)
      bug = &r->items[i];
  return bug;
}

const struct ucb_vbug_info *
ucb_vknown_bug (const struct ucb_vresult *r)
{
  const struct ucb_vitem *it = bug_item (r);

  return it && it->bug > UCB_VBUG_NONE && it->bug < UCB_VBUG_N ? &ucb_vbugs[it->bug] : NULL;
}

/* The order in which mismatches are named: 0 an over-admitted count, 1 a call admitted where
 * the refusal was due, 2 anything else. */
static int
judge_rank (const struct ucb_vitem *it)
{
  return over_admitted (it) ? 0 : errno_admitted (it) ? 1 : 2;
}

enum ucb_verdict
ucb_vjudge (const struct ucb_vresult *r, char *why, size_t whylen)
{
  const struct ucb_vitem *bug = NULL;

  why[0] = '\0';
  if (r->error[0])
    {
      snprintf (why, whylen, "%s", r->error);
      return UCB_VERDICT_ERROR;
    }
  if (r->skip[0])
    {
      snprintf (why, whylen, "%s", r->skip);
      return UCB_VERDICT_SKIP;
    }
  if (r->n == 0)
    {
      snprintf (why, whylen, "no observation recorded");
      return UCB_VERDICT_ERROR;
    }
  /* Over-admission first: it is the security failure, whatever else went wrong; a count says
   * how far, so it comes before an errno that says only that. */
  for (int rank = 0; rank < 3; rank++)
    for (size_t i = 0; i < r->n; i++)
      {
        const struct ucb_vitem *it = &r->items[i];
        char seen[64], known[64] = "", class[UCB_VDETAIL_MAX];

        if (it->observed == it->expected || judge_rank (it) != rank)
          continue;
        if (it->has_bug_value && it->observed == it->bug_value)
          continue; /* bug_item's */
        /* Neither the intended value nor the known bug's: what it saw, against both. */
        if (it->has_bug_value)
          snprintf (known, sizeof known, " (the known bug: %lld)", it->bug_value);
        snprintf (why, whylen, "%s: expected %lld%s, observed %s: %s", it->name, it->expected,
                  known, ucb_vitem_observed_text (it, seen, sizeof seen),
                  mismatch_class (it, class, sizeof class));
        return UCB_VERDICT_FAIL;
      }
  if ((bug = bug_item (r)) != NULL)
    {
      snprintf (why, whylen, "%s: intended %lld, observed %lld (the known bug)", bug->name,
                bug->expected, bug->observed);
      return UCB_VERDICT_KNOWN_BUG;
    }
  return UCB_VERDICT_PASS;
}

const char *
ucb_verdict_name (enum ucb_verdict v)
{
  switch (v)
    {
    case UCB_VERDICT_PASS:
      return "pass";
    case UCB_VERDICT_FAIL:
      return "fail";
    case UCB_VERDICT_SKIP:
      return "skip";
    case UCB_VERDICT_ERROR:
      return "error";
    case UCB_VERDICT_KNOWN_BUG:
      return "known-bug";
    default:
      return "error";
    }
}
