/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-measure.c - the counter arena (slot layout, zero fill, shared across fork), sampling
 * (one row per reading, growth keeps earlier rows) and the measured windows computed from the
 * samples: per task, per container and the summary, from readings whose numbers are chosen so
 * that every figure can be worked out by hand; and how a workload counts into its slot
 * (engine/workload.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/doc.h"
#include "core/util.h"
#include "engine/measure.h"
#include "engine/workload.h"

static void
test_arena (void)
{
  struct ucb_arena a;
  ucb_error_t err = NULL;
  const unsigned char *bytes;
  int status = -1;
  pid_t pid;
  bool zero = true;

  tap_check_int (ucb_arena_create (&a, 3, &err), ==, 0);
  if (err)
    {
      printf ("# %s\n", err->msg);
      ucb_error_free (&err);
      return;
    }
  /* the control line, then one 256-byte slot per task, each on its own 256-byte boundary */
  tap_check_int (a.ntasks, ==, 3);
  tap_check_int (a.bytes, ==, 4 * 256);
  tap_check_int ((char *) &a.shared->slots[0] - (char *) a.shared, ==, 256);
  tap_check_int ((char *) &a.shared->slots[2] - (char *) a.shared, ==, 3 * 256);
  tap_check_int ((uintptr_t) a.shared % 256, ==, 0);
  bytes = (const unsigned char *) a.shared;
  for (size_t i = 0; i < a.bytes; i++)
    zero &= bytes[i] == 0;
  tap_check (zero);
  tap_check (!ucb_arena_stopping (a.shared));

  /* a task's writes reach the parent, and the parent's stop flag reaches the task */
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      __atomic_store_n (&a.shared->slots[1].ops, 42, __ATOMIC_RELAXED);
      __atomic_store_n (&a.shared->slots[1].cpu_ns, 7, __ATOMIC_RELAXED);
      while (!ucb_arena_stopping (a.shared))
        sched_yield ();
      __atomic_store_n (&a.shared->slots[2].fails, 5, __ATOMIC_RELAXED);
      _exit (0);
    }
  tap_check_int (pid, >, 0);
  while (pid > 0 && __atomic_load_n (&a.shared->slots[1].ops, __ATOMIC_RELAXED) != 42)
    sched_yield ();
  __atomic_store_n (&a.shared->ctl.stop, 1, __ATOMIC_RELAXED);
  if (pid > 0)
    waitpid (pid, &status, 0);
  tap_check_int (status, ==, 0);
  tap_check_int (a.shared->slots[1].cpu_ns, ==, 7);
  tap_check_int (a.shared->slots[2].fails, ==, 5);
  tap_check_int (a.shared->slots[0].ops, ==, 0);
  tap_check (ucb_arena_stopping (a.shared));
  ucb_arena_destroy (&a);
  tap_check (a.shared == NULL);
  ucb_arena_destroy (&a); /* twice is fine */
}

static void
test_sampling (void)
{
  struct ucb_arena a;
  struct ucb_samples s;
  ucb_error_t err = NULL;
  uint64_t last = 0;
  bool ordered = true;

  tap_check_int (ucb_arena_create (&a, 2, &err), ==, 0);
  if (err)
    {
      ucb_error_free (&err);
      return;
    }
  ucb_samples_init (&s, 2, 0);
  tap_check_int (s.cap, ==, 1); /* 0 would never grow */
  tap_check_int (s.nreadings, ==, 0);
  for (uint64_t k = 0; k < 5; k++)
    {
      for (size_t t = 0; t < 2; t++)
        {
          a.shared->slots[t].ops = 10 * k + t;
          a.shared->slots[t].fails = k;
          a.shared->slots[t].cpu_ns = 1000 * k + t;
        }
      ucb_sample_row (&s, &a);
    }
  tap_check_int (s.nreadings, ==, 5);
  tap_check_int (s.cap, ==, 8); /* 1, 2, 4, 8 */
  for (size_t k = 0; k < 5; k++)
    for (size_t t = 0; t < 2; t++)
      {
        const struct ucb_reading *r = ucb_reading_at (&s, k, t);
        tap_check (r == &s.r[k * 2 + t]); /* row-major by reading */
        tap_check_int (r->ops, ==, 10 * k + t);
        tap_check_int (r->fails, ==, k);
        tap_check_int (r->cpu_ns, ==, 1000 * k + t);
        ordered &= r->t_ns >= last && r->t_ns > 0;
        last = r->t_ns;
      }
  tap_check (ordered); /* one timestamp per task, in reading order */
  ucb_samples_free (&s);
  tap_check (s.r == NULL && s.nreadings == 0);
  ucb_arena_destroy (&a);
}

