/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-contention.c - the CPU share of a task per interval, who should own a CPU, the sample and
 * repeat flags, the host's idle and steal per interval, and what the document, the model, the
 * text table and the warning make of them: from hand-built readings whose every number can be
 * worked out by hand. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/doc.h"
#include "core/json-util.h"
#include "core/util.h"
#include "engine/measure.h"
#include "engine/repeat-auto.h"
#include "engine/workload.h"
#include "report/model.h"
#include "report/report.h"

#define S(sec) ((uint64_t) ((sec) *1e9))

static void
test_share (void)
{
  struct ucb_reading a = { .t_ns = S (1), .cpu_ns = S (1), .busy_ns = S (10) };
  struct ucb_reading b = { .t_ns = S (1.5), .cpu_ns = S (1.2), .busy_ns = S (10.25) };

  tap_check_near (ucb_cpu_share (&a, &b), 0.5, 1e-12);
  b.busy_ns = S (10.6); /* a task can publish more than the wall time (batch edges): kept */
  tap_check_near (ucb_cpu_share (&a, &b), 1.2, 1e-12);
  b.t_ns = a.t_ns; /* dt 0 */
  tap_check (isnan (ucb_cpu_share (&a, &b)));
  b.t_ns = S (0.5); /* time went backwards */
  tap_check (isnan (ucb_cpu_share (&a, &b)));
  b = (struct ucb_reading){ .t_ns = S (2), .cpu_ns = S (2), .busy_ns = S (9) }; /* backwards */
  tap_check (isnan (ucb_cpu_share (&a, &b)));
  a.busy_ns = 0; /* never published */
  b.busy_ns = S (1);
  tap_check (isnan (ucb_cpu_share (&a, &b)));
  a.busy_ns = 1;
  b.busy_ns = 1; /* published, but no CPU at all: 0, not unknown */
  tap_check_near (ucb_cpu_share (&a, &b), 0.0, 0);
}

static void
test_owns (void)
{
  int distinct[] = { 0, 1 }, unpinned[] = { -1, 1 }, shared[] = { 0, 1, 0 };

  tap_check (ucb_task_owns_cpu (distinct, 2, 0, 2));
  tap_check (ucb_task_owns_cpu (distinct, 2, 1, 2));
  tap_check (!ucb_task_owns_cpu (unpinned, 2, 0, 2)); /* unpinned: the scheduler moves it */
  tap_check (ucb_task_owns_cpu (unpinned, 2, 1, 2));
  tap_check (!ucb_task_owns_cpu (shared, 3, 0, 4)); /* CPU 0 is shared with task 2 */
  tap_check (ucb_task_owns_cpu (shared, 3, 1, 4));
  tap_check (!ucb_task_owns_cpu (shared, 3, 2, 4));
  tap_check (!ucb_task_owns_cpu (distinct, 2, 0, 1)); /* more tasks than CPUs */
  tap_check (!ucb_task_owns_cpu (shared, 3, 1, 2));
}

static void
test_fair_share (void)
{
  int distinct[] = { 0, 1 }, shared[] = { 0, 1, 0 }, unpinned[] = { -1, -1, -1, -1 };
  int four[] = { 0, 1, 0, 1 };

  tap_check_near (ucb_task_fair_share (distinct, 2, 0, 2), 1.0, 0);
  tap_check_near (ucb_task_fair_share (shared, 3, 0, 2), 0.5, 0); /* CPU 0 with task 2 */
  tap_check_near (ucb_task_fair_share (shared, 3, 1, 2), 1.0, 0);
  tap_check_near (ucb_task_fair_share (four, 4, 3, 2), 0.5, 0);
  tap_check_near (ucb_task_fair_share (unpinned, 1, 0, 2), 1.0, 0); /* 1 task, 2 CPUs */
  tap_check_near (ucb_task_fair_share (unpinned, 2, 0, 2), 1.0, 0);
  tap_check_near (ucb_task_fair_share (unpinned, 4, 0, 2), 0.5, 0);
  tap_check_near (ucb_task_fair_share (unpinned, 3, 0, 2), 2.0 / 3, 1e-12);
  tap_check (ucb_tasks_per_cpu (distinct, 2, 2) == 1);
  tap_check (ucb_tasks_per_cpu (shared, 3, 2) == 2);
  tap_check (ucb_tasks_per_cpu (four, 4, 2) == 2);
  tap_check (ucb_tasks_per_cpu (unpinned, 3, 2) == 2);
  tap_check (ucb_tasks_per_cpu (unpinned, 1, 2) == 1);
  /* 4096 tasks on 2 CPUs: 2048 take turns, 3 turns of 10 ms each. */
  tap_check_near (ucb_window_needed_s (2048), 2048 * 3 * 0.010, 1e-9);
}

