/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-rlimits.c - the soft limits a point's owners set: --limit, --headroom near|far against
 * this process's own (known) rlimits, the hard-limit refusals, and rlimit_max per level.
 * The expected numbers are worked out by hand from soft-limits.h: near = owner containers x tasks x
 * the workload's peak, plus for NPROC the container's own processes (depth + 1 + tasks each, or
 * depth + 1 when its one task is its init, 1 at depth 1). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/doc.h"
#include "core/util.h"
#include "engine/soft-limits.h"
#include "engine/sweep.h"
#include "engine/workload.h"

enum
{
  SIG,
  MQ,
  MEMLOCK,
  NPROC
};

/* The limits this process runs with during the tests (soft, hard), index = log2 of the bit. */
static const uint64_t host_soft[UCB_RLS] = { 100, 10000, 65536, 200 };
static const uint64_t host_hard[UCB_RLS] = { 1000, 100000, 1000000, 2000 };
static const int host_res[UCB_RLS]
    = { RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_MEMLOCK, RLIMIT_NPROC };

static const struct ucb_workload wl_sig
    = { .name = "t-sig", .rlimits = UCB_RLIM_SIGPENDING, .peak = 3 };
static const struct ucb_workload wl_five
    = { .name = "t-five", .rlimits = UCB_RLIM_SIGPENDING, .peak = 5 };
static const struct ucb_workload wl_nproc
    = { .name = "t-nproc", .rlimits = UCB_RLIM_NPROC, .peak = 2 };
static const struct ucb_workload wl_none = { .name = "t-none", .rlimits = UCB_RLIM_NONE };

static struct ucb_point
point (const struct ucb_workload *w, enum ucb_owner_kind kind, unsigned containers, unsigned tasks,
       unsigned depth)
{
  struct ucb_point pt = { .workload = w, .containers = containers, .tasks = tasks, .depth = depth };
  pt.owner.kind = kind;
  return pt;
}

/* ucb_limits_for_point (o, pt, pl) succeeds; if not, said with the error. */
static bool
limits_ok (const struct ucb_plan *o, const struct ucb_point *pt, struct ucb_point_limits *pl)
{
  ucb_error_t err = NULL;
  int r = ucb_limits_for_point (o, pt, pl, &err);

  tap_check_int (r, ==, 0);
  if (r < 0)
    printf ("# unexpected: %s\n", err->msg);
  ucb_error_free (&err);
  return r == 0;
}

/* The soft limit resolved for `bit` at this point under `o`, or -1 (with the error printed). */
static long long
soft_for (const struct ucb_plan *o, const struct ucb_point *pt, unsigned b, const char *source)
{
  struct ucb_point_limits pl;

  if (!limits_ok (o, pt, &pl))
    return -1;
  tap_check_str (pl.l[b].source, source);
  tap_check_int (pl.l[b].hard, ==, host_hard[b]);
  return (long long) pl.l[b].soft;
}

static void
test_host (void)
{
  struct ucb_plan o = { .headroom = UCB_HEADROOM_HOST };
  struct ucb_point pt = point (&wl_sig, UCB_OWNER_SHARED, 5, 2, 1);
  struct ucb_point_limits pl;

  limits_ok (&o, &pt, &pl);
  for (unsigned b = 0; b < UCB_RLS; b++)
    {
      tap_check_int (ucb_rl_resource (b), ==, host_res[b]);
      tap_check_int (pl.l[b].soft, ==, host_soft[b]);
      tap_check_int (pl.l[b].hard, ==, host_hard[b]);
      tap_check_str (pl.l[b].source, "host");
    }
  tap_check_int (pl.nset, ==, 0); /* inherited: nothing for the owner to set */
  /* near on a workload that charges no rlimit changes nothing either */
  o.headroom = UCB_HEADROOM_NEAR;
  pt.workload = &wl_none;
  limits_ok (&o, &pt, &pl);
  tap_check_int (pl.nset, ==, 0);
  tap_check_int (pl.l[SIG].soft, ==, 100);
}

