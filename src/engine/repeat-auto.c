/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repeat-auto.c - the `--repeat auto` policy: rounds over the points, owner modes in turns,
 * the precision, the time. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"
#include "engine/contention.h"
#include "engine/owner.h"
#include "engine/repeat-auto.h"
#include "engine/runner.h"
#include "engine/workload.h"

void
ucb_repeat_auto_init (struct ucb_repeat_auto *s, const struct ucb_plan *plan)
{
  *s = (struct ucb_repeat_auto){ .np = ucb_sweep_size (plan), /* plan->repeat is 1: the points */
                                 .n_owners = plan->n_owners,
                                 .precision_pct = plan->precision_pct,
                                 .max_time_s = plan->max_time_s,
                                 .now = ucb_now_ns,
                                 .round = 1 };
  s->p = xcalloc (s->np + 1, sizeof *s->p);
  for (size_t k = 0; k < s->np; k++)
    {
      ucb_sweep_point (plan, k, &s->p[k].pt);
      s->p[k].ops = xcalloc (UCB_MAX_REPEAT, sizeof *s->p[k].ops);
      s->p[k].contended = xcalloc (UCB_MAX_REPEAT, sizeof *s->p[k].contended);
      s->p[k].prec.ci_pct = NAN;
    }
}

void
ucb_repeat_auto_free (struct ucb_repeat_auto *s)
{
  for (size_t k = 0; k < s->np; k++)
    {
      free (s->p[k].ops);
      free (s->p[k].contended);
    }
  free (s->p);
  s->p = NULL;
  s->np = 0;
}

static bool
point_done (const struct ucb_repeat_auto_point *a)
{
  return a->skipped || a->prec.reached || a->n >= UCB_MAX_REPEAT;
}

/* Point k's owner modes (neighbours in the sweep: the owner varies fastest) go on together
 * until each has reached the precision, so their repeats keep alternating and the owner
 * contrast compares repeats that drift hit alike. */
static bool
turn_over (const struct ucb_repeat_auto *s, size_t k)
{
  const struct ucb_repeat_auto_point *a = &s->p[k];
  size_t first = k - k % s->n_owners;

  if (a->skipped || a->n >= UCB_MAX_REPEAT)
    return true;
  for (size_t j = first; j < first + s->n_owners && j < s->np; j++)
    if (!point_done (&s->p[j]))
      return false;
  return true;
}

static double
seconds_since (const struct ucb_repeat_auto *s, uint64_t t)
{
  return (double) (s->now () - t) / 1e9;
}

bool
ucb_repeat_auto_next (struct ucb_repeat_auto *s, size_t *k, double *elapsed)
{
  if (!s->started)
    {
      s->started = true;
      s->t0 = s->now ();
    }
  while (!s->finished)
    {
      for (; s->k < s->np; s->k++)
        {
          struct ucb_repeat_auto_point *a = &s->p[s->k];

          *elapsed = seconds_since (s, s->t0);
          if (turn_over (s, s->k))
            continue;
          if (s->round > 1 && *elapsed + a->last_s > s->max_time_s)
            {
              s->out_of_time = true;
              continue;
            }
          a->pt.repeat = (unsigned) a->n + 1;
          s->ran = true;
          *k = s->k++;
          s->t_repeat = s->now ();
          return true;
        }
      if (s->round == 1 && !(s->max_time_s > 0))
        s->max_time_s = UCB_AUTO_MAX_ROUNDS * seconds_since (s, s->t0);
      s->finished = !s->ran;
      s->round++;
      s->k = 0;
      s->ran = false;
    }
  return false;
}

void
ucb_repeat_auto_record (struct ucb_repeat_auto *s, size_t k, bool skipped, double ops,
                        bool contended)
{
  struct ucb_repeat_auto_point *a = &s->p[k];

  a->last_s = seconds_since (s, s->t_repeat);
  a->skipped = skipped;
  a->ops[a->n] = ops;
  a->contended[a->n] = contended;
  a->n++;
  ucb_precision_of (a->ops, a->contended, a->n, s->precision_pct, &a->prec);
}

void
ucb_repeat_figures (const struct ucb_point_result *r, size_t nallowed, double *ops, bool *contended)
{
  struct ucb_contention ct;

  ucb_contention_init (&ct, r, nallowed);
  /* Not known to have had its CPU counts as contended: auto repeats leave it out alike. */
  *contended = ucb_repeat_contended (ct.contended, ct.samples) || ct.unjudged > 0;
  ucb_contention_free (&ct);
  *ops = ucb_point_total_ops (r) / (double) r->pt.containers;
  if (!isfinite (*ops))
    *ops = NAN;
}

/* Not reached before reached, then the widest interval (no interval is the widest). */
static bool
worse (const struct ucb_repeat_auto_point *a, const struct ucb_repeat_auto_point *worst)
{
  return !worst || (worst->prec.reached && !a->prec.reached)
         || (worst->prec.reached == a->prec.reached
             && (isnan (a->prec.ci_pct) || a->prec.ci_pct > worst->prec.ci_pct));
}

char *
ucb_repeat_auto_note (const struct ucb_repeat_auto *s)
{
  const struct ucb_repeat_auto_point *worst = NULL;
  cleanup_free char *owner = NULL;
  cleanup_free char *why = NULL;
  cleanup_free char *ci = NULL;
  size_t nrun = 0, nreached = 0;

  for (size_t k = 0; k < s->np; k++)
    {
      const struct ucb_repeat_auto_point *a = &s->p[k];
      if (a->skipped)
        continue;
      nrun++;
      nreached += a->prec.reached;
      if (worse (a, worst))
        worst = a;
    }
  if (!worst)
    return xstrdup ("--repeat auto: no point was run");
  owner = ucb_owner_mode_name (&worst->pt.owner);
  if (nreached < nrun)
    why = s->out_of_time ? xasprintf ("; --max-time %g s was spent first: the precision was not "
                                      "reached (the exit status stays 0)",
                                      s->max_time_s)
                         : xasprintf ("; %d repeats a point is the most", UCB_MAX_REPEAT);
  ci = isnan (worst->prec.ci_pct) ? xstrdup ("no interval")
                                  : xasprintf ("±%.3g %%", worst->prec.ci_pct);
  return xasprintf ("--repeat auto: %zu of %zu points reached ±%g %%; worst: %s owner=%s "
                    "depth=%u tasks=%u containers=%u at %s after %zu repeats (%zu counted: "
                    "uncontended)%s",
                    nreached, nrun, s->precision_pct, worst->pt.workload->name, owner,
                    worst->pt.depth, worst->pt.tasks, worst->pt.containers, ci, worst->n,
                    worst->prec.counted, why ? why : "");
}
