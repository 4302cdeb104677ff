/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.h - per-task counters in a shared mapping, and timed sampling of them. */
#ifndef UCB_MEASURE_H
#define UCB_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

/* One task's counters, alone in a 256-byte slot: two 128-byte lines, so adjacent-line
 * prefetch cannot make neighbours ping-pong (will-it-scale commit 68ade4e).  Only the task
 * writes; the parent reads with relaxed loads. */
#define UCB_SLOT_SIZE 256
#define UCB_SLOT_ERRNOS 6 /* distinct errnos counted per task; the last entry takes the rest */
#define UCB_ERRNO_OTHER (-1)
struct ucb_errno_count
{
  int32_t err; /* 0 = unused, UCB_ERRNO_OTHER = every errno that found no free entry */
  uint32_t reserved;
  uint64_t count;
};
struct ucb_slot
{
  uint64_t ops;    /* completed ops: the hot counter */
  uint64_t fails;  /* failed ops (not work) */
  uint64_t cpu_ns; /* the task's own CPU time (CLOCK_THREAD_CPUTIME_ID), after every batch */
  /* ... and with what it waited for (the threads it ended, the children it reaped: a fork
   * op's child runs while the task sleeps), the CPU it used; = cpu_ns with --threads, whose
   * process and children are shared by all tasks.  The CPU share is judged from this. */
  uint64_t busy_ns;
  int32_t last_errno;
  int32_t reserved;
  struct ucb_errno_count errs[UCB_SLOT_ERRNOS];
  char pad[UCB_SLOT_SIZE - 4 * sizeof (uint64_t) - 2 * sizeof (int32_t)
           - UCB_SLOT_ERRNOS * sizeof (struct ucb_errno_count)];
} __attribute__ ((aligned (UCB_SLOT_SIZE)));

/* The shared area: a control line (written only by the parent) and one slot per task. */
struct ucb_shared
{
  struct
  {
    int32_t stop;
  } __attribute__ ((aligned (UCB_SLOT_SIZE))) ctl;
  struct ucb_slot slots[];
};

struct ucb_arena
{
  struct ucb_shared *shared;
  size_t ntasks;
  size_t bytes;
};

/* MAP_SHARED|MAP_ANONYMOUS, made before forking so every task inherits it; mapped memory
 * stays writable after setuid and unshare, since no permission check follows mmap. */