/* host/rlimit.h: one name and resource per rlimit, parsed back in any case, "none" apart. */
static void
test_names (void)
{
  static const char *const names[UCB_RLS] = { "SIGPENDING", "MSGQUEUE", "MEMLOCK", "NPROC" };
  enum ucb_rl rl = UCB_RL_NONE;

  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    {
      char lower[16];
      size_t i = 0;

      tap_check_str (ucb_rl_name (b), names[b]);
      tap_check_int (ucb_rl_resource (b), ==, host_res[b]);
      tap_check (ucb_rl_parse (names[b], &rl) && rl == b);
      for (; names[b][i] && i < sizeof lower - 1; i++)
        lower[i] = (char) (names[b][i] - 'A' + 'a');
      lower[i] = '\0';
      tap_check (ucb_rl_parse (lower, &rl) && rl == b);
      tap_check_int (ucb_rl_first (UCB_RLIM_BIT (b)), ==, b);
    }
  tap_check_str (ucb_rl_name (UCB_RL_NONE), "none");
  tap_check_str (ucb_rl_name ((enum ucb_rl) 99), "none");
  tap_check_int (ucb_rl_resource (UCB_RL_NONE), ==, -1);
  tap_check (ucb_rl_parse ("None", &rl) && rl == UCB_RL_NONE);
  rl = UCB_RL_NPROC;
  tap_check (!ucb_rl_parse ("NOFILE", &rl) && rl == UCB_RL_NPROC);
  tap_check (!ucb_rl_parse ("", &rl));
  tap_check_int (ucb_rl_first (UCB_RLIM_NONE), ==, UCB_RL_NONE);
  tap_check_int (ucb_rl_first (UCB_RLIM_NPROC | UCB_RLIM_MSGQUEUE), ==, UCB_RL_MSGQUEUE);
  /* What a workload says it charges: its rlimit's name, "none" for a control. */
  tap_check_str (ucb_workload_counter (&wl_nproc), "NPROC");
  tap_check_str (ucb_workload_counter (&wl_none), "none");
}

static void
test_near (void)
{
  struct ucb_plan o = { .headroom = UCB_HEADROOM_NEAR };
  struct ucb_point pt;
  struct ucb_point_limits pl;

  /* shared: every container on one owner, 5 x 2 tasks x peak 3 */
  pt = point (&wl_sig, UCB_OWNER_SHARED, 5, 2, 1);
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 30);
  tap_check_int (soft_for (&o, &pt, MQ, "host"), ==, 10000); /* not the workload's counter */
  pt.owner.kind = UCB_OWNER_ROOT;
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 30);
  pt.owner.kind = UCB_OWNER_SELF;
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 30);
  pt.owner = (struct ucb_owner_mode){ UCB_OWNER_UID, 1000, 1000 };
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 30);
  /* distinct: one container per owner, 1 x 2 x 3 */
  pt.owner.kind = UCB_OWNER_DISTINCT;
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 6);
  /* a range of 3 uids, 7 containers round-robin: 3 on the busiest, 3 x 2 x 3 */
  pt = point (&wl_sig, UCB_OWNER_RANGE, 7, 2, 1);
  pt.owner.lo = 10;
  pt.owner.hi = 12;
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 18);
  pt.containers = 6; /* exactly 2 each */
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 12);
  pt.owner.hi = 10; /* one uid: all 6 */
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 36);

  /* what the owner must set: exactly that one limit */
  pt = point (&wl_sig, UCB_OWNER_SHARED, 5, 2, 1);
  limits_ok (&o, &pt, &pl);
  tap_check_int (pl.nset, ==, 1);
  tap_check_int (pl.set[0].resource, ==, RLIMIT_SIGPENDING);
  tap_check_str (pl.set[0].name, "SIGPENDING");
  tap_check_int (pl.set[0].soft, ==, 30);
}

