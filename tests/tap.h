/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h - a tiny TAP producer for the unit tests: a table of tests, the plan computed from it. */
#ifndef UCB_TAP_H
#define UCB_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_test
{
  const char *name;
  void (*fn) (void);
};

static int tap_failed_checks;
static const char *tap_skip_reason; /* set by a test that cannot run here */

#define tap_skip(why) (tap_skip_reason = (why))
/* Before tap_run: the program's own setup failed, so every test is a SKIP for `why`. */
static const char *tap_skip_all_reason;
#define tap_skip_all(why) (tap_skip_all_reason = (why))

/* A failed check: "# FILE:LINE: what" and one more failure counted. */
static inline void __attribute__ ((format (printf, 3, 4)))
tap_fail (const char *file, int line, const char *fmt, ...)
{
  va_list ap;

  printf ("# %s:%d: ", file, line);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  tap_failed_checks++;
}

#define tap_check(cond)                                                                            \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        tap_fail (__FILE__, __LINE__, "check failed: %s", #cond);                                  \
    }                                                                                              \
  while (0)

/* A check the rest of the test builds on: when it fails, the test ends there. */
#define tap_require(cond)                                                                          \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          tap_fail (__FILE__, __LINE__, "required check failed: %s", #cond);                       \
          return;                                                                                  \
        }                                                                                          \
    }                                                                                              \
  while (0)

#define tap_check_int(a, op, b)                                                                    \
  do                                                                                               \
    {                                                                                              \
      long long _a = (long long) (a), _b = (long long) (b);                                        \
      if (!(_a op _b))                                                                             \
        tap_fail (__FILE__, __LINE__, "%s %s %s: %lld vs %lld", #a, #op, #b, _a, _b);              \
    }                                                                                              \
  while (0)

#define tap_check_near(a, b, eps)                                                                  \
  do                                                                                               \
    {                                                                                              \
      double _a = (a), _b = (b);                                                                   \
      if (!(fabs (_a - _b) <= (eps)))                                                              \
        tap_fail (__FILE__, __LINE__, "%s ~ %s: %.9g vs %.9g", #a, #b, _a, _b);                    \
    }                                                                                              \
  while (0)

#define tap_check_str(a, b)                                                                        \
  do                                                                                               \
    {                                                                                              \
      const char *_a = (a), *_b = (b);                                                             \
      if (_a == NULL || _b == NULL || strcmp (_a, _b) != 0)                                        \
        tap_fail (__FILE__, __LINE__, "%s == %s: \"%s\" vs \"%s\"", #a, #b, _a ? _a : "(null)",    \
                  _b ? _b : "(null)");                                                             \
    }                                                                                              \
  while (0)

/* Run every test of the table; one TAP line each.  Exit status 1 if any failed. */
static inline int
tap_run (const struct tap_test *tests, size_t n)
{
  int failed = 0;

  printf ("TAP version 13\n1..%zu\n", n);
  for (size_t i = 0; i < n; i++)
    {
      int before = tap_failed_checks;
      tap_skip_reason = tap_skip_all_reason;
      if (tap_skip_all_reason == NULL)
        tests[i].fn ();
      if (tap_failed_checks == before && tap_skip_reason)
        printf ("ok %zu - %s # SKIP %s\n", i + 1, tests[i].name, tap_skip_reason);
      else if (tap_failed_checks == before)
        printf ("ok %zu - %s\n", i + 1, tests[i].name);
      else
        {
          printf ("not ok %zu - %s\n", i + 1, tests[i].name);
          failed++;
        }
      fflush (stdout);
    }
  return failed ? 1 : 0;
}

#define TAP_MAIN(table)                                                                            \
  int main (void) { return tap_run (table, sizeof (table) / sizeof ((table)[0])); }

#endif
