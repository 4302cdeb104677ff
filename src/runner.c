/* runner.c - one sweep point: spawn the containers, measure, stop, clean up. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "owner.h"
#include "runner.h"
#include "spawn.h"
#include "util.h"
#include "workload.h"

#define READY_TIMEOUT_S 120.0
#define STOP_GRACE_S 10.0

int
ucb_placement_init (struct ucb_placement *p, const struct ucb_run_options *o, ucb_error_t *err)
{
  cpu_set_t set;

  memset (p, 0, sizeof *p);
  p->mode = o->pin;
  if (sched_getaffinity (0, sizeof set, &set) < 0)
    return ucb_make_error (err, errno, "sched_getaffinity");
  p->allowed = xcalloc (CPU_SETSIZE, sizeof *p->allowed);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, &set))
      p->allowed[p->nallowed++] = c;
  switch (o->pin)
    {
    case UCB_PIN_AUTO:
      p->cpus = xcalloc (p->nallowed, sizeof *p->cpus);
      memcpy (p->cpus, p->allowed, p->nallowed * sizeof *p->cpus);
      p->ncpus = p->nallowed;
      break;
    case UCB_PIN_LIST:
      for (size_t i = 0; i < o->n_pin_cpus; i++)
        if (o->pin_cpus[i] >= CPU_SETSIZE || !CPU_ISSET (o->pin_cpus[i], &set))
          {
            cleanup_free char *allowed = ucb_format_cpu_list (p->allowed, p->nallowed);
            ucb_usage_error (err, "--pin: CPU %d is not in this process's allowed set %s",
                             o->pin_cpus[i], allowed);
            ucb_placement_free (p);
            return -1;
          }
      p->cpus = xcalloc (o->n_pin_cpus, sizeof *p->cpus);
      memcpy (p->cpus, o->pin_cpus, o->n_pin_cpus * sizeof *p->cpus);
      p->ncpus = o->n_pin_cpus;
      break;
    case UCB_PIN_NONE:
      break;
    default:
      break;
    }
  return 0;
}

size_t
ucb_sweep_size (const struct ucb_run_options *o)
{
  return o->n_workloads * o->n_owners * o->n_depths * o->n_tasks * o->n_containers * o->repeat;
}

void
ucb_sweep_point (const struct ucb_run_options *o, size_t k, struct ucb_point *pt)
{
  size_t i = k;
  unsigned rep = (unsigned) (i % o->repeat);
  size_t n, t, d, ow, w;

  i /= o->repeat;
  n = i % o->n_containers;
  i /= o->n_containers;
  t = i % o->n_tasks;
  i /= o->n_tasks;
  d = i % o->n_depths;
  i /= o->n_depths;
  ow = i % o->n_owners;
  w = i / o->n_owners;
  *pt = (struct ucb_point){ .workload = o->workloads[w],
                            .containers = o->containers[n],
                            .owner = o->owners[ow],
                            .depth = o->depths[d],
                            .tasks = o->tasks[t],
                            .threads = o->threads,
                            .isolate = o->isolate,
                            .repeat = rep + 1,
                            .index = (unsigned) k };
}

void
ucb_placement_free (struct ucb_placement *p)
{
  free (p->cpus);
  free (p->allowed);
  memset (p, 0, sizeof *p);
}

struct task_arg
{
  const struct ucb_workload *w;
  struct ucb_shared *shared;
  unsigned tasks;
  bool threads;
  unsigned long runid;
};

/* The task's own CPU time, published for the parent: clocks of threads in other processes
 * cannot be read from outside, and the same path serves processes. */
static void
publish_cpu (struct ucb_slot *slot)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    __atomic_store_n (&slot->cpu_ns, (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec,
                      __ATOMIC_RELAXED);
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
      if (w->teardown) /* idempotent: releases what setup took before it failed */
        w->teardown (&ctx);
      return ucb_error_wrap (err, "workload %s: setup of task %u", w->name, task);
    }
  publish_cpu (ctx.slot);
  if (ucb_task_ready (env, task, err) < 0 || ucb_task_wait_start (env, err) < 0)
    {
      if (w->teardown)
        w->teardown (&ctx);
      return -1;
    }
  while (!ucb_arena_stopping (a->shared))
    {
      r = w->loop (&ctx, batch);
      publish_cpu (ctx.slot);
      if (r != UCB_OK)
        break;
    }
  if (w->teardown)
    w->teardown (&ctx);
  if (r != UCB_OK)
    return ucb_make_error (err, __atomic_load_n (&ctx.slot->last_errno, __ATOMIC_RELAXED),
                           "workload %s stopped in task %u: %s", w->name, task, result_name (r));
  return 0;
}