static void
test_near_nproc (void)
{
  struct ucb_plan o = { .headroom = UCB_HEADROOM_NEAR };
  struct ucb_point pt;

  /* 3 x 4 x 2 = 24 for the tasks' children, plus 3 x (depth 2 + 1 + 4 tasks) = 21 */
  pt = point (&wl_nproc, UCB_OWNER_SHARED, 3, 4, 2);
  tap_check_int (soft_for (&o, &pt, NPROC, "headroom near"), ==, 45);
  pt.depth = 0; /* 24 + 3 x (0 + 1 + 4) */
  tap_check_int (soft_for (&o, &pt, NPROC, "headroom near"), ==, 39);
  /* distinct, depth 1, one task: 1 x 1 x 2 + 1 x 1 (the owner is the task) */
  pt = point (&wl_nproc, UCB_OWNER_DISTINCT, 8, 1, 1);
  tap_check_int (soft_for (&o, &pt, NPROC, "headroom near"), ==, 3);
  /* with a pid namespace the task is not the init: 1 x 1 x 2 + 1 x (1 + 1 + 1) */
  pt.isolate = CLONE_NEWPID;
  tap_check_int (soft_for (&o, &pt, NPROC, "headroom near"), ==, 5);
  /* depth 3, one task, the init: 1 x 1 x 2 + 1 x (owner + 2 levels + task) */
  pt = point (&wl_nproc, UCB_OWNER_DISTINCT, 8, 1, 3);
  tap_check_int (soft_for (&o, &pt, NPROC, "headroom near"), ==, 6);
  /* the real fork workload (peak 1): 2 x 1 x 1 + 2 x 1 */
  pt = point (ucb_workload_find ("fork"), UCB_OWNER_SHARED, 2, 1, 1);
  tap_check (pt.workload != NULL);
  if (pt.workload)
    tap_check_int (soft_for (&o, &pt, NPROC, "headroom near"), ==, 4);
  /* SIGPENDING gets no process term */
  pt = point (&wl_sig, UCB_OWNER_SHARED, 3, 4, 2);
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 36);
}

static void
test_far_and_limit (void)
{
  struct ucb_plan o = { .headroom = UCB_HEADROOM_FAR };
  struct ucb_point pt = point (&wl_sig, UCB_OWNER_DISTINCT, 4, 1, 1);
  struct ucb_point_limits pl;

  tap_check_int (soft_for (&o, &pt, SIG, "headroom far"), ==, 1000);
  tap_check_int (soft_for (&o, &pt, NPROC, "host"), ==, 200);
  /* --limit wins over the headroom, and applies to counters the workload does not charge */
  o.limits[SIG] = (struct ucb_limit){ .set = true, .value = 77 };
  o.limits[MEMLOCK] = (struct ucb_limit){ .set = true, .value = 4096 };
  limits_ok (&o, &pt, &pl);
  tap_check_int (pl.l[SIG].soft, ==, 77);
  tap_check_str (pl.l[SIG].source, "limit");
  tap_check_int (pl.l[MEMLOCK].soft, ==, 4096);
  tap_check_str (pl.l[MEMLOCK].source, "limit");
  tap_check_str (pl.l[MQ].source, "host");
  tap_check_int (pl.nset, ==, 2);
  tap_check_int (pl.set[0].resource, ==, RLIMIT_SIGPENDING);
  tap_check_int (pl.set[0].soft, ==, 77);
  tap_check_int (pl.set[1].resource, ==, RLIMIT_MEMLOCK);
  tap_check_str (pl.set[1].name, "MEMLOCK");
  tap_check_int (pl.set[1].soft, ==, 4096);
  o.headroom = UCB_HEADROOM_NEAR;
  tap_check_int (soft_for (&o, &pt, SIG, "limit"), ==, 77);
  /* --limit 0 is a limit, not "unset" */
  o.limits[SIG].value = 0;
  tap_check_int (soft_for (&o, &pt, SIG, "limit"), ==, 0);
}

