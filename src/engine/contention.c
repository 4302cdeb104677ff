/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contention.c - a point's task windows, total rate and contention, from its readings. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"
#include "engine/contention.h"
#include "engine/owner.h"
#include "engine/runner.h"
#include "engine/workload.h"

struct ucb_window
ucb_task_window (const struct ucb_samples *s, size_t task)
{
  const struct ucb_reading *a = ucb_reading_at (s, 0, task);
  const struct ucb_reading *b = ucb_reading_at (s, s->nreadings - 1, task);
  struct ucb_window w = { .ops = b->ops - a->ops,
                          .fails = b->fails - a->fails,
                          .cpu_ns = b->cpu_ns - a->cpu_ns,
                          .span_s = (double) (b->t_ns - a->t_ns) / 1e9 };

  w.rate = w.span_s > 0 ? (double) w.ops / w.span_s : NAN;
  return w;
}

double
ucb_point_total_ops (const struct ucb_point_result *r)
{
  size_t T = r->pt.tasks;
  double total = 0;

  for (size_t i = 0; i < r->pt.containers && r->samples.nreadings > 1; i++)
    {
      double rate = 0; /* the container's, summed as its tasks' */
      for (size_t t = 0; t < T; t++)
        {
          struct ucb_window w = ucb_task_window (&r->samples, i * T + t);
          rate += isfinite (w.rate) ? w.rate : 0;
        }
      total += rate;
    }
  return total;
}

static bool
same_series (const struct ucb_point *a, const struct ucb_point *b)
{
  return a->workload == b->workload && ucb_owner_same (&a->owner, &b->owner) && a->depth == b->depth
         && a->tasks == b->tasks && a->threads == b->threads;
}

void
ucb_scalability (const struct ucb_point_total *p, size_t n, double *out)
{
  cleanup_free double *one = xcalloc (n + 1, sizeof *one);

  for (size_t i = 0; i < n; i++)
    {
      size_t m = 0;
      double base;

      for (size_t j = 0; j < n; j++)
        if (p[j].pt.containers == 1 && isfinite (p[j].total) && same_series (&p[i].pt, &p[j].pt))
          one[m++] = p[j].total;
      base = ucb_median (one, m);
      out[i] = base > 0 && p[i].pt.containers > 0
                   ? (isfinite (p[i].total) ? p[i].total : 0) / ((double) p[i].pt.containers * base)
                   : NAN;
    }
}

/* Reading k was due `k` periods after reading 0; one later than that by more than a period
 * means the sampler did not get the CPU when it should have: the interval it closes is flagged
 * as contended, like a task starved of its CPU (the harness, not the kernel, was measured). */
static void
readings_late (struct ucb_contention *ct, const struct ucb_point_result *r)
{
  const struct ucb_samples *s = &r->samples;
  uint64_t t0 = s->nreadings ? ucb_reading_at (s, 0, 0)->t_ns : 0;

  ct->late = xcalloc (ct->nint + 1, sizeof *ct->late);
  ct->late_max_s = s->nreadings > 1 && r->interval_ns ? 0 : NAN;
  for (size_t k = 1; k < s->nreadings && r->interval_ns; k++)
    {
      uint64_t due = t0 + k * r->interval_ns, t = ucb_reading_at (s, k, 0)->t_ns;
      double late = t > due ? (double) (t - due) / 1e9 : 0;
      ct->late_max_s = late > ct->late_max_s ? late : ct->late_max_s;
      ct->late[k - 1] = t > due + r->interval_ns;
      ct->nlate += ct->late[k - 1];
    }
}

/* Each task's fair share, and how many take turns on one CPU. */
static void
fair_shares (struct ucb_contention *ct, const struct ucb_point_result *r, size_t nallowed)
{
  size_t T = r->pt.tasks, nt = ct->ntasks;
  cleanup_free int *cpu = xcalloc (nt + 1, sizeof *cpu);

  for (size_t t = 0; t < nt; t++)
    ct->group[t] = cpu[t] = r->c[t / T].cpu[t % T];
  ct->owns_all = nt > 0;
  ct->fair_min = NAN;
  for (size_t t = 0; t < nt; t++)
    {
      ct->owns_all &= ucb_task_owns_cpu (cpu, nt, t, nallowed);
      ct->fair[t] = ucb_task_fair_share (cpu, nt, t, nallowed);
      if (!(ct->fair[t] >= ct->fair_min))
        ct->fair_min = ct->fair[t];
    }
  ct->per_cpu = ucb_tasks_per_cpu (cpu, nt, nallowed);
  ct->window_needed_s = ucb_window_needed_s (ct->per_cpu);
  /* An interval in which a task cannot get a few slices shows when it ran, not what it got. */
  ct->by_window = ct->per_cpu > 1 && (double) r->interval_ns / 1e9 < ct->window_needed_s;
}

/* Task t's share over the whole window.  A task publishes its CPU time after each batch of its
 * workload's ops: with fewer than two batches in the window, the steps of its CPU time are as
 * large as the time itself, so the kernel's clock of its process is taken instead (it needs no
 * batch, but lacks reaped children: it can only understate); unknown when that is unknown too. */
