/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.c - one sweep point: spawn the containers, measure, stop, clean up. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/sched.h"
#include "core/util.h"
#include "engine/owner.h"
#include "engine/runner.h"
#include "engine/spawn.h"
#include "engine/workload.h"
#include "host/cgroup/cgroup.h"

#define READY_TIMEOUT_S 120.0

struct task_arg
{
  const struct ucb_workload *w;
  struct ucb_shared *shared;
  unsigned tasks;
  bool threads;
  unsigned long runid;
};

/* The task's own CPU time, published for the parent: clocks of threads in other processes
 * cannot be read from outside, and the same path serves processes.  A task process also
 * publishes what it waited for: its ended threads (in the process clock) and reaped children. */
static void
publish_cpu (struct ucb_slot *slot, bool threads)
{
  uint64_t own = ucb_clock_ns (CLOCK_THREAD_CPUTIME_ID), busy = own;
  struct rusage ru;

  if (!threads && (busy = ucb_clock_ns (CLOCK_PROCESS_CPUTIME_ID)) != 0
      && getrusage (RUSAGE_CHILDREN, &ru) == 0)
    busy += ((uint64_t) ru.ru_utime.tv_sec + (uint64_t) ru.ru_stime.tv_sec) * 1000000000ull
            + ((uint64_t) ru.ru_utime.tv_usec + (uint64_t) ru.ru_stime.tv_usec) * 1000ull;
  if (own)
    __atomic_store_n (&slot->cpu_ns, own, __ATOMIC_RELAXED);
  if (busy)
    __atomic_store_n (&slot->busy_ns, busy, __ATOMIC_RELAXED);
}

static const char *
result_name (enum ucb_result r)
{
  switch (r)
    {
    case UCB_OK:
      return "ok";
    case UCB_FAIL:
      return "failed";
    case UCB_SKIP:
      return "skipped";
    case UCB_NO_RESOURCE:
      return "out of a kernel resource";
    default:
      return "unknown result";
    }
}

/* The task: set up, report ready, wait for the barrier, loop until the stop flag. */
/* The end of a task's workload, on every path after setup() began: its teardown(), then the
 * memory of its state, which the harness owns so that no workload has to free it. */
static void
finish_task (const struct ucb_workload *w, struct ucb_wctx *ctx)
{
  if (w->teardown)
    w->teardown (ctx);
  free (ctx->priv);
  ctx->priv = NULL;
}

static int
task_main (void *argp, const struct ucb_task_env *env, unsigned task, ucb_error_t *err)
{
  const struct task_arg *a = argp;
  const struct ucb_workload *w = a->w;
  struct ucb_wctx ctx = { .slot = &a->shared->slots[env->spec->index * a->tasks + task],
                          .container = env->spec->index,
                          .task = task,
                          .tasks = a->tasks,
                          .threads = a->threads,
                          .runid = a->runid };
  uint64_t batch = w->batch ? w->batch : 1000;
  enum ucb_result r = UCB_OK;

  if (w->setup && w->setup (&ctx, err) < 0)
    {
      finish_task (w, &ctx); /* releases what setup took before it failed */
      return ucb_error_wrap (err, "workload %s: setup of task %u", w->name, task);
    }
  publish_cpu (ctx.slot, a->threads);
  if (ucb_task_ready (env, task, err) < 0 || ucb_task_wait_start (env, err) < 0)
    {
      finish_task (w, &ctx);
      return -1;
    }
  while (!ucb_arena_stopping (a->shared))
    {
      r = w->loop (&ctx, batch);
      publish_cpu (ctx.slot, a->threads);
      if (r != UCB_OK)
        break;
    }
  finish_task (w, &ctx);
  if (r != UCB_OK)
    return ucb_make_error (err, __atomic_load_n (&ctx.slot->last_errno, __ATOMIC_RELAXED),
                           "workload %s stopped in task %u: %s", w->name, task, result_name (r));
  return 0;
}