static void
expect_refusal (const struct ucb_plan *o, const struct ucb_point *pt, const char *msg)
{
  struct ucb_point_limits pl;
  ucb_error_t err = NULL;

  tap_check_int (ucb_limits_for_point (o, pt, &pl, &err), <, 0);
  tap_check (err != NULL);
  if (err)
    {
      tap_check_str (err->msg, msg);
      tap_check_int (err->status, ==, UCB_EXIT_FAILURE);
    }
  ucb_error_free (&err);
}

static void
test_above_hard (void)
{
  struct ucb_plan o = { .headroom = UCB_HEADROOM_NEAR };
  struct ucb_point pt = point (&wl_five, UCB_OWNER_SHARED, 200, 1, 1);
  ucb_error_t err = NULL;

  /* 200 x 1 x 5 = 1000: exactly the hard limit is fine, one container more is not */
  tap_check_int (soft_for (&o, &pt, SIG, "headroom near"), ==, 1000);
  pt.containers = 201;
  expect_refusal (&o, &pt,
                  "headroom near needs RLIMIT_SIGPENDING=1005 for 201 containers x 1 tasks, "
                  "above the hard limit 1000; run fewer, or raise the hard limit");
  o.headroom = UCB_HEADROOM_HOST;
  o.limits[NPROC] = (struct ucb_limit){ .set = true, .value = 2001 };
  pt.containers = 2;
  expect_refusal (&o, &pt,
                  "limit needs RLIMIT_NPROC=2001 for 2 containers x 1 tasks, above the hard "
                  "limit 2000; run fewer, or raise the hard limit");

  /* ucb_limits_check: the same refusal once, before anything starts, as a usage error */
  tap_check_int (ucb_limits_check (&o, &err), <, 0);
  tap_check (err && err->status == UCB_EXIT_USAGE);
  tap_check (err && strstr (err->msg, "--limit NPROC=2001 is above the hard limit 2000"));
  ucb_error_free (&err);
  o.limits[NPROC].value = 2000;
  tap_check_int (ucb_limits_check (&o, &err), ==, 0);
  o.limits[MQ] = (struct ucb_limit){ .set = true, .value = UCB_LIMIT_UNLIMITED };
  tap_check_int (ucb_limits_check (&o, &err), <, 0);
  tap_check (err && strstr (err->msg, "--limit MSGQUEUE=unlimited is above the hard limit 100000"));
  ucb_error_free (&err);
  memset (o.limits, 0, sizeof o.limits);
  tap_check_int (ucb_limits_check (&o, &err), ==, 0);
  tap_check (err == NULL);
}

static const char *
level_max (json_t *doc, const char *name, size_t level)
{
  static char buf[32];
  json_t *v = json_array_get (json_object_get (json_object_get (doc, name), "rlimit_max"), level);

  if (json_is_string (v))
    return json_string_value (v);
  if (!json_is_integer (v))
    return "(none)";
  snprintf (buf, sizeof buf, "%lld", (long long) json_integer_value (v));
  return buf;
}

static void
test_json (void)
{
  struct ucb_plan o = { .headroom = UCB_HEADROOM_NEAR };
  struct ucb_point pt = point (&wl_nproc, UCB_OWNER_SHARED, 3, 4, 3);
  struct ucb_point_limits pl;
  json_t *j;

  limits_ok (&o, &pt, &pl); /* NPROC 24 + 3 x 8 = 48 */
  j = ucb_emit_limits (&pl, &pt, 0);
  /* owner uid 0: only level 1's NPROC snapshot is unlimited (real root, initial namespace) */
  tap_check_int (json_array_size (json_object_get (json_object_get (j, "NPROC"), "rlimit_max")), ==,
                 3);
  tap_check_str (level_max (j, "NPROC", 0), "unlimited");
  tap_check_str (level_max (j, "NPROC", 1), "48");
  tap_check_str (level_max (j, "NPROC", 2), "48");
  tap_check_str (level_max (j, "SIGPENDING", 0), "100");
  tap_check_int (json_integer_value (json_object_get (json_object_get (j, "NPROC"), "soft")), ==,
                 48);
  tap_check_int (json_integer_value (json_object_get (json_object_get (j, "NPROC"), "hard")), ==,
                 2000);
  tap_check_str (json_string_value (json_object_get (json_object_get (j, "NPROC"), "source")),
                 "headroom near");
  tap_check_int (json_object_size (j), ==, 4);
  json_decref (j);
  j = ucb_emit_limits (&pl, &pt, 2100000000u);
  tap_check_str (level_max (j, "NPROC", 0), "48");
  json_decref (j);
  pt.depth = 0;
  j = ucb_emit_limits (&pl, &pt, 0);
  tap_check_int (json_array_size (json_object_get (json_object_get (j, "MEMLOCK"), "rlimit_max")),
                 ==, 0);
  json_decref (j);
}