static void
test_flags (void)
{
  enum ucb_sample_verdict F = UCB_SAMPLE_FAIR, C = UCB_SAMPLE_CONTENDED, U = UCB_SAMPLE_UNJUDGED;

  tap_check (ucb_sample_judge (1.0, 0.5, 0.9, 0.5) == C);
  tap_check (ucb_sample_judge (1.0, 0.8999, 0.9, 0.5) == C);
  tap_check (ucb_sample_judge (1.0, 0.9, 0.9, 0.5) == F); /* exactly at the threshold: enough */
  tap_check (ucb_sample_judge (1.0, 1.1, 0.9, 0.5) == F);
  tap_check (ucb_sample_judge (1.0, NAN, 0.9, 0.5) == U); /* unknown share: never clean */
  tap_check (ucb_sample_judge (NAN, 0.1, 0.9, 0.5) == U); /* unknown fair share */
  tap_check (ucb_sample_judge (1.0, 0.015, 0.01, 0.5) == F);
  tap_check (ucb_sample_judge (1.0, 0.009, 0.01, 0.5) == C);
  /* Half a CPU by right: 0.13 of one is contended, 0.49 is not; over 0.5 s one 10 ms turn
   * more or less (0.02) is taking turns, not contention. */
  tap_check (ucb_sample_judge (0.5, 0.13, 0.9, 0.5) == C);
  tap_check (ucb_sample_judge (0.5, 0.49, 0.9, 0.5) == F);
  tap_check (ucb_sample_judge (0.5, 0.443, 0.9, 0.5) == F);
  tap_check (ucb_sample_judge (0.5, 0.42, 0.9, 0.5) == C);
  /* Owning a CPU, no turns: no slack. */
  tap_check (ucb_sample_judge (1.0, 0.899, 0.9, 0.01) == C);
  /* 64 tasks on 2 CPUs: over 0.5 s the bar is 0.9/32 - 0.02 = 0.008, judged; over 0.25 s
   * one turn's slack (0.04) exceeds 0.9/32, so a task that never ran cannot be told from one
   * that got its share: unjudged, not clean. */
  tap_check (ucb_sample_judge (1.0 / 32, 0.0, 0.9, 0.5) == C);
  tap_check (ucb_sample_judge (1.0 / 32, 0.0, 0.9, 0.25) == U);
  tap_check (ucb_sample_judge (1.0 / 32, 1.0 / 32, 0.9, 0.25) == U);
  tap_check (!ucb_repeat_contended (0, 0));
  tap_check (!ucb_repeat_contended (1, 10)); /* exactly a tenth: not more */
  tap_check (ucb_repeat_contended (2, 10));
  tap_check (ucb_repeat_contended (1, 9));
  tap_check (!ucb_repeat_contended (9, 100));
  tap_check (ucb_repeat_contended (11, 100));
}

static void
test_jiffies (void)
{
  struct ucb_jiffies a = { .ok = true, .total = 1000, .idle = 100, .steal = 10 };
  struct ucb_jiffies b = { .ok = true, .total = 1200, .idle = 150, .steal = 16 };
  struct ucb_jiffies now;
  double idle, steal;

  tap_check (ucb_jiffies_pct (&a, &b, &idle, &steal));
  tap_check_near (idle, 25.0, 1e-12);
  tap_check_near (steal, 3.0, 1e-12);
  tap_check (!ucb_jiffies_pct (&a, &a, &idle, &steal)); /* no jiffy passed */
  tap_check (isnan (idle) && isnan (steal));
  b.ok = false;
  tap_check (!ucb_jiffies_pct (&a, &b, &idle, &steal));
  ucb_jiffies_read (&now); /* this machine's /proc/stat */
  tap_check (now.ok && now.total > 0 && now.idle <= now.total && now.steal <= now.total);
  tap_check_int (ucb_nivcsw_of (getpid ()), >=, 0);
  tap_check_int (ucb_nivcsw_of (-5), ==, -1);
}