/* ---- windows: 2 containers x 2 tasks, 3 readings (row 0 = the end of warm-up) ---- */

#define S(sec) ((uint64_t) ((sec) *1e9))

static const struct
{
  double t[4];
  uint64_t ops[4], fails[4], cpu[4];
} rows[3] = {
  { { 2.0, 2.0, 2.0, 2.0 }, { 100, 200, 0, 50 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } },
  { { 2.5, 2.5, 2.5, 2.5 }, { 150, 300, 10, 50 }, { 1, 0, 0, 2 }, { S (0.5), S (0.25), 0, 0 } },
  /* task 0 is read late: its rates use its own interval, and its container's span is the longest */
  { { 3.5, 3.0, 3.0, 3.0 }, { 250, 500, 20, 50 }, { 1, 0, 5, 2 }, { S (1.0), S (0.5), 0, 0 } },
};

static json_t *
hand_point (void)
{
  static int cpu[2][2] = { { -1, -1 }, { -1, -1 } };
  static pid_t pids[2][2] = { { 101, 102 }, { 201, 202 } };
  static int allowed[] = { 0, 1 };
  struct ucb_container_result c[2] = { { .index = 0, .owner_uid = 5000, .depth = 1 },
                                       { .index = 1, .owner_uid = 5001, .depth = 1 } };
  struct ucb_slot initial[4], final[4];
  struct ucb_placement pl = { .mode = UCB_PIN_NONE, .allowed = allowed, .nallowed = 2 };
  struct ucb_point_result r = { .c = c, .initial = initial, .final = final };
  json_t *doc;

  memset (initial, 0, sizeof initial);
  memset (final, 0, sizeof final);
  r.pt = (struct ucb_point){ .workload = ucb_workload_find ("signal"),
                             .containers = 2,
                             .owner = { .kind = UCB_OWNER_DISTINCT },
                             .depth = 1,
                             .tasks = 2,
                             .isolate = CLONE_NEWIPC,
                             .repeat = 1 };
  for (unsigned b = 0; b < UCB_RLS; b++)
    r.limits.l[b].source = "host";
  for (size_t i = 0; i < 2; i++)
    {
      c[i].cpu = cpu[i];
      c[i].task_pid = pids[i];
      c[i].task_uid = c[i].owner_uid;
    }
  ucb_samples_init (&r.samples, 4, 3);
  r.samples.start_ns = S (1.0);
  for (size_t k = 0; k < 3; k++)
    for (size_t t = 0; t < 4; t++)
      *ucb_reading_at (&r.samples, k, t) = (struct ucb_reading){
        .t_ns = S (rows[k].t[t]),
        .ops = rows[k].ops[t],
        .fails = rows[k].fails[t],
        .cpu_ns = rows[k].cpu[t],
      };
  r.samples.nreadings = 3;
  /* failed ops by errno: end minus start; an entry unchanged since the start is left out */
  final[0].errs[0] = (struct ucb_errno_count){ .err = EAGAIN, .count = 1 };
  final[0].last_errno = EAGAIN;
  initial[1].errs[0] = final[1].errs[0] = (struct ucb_errno_count){ .err = EINTR, .count = 3 };
  initial[2].errs[3] = (struct ucb_errno_count){ .err = EAGAIN, .count = 1 };
  final[2].errs[0] = (struct ucb_errno_count){ .err = EAGAIN, .count = 6 };
  final[2].last_errno = EAGAIN;
  final[3].errs[0] = (struct ucb_errno_count){ .err = ENOMEM, .count = 1 };
  final[3].errs[1] = (struct ucb_errno_count){ .err = UCB_ERRNO_OTHER, .count = 1 };
  final[3].last_errno = ENOMEM;
  doc = ucb_emit_point (&r, &pl);
  ucb_samples_free (&r.samples);
  return doc;
}

static double
num (json_t *o, const char *path)
{
  char buf[128], *save = NULL;

  snprintf (buf, sizeof buf, "%s", path);
  for (char *k = strtok_r (buf, ".", &save); k && o; k = strtok_r (NULL, ".", &save))
    o = json_is_array (o) ? json_array_get (o, (size_t) atoi (k)) : json_object_get (o, k);
  if (json_is_null (o))
    return NAN;
  return o ? json_number_value (o) : -12345.0;
}

#define check_num(doc, path, want) tap_check_near (num ((doc), (path)), (want), 1e-6)
#define check_null(doc, path) tap_check (isnan (num ((doc), (path))))

