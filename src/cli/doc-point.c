/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-point.c - one results[] entry: per-task and per-container figures and the summary, from
 * the raw readings and what engine/contention.h derives from them. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doc.h"
#include "core/errnames.h"
#include "core/json-util.h"
#include "core/stats.h"
#include "core/util.h"
#include "engine/contention.h"
#include "engine/measure.h"
#include "engine/workload.h"

json_t *
ucb_emit_rlimits (unsigned bits)
{
  json_t *a = ucb_json_arr ();

  for (enum ucb_rl rl = 0; rl < UCB_RLS; rl++)
    if (bits & UCB_RLIM_BIT (rl))
      ucb_json_push (a, ucb_json_str (ucb_rl_name (rl)));
  return a;
}

static json_t *
stats_json (const struct ucb_stats *s)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "mean", ucb_json_real (s->mean));
  ucb_json_set (o, "median", ucb_json_real (s->median));
  ucb_json_set (o, "stddev", ucb_json_real (s->stddev));
  ucb_json_set (o, "min", ucb_json_real (s->min));
  ucb_json_set (o, "max", ucb_json_real (s->max));
  ucb_json_set (o, "cv", ucb_json_real (s->cv));
  return o;
}

static json_t *
errno_name (int e)
{
  char buf[UCB_ERRNO_NAME_MAX];
  return ucb_json_str (e == UCB_ERRNO_OTHER ? "other" : ucb_errno_name (e, buf));
}

/* Failed ops by errno name during the window (end minus start), added into `into`. */
static void
add_errnos (json_t *into, const struct ucb_slot *end, const struct ucb_slot *start)
{
  for (size_t k = 0; k < UCB_SLOT_ERRNOS; k++)
    {
      uint64_t count = end->errs[k].count;

      if (end->errs[k].err == 0)
        continue;
      /* An entry, once given an errno, keeps it: match it in the earlier snapshot. */
      for (size_t j = 0; start && j < UCB_SLOT_ERRNOS; j++)
        if (start->errs[j].err == end->errs[k].err)
          count -= start->errs[j].count;
      if (count > 0)
        {
          json_t *name = errno_name (end->errs[k].err);
          const char *key = json_string_value (name);
          json_int_t have = json_integer_value (json_object_get (into, key));
          ucb_json_set (into, key, ucb_json_int (have + (json_int_t) count));
          json_decref (name);
        }
    }
}

/* Samples of the tasks [first, first + n): one entry per interval, ops summed over the tasks,
 * rates summed too (each task's own ops over its own interval), time of the first task; the
 * CPU share is the lowest of the tasks', contended when any task's sample is. */
static json_t *
samples_json (const struct ucb_samples *s, const struct ucb_contention *ct, size_t first, size_t n,
              double *rates)
{
  json_t *arr = ucb_json_arr ();

  for (size_t k = 1; k < s->nreadings; k++)
    {
      const struct ucb_reading *a0 = ucb_reading_at (s, k - 1, first);
      const struct ucb_reading *b0 = ucb_reading_at (s, k, first);
      double dt = (double) (b0->t_ns - a0->t_ns) / 1e9, rate = 0, share = NAN;
      uint64_t ops = 0, fails = 0;
      bool contended = false;
      json_t *smp = ucb_json_obj ();

      for (size_t t = first; t < first + n; t++)
        {
          const struct ucb_reading *a = ucb_reading_at (s, k - 1, t);
          const struct ucb_reading *b = ucb_reading_at (s, k, t);
          double tdt = (double) (b->t_ns - a->t_ns) / 1e9;
          double sh = ct->share[(k - 1) * ct->ntasks + t];
          ops += b->ops - a->ops;
          fails += b->fails - a->fails;
          rate += tdt > 0 ? (double) (b->ops - a->ops) / tdt : NAN;
          if (isfinite (sh) && (isnan (share) || sh < share))
            share = sh;
          contended |= ct->flag[(k - 1) * ct->ntasks + t];
        }
      contended |= ct->late[k - 1];
      rates[k - 1] = rate;
      ucb_json_set (smp, "t", ucb_json_real ((double) (b0->t_ns - s->start_ns) / 1e9));
      ucb_json_set (smp, "dt", ucb_json_real (dt));
      ucb_json_set (smp, "ops", ucb_json_int ((long long) ops));
      ucb_json_set (smp, "ops_per_s", ucb_json_real (rate));
      ucb_json_set (smp, "failed_ops", ucb_json_int ((long long) fails));
      ucb_json_set (smp, "cpu_share", ucb_json_real (share));
      ucb_json_set (smp, "contended", json_boolean (contended));
      ucb_json_set (smp, "late", json_boolean (ct->late[k - 1]));
      ucb_json_push (arr, smp);
    }
  return arr;
}