/* The kernel's clock of another process, read from outside: a child that spins, then sleeps,
 * shows the CPU it used and none while asleep; an unknown pid reads as unknown. */
static void
test_kclock (void)
{
  struct ucb_kclock a, b, c, none;
  int go[2], ready[2];
  char x = 0;
  pid_t pid;

  if (pipe (go) < 0 || pipe (ready) < 0)
    {
      tap_fail (__FILE__, __LINE__, "pipe: %s", strerror (errno));
      return;
    }
  pid = fork ();
  if (pid == 0)
    {
      uint64_t end = ucb_clock_ns (CLOCK_PROCESS_CPUTIME_ID) + 100000000ull;
      while (ucb_clock_ns (CLOCK_PROCESS_CPUTIME_ID) < end)
        ;
      (void) !write (ready[1], &x, 1);
      (void) !read (go[0], &x, 1);
      _exit (0);
    }
  tap_check (pid > 0 && read (ready[0], &x, 1) == 1);
  ucb_kclock_read (&a, pid);
  usleep (50000);
  ucb_kclock_read (&b, pid);
  tap_check_int (a.cpu_ns, >=, 100000000ull); /* the 0.1 s it spun, then nothing asleep */
  tap_check (ucb_kclock_share (&a, &b) < 0.05);
  (void) !write (go[1], &x, 1);
  waitpid (pid, NULL, 0);
  ucb_kclock_read (&c, pid); /* gone */
  tap_check_int (c.cpu_ns, ==, 0);
  tap_check (isnan (ucb_kclock_share (&a, &c)));
  ucb_kclock_read (&none, 0);
  tap_check_int (none.cpu_ns, ==, 0);
  close (go[0]), close (go[1]), close (ready[0]), close (ready[1]);
}

/* ---- a hand-built point: `n` containers x `T` tasks (HAND_MAX at most), 3 readings 0.5 s
 * apart ---- */

#define HAND_MAX 40
struct hand
{
  struct ucb_point_result r;
  struct ucb_container_result c[HAND_MAX];
  int cpu[HAND_MAX];
  pid_t pid[HAND_MAX];
  struct ucb_slot slots[2][HAND_MAX];
  struct ucb_kclock kclock[2][HAND_MAX];
  int allowed[2];
  struct ucb_placement pl;
};

/* How late the last reading came, past its due time (readings are due 0.5 s apart). */
static double hand_late_s;
/* Ops each task adds per reading. */
static uint64_t hand_ops = 1000;
/* The kernel's clock of each task's process over the window, s of CPU; NULL: none read. */
static const double *hand_kclock_s;

/* What --repeat auto counts of the point, derived from the C structs, is what its document
 * says: summary.per_container_ops (bit for bit) and contention.contended || .unjudged. */
static void
check_figures (const struct ucb_point_result *r, const struct ucb_placement *pl, json_t *doc)
{
  json_t *sum = json_object_get (doc, "summary"), *c = json_object_get (doc, "contention");
  json_t *v = json_object_get (sum, "per_container_ops");
  double ops, want = json_is_number (v) ? json_number_value (v) : NAN;
  bool contended;

  ucb_repeat_figures (r, pl->nallowed, &ops, &contended);
  tap_check (ops == want || (isnan (ops) && isnan (want)));
  tap_check (contended
             == (json_is_true (json_object_get (c, "contended"))
                 || json_is_true (json_object_get (c, "unjudged"))));
}

/* cpu[t], cpu_s[k][t]: task t's (container-major) CPU and its CPU time at reading k; host rows:
 * 20% idle then 0%, steal 5% then 10%. */