static void
test_task_windows (void)
{
  json_t *doc = hand_point ();
  json_t *c0 = json_array_get (json_object_get (doc, "per_container"), 0);

  tap_check (c0 != NULL);
  /* task 0: read 0.5 s late at the end, 150 ops over 1.5 s = 100/s in both intervals */
  check_num (c0, "tasks.0.ops", 150);
  check_num (c0, "tasks.0.rate_ops_per_s", 100);
  check_num (c0, "tasks.0.failed_ops", 1);
  check_num (c0, "tasks.0.ops_per_s.mean", 100);
  check_num (c0, "tasks.0.ops_per_s.stddev", 0);
  check_num (c0, "tasks.0.cpu_ns_per_op", 1e9 / 150);
  check_num (c0, "tasks.0.cpu_utilization", 1.0 / 1.5);
  check_num (c0, "tasks.0.samples.0.t", 1.5); /* from the start barrier at 1.0 s */
  check_num (c0, "tasks.0.samples.1.t", 2.5);
  check_num (c0, "tasks.0.samples.1.dt", 1.0);
  check_num (c0, "tasks.0.samples.1.ops", 100);
  check_num (c0, "tasks.0.samples.1.ops_per_s", 100);
  check_num (c0, "tasks.0.samples.0.failed_ops", 1);
  check_num (c0, "tasks.0.samples.1.failed_ops", 0);
  /* task 1: 300 ops over 1.0 s; intervals 100/0.5 s and 200/0.5 s */
  check_num (c0, "tasks.1.ops", 300);
  check_num (c0, "tasks.1.rate_ops_per_s", 300);
  check_num (c0, "tasks.1.ops_per_s.mean", 300);
  check_num (c0, "tasks.1.ops_per_s.median", 300);
  check_num (c0, "tasks.1.ops_per_s.min", 200);
  check_num (c0, "tasks.1.ops_per_s.max", 400);
  check_num (c0, "tasks.1.ops_per_s.stddev", sqrt (20000.0)); /* sample stddev of 200, 400 */
  check_num (c0, "tasks.1.samples.1.dt", 0.5);
  check_num (c0, "tasks.1.samples.1.ops_per_s", 400);
  check_num (c0, "tasks.1.cpu_ns_per_op", 0.5e9 / 300);
  check_num (c0, "tasks.1.cpu_utilization", 0.5);
  check_num (c0, "tasks.1.pid", 102);
  tap_check_int (json_array_size (json_object_get (
                     json_array_get (json_object_get (c0, "tasks"), 1), "samples")),
                 ==, 2);
  /* task 3 did nothing: rate 0, and no CPU time means no figure, not 0 */
  check_num (doc, "per_container.1.tasks.1.ops", 0);
  check_num (doc, "per_container.1.tasks.1.rate_ops_per_s", 0);
  check_null (doc, "per_container.1.tasks.1.cpu_ns_per_op");
  check_null (doc, "per_container.1.tasks.1.cpu_utilization");
  json_decref (doc);
}

static void
test_container_windows (void)
{
  json_t *doc = hand_point ();
  json_t *c0 = json_array_get (json_object_get (doc, "per_container"), 0);
  json_t *c1 = json_array_get (json_object_get (doc, "per_container"), 1);

  tap_check_int (json_array_size (json_object_get (doc, "per_container")), ==, 2);
  /* container 0: ops summed; rate = the tasks' own rates summed (100 + 300), not 450 / 1.5 */
  check_num (c0, "ops", 450);
  check_num (c0, "rate_ops_per_s", 400);
  check_num (c0, "failed_ops", 1);
  check_num (c0, "cpu_ns_per_op", 1.5e9 / 450);
  check_num (c0, "cpu_utilization", 1.0); /* 1.5 s of CPU over the longest span, 1.5 s */
  /* its samples: the first task's time, ops and rates summed over the tasks */
  check_num (c0, "samples.0.t", 1.5);
  check_num (c0, "samples.0.dt", 0.5);
  check_num (c0, "samples.0.ops", 150);
  check_num (c0, "samples.0.ops_per_s", 300);
  check_num (c0, "samples.1.t", 2.5);
  check_num (c0, "samples.1.dt", 1.0);
  check_num (c0, "samples.1.ops", 300);
  check_num (c0, "samples.1.ops_per_s", 500);
  check_num (c0, "ops_per_s.mean", 400);
  check_num (c0, "ops_per_s.min", 300);
  check_num (c0, "ops_per_s.max", 500);
  check_num (c0, "failed_by_errno.EAGAIN", 1);
  tap_check_int (json_object_size (json_object_get (c0, "failed_by_errno")), ==, 1); /* no EINTR */
  tap_check_str (json_string_value (json_object_get (c0, "last_errno")), "EAGAIN");
  check_num (c0, "owner_uid", 5000);
  check_num (c0, "task_pid", 101);
  /* container 1: 20 ops/s, 7 failed; no CPU time published */
  check_num (c1, "ops", 20);
  check_num (c1, "rate_ops_per_s", 20);
  check_num (c1, "failed_ops", 7);
  check_null (c1, "cpu_ns_per_op");
  check_num (c1, "samples.1.failed_ops", 5);
  check_num (c1, "failed_by_errno.EAGAIN", 5); /* 6 at the end, 1 at the start */
  check_num (c1, "failed_by_errno.ENOMEM", 1);
  check_num (c1, "failed_by_errno.other", 1);
  tap_check_str (json_string_value (json_object_get (c1, "last_errno")), "ENOMEM");
  json_decref (doc);
}