/* Last: it raises a hard limit to infinity, which only a privileged process can. */
static void
test_unlimited (void)
{
  struct rlimit rl = { 65536, RLIM_INFINITY };
  struct ucb_plan o = { .headroom = UCB_HEADROOM_FAR };
  struct ucb_workload wl = { .name = "t-mem", .rlimits = UCB_RLIM_MEMLOCK, .peak = 4096 };
  struct ucb_point pt = point (&wl, UCB_OWNER_DISTINCT, 2, 1, 1);
  struct ucb_point_limits pl;
  ucb_error_t err = NULL;
  json_t *j;

  if (setrlimit (RLIMIT_MEMLOCK, &rl) < 0)
    {
      tap_skip ("raising a hard limit to unlimited needs CAP_SYS_RESOURCE");
      return;
    }
  limits_ok (&o, &pt, &pl);
  tap_check (pl.l[MEMLOCK].soft == UCB_LIMIT_UNLIMITED);
  tap_check (pl.l[MEMLOCK].hard == UCB_LIMIT_UNLIMITED);
  tap_check_int (pl.nset, ==, 1);
  tap_check (pl.set[0].soft == (uint64_t) RLIM_INFINITY);
  j = ucb_emit_limits (&pl, &pt, 5);
  tap_check_str (json_string_value (json_object_get (json_object_get (j, "MEMLOCK"), "soft")),
                 "unlimited");
  tap_check_str (level_max (j, "MEMLOCK", 0), "unlimited");
  json_decref (j);
  o.limits[MEMLOCK] = (struct ucb_limit){ .set = true, .value = UCB_LIMIT_UNLIMITED };
  tap_check_int (ucb_limits_check (&o, &err), ==, 0);
  ucb_error_free (&err);
}

static const struct tap_test tests[] = {
  { "no --headroom: every limit as this process has it, nothing to set", test_host },
  { "--headroom near: containers per owner x tasks x peak, per owner mode", test_near },
  { "--headroom near for NPROC: plus the container's own processes", test_near_nproc },
  { "--headroom far = the hard limit; --limit wins, 0 included", test_far_and_limit },
  { "rlimit names, resources and parsing; a workload's counter", test_names },
  { "above the hard limit: refused with the numbers, exactly at it accepted", test_above_hard },
  { "rlimit_max per level: unlimited only for root's level-1 NPROC", test_json },
  { "unlimited hard limit: far is unlimited, set as RLIM_INFINITY", test_unlimited },
};

int
main (void)
{
  /* Known limits, so every number above is fixed: only ever lowered, which needs no privilege. */
  for (unsigned b = 0; b < UCB_RLS; b++)
    {
      struct rlimit now, want = { host_soft[b], host_hard[b] };
      if (getrlimit (host_res[b], &now) < 0
          || (now.rlim_max != RLIM_INFINITY && now.rlim_max < host_hard[b] && geteuid () != 0)
          || setrlimit (host_res[b], &want) < 0)
        tap_skip_all ("cannot set the test's rlimits (a hard limit below them)");
    }
  return tap_run (tests, UCB_ARRAY_SIZE (tests));
}