int ucb_arena_create (struct ucb_arena *a, size_t ntasks, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_arena_destroy (struct ucb_arena *a);

static inline bool
ucb_arena_stopping (const struct ucb_shared *s)
{
  return __atomic_load_n (&s->ctl.stop, __ATOMIC_RELAXED) != 0;
}

/* One reading of one task. */
struct ucb_reading
{
  uint64_t t_ns;    /* CLOCK_MONOTONIC when the counter was read */
  uint64_t ops;     /* cumulative counter */
  uint64_t fails;   /* cumulative failed ops */
  uint64_t cpu_ns;  /* cumulative CPU time of the task, as it last published it */
  uint64_t busy_ns; /* cumulative CPU time of the task and what it waited for (slot busy_ns) */
};

/* The whole machine's CPU time from /proc/stat's `cpu` line, in jiffies. */
struct ucb_jiffies
{
  bool ok; /* false: not read (or unreadable) */
  uint64_t total, idle, steal;
};

/* Readings of every task: readings[task][k], k = 0 is the baseline at the end of warm-up. */
struct ucb_samples
{
  size_t ntasks;
  size_t nreadings;
  size_t cap;
  struct ucb_reading *r;    /* ntasks * cap, row-major by reading */
  struct ucb_jiffies *host; /* cap: the machine, read after the tasks of each row */
  uint64_t start_ns;        /* the start barrier's release */
};

static inline struct ucb_reading *
ucb_reading_at (const struct ucb_samples *s, size_t k, size_t task)
{
  return &s->r[k * s->ntasks + task];
}

void ucb_samples_init (struct ucb_samples *s, size_t ntasks, size_t cap);
void ucb_samples_free (struct ucb_samples *s);
/* Read every task once, then the machine, appending one row (a timestamp per task). */
void ucb_sample_row (struct ucb_samples *s, const struct ucb_arena *a);

/* ---- contention: did each task get the CPU it should own? ---- */

void ucb_jiffies_read (struct ucb_jiffies *j);
/* Idle and steal percent of the machine between two readings; false (both NaN) when either is
 * unknown or no jiffy passed. */
bool ucb_jiffies_pct (const struct ucb_jiffies *a, const struct ucb_jiffies *b, double *idle_pct,
                      double *steal_pct);
/* Involuntary context switches of every thread of process `pid` (/proc/PID/task/TID/status);
 * -1 when unreadable. */
long long ucb_nivcsw_of (pid_t pid);

/* A task process's CPU time as the kernel keeps it (its process clock, read from outside):
 * cpu_ns = 0 when unknown.  A task publishes its own CPU time only after each batch of ops, so
 * a task that finishes fewer than two batches in the window has no share of its own; this one
 * needs no batch.  It lacks the children a task reaped, so it can only understate a share. */
struct ucb_kclock
{
  uint64_t t_ns, cpu_ns;
};
void ucb_kclock_read (struct ucb_kclock *out, pid_t pid);
/* A task's share of one CPU between two such readings; NaN when either is unknown. */
double ucb_kclock_share (const struct ucb_kclock *a, const struct ucb_kclock *b);

/* A task's share of one CPU over an interval: its busy_ns delta over the wall delta; NaN when
 * no wall time passed or that CPU time is unknown (0) or went backwards. */
double ucb_cpu_share (const struct ucb_reading *a, const struct ucb_reading *b);
/* Whether task `t` of the point's tasks (their CPUs in cpu[0..ntasks-1], -1 = unpinned) should
 * own a CPU: pinned to a CPU no other task shares, and no more tasks than allowed CPUs. */
bool ucb_task_owns_cpu (const int *cpu, size_t ntasks, size_t t, size_t nallowed);
/* The share of one CPU task `t` gets when nothing but the point runs: 1 / (the tasks pinned to
 * its CPU) when pinned, allowed CPUs / tasks (at most 1) when unpinned. */
double ucb_task_fair_share (const int *cpu, size_t ntasks, size_t t, size_t nallowed);
/* The most tasks of the point that take turns on one CPU: pinned, the most on one CPU;
 * unpinned, tasks / allowed CPUs rounded up.  A round (every one of them runs once) lasts
 * that many scheduler slices. */
size_t ucb_tasks_per_cpu (const int *cpu, size_t ntasks, size_t nallowed);
/* How long a CPU-bound task runs per turn when many take turns on a CPU: measured 9.4 ms
 * (getppid, 1024 containers on 2 CPUs, kernel 6.18 at HZ=250), though EEVDF's base slice is
 * 0.75 ms x (1 + log2 min(CPUs, 8)) and the tick 4 ms: turns are longer than either says. */
#define UCB_SCHED_SLICE_S 0.010
/* A window gives every task UCB_WINDOW_SLICES turns: a window shorter than that many rounds
 * leaves tasks that never ran, or ran once, and says nothing of them. */
#define UCB_WINDOW_SLICES 3
double ucb_window_needed_s (size_t tasks_per_cpu);
/* A container that did fewer ops than this in the window is starved: its rate is not
 * measured (one op more or less moves it by over 1 %). */
#define UCB_STARVED_MIN_OPS 100
/* A sample is contended when its task got less than `threshold` x its fair share, less the
 * one slice that taking turns may shift between intervals of `period_s` when the CPU is shared
 * (fair share < 1).  It is unjudged, never clean, when the share or the fair share is unknown
 * (NaN), or when that slice is as large as the bar itself: a period too short to tell a task
 * that got its share from one that got none. */
enum ucb_sample_verdict
{
  UCB_SAMPLE_FAIR,
  UCB_SAMPLE_CONTENDED,
  UCB_SAMPLE_UNJUDGED,
};
enum ucb_sample_verdict ucb_sample_judge (double fair_share, double share, double threshold,
                                          double period_s);
/* A repeat is contended when more than a tenth of its samples are. */
bool ucb_repeat_contended (size_t contended, size_t samples);

#endif