static json_t *
hand_point (struct hand *h, size_t n, size_t T, const int *cpu, const double cpu_s[3][HAND_MAX],
            double threshold)
{
  static const struct ucb_jiffies host[3]
      = { { true, 1000, 500, 0 }, { true, 1100, 520, 5 }, { true, 1200, 520, 15 } };
  json_t *doc;

  memset (h, 0, sizeof *h);
  h->allowed[0] = 0;
  h->allowed[1] = 1;
  h->pl = (struct ucb_placement){ .mode = UCB_PIN_LIST, .allowed = h->allowed, .nallowed = 2 };
  h->r.pt = (struct ucb_point){ .workload = ucb_workload_find ("getppid"),
                                .containers = (unsigned) n,
                                .owner = { .kind = UCB_OWNER_SHARED },
                                .depth = 1,
                                .tasks = (unsigned) T,
                                .isolate = CLONE_NEWIPC,
                                .repeat = 1 };
  h->r.c = h->c;
  h->r.initial = h->slots[0];
  h->r.final = h->slots[1];
  h->r.nivcsw = 42;
  h->r.contention_threshold = threshold;
  h->r.idle_pct = h->r.steal_pct = NAN;
  /* Not measured (null), as a run writes it: a rate of 0 is out of the schema's range. */
  h->r.canary.before = h->r.canary.after = (struct ucb_canary_edge){ NAN, NAN };
  for (unsigned b = 0; b < UCB_RLS; b++)
    h->r.limits.l[b].source = "host";
  for (size_t t = 0; t < n * T; t++)
    {
      h->cpu[t] = cpu[t];
      h->pid[t] = 100 + (pid_t) t;
    }
  for (size_t i = 0; i < n; i++)
    h->c[i] = (struct ucb_container_result){ .index = (unsigned) i,
                                             .owner_uid = 5000,
                                             .depth = 1,
                                             .cpu = &h->cpu[i * T],
                                             .task_pid = &h->pid[i * T] };
  ucb_samples_init (&h->r.samples, n * T, 3);
  h->r.samples.start_ns = S (1);
  for (size_t k = 0; k < 3; k++)
    {
      for (size_t t = 0; t < n * T; t++)
        *ucb_reading_at (&h->r.samples, k, t)
            = (struct ucb_reading){ .t_ns = S (2 + 0.5 * (double) k + (k == 2 ? hand_late_s : 0)),
                                    .ops = hand_ops * k,
                                    .busy_ns = S (cpu_s[k][t]) };
      h->r.samples.host[k] = host[k];
    }
  h->r.samples.nreadings = 3;
  h->r.interval_ns = S (0.5);
  for (size_t t = 0; hand_kclock_s && t < n * T; t++)
    for (size_t e = 0; e < 2; e++)
      {
        h->r.kclock[e] = h->kclock[e];
        h->kclock[e][t] = (struct ucb_kclock){ S (2 + (double) e), S (5 + hand_kclock_s[t] * e) };
      }
  doc = ucb_emit_point (&h->r, &h->pl);
  check_figures (&h->r, &h->pl, doc);
  ucb_samples_free (&h->r.samples);
  return doc;
}

static json_t *
at (json_t *o, const char *path)
{
  char buf[160], *save = NULL;

  snprintf (buf, sizeof buf, "%s", path);
  for (char *k = strtok_r (buf, ".", &save); k && o; k = strtok_r (NULL, ".", &save))
    o = (*k >= '0' && *k <= '9') ? json_array_get (o, strtoul (k, NULL, 10))
                                 : json_object_get (o, k);
  return o;
}

static double
num (json_t *o, const char *path)
{
  json_t *v = at (o, path);
  return json_is_number (v) ? json_number_value (v) : NAN;
}

/* Container 0 gets half a CPU in both intervals, container 1 a whole one then 0.95. */
static const double two[3][HAND_MAX] = { { 1.0, 1.0 }, { 1.25, 1.5 }, { 1.5, 1.975 } };