static void
test_summary (void)
{
  json_t *doc = hand_point ();
  double jain = 420.0 * 420.0 / (2 * (400.0 * 400.0 + 20.0 * 20.0));

  check_num (doc, "measured_s", 1.5); /* task 0's first to last reading */
  check_num (doc, "summary.total_ops_per_s", 420);
  check_num (doc, "summary.per_container_ops", 210);
  check_num (doc, "summary.per_task_ops", 105);
  check_num (doc, "summary.fairness", jain);
  check_num (doc, "summary.min_container_ops", 20);
  check_num (doc, "summary.max_container_ops", 400);
  check_num (doc, "summary.cv", 190 * sqrt (2.0) / 210); /* sample stddev of 400, 20 / mean */
  check_num (doc, "summary.cpu_ns_per_op", 1.5e9 / 450); /* the containers that published CPU */
  check_num (doc, "summary.failed_ops", 8);
  check_num (doc, "summary.failed_by_errno.EAGAIN", 6);
  check_num (doc, "summary.failed_by_errno.ENOMEM", 1);
  check_num (doc, "summary.failed_by_errno.other", 1);
  tap_check_str (json_string_value (json_object_get (doc, "status")), "ok");
  tap_check_str (json_string_value (json_object_get (doc, "isolate")), "user,ipc");
  json_decref (doc);
}

static volatile sig_atomic_t handled_code;

static void
on_usr2 (int sig, siginfo_t *info, void *uc)
{
  (void) sig;
  (void) uc;
  handled_code = info->si_code;
}

static void
test_op_counts (void)
{
  struct ucb_slot slot;
  struct ucb_wctx ctx = { .slot = &slot };
  ucb_error_t err = NULL;

  memset (&slot, 0, sizeof slot);
  ucb_op_count (&ctx, 0);
  ucb_op_count (&ctx, EAGAIN);
  tap_check_int (slot.ops, ==, 1);
  tap_check_int (slot.fails, ==, 1);
  tap_check_int (slot.errs[0].err, ==, EAGAIN);
  tap_check_int (slot.errs[0].count, ==, 1);
  /* a release that failed stops the workload; one that worked counts the op */
  tap_check_int (ucb_op_release (&ctx, EIO), ==, UCB_FAIL);
  tap_check_int (ucb_op_release (&ctx, 0), ==, UCB_OK);
  tap_check_int (slot.ops, ==, 2);
  tap_check_int (slot.fails, ==, 2);
  tap_check_int (slot.last_errno, ==, EIO);

  /* the handler of a signal op gets its siginfo */
  tap_check_int (ucb_op_handler (SIGUSR2, "SIGUSR2", on_usr2, &err), ==, 0);
  raise (SIGUSR2);
  tap_check_int (handled_code, ==, SI_TKILL);
  signal (SIGUSR2, SIG_DFL);
  tap_check_int (ucb_op_handler (SIGKILL, "SIGKILL", on_usr2, &err), <, 0);
  tap_check (err && err->code == EINVAL && strcmp (err->msg, "sigaction SIGKILL") == 0);
  ucb_error_free (&err);
}

static const struct tap_test tests[] = {
  { "arena: 256-byte slots after a control line, zeroed, shared across fork", test_arena },
  { "sampling: one row per reading, growth keeps the earlier rows", test_sampling },
  { "task windows: ops, rates per own interval, stats, CPU per op", test_task_windows },
  { "container windows: sums, rates summed, errnos end minus start", test_container_windows },
  { "summary: totals, fairness, cv, CPU per op, failures", test_summary },
  { "a workload's op counts: done or failed by errno; its SA_SIGINFO handler", test_op_counts },
};

TAP_MAIN (tests)