/* host_samples: the machine's idle and steal over each interval; the extremes into `ct_o`. */
static json_t *
host_samples_json (const struct ucb_samples *s, json_t *ct_o)
{
  json_t *arr = ucb_json_arr ();
  double steal_max = NAN, idle_min = NAN;

  for (size_t k = 1; k < s->nreadings; k++)
    {
      json_t *h = ucb_json_obj ();
      double idle, steal;

      if (ucb_jiffies_pct (&s->host[k - 1], &s->host[k], &idle, &steal))
        {
          steal_max = isnan (steal_max) || steal > steal_max ? steal : steal_max;
          idle_min = isnan (idle_min) || idle < idle_min ? idle : idle_min;
        }
      ucb_json_set (h, "t",
                    ucb_json_real ((double) (ucb_reading_at (s, k, 0)->t_ns - s->start_ns) / 1e9));
      ucb_json_set (h, "idle_pct", ucb_json_real (idle));
      ucb_json_set (h, "steal_pct", ucb_json_real (steal));
      ucb_json_push (arr, h);
    }
  ucb_json_set (ct_o, "steal_pct_max", ucb_json_real (steal_max));
  ucb_json_set (ct_o, "idle_pct_min", ucb_json_real (idle_min));
  return arr;
}

/* The entry's `contention` object and `host_samples`. */
static void
contention_json (json_t *o, const struct ucb_point_result *r, const struct ucb_contention *ct)
{
  json_t *c = ucb_json_obj ();
  /* Judged over the window, the shares are the tasks' window shares: an interval shows when
   * a task got its turn, not what it got. */
  const double *sh = ct->by_window ? ct->wshare : ct->share;
  size_t n = ct->by_window ? ct->ntasks : ct->nint * ct->ntasks, nf = 0;
  cleanup_free double *fin = xcalloc (n + 1, sizeof *fin);
  double lo = NAN;

  for (size_t k = 0; k < n; k++)
    if (isfinite (sh[k]))
      {
        fin[nf++] = sh[k];
        lo = isnan (lo) || sh[k] < lo ? sh[k] : lo;
      }
  ucb_json_set (c, "threshold", ucb_json_real (ct->threshold));
  ucb_json_set (c, "owns_cpu", json_boolean (ct->owns_all));
  ucb_json_set (c, "fair_share", ucb_json_real (ct->fair_min));
  ucb_json_set (c, "tasks_per_cpu", ucb_json_int ((long long) ct->per_cpu));
  ucb_json_set (c, "judged_over", ucb_json_str (ct->by_window ? "window" : "interval"));
  ucb_json_set (c, "samples", ucb_json_int ((long long) ct->samples));
  ucb_json_set (c, "contended_samples", ucb_json_int ((long long) ct->contended));
  ucb_json_set (c, "contended", json_boolean (ucb_repeat_contended (ct->contended, ct->samples)));
  /* Any sample not judged: a point is clean only when every task measurably got its share. */
  ucb_json_set (c, "unjudged_samples", ucb_json_int ((long long) ct->unjudged));
  ucb_json_set (c, "unjudged", json_boolean (ct->unjudged > 0));
  ucb_json_set (c, "kernel_clock_tasks", ucb_json_int ((long long) ct->nkernel));
  ucb_json_set (c, "starved", json_boolean (ct->nstarved > 0));
  ucb_json_set (c, "starved_containers", ucb_json_int ((long long) ct->nstarved));
  ucb_json_set (c, "starved_min_ops", ucb_json_int (UCB_STARVED_MIN_OPS));
  ucb_json_set (c, "window_needed_s", ucb_json_real (ct->window_needed_s));
  ucb_json_set (c, "cpu_share_median", ucb_json_real (ucb_median (fin, nf)));
  ucb_json_set (c, "cpu_share_min", ucb_json_real (lo));
  ucb_json_set (c, "nivcsw", r->nivcsw >= 0 ? ucb_json_int (r->nivcsw) : json_null ());
  ucb_json_set (c, "late_readings", ucb_json_int ((long long) ct->nlate));
  ucb_json_set (c, "late_max_s", ucb_json_real (ct->late_max_s));
  ucb_json_set (c, "sampler_policy", json_string (r->sched_policy ? r->sched_policy : "unknown"));
  ucb_json_set (c, "sampler_policy_reason",
                r->sched_reason ? json_string (r->sched_reason) : json_null ());
  ucb_json_set (o, "host_samples", host_samples_json (&r->samples, c));
  ucb_json_set (o, "contention", c);
}