static void
test_record (void)
{
  static const int pinned[] = { 0, 1 };
  struct hand h;
  json_t *o = hand_point (&h, 2, 1, pinned, two, 0);

  tap_check_near (num (o, "per_container.0.tasks.0.samples.0.cpu_share"), 0.5, 1e-9);
  tap_check (json_is_true (at (o, "per_container.0.tasks.0.samples.0.contended")));
  tap_check (json_is_true (at (o, "per_container.0.samples.1.contended")));
  tap_check_near (num (o, "per_container.1.tasks.0.samples.1.cpu_share"), 0.95, 1e-9);
  tap_check (json_is_false (at (o, "per_container.1.tasks.0.samples.1.contended")));
  tap_check (json_is_false (at (o, "per_container.1.samples.0.contended")));
  tap_check_near (num (o, "contention.threshold"), 0.9, 0); /* 0 = the default */
  tap_check (json_is_true (at (o, "contention.owns_cpu")));
  tap_check_int (num (o, "contention.samples"), ==, 4);
  tap_check_int (num (o, "contention.contended_samples"), ==, 2);
  tap_check (json_is_true (at (o, "contention.contended")));
  tap_check_near (num (o, "contention.cpu_share_median"), (0.5 + 0.95) / 2, 1e-9);
  tap_check_near (num (o, "contention.cpu_share_min"), 0.5, 1e-9);
  tap_check_int (num (o, "contention.nivcsw"), ==, 42);
  tap_check_near (num (o, "contention.steal_pct_max"), 10.0, 1e-9);
  tap_check_near (num (o, "contention.idle_pct_min"), 0.0, 1e-9);
  tap_check_int (json_array_size (at (o, "host_samples")), ==, 2);
  tap_check_near (num (o, "host_samples.0.idle_pct"), 20.0, 1e-9);
  tap_check_near (num (o, "host_samples.0.steal_pct"), 5.0, 1e-9);
  tap_check_near (num (o, "host_samples.1.t"), 2.0, 1e-9);
  json_decref (o);

  o = hand_point (&h, 2, 1, pinned, two, 0.4); /* a lower threshold: half a CPU is enough */
  tap_check_int (num (o, "contention.contended_samples"), ==, 0);
  tap_check (json_is_false (at (o, "contention.contended")));
  tap_check (json_is_false (at (o, "per_container.0.samples.0.contended")));
  json_decref (o);
}

/* A container's sample takes the lowest share of its tasks and is contended if any is. */
static void
test_container_min (void)
{
  static const int pinned[] = { 0, 1 };
  struct hand h;
  json_t *o;

  /* one container of two tasks: 0.5 and 1.0, then 0.5 and 0.95 */
  o = hand_point (&h, 1, 2, pinned, two, 0.9);
  tap_check_near (num (o, "per_container.0.samples.0.cpu_share"), 0.5, 1e-9);
  tap_check (json_is_true (at (o, "per_container.0.samples.0.contended")));
  tap_check_near (num (o, "per_container.0.tasks.1.samples.0.cpu_share"), 1.0, 1e-9);
  tap_check (json_is_false (at (o, "per_container.0.tasks.1.samples.0.contended")));
  json_decref (o);
  /* two tasks of 1.0 and 0.95: the lowest, not contended */
  o = hand_point (&h, 1, 2, pinned,
                  (const double[3][HAND_MAX]){ { 1, 1 }, { 1.5, 1.475 }, { 2, 2 } }, 0.9);
  tap_check_near (num (o, "per_container.0.samples.0.cpu_share"), 0.95, 1e-9);
  tap_check (json_is_false (at (o, "per_container.0.samples.0.contended")));
  tap_check_near (num (o, "per_container.0.samples.1.cpu_share"), 1.0, 1e-9); /* 1.0 and 1.05 */
  json_decref (o);
}

