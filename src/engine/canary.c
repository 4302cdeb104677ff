/* SPDX-License-Identifier: GPL-2.0-or-later */
/* canary.c - the host-speed canary: a dependent multiply-add chain timed in the thread's own
 * CPU time on each CPU of a point (canary.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "engine/canary.h"

/* A chunk: ~0.3 ms at 4 cycles a step and 3.5 GHz, long next to the clock read (a system call
 * for the thread clock) and short next to a scheduler tick, so most chunks run undisturbed. */
#define CHUNK_ITERS (1u << 18)
/* Chunks per edge: about CHUNKS_BUDGET (~28 ms) shared by the CPUs (48, ~14 ms, each of 2), at
 * least CHUNKS_MIN a CPU (~2.5 ms) beyond 12 CPUs.  Spread over ROUNDS visits, so a disturbance
 * of a few milliseconds cannot spoil every chunk of one CPU. */
#define CHUNKS_BUDGET 96
#define CHUNKS_MIN 8
#define ROUNDS 4
/* Room for any CPU number the kernel hands out (sched_getaffinity wants at least nr_cpu_ids). */
#define MAX_CPUS 8192

uint64_t
ucb_canary_loop (uint64_t seed, uint64_t iters)
{
  uint64_t x = seed;

  for (uint64_t i = 0; i < iters; i++)
    {
      /* Knuth's MMIX LCG: each step needs the last, so it runs at the multiplier's latency; the
       * empty asm hides x from the optimiser (no closed form, no vectorising, no unrolling
       * across the dependency). */
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      __asm__ volatile("" : "+r"(x));
    }
  return x;
}

void
ucb_canary_add_cpus (struct ucb_canary *c, const int *task_cpu, size_t n)
{
  for (size_t t = 0; t < n; t++)
    {
      bool seen = task_cpu[t] < 0;
      for (size_t k = 0; k < c->ncpus && !seen; k++)
        seen = c->cpus[k] == task_cpu[t];
      if (!seen)
        {
          c->cpus = xrealloc (c->cpus, (c->ncpus + 1) * sizeof *c->cpus);
          c->cpus[c->ncpus++] = task_cpu[t];
        }
    }
}

/* What one CPU gave over an edge. */
struct cpu_run
{
  double best; /* loops/s of thread CPU time, the fastest chunk; 0 = none */
  uint64_t loops, wall_ns;
  bool failed; /* the thread could not move there */
};

volatile uint64_t ucb_canary_sink; /* the chain's result goes somewhere: it must be computed */

/* `chunks` chunks on the CPU the thread is on now, into `r`. */
static void
run_chunks (struct cpu_run *r, unsigned chunks)
{
  for (unsigned k = 0; k < chunks; k++)
    {
      uint64_t c0 = ucb_clock_ns (CLOCK_THREAD_CPUTIME_ID), w0 = ucb_clock_ns (CLOCK_MONOTONIC);
      ucb_canary_sink = ucb_canary_loop (w0 + k, CHUNK_ITERS);
      uint64_t c1 = ucb_clock_ns (CLOCK_THREAD_CPUTIME_ID), w1 = ucb_clock_ns (CLOCK_MONOTONIC);
      /* The best chunk, not the median: disturbances (an interrupt, the vCPU descheduled with
       * its time charged to us) only ever slow a chunk, and the median of chunks was bimodal
       * here (CV 9 %) where the best varied by 1.3 % (docs/statistics.md). */
      if (c1 > c0 && w1 > w0)
        {
          double rate = CHUNK_ITERS / ((double) (c1 - c0) / 1e9);
          r->best = rate > r->best ? rate : r->best;
          r->loops += CHUNK_ITERS;
          r->wall_ns += w1 - w0;
        }
    }
}

static int
pin_to (int cpu)
{
  cpu_set_t *set = CPU_ALLOC (MAX_CPUS);
  size_t size = CPU_ALLOC_SIZE (MAX_CPUS);
  int r;

  if (set == NULL)
    ucb_oom ();
  CPU_ZERO_S (size, set);
  if (cpu < 0 || cpu >= MAX_CPUS)
    {
      CPU_FREE (set);
      return -1;
    }
  CPU_SET_S ((size_t) cpu, size, set);
  r = sched_setaffinity (0, size, set);
  CPU_FREE (set);
  return r;
}

/* The edge from every CPU's run: the mean of the best rates, all loops over all chunk time. */
static void
summarise (const struct cpu_run *runs, size_t n, struct ucb_canary_edge *edge)
{
  double sum = 0;
  uint64_t loops = 0, wall = 0;
  size_t ok = 0;

  for (size_t i = 0; i < n; i++)
    if (!runs[i].failed && runs[i].best > 0)
      {
        sum += runs[i].best;
        loops += runs[i].loops;
        wall += runs[i].wall_ns;
        ok++;
      }
  edge->rate = ok ? sum / (double) ok : NAN;
  edge->wall_rate = wall ? (double) loops / ((double) wall / 1e9) : NAN;
}

int
ucb_canary_measure (struct ucb_canary *c, struct ucb_canary_edge *edge, const int *allowed,
                    size_t nallowed, ucb_error_t *err)
{
  const int *cpus = c->ncpus ? c->cpus : allowed;
  size_t n = c->ncpus ? c->ncpus : nallowed, size = CPU_ALLOC_SIZE (MAX_CPUS);
  unsigned per_visit = (unsigned) (CHUNKS_BUDGET / (n ? n : 1)) / ROUNDS;
  cleanup_free struct cpu_run *runs = xcalloc (n + 1, sizeof *runs);
  cpu_set_t *saved = CPU_ALLOC (MAX_CPUS);
  int ret = 0;

  if (saved == NULL)
    ucb_oom ();
  if (per_visit < CHUNKS_MIN / ROUNDS)
    per_visit = CHUNKS_MIN / ROUNDS;
  edge->rate = edge->wall_rate = NAN;
  if (sched_getaffinity (0, size, saved) < 0)
    {
      ret = ucb_make_error (err, errno, "canary: sched_getaffinity");
      CPU_FREE (saved);
      return ret;
    }
  if (c->ncpus == 0 && nallowed)
    ucb_canary_add_cpus (c, allowed, nallowed); /* what is recorded: the CPUs measured */
  for (unsigned round = 0; round < ROUNDS; round++)
    for (size_t i = 0; i < n; i++)
      {
        if (runs[i].failed)
          continue;
        /* A CPU that went away (a cpuset changed under us) is left out, not an error: the
         * canary only describes the run. */
        if (pin_to (cpus[i]) < 0)
          runs[i].failed = true;
        else
          run_chunks (&runs[i], per_visit);
      }
  if (sched_setaffinity (0, size, saved) < 0)
    ret = ucb_make_error (err, errno, "canary: restoring the CPU affinity");
  CPU_FREE (saved);
  summarise (runs, n, edge);
  return ret;
}

void
ucb_canary_free (struct ucb_canary *c)
{
  free (c->cpus);
  memset (c, 0, sizeof *c);
}

double
ucb_canary_change_pct (const struct ucb_canary *c)
{
  double b = c->before.rate, a = c->after.rate;

  return isfinite (a) && isfinite (b) && b > 0 ? 100 * (a - b) / b : NAN;
}

bool
ucb_canary_moved (double change_pct, double threshold_pct)
{
  return isfinite (change_pct) && fabs (change_pct) > threshold_pct;
}