static void
window_share (struct ucb_contention *ct, const struct ucb_point_result *r, size_t t)
{
  const struct ucb_samples *s = &r->samples;
  const struct ucb_reading *a = ucb_reading_at (s, 0, t);
  const struct ucb_reading *b = ct->nint ? ucb_reading_at (s, ct->nint, t) : a;
  uint64_t batch = r->pt.workload && r->pt.workload->batch ? r->pt.workload->batch : 1000;

  ct->wshare[t] = b->ops - a->ops >= 2 * batch ? ucb_cpu_share (a, b) : NAN;
  if (isnan (ct->wshare[t]) && r->kclock[0] && r->kclock[1])
    {
      ct->wshare[t] = ucb_kclock_share (&r->kclock[0][t], &r->kclock[1][t]);
      ct->nkernel += isfinite (ct->wshare[t]);
    }
}

/* Judge each task of `share` (one value per task, over `period_s`) into flag[]: on the mean
 * share of the tasks that take turns with it (its CPU's, or every unpinned task), against its
 * fair share.  Turns move time between those tasks, not away from them: how one of them fared
 * against another is the point's own fairness (summary.fairness), not contention; what the
 * group as a whole did not get, something else took.  A group whose share is unknown, or a
 * period too short to judge it, is not judged: unknown[], never clean. */
static void
judge (const struct ucb_contention *ct, const double *share, double period_s, bool *flag,
       bool *unknown)
{
  size_t nt = ct->ntasks, ng = 1;
  cleanup_free double *sum = NULL;
  cleanup_free size_t *cnt = NULL;

  for (size_t t = 0; t < nt; t++)
    if (ct->group[t] >= 0 && (size_t) ct->group[t] + 2 > ng)
      ng = (size_t) ct->group[t] + 2;
  sum = xcalloc (ng, sizeof *sum);
  cnt = xcalloc (ng, sizeof *cnt);
  for (size_t t = 0; t < nt; t++)
    {
      size_t g = (size_t) (ct->group[t] + 1);
      sum[g] += share[t]; /* NaN stays NaN */
      cnt[g]++;
    }
  for (size_t t = 0; t < nt; t++)
    {
      size_t g = (size_t) (ct->group[t] + 1);
      enum ucb_sample_verdict v
          = ucb_sample_judge (ct->fair[t], sum[g] / (double) cnt[g], ct->threshold, period_s);

      unknown[t] = v == UCB_SAMPLE_UNJUDGED;
      flag[t] = v == UCB_SAMPLE_CONTENDED;
    }
}

void
ucb_contention_init (struct ucb_contention *ct, const struct ucb_point_result *r, size_t nallowed)
{
  const struct ucb_samples *s = &r->samples;
  size_t nt = s->ntasks;

  memset (ct, 0, sizeof *ct);
  ct->threshold = r->contention_threshold > 0 ? r->contention_threshold : UCB_CONTENTION_THRESHOLD;
  ct->ntasks = nt;
  ct->nint = s->nreadings > 1 ? s->nreadings - 1 : 0;
  ct->fair = xcalloc (nt + 1, sizeof *ct->fair);
  ct->group = xcalloc (nt + 1, sizeof *ct->group);
  ct->wshare = xcalloc (nt + 1, sizeof *ct->wshare);
  ct->share = xcalloc (ct->nint * nt + 1, sizeof *ct->share);
  ct->flag = xcalloc (ct->nint * nt + 1, sizeof *ct->flag);
  ct->unknown = xcalloc (ct->nint * nt + 1, sizeof *ct->unknown);
  fair_shares (ct, r, nallowed);
  readings_late (ct, r);
  for (size_t t = 0; t < nt; t++)
    {
      window_share (ct, r, t);
      for (size_t k = 0; k < ct->nint; k++)
        ct->share[k * nt + t]
            = ucb_cpu_share (ucb_reading_at (s, k, t), ucb_reading_at (s, k + 1, t));
    }
  if (ct->by_window)
    {
      cleanup_free bool *whole = xcalloc (nt + 1, sizeof *whole);
      cleanup_free bool *unknown = xcalloc (nt + 1, sizeof *unknown);
      const struct ucb_reading *a = ucb_reading_at (s, 0, 0);
      const struct ucb_reading *b = ucb_reading_at (s, ct->nint, 0);

      judge (ct, ct->wshare, (double) (b->t_ns - a->t_ns) / 1e9, whole, unknown);
      for (size_t k = 0; k < ct->nint; k++)
        {
          memcpy (&ct->flag[k * nt], whole, nt * sizeof *whole);
          memcpy (&ct->unknown[k * nt], unknown, nt * sizeof *unknown);
        }
    }
  else
    for (size_t k = 0; k < ct->nint; k++)
      {
        const struct ucb_reading *x = ucb_reading_at (s, k, 0), *y = ucb_reading_at (s, k + 1, 0);
        judge (ct, &ct->share[k * nt], (double) (y->t_ns - x->t_ns) / 1e9, &ct->flag[k * nt],
               &ct->unknown[k * nt]);
      }
  for (size_t k = 0; k < ct->nint; k++)
    for (size_t t = 0; t < nt; t++)
      {
        ct->samples++;
        ct->contended += ct->late[k] || ct->flag[k * nt + t];
        ct->unjudged += !ct->late[k] && ct->unknown[k * nt + t];
      }
}

void
ucb_contention_free (struct ucb_contention *ct)
{
  free (ct->fair);
  free (ct->group);
  free (ct->wshare);
  free (ct->share);
  free (ct->flag);
  free (ct->unknown);
  free (ct->late);
}