static void
test_fair (void)
{
  static const int unpinned[] = { -1, -1 }, crowded[] = { 0, 1, 0 };
  static const double three[3][HAND_MAX] = { { 1, 1, 1 }, { 1.1, 1.5, 1.1 }, { 1.2, 2.0, 1.2 } };
  static const double halves[3][HAND_MAX]
      = { { 1, 1, 1 }, { 1.25, 1.5, 1.25 }, { 1.49, 2.0, 1.5 } };
  static const double unequal[3][HAND_MAX]
      = { { 1, 1, 1 }, { 1.14, 1.5, 1.36 }, { 1.28, 2.0, 1.72 } };
  struct hand h;
  json_t *o = hand_point (&h, 2, 1, unpinned, two, 0.9);

  /* Unpinned, 2 tasks on 2 CPUs: a whole CPU each by right; together they got 1.5 and 1.45 of
   * the 2: something else took the rest, so both are contended. */
  tap_check (json_is_false (at (o, "contention.owns_cpu")));
  tap_check_near (num (o, "contention.fair_share"), 1.0, 0);
  tap_check_int (num (o, "contention.contended_samples"), ==, 4);
  tap_check (json_is_true (at (o, "contention.contended")));
  tap_check_near (num (o, "per_container.0.tasks.0.samples.0.cpu_share"), 0.5, 1e-9);
  tap_check (json_is_true (at (o, "per_container.0.tasks.0.samples.0.contended")));
  tap_check (json_is_true (at (o, "per_container.1.tasks.0.samples.0.contended")));
  tap_check (json_is_string (at (o, "contention.judged_over")));
  json_decref (o);

  /* 3 tasks on 2 CPUs, 2 on CPU 0: half of it each by right, 0.2 is contended... */
  o = hand_point (&h, 3, 1, crowded, three, 0.9);
  tap_check (json_is_false (at (o, "contention.owns_cpu")));
  tap_check_near (num (o, "contention.fair_share"), 0.5, 0);
  tap_check_int (num (o, "contention.tasks_per_cpu"), ==, 2);
  tap_check_int (num (o, "contention.samples"), ==, 6);
  tap_check_int (num (o, "contention.contended_samples"), ==, 4);
  tap_check_near (num (o, "contention.cpu_share_min"), 0.2, 1e-9);
  tap_check (strcmp (json_string_value (at (o, "contention.judged_over")), "interval") == 0);
  json_decref (o);
  /* ... 0.28 and 0.72 is not: CPU 0 was the two tasks' all along, they only took unequal
   * turns (the point's fairness, not contention)... */
  o = hand_point (&h, 3, 1, crowded, unequal, 0.9);
  tap_check_int (num (o, "contention.contended_samples"), ==, 0);
  tap_check_near (num (o, "contention.cpu_share_min"), 0.28, 1e-9);
  json_decref (o);
  /* ... nor is 0.5 and 0.48 (a slice's worth less). */
  o = hand_point (&h, 3, 1, crowded, halves, 0.9);
  tap_check_int (num (o, "contention.contended_samples"), ==, 0);
  tap_check (json_is_false (at (o, "contention.contended")));
  tap_check (json_is_false (at (o, "contention.starved")));
  tap_check_int (num (o, "contention.starved_containers"), ==, 0);
  tap_check_near (num (o, "contention.window_needed_s"), 3 * 2 * 0.010, 1e-12);
  json_decref (o);
}

/* A container with fewer than 100 ops (done or failed) in the window is starved. */
static void
test_starved (void)
{
  static const int pinned[] = { 0, 1 };
  static const double full[3][HAND_MAX] = { { 1, 1 }, { 1.5, 1.5 }, { 2, 2 } };
  struct hand h;
  json_t *o;

  hand_ops = 49; /* 98 ops in the window */
  o = hand_point (&h, 2, 1, pinned, full, 0.9);
  tap_check (json_is_true (at (o, "contention.starved")));
  tap_check_int (num (o, "contention.starved_containers"), ==, 2);
  tap_check_int (num (o, "contention.starved_min_ops"), ==, 100);
  tap_check (json_is_true (at (o, "per_container.0.starved")));
  json_decref (o);
  hand_ops = 50; /* 100: enough */
  o = hand_point (&h, 2, 1, pinned, full, 0.9);
  tap_check (json_is_false (at (o, "contention.starved")));
  tap_check (json_is_false (at (o, "per_container.1.starved")));
  json_decref (o);
  hand_ops = 1000;
}

/* The model, the table and the warning read the flags; old documents have none. */
/* A reading later than its due time by more than an interval flags the interval it closes as
 * contended (the sampler did not get the CPU), whoever owns a CPU; a smaller delay does not. */
static void
test_late (void)
{
  static const int unpinned[] = { -1, -1 };
  struct hand h;
  json_t *o;

  hand_late_s = 0.7; /* threshold 0.2: a fifth of a CPU is enough, only lateness counts */
  o = hand_point (&h, 2, 1, unpinned, two, 0.2);
  tap_check_int (num (o, "contention.late_readings"), ==, 1);
  tap_check_near (num (o, "contention.late_max_s"), 0.7, 1e-6);
  tap_check (json_is_false (at (o, "per_container.0.samples.0.late")));
  tap_check (json_is_false (at (o, "per_container.0.samples.0.contended")));
  tap_check (json_is_true (at (o, "per_container.0.samples.1.late")));
  tap_check (json_is_true (at (o, "per_container.0.samples.1.contended")));
  tap_check (json_is_true (at (o, "per_container.1.tasks.0.samples.1.contended")));
  tap_check_int (num (o, "contention.contended_samples"), ==, 2);
  json_decref (o);
  hand_late_s = 0.4;
  o = hand_point (&h, 2, 1, unpinned, two, 0.2);
  tap_check_int (num (o, "contention.late_readings"), ==, 0);
  tap_check_near (num (o, "contention.late_max_s"), 0.4, 1e-6);
  tap_check (json_is_false (at (o, "per_container.0.samples.1.late")));
  tap_check_int (num (o, "contention.contended_samples"), ==, 0);
  json_decref (o);
  hand_late_s = 0;
}