/* Whole-machine idle and steal jiffies from /proc/stat's `cpu` line. */
static int
read_cpu_jiffies (uint64_t *total, uint64_t *idle, uint64_t *steal)
{
  cleanup_file FILE *f = fopen ("/proc/stat", "re");
  unsigned long long v[8] = { 0 };

  if (f == NULL
      || fscanf (f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                 &v[4], &v[5], &v[6], &v[7])
             != 8)
    return -1;
  *total = 0;
  for (int i = 0; i < 8; i++)
    *total += v[i];
  *idle = v[3] + v[4];
  *steal = v[7];
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

static int
measure (const struct ucb_run_options *o, struct ucb_fleet *fleet, struct ucb_arena *arena,
         struct ucb_point_result *res, ucb_error_t *err)
{
  size_t nint = (size_t) floor (o->duration / o->interval + 1e-9);
  uint64_t interval_ns = (uint64_t) llround (o->interval * 1e9);
  uint64_t tot0 = 0, idle0 = 0, steal0 = 0, tot1, idle1, steal1;
  bool have_stat;
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
  have_stat = read_cpu_jiffies (&tot0, &idle0, &steal0) == 0;
  ucb_sample_row (&res->samples, arena);
  res->initial = snapshot (arena);
  t0 = ucb_reading_at (&res->samples, 0, 0)->t_ns;
  for (size_t k = 1; k <= nint; k++)
    {
      if (sleep_until (t0 + k * interval_ns, err) < 0)
        return -1;
      ucb_sample_row (&res->samples, arena);
      if (ucb_fleet_check (fleet, err) < 0)
        return -1;
    }
  if (have_stat && read_cpu_jiffies (&tot1, &idle1, &steal1) == 0 && tot1 > tot0)
    {
      res->idle_pct = 100.0 * (double) (idle1 - idle0) / (double) (tot1 - tot0);
      res->steal_pct = 100.0 * (double) (steal1 - steal0) / (double) (tot1 - tot0);
    }
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

int
ucb_run_point (const struct ucb_run_options *o, const struct ucb_placement *pl,
               const struct ucb_point *pt, struct ucb_point_result *res, ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_fleet_destroy))) struct ucb_fleet fleet
      = { .start_rd = -1, .start_wr = -1 };
  __attribute__ ((cleanup (ucb_arena_destroy))) struct ucb_arena arena = { 0 };
  cleanup_free struct ucb_container_spec *specs = NULL;
  struct task_arg targ;
  uint64_t t_fork;
  size_t n = pt->containers, T = pt->tasks;

  memset (res, 0, sizeof *res);
  res->pt = *pt;
  res->idle_pct = res->steal_pct = NAN;
  res->c = xcalloc (n, sizeof *res->c);
  if (ucb_limits_for_point (o, pt, &res->limits, err) < 0)
    return -1;
  if (ucb_arena_create (&arena, n * T, err) < 0 || ucb_fleet_init (&fleet, n, err) < 0)
    return -1;
  targ = (struct task_arg){ .w = pt->workload,
                            .shared = arena.shared,
                            .tasks = pt->tasks,
                            .threads = pt->threads,
                            /* Unique among concurrent runs and points: names kernel objects. */
                            .runid = (unsigned long) getpid () * 100000ul + pt->index };
  specs = xcalloc (n, sizeof *specs);
  t_fork = ucb_now_ns ();
  for (size_t i = 0; i < n; i++)
    {
      struct ucb_container_spec *s = &specs[i];
      struct ucb_container_result *c = &res->c[i];

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
      };
      if (ucb_fleet_spawn (&fleet, s, task_main, &targ, err) < 0)
        return -1;
      if (ucb_interrupted ())
        return ucb_make_error (err, EINTR, "interrupted by signal %d during setup",
                               ucb_interrupted ());
    }
  if (ucb_fleet_wait_ready (&fleet, READY_TIMEOUT_S, err) < 0)
    return -1;
  res->setup_s = (double) (ucb_now_ns () - t_fork) / 1e9;
  for (size_t i = 0; i < n; i++)
    {
      res->c[i].task_pid = steal_pointer (&fleet.c[i].task_pid);
      res->c[i].task_uid = fleet.c[i].task_uid;
      res->c[i].userns_ino = userns_inode (res->c[i].task_pid[0]);
    }
  if (measure (o, &fleet, &arena, res, err) < 0)
    return -1;
  res->final = snapshot (&arena);
  __atomic_store_n (&arena.shared->ctl.stop, 1, __ATOMIC_RELAXED);
  if (ucb_fleet_finish (&fleet, STOP_GRACE_S, err) < 0)
    return ucb_error_wrap (err, "stopping");
  return 0;
}

void
ucb_point_result_free (struct ucb_point_result *res)
{
  for (size_t i = 0; res->c && i < res->pt.containers; i++)
    {
      free (res->c[i].cpu);
      free (res->c[i].task_pid);
    }
  free (res->c);
  free (res->initial);
  free (res->final);
  ucb_samples_free (&res->samples);
  memset (res, 0, sizeof *res);
}
