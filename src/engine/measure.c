/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.c - the shared counter arena and sampling of it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core/util.h"
#include "engine/measure.h"

_Static_assert(sizeof (struct ucb_slot) == UCB_SLOT_SIZE, "slot must be exactly 256 bytes");

int
ucb_arena_create (struct ucb_arena *a, size_t ntasks, ucb_error_t *err)
{
  void *p;

  a->ntasks = ntasks;
  a->bytes = sizeof (struct ucb_shared) + ntasks * sizeof (struct ucb_slot);
  p = mmap (NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    {
      a->shared = NULL;
      return ucb_make_error (err, errno, "mmap counter area (%zu bytes)", a->bytes);
    }
  a->shared = p; /* anonymous mappings are zero-filled */
  return 0;
}

void
ucb_arena_destroy (struct ucb_arena *a)
{
  if (a->shared)
    munmap (a->shared, a->bytes);
  a->shared = NULL;
}

void
ucb_samples_init (struct ucb_samples *s, size_t ntasks, size_t cap)
{
  memset (s, 0, sizeof *s);
  s->ntasks = ntasks;
  s->cap = cap ? cap : 1;
  s->r = xcalloc (s->cap * ntasks, sizeof *s->r);
  s->host = xcalloc (s->cap, sizeof *s->host);
}

void
ucb_samples_free (struct ucb_samples *s)
{
  free (s->r);
  free (s->host);
  memset (s, 0, sizeof *s);
}

void
ucb_sample_row (struct ucb_samples *s, const struct ucb_arena *a)
{
  if (s->nreadings == s->cap)
    {
      s->cap *= 2;
      s->r = xrealloc (s->r, s->cap * s->ntasks * sizeof *s->r);
      s->host = xrealloc (s->host, s->cap * sizeof *s->host);
    }
  for (size_t i = 0; i < s->ntasks; i++)
    {
      struct ucb_reading *r = ucb_reading_at (s, s->nreadings, i);
      const struct ucb_slot *slot = &a->shared->slots[i];

      r->t_ns = ucb_now_ns ();
      r->ops = __atomic_load_n (&slot->ops, __ATOMIC_RELAXED);
      r->fails = __atomic_load_n (&slot->fails, __ATOMIC_RELAXED);
      r->cpu_ns = __atomic_load_n (&slot->cpu_ns, __ATOMIC_RELAXED);
      r->busy_ns = __atomic_load_n (&slot->busy_ns, __ATOMIC_RELAXED);
    }
  ucb_jiffies_read (&s->host[s->nreadings]);
  s->nreadings++;
}

void
ucb_jiffies_read (struct ucb_jiffies *j)
{
  cleanup_file FILE *f = fopen ("/proc/stat", "re");
  unsigned long long v[8] = { 0 };

  memset (j, 0, sizeof *j);
  if (f == NULL
      || fscanf (f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                 &v[4], &v[5], &v[6], &v[7])
             != 8)
    return;
  for (int i = 0; i < 8; i++)
    j->total += v[i];
  j->idle = v[3] + v[4]; /* idle + iowait */
  j->steal = v[7];
  j->ok = true;
}

bool
ucb_jiffies_pct (const struct ucb_jiffies *a, const struct ucb_jiffies *b, double *idle_pct,
                 double *steal_pct)
{
  *idle_pct = *steal_pct = NAN;
  if (!a->ok || !b->ok || b->total <= a->total || b->idle < a->idle || b->steal < a->steal)
    return false;
  *idle_pct = 100.0 * (double) (b->idle - a->idle) / (double) (b->total - a->total);
  *steal_pct = 100.0 * (double) (b->steal - a->steal) / (double) (b->total - a->total);
  return true;
}

long long
ucb_nivcsw_of (pid_t pid)
{
  char path[64];
  DIR *d;
  struct dirent *e;
  long long sum = 0;
  bool any = false;

  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  d = opendir (path);
  if (d == NULL)
    return -1;
  while ((e = readdir (d)) != NULL)
    {
      char status[384], line[256];
      cleanup_file FILE *f = NULL;
      unsigned long long n;

      if (e->d_name[0] == '.')
        continue;
      snprintf (status, sizeof status, "%s/%s/status", path, e->d_name);
      f = fopen (status, "re");
      while (f && fgets (line, sizeof line, f))
        if (sscanf (line, "nonvoluntary_ctxt_switches: %llu", &n) == 1)
          {
            sum += (long long) n;
            any = true;
          }
    }
  closedir (d);
  return any ? sum : -1;
}

void
ucb_kclock_read (struct ucb_kclock *out, pid_t pid)
{
  clockid_t id;

  out->cpu_ns = 0;
  if (pid > 0 && clock_getcpuclockid (pid, &id) == 0)
    out->cpu_ns = ucb_clock_ns (id);
  out->t_ns = ucb_now_ns ();
}

double
ucb_kclock_share (const struct ucb_kclock *a, const struct ucb_kclock *b)
{
  if (b->t_ns <= a->t_ns || a->cpu_ns == 0 || b->cpu_ns < a->cpu_ns)
    return NAN;
  return (double) (b->cpu_ns - a->cpu_ns) / (double) (b->t_ns - a->t_ns);
}

double
ucb_cpu_share (const struct ucb_reading *a, const struct ucb_reading *b)
{
  if (b->t_ns <= a->t_ns || a->busy_ns == 0 || b->busy_ns < a->busy_ns)
    return NAN;
  return (double) (b->busy_ns - a->busy_ns) / (double) (b->t_ns - a->t_ns);
}

bool
ucb_task_owns_cpu (const int *cpu, size_t ntasks, size_t t, size_t nallowed)
{
  if (ntasks > nallowed || cpu[t] < 0)
    return false;
  for (size_t k = 0; k < ntasks; k++)
    if (k != t && cpu[k] == cpu[t])
      return false;
  return true;
}

double
ucb_task_fair_share (const int *cpu, size_t ntasks, size_t t, size_t nallowed)
{
  size_t on = 0;

  if (cpu[t] < 0)
    return nallowed == 0 ? NAN : ntasks <= nallowed ? 1.0 : (double) nallowed / (double) ntasks;
  for (size_t k = 0; k < ntasks; k++)
    on += cpu[k] == cpu[t];
  return 1.0 / (double) on;
}

size_t
ucb_tasks_per_cpu (const int *cpu, size_t ntasks, size_t nallowed)
{
  size_t most = 0;

  for (size_t t = 0; t < ntasks; t++)
    {
      size_t k = cpu[t] < 0
                     ? (nallowed ? (ntasks + nallowed - 1) / nallowed : ntasks)
                     : (size_t) llround (1.0 / ucb_task_fair_share (cpu, ntasks, t, nallowed));
      most = k > most ? k : most;
    }
  return most;
}

double
ucb_window_needed_s (size_t tasks_per_cpu)
{
  return UCB_WINDOW_SLICES * (double) tasks_per_cpu * UCB_SCHED_SLICE_S;
}

enum ucb_sample_verdict
ucb_sample_judge (double fair_share, double share, double threshold, double period_s)
{
  double slack = fair_share < 1 && period_s > 0 ? UCB_SCHED_SLICE_S / period_s : 0;
  double bar = threshold * fair_share - slack;

  if (!isfinite (fair_share) || !isfinite (share) || !(bar > 0))
    return UCB_SAMPLE_UNJUDGED;
  return share < bar ? UCB_SAMPLE_CONTENDED : UCB_SAMPLE_FAIR;
}

bool
ucb_repeat_contended (size_t contended, size_t samples)
{
  return samples > 0 && contended * 10 > samples;
}