static void
test_readers (void)
{
  static const int pinned[] = { 0, 1 };
  static const double full[3][HAND_MAX] = { { 1, 1 }, { 1.5, 1.5 }, { 2, 2 } };
  struct hand h;
  json_t *results = ucb_json_arr ();
  struct ucb_doc d;
  cleanup_free char *note = NULL, *table = NULL;
  size_t len = 0;
  FILE *f;

  ucb_json_push (results, hand_point (&h, 2, 1, pinned, two, 0.9));
  ucb_json_push (results, hand_point (&h, 2, 1, pinned, full, 0.9));
  tap_check (ucb_doc_built (results, &d));
  tap_check (d.points[0].contention.known && d.points[0].contention.contended);
  tap_check (d.points[0].contention.owns_cpu);
  tap_check_near (d.points[0].contention.cpu_share_median, 0.725, 1e-9);
  tap_check (d.points[1].contention.known && !d.points[1].contention.contended);
  ucb_doc_free (&d);

  note = ucb_report_contention_note (results);
  tap_check (note && strstr (note, "1 of 2 measured points contended"));
  tap_check (note && strstr (note, "median 0.72 of a CPU"));
  tap_check (note && strstr (note, "steal up to 10%, idle down to 0%"));

  f = open_memstream (&table, &len);
  ucb_report_text (f, results, false);
  fclose (f);
  tap_check (table && strstr (table, " cpu/fair  failed\n"));            /* the header says what */
  tap_check (table && strstr (table, "    0.72       0 * contended\n")); /* marked */
  tap_check (table && strstr (table, "    1.00       0\n"));             /* not */
  tap_check (table && strstr (table, "* = not clean data"));
  /* two legend lines, the second saying why the one flag in the rows marks them */
  tap_check (table
             && strstr (table, "\n(contended: its tasks got less CPU than their fair share; "
                               "every column's JSON key and mark: man ucbench (OUTPUT), "
                               "or run --legend)\n"));
  {
    size_t lines = 0;
    for (const char *c = table; c && (c = strstr (c, "\n(")); c++)
      lines++;
    tap_check_int (lines, ==, 2);
  }

  /* An old document: no contention object, so unknown and not contended, and no warning. */
  json_object_del (json_array_get (results, 0), "contention");
  tap_check (ucb_doc_built (results, &d));
  tap_check (!d.points[0].contention.known && !d.points[0].contention.contended);
  tap_check (isnan (d.points[0].contention.cpu_share_median));
  ucb_doc_free (&d);
  free (note);
  note = ucb_report_contention_note (results);
  tap_check (note == NULL);
  json_decref (results);
}

/* 40 unpinned tasks on 2 CPUs: 20 take turns on each, more than a 0.5 s interval can show, so
 * each is judged over the window (1 s) against 2/40 of a CPU.  2,000 getppid ops are under two
 * batches (20,000): no task publishes a share of its own. */