/* The figures a task and a container share, from its window and per-interval rates. */
static void
window_json (json_t *o, const struct ucb_window *w, const double *rates, size_t nrates)
{
  struct ucb_stats st;

  ucb_stats_compute (rates, nrates, &st);
  ucb_json_set (o, "ops", ucb_json_int ((long long) w->ops));
  ucb_json_set (o, "rate_ops_per_s", ucb_json_real (w->rate));
  ucb_json_set (o, "ops_per_s", stats_json (&st));
  ucb_json_set (
      o, "cpu_ns_per_op",
      ucb_json_real (w->cpu_ns > 0 && w->ops > 0 ? (double) w->cpu_ns / (double) w->ops : NAN));
  ucb_json_set (
      o, "cpu_utilization",
      ucb_json_real (w->cpu_ns > 0 && w->span_s > 0 ? (double) w->cpu_ns / 1e9 / w->span_s : NAN));
  ucb_json_set (o, "failed_ops", ucb_json_int ((long long) w->fails));
}

static json_t *
container_json (const struct ucb_point_result *r, const struct ucb_placement *pl,
                const struct ucb_contention *ct, size_t i, struct ucb_window *cw,
                json_t *errnos_all)
{
  const struct ucb_samples *s = &r->samples;
  const struct ucb_container_result *c = &r->c[i];
  size_t T = r->pt.tasks, first = i * T;
  cleanup_free double *rates = xcalloc (s->nreadings, sizeof *rates);
  cleanup_free int *cpus = xcalloc (T, sizeof *cpus);
  json_t *o = ucb_json_obj (), *tasks = ucb_json_arr (), *errnos = ucb_json_obj ();
  size_t ncpus = ucb_distinct_cpus (c->cpu, T, cpus);
  int last_errno = 0;

  memset (cw, 0, sizeof *cw);
  for (size_t t = 0; t < T; t++)
    {
      struct ucb_window tw = ucb_task_window (s, first + t);
      json_t *tj = ucb_json_obj ();

      ucb_json_set (tj, "index", ucb_json_int ((long long) t));
      ucb_json_set (tj, "cpu", c->cpu[t] >= 0 ? ucb_json_int (c->cpu[t]) : NULL);
      ucb_emit_task_topology (tj, pl, c->cpu[t]);
      ucb_json_set (tj, "pid", ucb_json_int (c->task_pid[t]));
      ucb_json_set (tj, "samples", samples_json (s, ct, first + t, 1, rates));
      window_json (tj, &tw, rates, s->nreadings - 1);
      ucb_json_push (tasks, tj);
      cw->ops += tw.ops;
      cw->fails += tw.fails;
      cw->cpu_ns += tw.cpu_ns;
      cw->rate += isfinite (tw.rate) ? tw.rate : 0;
      cw->span_s = fmax (cw->span_s, tw.span_s);
      add_errnos (errnos, &r->final[first + t], r->initial ? &r->initial[first + t] : NULL);
      add_errnos (errnos_all, &r->final[first + t], r->initial ? &r->initial[first + t] : NULL);
      if (r->final[first + t].last_errno)
        last_errno = r->final[first + t].last_errno;
    }
  ucb_json_set (o, "index", ucb_json_int (c->index));
  ucb_json_set (o, "owner_uid", ucb_json_int (c->owner_uid));
  ucb_json_set (o, "depth", ucb_json_int (c->depth));
  ucb_json_set (o, "cpus",
                ncpus ? ucb_json_int_array (cpus, ncpus)
                      : ucb_json_int_array (pl->allowed, pl->nallowed));
  ucb_json_set (o, "pinned", json_boolean (ncpus > 0));
  ucb_json_set (o, "task_pid", ucb_json_int (c->task_pid[0]));
  ucb_json_set (o, "task_uid", c->task_uid == (uid_t) -1 ? NULL : ucb_json_int (c->task_uid));
  ucb_json_set (o, "userns_inode", c->userns_ino ? ucb_json_int ((long long) c->userns_ino) : NULL);
  ucb_json_set (o, "samples", samples_json (s, ct, first, T, rates));
  window_json (o, cw, rates, s->nreadings - 1);
  ucb_json_set (o, "failed_by_errno", errnos);
  ucb_json_set (o, "last_errno", last_errno ? errno_name (last_errno) : NULL);
  ucb_json_set (o, "starved", json_boolean (cw->ops + cw->fails < UCB_STARVED_MIN_OPS));
  ucb_json_set (o, "tasks", tasks);
  ucb_emit_container_extras (o, c, cw->ops);
  return o;
}

