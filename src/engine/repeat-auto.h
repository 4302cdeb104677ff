/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repeat-auto.h - the `--repeat auto` policy (docs/statistics.md): which point repeats next,
 * when a point is done, when the time is spent.  The caller runs each repeat and hands back
 * what it measured (ucb_repeat_figures, from the C structs); the policy never sees the
 * document. */
#ifndef UCB_REPEAT_AUTO_H
#define UCB_REPEAT_AUTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"
#include "engine/plan.h"
#include "engine/sweep.h"

/* One point's repeats so far and what they say. */
struct ucb_repeat_auto_point
{
  struct ucb_point pt; /* pt.repeat: the repeat handed out last */
  double *ops;         /* per-repeat summary.per_container_ops */
  bool *contended;     /* per-repeat contention.contended: not counted */
  size_t n;
  double last_s; /* wall time of its last repeat: will the next one fit in the time left? */
  struct ucb_precision prec;
  bool skipped;
};

struct ucb_repeat_auto
{
  struct ucb_repeat_auto_point *p; /* the sweep's points, in sweep order */
  size_t np;
  size_t n_owners;        /* neighbours in the sweep that go on together */
  double precision_pct;   /* --precision */
  double max_time_s;      /* given, or UCB_AUTO_MAX_ROUNDS times the first round */
  bool out_of_time;       /* a repeat was not started for want of time */
  uint64_t (*now) (void); /* the clock (ucb_now_ns; a test's own) */
  /* Where the rounds are: round `round`, point k next to look at, whether one ran. */
  unsigned round;
  size_t k;
  bool ran, started, finished;
  uint64_t t0, t_repeat; /* the first round's start; the repeat handed out last's */
};

/* The points of `plan` (its repeat is 1), none repeated yet. */
void ucb_repeat_auto_init (struct ucb_repeat_auto *s, const struct ucb_plan *plan);
void ucb_repeat_auto_free (struct ucb_repeat_auto *s);

/* Rounds: every point not yet done once a round, in sweep order, while its next repeat is
 * expected to end within the time (the first round always runs whole).  The next point to
 * repeat: its index in *k (its pt.repeat set) and the seconds since the first repeat in
 * *elapsed; false when none is left.  Run it, then say what it measured: */
bool ucb_repeat_auto_next (struct ucb_repeat_auto *s, size_t *k, double *elapsed);
/* Point k's repeat: `skipped` (never run: unsupported), its summary.per_container_ops (NaN
 * when null) and whether it was contended. */
void ucb_repeat_auto_record (struct ucb_repeat_auto *s, size_t k, bool skipped, double ops,
                             bool contended);

/* What a measured repeat says to the policy, derived from its readings as the document's
 * summary.per_container_ops (NaN when null) and contention.contended || .unjudged are
 * (engine/contention.h); `nallowed`: the run's CPUs (struct ucb_placement). */
struct ucb_point_result;
void ucb_repeat_figures (const struct ucb_point_result *r, size_t nallowed, double *ops,
                         bool *contended);

/* The line for stderr at the end: how many points reached the precision, and the worst. */
char *ucb_repeat_auto_note (const struct ucb_repeat_auto *s);

#endif