static void
test_unjudged (void)
{
  static int unpinned[HAND_MAX];
  static double cpu_s[3][HAND_MAX], fair[HAND_MAX], starved[HAND_MAX];
  struct hand h;
  json_t *results = ucb_json_arr (), *o;
  cleanup_free char *table = NULL;
  struct ucb_doc d;
  size_t len = 0;
  FILE *f;

  for (size_t t = 0; t < HAND_MAX; t++)
    {
      unpinned[t] = -1;
      cpu_s[0][t] = 1, cpu_s[1][t] = 1.0001, cpu_s[2][t] = 1.0002; /* publishes nothing useful */
      fair[t] = 0.05, starved[t] = 0.01;
    }
  /* No share and no kernel clock: unjudged, never clean. */
  o = hand_point (&h, HAND_MAX, 1, unpinned, cpu_s, 0.9);
  tap_check (strcmp (json_string_value (at (o, "contention.judged_over")), "window") == 0);
  tap_check (json_is_true (at (o, "contention.unjudged")));
  tap_check_int (num (o, "contention.unjudged_samples"), ==, 2 * HAND_MAX);
  tap_check (json_is_false (at (o, "contention.contended")));
  tap_check (json_is_null (at (o, "contention.cpu_share_median")));
  ucb_json_push (results, o);
  /* The kernel's clock gives each its fair 0.05: judged, clean... */
  hand_kclock_s = fair;
  o = hand_point (&h, HAND_MAX, 1, unpinned, cpu_s, 0.9);
  tap_check (json_is_false (at (o, "contention.unjudged")));
  tap_check_int (num (o, "contention.kernel_clock_tasks"), ==, HAND_MAX);
  tap_check (json_is_false (at (o, "contention.contended")));
  tap_check_near (num (o, "contention.cpu_share_median"), 0.05, 1e-9);
  ucb_json_push (results, o);
  /* ... or 0.01 of a CPU each: contended. */
  hand_kclock_s = starved;
  o = hand_point (&h, HAND_MAX, 1, unpinned, cpu_s, 0.9);
  tap_check (json_is_false (at (o, "contention.unjudged")));
  tap_check (json_is_true (at (o, "contention.contended")));
  ucb_json_push (results, o);
  hand_kclock_s = NULL;

  /* The flag reaches the model's one test of a point, and the table's mark. */
  tap_check (ucb_doc_built (results, &d));
  tap_check (d.points[0].contention.unjudged && !d.points[1].contention.unjudged);
  tap_check (ucb_point_cpu_doubtful (&d.points[0]) && !ucb_point_cpu_doubtful (&d.points[1]));
  ucb_doc_free (&d);
  f = open_memstream (&table, &len);
  ucb_report_text (f, results, false);
  fclose (f);
  /* cpu/fair: 0.05 of a CPU is all of a 2/40 share, 0.01 a fifth of it: the cell is
   * cpu_share_median / fair_share of the same entry, not the bare share. */
  tap_check (table && strstr (table, "       -       0 * unjudged\n"));
  tap_check (table && strstr (table, "    1.00       0\n"));
  tap_check (table && strstr (table, "    0.20       0 * contended\n"));
  for (size_t i = 1; i < 3; i++)
    {
      char want[32];
      json_t *e = json_array_get (results, i);
      snprintf (want, sizeof want, " %8.2f ",
                num (e, "contention.cpu_share_median") / num (e, "contention.fair_share"));
      tap_check (table && strstr (table, want));
    }
  free (table);
  table = ucb_report_contention_note (results);
  tap_check (table && strstr (table, "1 of 3 measured points contended"));
  tap_check (table && strstr (table, "; 1 of 3 measured points unjudged"));

  /* An older document without the key: a sampled point with no median share is unjudged. */
  json_object_del (json_object_get (json_array_get (results, 0), "contention"), "unjudged");
  tap_check (ucb_doc_built (results, &d));
  tap_check (d.points[0].contention.unjudged);
  ucb_doc_free (&d);
  json_decref (results);
}

static const struct tap_test tests[] = {
  { "CPU share: CPU delta over wall delta; dt 0, unpublished and backwards are unknown",
    test_share },
  { "owns a CPU: pinned alone, tasks <= allowed CPUs; unpinned and crowded do not", test_owns },
  { "flags: below the threshold (not at it); a repeat when over a tenth", test_flags },
  { "host idle and steal between two /proc/stat readings; nivcsw of a pid", test_jiffies },
  { "the kernel's CPU clock of another process; unknown when it is gone", test_kclock },
  { "document: per task and container samples, contention, host_samples", test_record },
  { "container sample: the lowest share of its tasks", test_container_min },
  { "a reading late by more than an interval: its interval is late and contended", test_late },
  { "fair share: 1 owning a CPU, CPUs / tasks unpinned, 1 / tasks on a shared CPU",
    test_fair_share },
  { "contended: the tasks taking turns on a CPU got under their fair share together", test_fair },
  { "starved: a container with fewer than 100 ops", test_starved },
  { "model, table mark and cpu column, the warning; old documents", test_readers },
  { "unjudged: no share, judged on the kernel's clock, never clean", test_unjudged },
};

TAP_MAIN (tests)
