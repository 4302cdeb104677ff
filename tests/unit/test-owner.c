/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-owner.c - owner uids per --owner mode, and the uids a run may use: sorted, unique, uid 0
 * and the caller's own left out, the default range (shared, distinct) as the strict subset. */
#include "config.h"

#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "engine/owner.h"

static void
test_uid_per_mode (void)
{
  struct ucb_owner_mode m = { .kind = UCB_OWNER_SHARED };

  for (unsigned i = 0; i < 5; i++)
    tap_check_int (ucb_owner_uid (&m, 2100000000u, i), ==, 2100000000u);
  m.kind = UCB_OWNER_DISTINCT;
  tap_check_int (ucb_owner_uid (&m, 2100000000u, 0), ==, 2100000000u);
  tap_check_int (ucb_owner_uid (&m, 2100000000u, 7), ==, 2100000007u);
  tap_check_int (ucb_owner_uid (&m, 500, 4095), ==, 4595);
  m.kind = UCB_OWNER_ROOT;
  tap_check_int (ucb_owner_uid (&m, 500, 3), ==, 0);
  m.kind = UCB_OWNER_SELF;
  tap_check_int (ucb_owner_uid (&m, 500, 3), ==, getuid ());
  m = (struct ucb_owner_mode){ UCB_OWNER_UID, 1000, 1000 };
  tap_check_int (ucb_owner_uid (&m, 500, 0), ==, 1000);
  tap_check_int (ucb_owner_uid (&m, 500, 9), ==, 1000);
  /* a range is assigned round-robin: 10 11 12 10 11 ... */
  m = (struct ucb_owner_mode){ UCB_OWNER_RANGE, 10, 12 };
  tap_check_int (ucb_owner_uid (&m, 500, 0), ==, 10);
  tap_check_int (ucb_owner_uid (&m, 500, 2), ==, 12);
  tap_check_int (ucb_owner_uid (&m, 500, 3), ==, 10);
  tap_check_int (ucb_owner_uid (&m, 500, 7), ==, 11);
  m.hi = 10; /* a range of one */
  tap_check_int (ucb_owner_uid (&m, 500, 5), ==, 10);
  m.kind = (enum ucb_owner_kind) 42;
  tap_check_int (ucb_owner_uid (&m, 500, 0), ==, (uid_t) -1);
}

static void
test_default_range (void)
{
  static const struct
  {
    enum ucb_owner_kind kind;
    bool is_default;
  } cases[] = {
    { UCB_OWNER_SHARED, true }, { UCB_OWNER_DISTINCT, true }, { UCB_OWNER_ROOT, false },
    { UCB_OWNER_UID, false },   { UCB_OWNER_RANGE, false },   { UCB_OWNER_SELF, false },
  };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (cases); i++)
    {
      struct ucb_owner_mode m = { .kind = cases[i].kind, .lo = 5, .hi = 6 };
      tap_check_int (ucb_owner_is_default_range (&m), ==, cases[i].is_default);
    }
}

/* Collect for `owners` x the largest of `containers`; compare with the expected lists. */
static void
expect_collect (struct ucb_owner_mode *owners, size_t nowners, unsigned *containers,
                size_t ncontainers, uint32_t base, const uid_t *all, size_t nall,
                const uid_t *strict, size_t nstrict)
{
  struct ucb_plan o = { .owners = owners,
                        .n_owners = nowners,
                        .containers = containers,
                        .n_containers = ncontainers,
                        .uid_base = base };
  cleanup_free uid_t *got_all = NULL, *got_strict = NULL;
  size_t n_all = 99, n_strict = 99;

  ucb_owner_collect (&o, &got_all, &n_all, &got_strict, &n_strict);
  tap_check_int (n_all, ==, nall);
  tap_check_int (n_strict, ==, nstrict);
  for (size_t i = 0; i < nall && i < n_all; i++)
    tap_check_int (got_all[i], ==, all[i]);
  for (size_t i = 0; i < nstrict && i < n_strict; i++)
    tap_check_int (got_strict[i], ==, strict[i]);
  if (nall == 0)
    tap_check (got_all == NULL);
  if (nstrict == 0)
    tap_check (got_strict == NULL);
}

static void
test_collect (void)
{
  {
    /* distinct over --containers 3,1: the largest count decides, base.. base+2 */
    struct ucb_owner_mode m[] = { { .kind = UCB_OWNER_DISTINCT } };
    unsigned c[] = { 3, 1 };
    static const uid_t want[] = { 500, 501, 502 };
    expect_collect (m, 1, c, 2, 500, want, 3, want, 3);
  }
  {
    /* shared and distinct overlap at the base: listed once */
    struct ucb_owner_mode m[] = { { .kind = UCB_OWNER_SHARED }, { .kind = UCB_OWNER_DISTINCT } };
    unsigned c[] = { 2 };
    static const uid_t want[] = { 100, 101 };
    expect_collect (m, 2, c, 1, 100, want, 2, want, 2);
  }
  {
    /* root and self: nothing to check (uid 0; your own uid is of course in use) */
    struct ucb_owner_mode m[] = { { .kind = UCB_OWNER_ROOT }, { .kind = UCB_OWNER_SELF } };
    unsigned c[] = { 4 };
    expect_collect (m, 2, c, 1, 100, NULL, 0, NULL, 0);
  }
  {
    /* explicit uid and ranges: in `all`, not strict; sorted across modes, each uid once (the
     * ranges overlap, and the range of two cycles over four containers) */
    struct ucb_owner_mode m[] = { { .kind = UCB_OWNER_DISTINCT },
                                  { UCB_OWNER_RANGE, 1003, 1003 },
                                  { UCB_OWNER_UID, 1000, 1000 },
                                  { UCB_OWNER_RANGE, 1002, 1003 } };
    unsigned c[] = { 1, 4 };
    static const uid_t all[] = { 1000, 1002, 1003, 2000, 2001, 2002, 2003 };
    static const uid_t strict[] = { 2000, 2001, 2002, 2003 };
    expect_collect (m, 4, c, 2, 2000, all, 7, strict, 4);
  }
  {
    /* a range that includes uid 0 leaves 0 out */
    struct ucb_owner_mode m[] = { { UCB_OWNER_RANGE, 0, 1 } };
    unsigned c[] = { 3 };
    static const uid_t all[] = { 1 };
    expect_collect (m, 1, c, 1, 2000, all, 1, NULL, 0);
  }
  {
    /* distinct from base 0: container 0 would be root, left out */
    struct ucb_owner_mode m[] = { { .kind = UCB_OWNER_DISTINCT } };
    unsigned c[] = { 3 };
    static const uid_t want[] = { 1, 2 };
    expect_collect (m, 1, c, 1, 0, want, 2, want, 2);
  }
  {
    /* no containers: nothing */
    struct ucb_owner_mode m[] = { { .kind = UCB_OWNER_DISTINCT } };
    expect_collect (m, 1, NULL, 0, 2000, NULL, 0, NULL, 0);
  }
}

static const struct tap_test tests[] = {
  { "owner uid of container i for every --owner mode", test_uid_per_mode },
  { "shared and distinct draw from the default range, the rest do not", test_default_range },
  { "uids a run may use: sorted, unique, 0 and self left out, strict subset", test_collect },
};

TAP_MAIN (tests)