/* The sweep-point keys every results[] entry has, measured or not. */
static void
point_header (json_t *o, const struct ucb_point *pt, const char *status)
{
  cleanup_free char *owner = ucb_owner_mode_name (&pt->owner);
  cleanup_free char *isolate = ucb_isolate_name (pt->depth > 0 ? pt->isolate : 0);
  const struct ucb_workload *w = pt->workload;
  const char *counter = ucb_workload_counter (w);
  json_t *charges = ucb_json_obj ();

  ucb_json_set (charges, "counter", ucb_json_str (counter));
  ucb_json_set (charges, "rlimits", ucb_emit_rlimits (w->rlimits));
  ucb_json_set (charges, "locks", ucb_json_str (w->locks));
  ucb_json_set (charges, "op", ucb_json_str (w->op));
  ucb_json_set (o, "workload", ucb_json_str (w->name));
  ucb_json_set (o, "counter", ucb_json_str (counter));
  ucb_json_set (o, "charges", charges);
  ucb_json_set (o, "containers", ucb_json_int (pt->containers));
  ucb_json_set (o, "owner", ucb_json_str (owner));
  ucb_json_set (o, "depth", ucb_json_int (pt->depth));
  ucb_json_set (o, "tasks", ucb_json_int (pt->tasks));
  ucb_json_set (o, "mode", ucb_json_str (pt->threads ? "thread" : "process"));
  ucb_json_set (o, "isolate",
                ucb_json_checked (json_sprintf ("%s%s%s", pt->depth ? "user" : "",
                                                pt->depth && *isolate ? "," : "", isolate)));
  ucb_json_set (o, "repeat", ucb_json_int (pt->repeat));
  ucb_json_set (o, "status", ucb_json_str (status));
}

json_t *
ucb_emit_skipped (const struct ucb_point *pt, const char *reason)
{
  json_t *o = ucb_json_obj (), *sum = ucb_json_obj ();
  static const char *const nulls[]
      = { "total_ops_per_s", "per_container_ops", "per_task_ops", "scalability", "fairness", "cv",
          "cpu_ns_per_op" };

  point_header (o, pt, "skipped");
  ucb_json_set (o, "reason", ucb_json_str (reason));
  ucb_json_set (o, "per_container", ucb_json_arr ());
  for (size_t i = 0; i < UCB_ARRAY_SIZE (nulls); i++)
    ucb_json_set (sum, nulls[i], NULL);
  ucb_json_set (sum, "failed_ops", ucb_json_int (0));
  ucb_json_set (sum, "failed_by_errno", ucb_json_obj ());
  ucb_json_set (o, "summary", sum);
  return o;
}

