/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uid-claim.h - the case uids of a verify integration test program: claimed once, as
 * `ucbench verify` claims its own (ucb_uids_claim: a range free of passwd entries and processes,
 * held by no other ucbench, locked in /run/ucbench/uids.lock for the program's life), so that
 * the same test in two `make check` at once, or verify.py beside it, never shares a case's
 * uids: a shared uid made one case an error.  Header-only: each test program is one
 * translation unit. */
#ifndef UCB_UID_CLAIM_H
#define UCB_UID_CLAIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/error.h"
#include "host/uidlock.h"

/* The program's `span` uids from `want` (the next free range on its grid when those are not
 * free), claimed on first use; each test takes its part at `offset`.  Where no range can be
 * claimed it says why and uses `want`, as before there was a lock. */
static inline uid_t
test_uids (uint64_t want, uint64_t span, uint64_t offset)
{
  static uid_t base;
  static bool claimed;

  if (!claimed)
    {
      struct ucb_uid_claim c = {
        .what = "test uid range",
        .option = "the test's base",
        .base = want,
        .width = span,
        .highest = UCB_MAX_UID,
        .movable = true,
        .procs_per_case = true,
      };
      ucb_error_t err = NULL;

      base = (uid_t) want;
      if (ucb_uids_claim (&c, &err) < 0)
        {
          printf ("# no uid range claimed (%s): %llu-%llu used unlocked\n", err->msg,
                  (unsigned long long) want, (unsigned long long) (want + span - 1));
          ucb_error_free (&err);
        }
      else
        {
          base = (uid_t) c.base;
          if (c.moved)
            printf ("# %s\n", c.moved);
          if (c.unlocked)
            printf ("# no uid lock: %s\n", c.unlocked);
        }
      ucb_uid_claim_free (&c);
      claimed = true;
    }
  return base + (uid_t) offset;
}

#endif