/* Sleep until an absolute CLOCK_MONOTONIC time, waking early only for an interrupt. */
static int
sleep_until (uint64_t t_ns, ucb_error_t *err)
{
  struct timespec ts
      = { .tv_sec = (time_t) (t_ns / 1000000000ull), .tv_nsec = (long) (t_ns % 1000000000ull) };
  int r;

  while ((r = clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
    if (ucb_interrupted ())
      return ucb_make_error (err, EINTR, "interrupted by signal %d", ucb_interrupted ());
  if (r != 0)
    return ucb_make_error (err, r, "clock_nanosleep");
  if (ucb_interrupted ())
    return ucb_make_error (err, EINTR, "interrupted by signal %d", ucb_interrupted ());
  return 0;
}

/* Every task's slot as it is now: the errno counts have no reading of their own. */
static struct ucb_slot *
snapshot (const struct ucb_arena *a)
{
  /* struct ucb_slot is 256-byte aligned: malloc's alignment is not enough. */
  struct ucb_slot *s = aligned_alloc (UCB_SLOT_SIZE, a->ntasks * sizeof *s);

  if (s == NULL)
    ucb_oom ();
  memcpy (s, a->shared->slots, a->ntasks * sizeof *s);
  return s;
}

/* Counters of every container over the window: one read at each edge. */
struct perf_window
{
  struct ucb_perf_set *set; /* per container, NULL without --perf */
  double (*start)[UCB_PERF_NEVENTS];
};

static void
perf_edge (struct perf_window *pw, struct ucb_point_result *res, bool end)
{
  for (size_t i = 0; pw->set && i < res->pt.containers; i++)
    {
      double now[UCB_PERF_NEVENTS];
      ucb_perf_read (&pw->set[i], now);
      for (int e = 0; e < UCB_PERF_NEVENTS; e++)
        if (!end)
          pw->start[i][e] = now[e];
        else
          res->c[i].perf[e] = now[e] - pw->start[i][e]; /* NaN stays NaN */
    }
}

/* Involuntary context switches of every task now (threads: of their processes, once each); -1
 * when one cannot be read.  Read at the window's edges only: a /proc walk per task per sample
 * would cost milliseconds at thousands of containers. */
static long long
tasks_nivcsw (const struct ucb_point_result *res)
{
  long long sum = 0;

  for (size_t i = 0; i < res->pt.containers; i++)
    for (size_t t = 0; t < res->pt.tasks; t++)
      {
        long long n;
        if (t > 0 && res->c[i].task_pid[t] == res->c[i].task_pid[t - 1])
          continue;
        n = ucb_nivcsw_of (res->c[i].task_pid[t]);
        if (n < 0)
          return -1;
        sum += n;
      }
  return sum;
}

/* Every task's process CPU clock now, into kclock[] (per task, container-major).  Threads of
 * one process share its clock: theirs stay unknown.  At the window's edges only, like nivcsw. */
static void
tasks_kclock (const struct ucb_point_result *res, struct ucb_kclock *kclock)
{
  size_t T = res->pt.tasks;

  for (size_t i = 0; i < res->pt.containers; i++)
    for (size_t t = 0; t < T; t++)
      {
        const pid_t *pid = res->c[i].task_pid;
        bool shared = (t > 0 && pid[t] == pid[t - 1]) || (t + 1 < T && pid[t] == pid[t + 1]);

        ucb_kclock_read (&kclock[i * T + t], shared ? 0 : pid[t]);
      }
}

/* The plan's progress callback, if any. */
static void
phase (const struct ucb_plan *o, const char *what, size_t done, size_t total)
{
  if (o->on_phase)
    o->on_phase (o->on_phase_arg, what, done, total);
}

static void
ready_tick (void *arg, size_t ready, size_t n)
{
  phase (arg, "ready", ready, n);
}

static int
measure (const struct ucb_plan *o, struct ucb_fleet *fleet, struct ucb_arena *arena,
         struct perf_window *pw, struct ucb_point_result *res, ucb_error_t *err)
{
  size_t nint = (size_t) floor (o->duration / o->interval + 1e-9);
  uint64_t interval_ns = (uint64_t) llround (o->interval * 1e9);
  const struct ucb_samples *smp = &res->samples;
  long long nivcsw0, nivcsw1;
  uint64_t t0;

  if (nint == 0)
    nint = 1;
  ucb_samples_init (&res->samples, arena->ntasks, nint + 1);
  if (ucb_fleet_start (fleet, err) < 0)
    return -1;
  res->start_ns = res->samples.start_ns = ucb_now_ns ();
  if (sleep_until (res->start_ns + (uint64_t) llround (o->warmup * 1e9), err) < 0
      || ucb_fleet_check (fleet, err) < 0)
    return -1;
  nivcsw0 = tasks_nivcsw (res);
  res->kclock[0] = xcalloc (arena->ntasks + 1, sizeof *res->kclock[0]);
  res->kclock[1] = xcalloc (arena->ntasks + 1, sizeof *res->kclock[1]);
  ucb_sample_row (&res->samples, arena);
  tasks_kclock (res, res->kclock[0]);
  perf_edge (pw, res, false);
  res->initial = snapshot (arena);
  t0 = ucb_reading_at (&res->samples, 0, 0)->t_ns;
  for (size_t k = 1; k <= nint; k++)
    {
      phase (o, "measuring", k - 1, nint);
      if (sleep_until (t0 + k * interval_ns, err) < 0)
        return -1;
      ucb_sample_row (&res->samples, arena);
      if (ucb_fleet_check (fleet, err) < 0)
        return -1;
    }
  tasks_kclock (res, res->kclock[1]);
  perf_edge (pw, res, true);
  nivcsw1 = tasks_nivcsw (res);
  if (nivcsw0 >= 0 && nivcsw1 >= nivcsw0)
    res->nivcsw = nivcsw1 - nivcsw0;
  /* The machine over the whole window, from the same readings as each interval's. */
  ucb_jiffies_pct (&smp->host[0], &smp->host[smp->nreadings - 1], &res->idle_pct, &res->steal_pct);
  return 0;
}

static uint64_t
userns_inode (pid_t pid)
{
  char path[64];
  struct stat st;

  snprintf (path, sizeof path, "/proc/%d/ns/user", (int) pid);
  return stat (path, &st) == 0 ? (uint64_t) st.st_ino : 0;
}

/* Per point, what --cgroup and --perf hold; released after the fleet (declared before it, so
 * cleanup runs after the fleet's): cgroups can only go once their processes have. */
struct point_extras
{
  struct ucb_runtime *rt;
  struct ucb_container_rec *rec; /* shared mapping: the container inits write it */
  size_t nrec;
  struct perf_window pw;
  size_t nperf;
};

static void
point_extras_release (struct point_extras *x)
{
  for (size_t i = 0; x->pw.set && i < x->nperf; i++)
    ucb_perf_close (&x->pw.set[i]);
  free (x->pw.set);
  free (x->pw.start);
  x->pw.set = NULL;
  if (x->rt && x->rt->cg)
    {
      ucb_error_t e = NULL;
      if (ucb_cgroup_remove_containers (x->rt->cg, &e) < 0)
        {
          /* Only on an error path: the run's end (and its janitor) tries again. */
          fprintf (stderr, "ucbench: warning: %s\n", e->msg);
          ucb_error_free (&e);
        }
    }
  if (x->rt)
    x->rt->rec = NULL;
  if (x->rec)
    munmap (x->rec, x->nrec * sizeof *x->rec);
  x->rec = NULL;
}

/* Counters on each container's tasks: processes by pid, threads by their tids. */
static int
open_perf (struct point_extras *x, struct ucb_point_result *res, ucb_error_t *err)
{
  size_t n = res->pt.containers;

  x->pw.set = xcalloc (n, sizeof *x->pw.set);
  x->pw.start = xcalloc (n, sizeof *x->pw.start);
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free pid_t *tids = NULL;
      size_t ntids = res->pt.tasks;

      if (res->pt.threads)
        tids = ucb_perf_threads_of (res->c[i].task_pid[0], &ntids);
      else
        {
          tids = xcalloc (ntids, sizeof *tids);
          memcpy (tids, res->c[i].task_pid, ntids * sizeof *tids);
        }
      if (ucb_perf_open (&x->pw.set[i], &x->rt->perf, tids, ntids, err) < 0)
        return -1;
      x->nperf = i + 1;
      res->c[i].perf_on = true;
      for (int e = 0; e < UCB_PERF_NEVENTS; e++)
        {
          res->c[i].perf[e] = NAN;
          memcpy (res->c[i].perf_reason[e], x->pw.set[i].reason[e],
                  sizeof res->c[i].perf_reason[e]);
        }
    }
  return 0;
}

/* The records the runtime hooks of each container init write (seccomp load time, caps
 * applied): a shared mapping, since the inits are other processes. */
static int
map_records (struct point_extras *x, size_t n, ucb_error_t *err)
{
  void *m
      = mmap (NULL, n * sizeof *x->rec, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

  if (m == MAP_FAILED)
    return ucb_make_error (err, errno, "mmap container records");
  x->rec = m;
  x->nrec = n;
  x->rt->rec = x->rec;
  return 0;
}

/* Container i of the point: its owner and its tasks' CPUs in `res`, and the spec that builds
 * it. */
static void
describe_container (const struct ucb_plan *o, const struct ucb_placement *pl,
                    struct ucb_runtime *rt, struct ucb_point_result *res, size_t i,
                    struct ucb_container_spec *s)
{
  const struct ucb_point *pt = &res->pt;
  struct ucb_container_result *c = &res->c[i];
  size_t T = pt->tasks;

  c->index = (unsigned) i;
  c->owner_uid = ucb_owner_uid (&pt->owner, o->uid_base, (unsigned) i);
  c->depth = pt->depth;
  c->cpu = xcalloc (T, sizeof *c->cpu);
  /* Task k (container-major) on CPU k mod n: one task per CPU first, round-robin beyond. */
  for (size_t t = 0; t < T; t++)
    c->cpu[t] = pl->ncpus ? pl->cpus[(i * T + t) % pl->ncpus] : -1;
  *s = (struct ucb_container_spec){
    .index = (unsigned) i,
    .owner_uid = c->owner_uid,
    /* Owner gid = owner uid, except for our own uid, whose group we keep (a non-root
     * user running containers of its own cannot change groups). */
    .owner_gid = c->owner_uid == getuid () ? getgid () : (gid_t) c->owner_uid,
    .depth = pt->depth,
    .tasks = pt->tasks,
    .threads = pt->threads,
    .clone_flags = pt->depth > 0 ? pt->isolate : 0,
    .task_cpus = c->cpu,
    .limits = res->limits.set,
    .nlimits = res->limits.nset,
    .owner_hook = rt ? ucb_runtime_owner_hook : NULL,
    .init_hook = rt ? ucb_runtime_init_hook : NULL,
    .hook_arg = rt,
  };
}

/* --cgroup: container i's group, its cpuset the CPUs of its tasks (all allowed ones when
 * unpinned). */
static int
create_cgroup (struct ucb_runtime *rt, const struct ucb_placement *pl,
               struct ucb_container_result *c, size_t i, size_t T, ucb_error_t *err)
{
  cleanup_free int *cc = xcalloc (T, sizeof *cc);
  size_t ncc = ucb_distinct_cpus (c->cpu, T, cc);

  if (ucb_cgroup_create (rt->cg, (unsigned) i, ncc ? cc : pl->allowed, ncc ? ncc : pl->nallowed,
                         err)
      < 0)
    return ucb_error_wrap (err, "cgroup of container %zu", i);
  c->cgroup = ucb_cgroup_container_info (rt->cg, (unsigned) i);
  return 0;
}

/* Describe every container and make its cgroup, then hand them all to the spawner; the specs
 * live only until it is forked (it reads its own copy). */
static int
spawn_containers (const struct ucb_plan *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
                  struct ucb_fleet *fleet, struct task_arg *targ, struct ucb_point_result *res,
                  ucb_error_t *err)
{
  size_t n = res->pt.containers;
  cleanup_free struct ucb_container_spec *specs = xcalloc (n, sizeof *specs);

  for (size_t i = 0; i < n; i++)
    {
      describe_container (o, pl, rt, res, i, &specs[i]);
      if (rt && rt->cg && create_cgroup (rt, pl, &res->c[i], i, res->pt.tasks, err) < 0)
        return -1;
      if (ucb_interrupted ())
        return ucb_make_error (err, EINTR, "interrupted by signal %d during setup",
                               ucb_interrupted ());
    }
  return ucb_fleet_spawn_all (fleet, specs, n, task_main, targ, err);
}

/* What the ready containers tell about themselves: task pids and uid, user namespace, and the
 * records of their runtime hooks. */
static void
collect_ready (struct ucb_fleet *fleet, const struct point_extras *x, struct ucb_point_result *res)
{
  for (size_t i = 0; i < res->pt.containers; i++)
    {
      res->c[i].task_pid = steal_pointer (&fleet->c[i].task_pid);
      res->c[i].task_uid = fleet->c[i].task_uid;
      res->c[i].userns_ino = userns_inode (res->c[i].task_pid[0]);
      if (x->rec)
        {
          res->c[i].seccomp_load_ns = x->rec[i].seccomp_load_ns;
          res->c[i].caps_applied = x->rec[i].caps_applied != 0;
        }
    }
}

/* The final readings, then what the containers reported until then; then every process
 * killed and reaped (orphans too) before their cgroups can be removed.  Nothing is measured
 * after the final reading, so the tasks need not stop by themselves: at thousands of
 * containers on a few CPUs, every task waiting its turn to see a stop flag took seconds to
 * minutes, while the kernel frees what a killed task held (its charges, its IPC namespace,
 * its segments marked for removal) as it would at a normal exit. */
static int
stop_point (struct ucb_runtime *rt, struct ucb_fleet *fleet, struct ucb_arena *arena,
            struct ucb_point_result *res, ucb_error_t *err)
{
  uint64_t t0 = ucb_now_ns ();

  res->final = snapshot (arena);
  /* The check before the stop flag: a container that ended by the flag would be taken for
   * one that stopped while measuring. */
  if (ucb_fleet_check (fleet, err) < 0)
    return ucb_error_wrap (err, "at the end of the window");
  __atomic_store_n (&arena->shared->ctl.stop, 1, __ATOMIC_RELAXED);
  ucb_fleet_destroy (fleet);
  if (rt && rt->cg && ucb_cgroup_remove_containers (rt->cg, err) < 0)
    return ucb_error_wrap (err, "removing the containers' cgroups");
  res->teardown_s = (double) (ucb_now_ns () - t0) / 1e9;
  return 0;
}

int
ucb_run_point (const struct ucb_plan *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
               const struct ucb_point *pt, struct ucb_point_result *res, ucb_error_t *err)
{
  __attribute__ ((cleanup (point_extras_release))) struct point_extras extras = { .rt = rt };
  __attribute__ ((cleanup (ucb_fleet_destroy))) struct ucb_fleet fleet
      = { .start_rd = -1, .start_wr = -1 };
  __attribute__ ((cleanup (ucb_arena_destroy))) struct ucb_arena arena = { 0 };
  __attribute__ ((cleanup (ucb_sched_restore))) struct ucb_sched_saved sched = { 0 };
  struct task_arg targ;
  uint64_t t_fork;
  size_t n = pt->containers;

  memset (res, 0, sizeof *res);
  res->pt = *pt;
  res->idle_pct = res->steal_pct = NAN;
  res->nivcsw = -1;
  res->contention_threshold = o->contention_threshold;
  res->canary.before = res->canary.after = (struct ucb_canary_edge){ NAN, NAN };
  res->c = xcalloc (n, sizeof *res->c);
  if (ucb_limits_for_point (o, pt, &res->limits, err) < 0)
    return -1;
  if (ucb_arena_create (&arena, n * pt->tasks, err) < 0 || ucb_fleet_init (&fleet, n, err) < 0)
    return -1;
  fleet.spare = res->c;
  fleet.spare_len = n * sizeof *res->c;
  fleet.on_ready = o->on_phase ? ready_tick : NULL;
  fleet.on_ready_arg = (void *) o;
  targ = (struct task_arg){ .w = pt->workload,
                            .shared = arena.shared,
                            .tasks = pt->tasks,
                            .threads = pt->threads,
                            /* Unique among concurrent runs and points: names kernel objects. */
                            .runid = (unsigned long) getpid () * 100000ul + pt->index };
  if (rt && map_records (&extras, n, err) < 0)
    return -1;
  /* Real-time for the whole point, so that spawning, readings and teardown are not one
   * task among thousands; declared after the fleet, so restored before its cleanup. */
  res->sched_reason = ucb_sched_raise (&sched);
  res->sched_policy = ucb_sched_policy_name ();
  res->interval_ns = (uint64_t) llround (o->interval * 1e9);
  t_fork = ucb_now_ns ();
  if (spawn_containers (o, pl, rt, &fleet, &targ, res, err) < 0
      || ucb_fleet_wait_ready (&fleet, READY_TIMEOUT_S, err) < 0)
    return -1;
  res->setup_s = (double) (ucb_now_ns () - t_fork) / 1e9;
  collect_ready (&fleet, &extras, res);
  if (rt && rt->perf_on && open_perf (&extras, res, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++) /* the canary runs where the tasks do (canary.h) */
    ucb_canary_add_cpus (&res->canary, res->c[i].cpu, pt->tasks);
  if (ucb_canary_measure (&res->canary, &res->canary.before, pl->allowed, pl->nallowed, err) < 0
      || measure (o, &fleet, &arena, &extras.pw, res, err) < 0)
    return -1;
  /* One container's memory, after the window: every container is built alike. */
  ucb_container_footprint (fleet.c[0].pid, res->c[0].task_pid, pt->tasks, &res->memory);
  phase (o, "stopping", n, n);
  if (stop_point (rt, &fleet, &arena, res, err) < 0)
    return -1;
  res->peak_rss_kib = ucb_peak_rss_kib ();
  return ucb_canary_measure (&res->canary, &res->canary.after, pl->allowed, pl->nallowed, err);
}

void
ucb_point_result_free (struct ucb_point_result *res)
{
  for (size_t i = 0; res->c && i < res->pt.containers; i++)
    {
      free (res->c[i].cpu);
      free (res->c[i].task_pid);
      ucb_cgroup_container_info_free (res->c[i].cgroup);
    }
  free (res->c);
  free (res->initial);
  free (res->final);
  free (res->kclock[0]);
  free (res->kclock[1]);
  ucb_canary_free (&res->canary);
  ucb_samples_free (&res->samples);
  memset (res, 0, sizeof *res);
}