json_t *
ucb_emit_point (const struct ucb_point_result *r, const struct ucb_placement *pl)
{
  size_t n = r->pt.containers, T = r->pt.tasks;
  cleanup_free double *rates = xcalloc (n, sizeof *rates);
  cleanup_free double *cpu = xcalloc (n, sizeof *cpu);
  cleanup_free uint64_t *cops = xcalloc (n, sizeof *cops);
  json_t *o = ucb_json_obj (), *pc = ucb_json_arr (), *sum = ucb_json_obj ();
  json_t *errnos = ucb_json_obj ();
  struct ucb_stats across;
  struct ucb_contention ct;
  double total = ucb_point_total_ops (r);
  uint64_t fails = 0;
  size_t ncpu = 0;

  point_header (o, &r->pt, "ok");
  ucb_json_set (o, "limits", ucb_emit_limits (&r->limits, &r->pt, r->c[0].owner_uid));
  ucb_json_set (o, "setup_s", ucb_json_real (r->setup_s));
  ucb_json_set (o, "teardown_s", ucb_json_real (r->teardown_s));
  ucb_json_set (o, "memory", ucb_emit_memory (r));
  if (r->samples.nreadings > 0)
    ucb_json_set (
        o, "measured_s",
        ucb_json_real ((double) (ucb_reading_at (&r->samples, r->samples.nreadings - 1, 0)->t_ns
                                 - ucb_reading_at (&r->samples, 0, 0)->t_ns)
                       / 1e9));
  ucb_contention_init (&ct, r, pl->nallowed);
  for (size_t i = 0; i < n && r->samples.nreadings > 1; i++)
    {
      struct ucb_window cw;
      ucb_json_push (pc, container_json (r, pl, &ct, i, &cw, errnos));
      rates[i] = cw.rate;
      cops[i] = cw.ops;
      ct.nstarved += cw.ops + cw.fails < UCB_STARVED_MIN_OPS;
      fails += cw.fails;
      if (cw.cpu_ns > 0 && cw.ops > 0)
        cpu[ncpu++] = (double) cw.cpu_ns / (double) cw.ops;
    }
  ucb_json_set (o, "per_container", pc);
  ucb_stats_compute (rates, n, &across);
  ucb_json_set (sum, "total_ops_per_s", ucb_json_real (total));
  ucb_json_set (sum, "per_container_ops", ucb_json_real (total / (double) n));
  ucb_json_set (sum, "per_task_ops", ucb_json_real (total / (double) (n * T)));
  ucb_json_set (sum, "scalability", NULL);
  ucb_json_set (sum, "fairness", ucb_json_real (ucb_jain_index (rates, n)));
  ucb_json_set (sum, "cv", ucb_json_real (across.cv));
  ucb_json_set (sum, "min_container_ops", ucb_json_real (across.min));
  ucb_json_set (sum, "max_container_ops", ucb_json_real (across.max));
  ucb_json_set (sum, "cpu_ns_per_op", ucb_json_real (ucb_median (cpu, ncpu)));
  ucb_json_set (sum, "failed_ops", ucb_json_int ((long long) fails));
  ucb_json_set (sum, "failed_by_errno", errnos);
  ucb_json_set (sum, "idle_pct", ucb_json_real (r->idle_pct));
  ucb_json_set (sum, "steal_pct", ucb_json_real (r->steal_pct));
  ucb_emit_point_extras (o, sum, r, pl, cops);
  ucb_json_set (o, "summary", sum);
  contention_json (o, r, &ct);
  ucb_contention_free (&ct);
  ucb_emit_canary (o, r);
  return o;
}

void
ucb_measured_add (struct ucb_measured *m, const struct ucb_point *pt, double total, json_t *entry)
{
  m->p = xrealloc (m->p, (m->n + 1) * sizeof *m->p);
  m->entry = xrealloc (m->entry, (m->n + 1) * sizeof *m->entry);
  m->p[m->n] = (struct ucb_point_total){ .pt = *pt, .total = total };
  m->entry[m->n++] = entry;
}

void
ucb_measured_scalability (const struct ucb_measured *m)
{
  cleanup_free double *scal = xcalloc (m->n + 1, sizeof *scal);

  ucb_scalability (m->p, m->n, scal);
  for (size_t i = 0; i < m->n; i++)
    if (isfinite (scal[i]))
      ucb_json_set (json_object_get (m->entry[i], "summary"), "scalability",
                    ucb_json_real (scal[i]));
}

void
ucb_measured_free (struct ucb_measured *m)
{
  free (m->p);
  free (m->entry);
}
