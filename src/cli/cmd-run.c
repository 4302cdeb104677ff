/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-run.c - `ucbench run`: the sweep over workloads, owners, depths and container counts. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/doc.h"
#include "cli/options.h"
#include "cli/seccomp-profile.h"
#include "core/json-util.h"
#include "core/process.h"
#include "core/util.h"
#include "engine/ceiling.h"
#include "engine/footprint.h"
#include "engine/owner.h"
#include "engine/repeat-auto.h"
#include "engine/soft-limits.h"
#include "engine/runner.h"
#include "engine/runtime.h"
#include "engine/spawn.h"
#include "engine/workload.h"
#include "host/topology.h"
#include "host/uidlock.h"
#include "host/users.h"
#include "report/contrast.h"
#include "report/csv.h"
#include "report/report.h"

/* The default sweep's NPROC. */
static unsigned
allowed_cpus (void)
{
  cleanup_free int *cpus = NULL;
  ucb_error_t e = NULL;
  size_t n = 0;

  if (ucb_allowed_cpus (&cpus, &n, &e) < 0)
    {
      ucb_error_free (&e);
      return 1;
    }
  return (unsigned) n;
}

/* A line for stderr (not with --quiet) and the document's notes. */
static void
owner_note (const struct ucb_run_options *o, json_t *notes, const char *kind, const char *line)
{
  ucb_json_push (notes, ucb_json_str (line));
  if (!o->quiet || strcmp (kind, "warning") == 0)
    fprintf (stderr, "ucbench: %s: %s\n", kind, line);
}

/* Explicit --owner uids are the user's choice: said, not refused, when the uid rule
 * (ucb_uid_range_conflict) or a running process has them. */
static void
warn_explicit_uids (const struct ucb_run_options *o, const uid_t *v, size_t n, json_t *notes)
{
  for (size_t i = 0, j; i < n; i = j)
    {
      cleanup_free char *why = NULL;
      cleanup_free char *line = NULL;
      uint64_t past;

      for (j = i + 1; j < n && v[j] == v[j - 1] + 1; j++)
        ;
      if (!ucb_uid_range_conflict (NULL, v[i], v[j - 1], &why, &past)
          && ucb_uid_range_procs (v[i], v[j - 1], false, &why) == 0)
        continue;
      if (j - i > 1)
        line = xasprintf ("--owner uids %u-%u: %s; their ucounts are shared with the containers",
                          (unsigned) v[i], (unsigned) v[j - 1], why);
      else
        line = xasprintf ("--owner uid %u: %s; its ucounts are shared with the containers",
                          (unsigned) v[i], why);
      owner_note (o, notes, "warning", line);
    }
}

/* The owner uids: every one we may become (CAP_SETUID/CAP_SETGID), and the default range
 * (shared, distinct) claimed by ucb_uids_claim (verify's rule too): safe, free and locked for
 * the rest of the run, or, without --uid-base, the next such range; the range used is the
 * document's config.uid_base.  Explicit --owner uids are locked too, and only warned about. */
static int
check_owner_uids (struct ucb_run_options *o, json_t *notes, ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_uid_claim_free))) struct ucb_uid_claim c = { 0 };
  cleanup_free uid_t *all = NULL;
  cleanup_free uid_t *strict = NULL;
  cleanup_free uid_t *fixed = NULL;
  size_t nall, nstrict, nfixed = 0;

  ucb_owner_collect (&o->plan, &all, &nall, &strict, &nstrict);
  if (ucb_check_set_ids (all, nall, err) < 0)
    return -1;
  for (size_t i = 0; i < o->plan.n_owners; i++)
    if (o->plan.owners[i].kind == UCB_OWNER_ROOT)
      {
        uid_t root = 0;
        if (ucb_check_set_ids (&root, 1, err) < 0)
          return -1;
      }
  fixed = xcalloc (nall + 1, sizeof *fixed);
  for (size_t i = 0; i < nall; i++)
    if (!nstrict || !bsearch (&all[i], strict, nstrict, sizeof *strict, ucb_cmp_uid))
      fixed[nfixed++] = all[i];
  c.what = "owner uid range";
  c.option = "--uid-base";
  c.base = o->plan.uid_base;
  c.width = nstrict ? (uint64_t) strict[nstrict - 1] - o->plan.uid_base + 1 : 0;
  c.highest = UCB_MAX_UID;
  c.movable = !o->plan.uid_base_given;
  c.fixed = fixed;
  c.nfixed = nfixed;
  if (ucb_uids_claim (&c, err) < 0)
    return -1;
  o->plan.uid_base = (uint32_t) c.base;
  if (c.moved)
    owner_note (o, notes, "note", c.moved);
  if (c.unlocked)
    {
      cleanup_free char *line = xasprintf ("no uid lock (%s): a ucbench started on the same "
                                           "uids meanwhile is not refused",
                                           c.unlocked);
      owner_note (o, notes, "note", line);
    }
  warn_explicit_uids (o, fixed, nfixed, notes);
  return 0;
}

/* Unprivileged (no CAP_SETUID/CAP_SETGID): the default owner modes cannot work, so the run
 * narrows to your own uid and says so, in the document too; an explicit --owner is kept and
 * refused with the reason later. */
static void
narrow_unprivileged (struct ucb_run_options *o, json_t *notes)
{
  const char *note = "no CAP_SETUID/CAP_SETGID: every container is owned by your own uid "
                     "(--owner self), one owner, so shared and distinct owners cannot be "
                     "contrasted; they and root need root (ucbench becomes each owner uid with "
                     "setresuid; it uses no subuid range and no newuidmap)";

  if (o->plan.owners_given || ucb_can_set_ids ())
    return;
  free (o->plan.owners);
  o->plan.owners = xcalloc (1, sizeof *o->plan.owners);
  o->plan.owners[0].kind = UCB_OWNER_SELF;
  o->plan.n_owners = 1;
  ucb_json_push (notes, ucb_json_str (note));
  if (!o->quiet)
    fprintf (stderr, "ucbench: note: %s\n", note);
}

/* One fd per container while spawning: lift the soft limit to what the sweep needs. */
static int
ensure_fds (const struct ucb_run_options *o, ucb_error_t *err)
{
  struct rlimit rl;
  rlim_t need = 64;

  for (size_t i = 0; i < o->plan.n_containers; i++)
    if (o->plan.containers[i] + (rlim_t) 64 > need)
      need = o->plan.containers[i] + (rlim_t) 64;
  if (getrlimit (RLIMIT_NOFILE, &rl) < 0)
    return ucb_make_error (err, errno, "getrlimit(RLIMIT_NOFILE)");
  if (rl.rlim_cur >= need)
    return 0;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
    return ucb_make_error (err, 0,
                           "RLIMIT_NOFILE hard limit %llu is below the %llu file descriptors "
                           "this sweep needs; raise it (ulimit -Hn) or run fewer --containers",
                           (unsigned long long) rl.rlim_max, (unsigned long long) need);
  rl.rlim_cur = need;
  if (setrlimit (RLIMIT_NOFILE, &rl) < 0)
    return ucb_make_error (err, errno, "setrlimit(RLIMIT_NOFILE, %llu)", (unsigned long long) need);
  return 0;
}

/* Fail before a long sweep, not after it, when the output cannot be written. */
static double
realtime_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* The progress line of the point now running, for the phase suffix. */
static char progress_line[256];

static void
progress (const struct ucb_run_options *o, size_t k, size_t total, uint64_t t_start,
          const struct ucb_point *pt)
{
  cleanup_free char *owner = NULL;
  double elapsed, eta;

  if (!o->progress)
    return;
  owner = ucb_owner_mode_name (&pt->owner);
  elapsed = (double) (ucb_now_ns () - t_start) / 1e9;
  /* Before the first point finishes, estimate from the configured times alone. */
  eta = k > 0 ? elapsed / (double) k * (double) (total - k)
              : (double) total * (o->plan.warmup + o->plan.duration + 0.2);
  snprintf (progress_line, sizeof progress_line,
            "[%zu/%zu] %s owner=%s depth=%u tasks=%u containers=%u repeat=%u  ETA %.0fs", k + 1,
            total, pt->workload->name, owner, pt->depth, pt->tasks, pt->containers, pt->repeat,
            eta);
  fprintf (stderr, "\r\033[K%s", progress_line);
}

/* Within a point (the engine's on_phase): at thousands of containers getting ready and
 * stopping take seconds, and the line says which is going on. */
static void
progress_phase (void *arg, const char *phase, size_t done, size_t total)
{
  (void) arg;
  if (strcmp (phase, "stopping") == 0)
    fprintf (stderr, "\r\033[K%s  stopping %zu containers", progress_line, total);
  else if (strcmp (phase, "ready") == 0)
    fprintf (stderr, "\r\033[K%s  ready %zu/%zu", progress_line, done, total);
  else
    fprintf (stderr, "\r\033[K%s  measuring %zu/%zu", progress_line, done, total);
}

/* Before a point's first repeat: a window too short for every task to get a few scheduler
 * slices leaves containers that never ran (4096 containers on 2 CPUs in 1 s: 3852 did no op),
 * so say so, and what window would do. */
static void
warn_short_window (const struct ucb_run_options *o, const struct ucb_placement *pl,
                   const struct ucb_point *pt)
{
  size_t cpus = pl->ncpus ? pl->ncpus : pl->nallowed, tasks = (size_t) pt->containers * pt->tasks;
  double need = ucb_window_needed_s (cpus ? (tasks + cpus - 1) / cpus : tasks);

  if (o->quiet || pt->repeat > 1 || o->plan.duration >= need)
    return;
  if (o->progress)
    fprintf (stderr, "\r\033[K");
  fprintf (stderr,
           "ucbench: warning: %s containers=%u: a %g s window cannot give each of %zu tasks on "
           "%zu CPUs %d scheduler slices (%g ms each): use --duration %.0fs or more, or fewer "
           "containers\n",
           pt->workload->name, pt->containers, o->plan.duration, tasks, cpus, UCB_WINDOW_SLICES,
           UCB_SCHED_SLICE_S * 1e3, ceil (need));
}

/* A process that is not this run's (nor one of its containers) in the point's default-range
 * owner uids, before the point or at its end: the ucounts the point measures are not this
 * run's alone (another ucbench that ignores the lock, or anything else), so it is an error,
 * never a measurement.  Explicit --owner uids are the user's choice (warned about). */
static int
foreign_in_range (const struct ucb_run_options *o, const struct ucb_point *pt, const char *when,
                  ucb_error_t *err)
{
  cleanup_free char *who = NULL;
  uid_t first, last;

  if (!ucb_owner_is_default_range (&pt->owner) || pt->containers == 0)
    return 0;
  first = ucb_owner_uid (&pt->owner, o->plan.uid_base, 0);
  last = ucb_owner_uid (&pt->owner, o->plan.uid_base, pt->containers - 1);
  if (ucb_uid_range_procs (first, last, true, &who) == 0)
    return 0;
  return ucb_make_error (err, 0,
                         "a process that is not this run's uses its owner uids %u-%u %s the "
                         "point (%s): its counts would not be this run's alone, so it is not "
                         "recorded",
                         (unsigned) first, (unsigned) last, when, who);
}

/* Run point `pt` once and record it into *entry (NULL for a point never run) and `m`; what
 * --repeat auto counts of it into *ops and *contended (NULL: not wanted; untouched for a point
 * never run). */
static int
run_once (const struct ucb_run_options *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
          const struct ucb_point *pt, struct ucb_measured *m, json_t **entry, double *ops,
          bool *contended, ucb_error_t *err)
{
  struct ucb_point_result res;
  cleanup_free char *owner = NULL;
  int r;

  *entry = NULL;
  if (pt->workload->unsupported_reason)
    {
      /* Listed, never run: the document says why (stress-ng's unimplemented). */
      *entry = ucb_emit_skipped (pt, pt->workload->unsupported_reason);
      ucb_measured_add (m, pt, NAN, *entry);
      return 0;
    }
  warn_short_window (o, pl, pt);
  r = foreign_in_range (o, pt, "before", err);
  if (r == 0)
    {
      r = ucb_run_point (&o->plan, pl, rt, pt, &res, err);
      if (r == 0)
        r = foreign_in_range (o, pt, "at the end of", err);
      if (r == 0 && ops)
        ucb_repeat_figures (&res, pl->nallowed, ops, contended);
      if (r == 0)
        {
          *entry = ucb_emit_point (&res, pl);
          ucb_measured_add (m, pt, ucb_point_total_ops (&res), *entry);
        }
      ucb_point_result_free (&res);
    }
  if (r == 0)
    return 0;
  owner = ucb_owner_mode_name (&pt->owner);
  if (o->progress)
    fputc ('\n', stderr);
  return ucb_error_wrap (err, "%s owner=%s depth=%u tasks=%u containers=%u repeat=%u",
                         pt->workload->name, owner, pt->depth, pt->tasks, pt->containers,
                         pt->repeat);
}

static int
run_sweep (const struct ucb_run_options *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
           json_t *results, struct ucb_measured *m, ucb_error_t *err)
{
  size_t total = ucb_sweep_size (&o->plan);
  uint64_t t_start = ucb_now_ns ();

  for (size_t k = 0; k < total; k++)
    {
      struct ucb_point pt;
      json_t *entry;

      ucb_sweep_point (&o->plan, k, &pt);
      progress (o, k, total, t_start, &pt);
      if (run_once (o, pl, rt, &pt, m, &entry, NULL, NULL, err) < 0)
        return -1;
      ucb_json_push (results, entry);
    }
  if (o->progress)
    fprintf (stderr, "\r\033[K");
  return 0;
}

/* --repeat auto: one more repeat of point k, its entry onto `runs`, what it measured to the
 * policy. */
static int
auto_repeat (const struct ucb_run_options *o, const struct ucb_placement *pl,
             struct ucb_runtime *rt, struct ucb_repeat_auto *s, size_t k, json_t *runs,
             struct ucb_measured *m, ucb_error_t *err)
{
  const struct ucb_point *pt = &s->p[k].pt;
  double ops = NAN;
  bool contended = false;
  json_t *e;

  if (run_once (o, pl, rt, pt, m, &e, &ops, &contended, err) < 0)
    return -1;
  ucb_json_push (runs, e);
  ucb_repeat_auto_record (s, k, pt->workload->unsupported_reason != NULL, ops, contended);
  return 0;
}

static void
progress_auto (const struct ucb_run_options *o, const struct ucb_repeat_auto *s, double elapsed,
               const struct ucb_repeat_auto_point *a)
{
  cleanup_free char *owner = NULL;
  char of[32] = "";  /* empty in round 1 without --max-time: the default is not known yet */
  char ci[32] = "-"; /* no interval below 2 counted repeats */

  if (!o->progress)
    return;
  if (s->max_time_s > 0)
    snprintf (of, sizeof of, " of %.0fs", s->max_time_s);
  if (!isnan (a->prec.ci_pct))
    snprintf (ci, sizeof ci, "±%.2f%%", a->prec.ci_pct);
  owner = ucb_owner_mode_name (&a->pt.owner);
  fprintf (stderr,
           "\r\033[K[round %u] %s owner=%s depth=%u tasks=%u containers=%u repeat=%zu  "
           "ci %s  %.0fs%s",
           s->round, a->pt.workload->name, owner, a->pt.depth, a->pt.tasks, a->pt.containers,
           a->n + 1, ci, elapsed, of);
}

/* The document's precision[]: per point, what was reached; the identity from its first entry
 * (runs[k]: point k's entries). */
static json_t *
auto_summary (const struct ucb_repeat_auto *s, json_t *runs)
{
  static const char *const id[] = { "workload", "owner", "depth", "tasks", "mode", "containers" };
  json_t *arr = ucb_json_arr ();

  for (size_t k = 0; k < s->np; k++)
    {
      const struct ucb_repeat_auto_point *a = &s->p[k];
      json_t *o = ucb_json_obj (), *first = json_array_get (json_array_get (runs, k), 0);

      if (a->skipped || !first)
        {
          json_decref (o);
          continue;
        }
      for (size_t i = 0; i < UCB_ARRAY_SIZE (id); i++)
        ucb_json_set (o, id[i], json_incref (json_object_get (first, id[i])));
      ucb_json_set (o, "repeats", ucb_json_int ((long long) a->n));
      ucb_json_set (o, "repeats_counted", ucb_json_int ((long long) a->prec.counted));
      ucb_json_set (o, "ci_pct", ucb_json_real (a->prec.ci_pct));
      ucb_json_set (o, "reached", json_boolean (a->prec.reached));
      ucb_json_push (arr, o);
    }
  return arr;
}

/* --repeat auto (engine/repeat-auto.h decides what runs): results[] in sweep order, each
 * point's repeats together as with --repeat N; *precision gets the summary, *note the line for
 * stderr, max_time_s what was used. */
static int
run_sweep_auto (struct ucb_run_options *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
                json_t *results, struct ucb_measured *m, json_t **precision, char **note,
                ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_repeat_auto_free))) struct ucb_repeat_auto s = { 0 };
  cleanup_json json_t *runs = ucb_json_arr (); /* per point: its results[] entries */
  double elapsed;
  size_t k;
  int r = 0;

  ucb_repeat_auto_init (&s, &o->plan);
  for (k = 0; k < s.np; k++)
    ucb_json_push (runs, ucb_json_arr ());
  while (ucb_repeat_auto_next (&s, &k, &elapsed))
    {
      progress_auto (o, &s, elapsed, &s.p[k]);
      r = auto_repeat (o, pl, rt, &s, k, json_array_get (runs, k), m, err);
      if (r < 0)
        break;
    }
  if (r == 0 && o->progress)
    fprintf (stderr, "\r\033[K");
  /* Cut short or not, the repeats finished so far are results (written out, marked). */
  for (k = 0; k < s.np; k++)
    json_array_extend (results, json_array_get (runs, k));
  o->plan.max_time_s = s.max_time_s;
  *precision = auto_summary (&s, runs);
  *note = ucb_repeat_auto_note (&s);
  return r;
}

/* The document to --output and stdout, then the lines for stderr that come after the table. */
static int
emit (const struct ucb_run_options *o, json_t *doc, const char *busy, const char *starved,
      const char *auto_line, ucb_error_t *err)
{
  int r = 0;

  if (o->output)
    r = ucb_report_write_kept (doc, o->output, "run", err); /* kept elsewhere if it fails */
  if (r == 0 && o->format == UCB_FORMAT_JSON)
    r = ucb_json_write (doc, stdout, err);
  else if (r == 0 && o->format == UCB_FORMAT_CSV)
    ucb_csv_write_run (stdout, doc);
  else if (o->format == UCB_FORMAT_TEXT && !o->quiet)
    ucb_report_text (stdout, doc, o->legend); /* also when --output failed: not lost */
  fflush (stdout);
  /* Once, after the table: a busy host makes every number above suspect. */
  if (busy && !o->quiet)
    fprintf (stderr, "ucbench: warning: %s\n", busy);
  if (starved && !o->quiet)
    fprintf (stderr, "ucbench: warning: %s\n", starved);
  if (auto_line && !o->quiet)
    fprintf (stderr, "ucbench: %s\n", auto_line);
  if (r == 0 && !o->quiet)
    ucb_report_next_steps (stderr, o->output, o->format == UCB_FORMAT_JSON, doc);
  return r;
}

/* What can be known before anything is measured: the CPUs, the --output directory, the owner
 * uids and the limits.  Every refusal here costs the user no waiting. */
static int
check_before_start (struct ucb_run_options *o, struct ucb_placement *pl, json_t *notes,
                    ucb_error_t *err)
{
  if (ucb_placement_init (pl, &o->plan, err) < 0)
    return -1;
  if (o->output && ucb_report_check_output (o->output, err) < 0)
    return -1;
  if (check_owner_uids (o, notes, err) < 0 || ucb_limits_check (&o->plan, err) < 0)
    return -1;
  /* The host's ceiling, now that the owner uids are known: before the first container. */
  return ucb_ceiling_check (&o->plan, err);
}

/* --seccomp's profile, read here (it is JSON) for the engine to compile. */
static int
read_seccomp (struct ucb_run_options *o, struct ucb_seccomp_profile **p, ucb_error_t *err)
{
  if (o->plan.rt.seccomp && ucb_seccomp_profile_read (o->plan.rt.seccomp, p, err) < 0)
    return ucb_error_wrap (err, "--seccomp");
  o->plan.rt.seccomp_profile = *p;
  return 0;
}

/* What a run collects on the way to its document. */
struct run_state
{
  json_t *host, *results, *notes, *precision;
  struct ucb_measured measured; /* beside results[] */
  char *busy, *starved, *auto_line;
  double t_real; /* CLOCK_REALTIME at the start */
  uint64_t t0;   /* ucb_now_ns() at the start */
};

static void
run_state_free (struct run_state *st)
{
  json_decref (st->host);
  json_decref (st->results);
  json_decref (st->notes);
  json_decref (st->precision);
  ucb_measured_free (&st->measured);
  free (st->busy);
  free (st->starved);
  free (st->auto_line);
}

/* run.interrupted: the sweep ended before its last point, by signal `sig` (0: by the error
 * `why`); results[] holds the points finished before. */
static json_t *
interrupted_record (const struct ucb_run_options *o, int sig, const ucb_error_t *why,
                    size_t finished)
{
  json_t *in = ucb_json_obj ();
  const char *reason = *why && (*why)->msg ? (*why)->msg : "interrupted";

  ucb_json_set (in, "signal", sig ? ucb_json_int (sig) : json_null ());
  ucb_json_set (in, "reason", ucb_json_str (reason));
  ucb_json_set (in, "points_finished", ucb_json_int ((long long) finished));
  /* --repeat auto decides its repeats as it goes: no plan to count against. */
  ucb_json_set (in, "points_planned",
                o->plan.repeat_auto ? json_null ()
                                    : ucb_json_int ((long long) ucb_sweep_size (&o->plan)));
  return in;
}

/* The document of what was measured (all of the sweep, or what a signal or an error left:
 * `cut` holds why), to --output and stdout. */
static int
finish (int argc, char **argv, const struct ucb_run_options *o, const struct ucb_placement *pl,
        const struct ucb_runtime *rt, struct run_state *st, const ucb_error_t *cut,
        ucb_error_t *err)
{
  cleanup_json json_t *doc = NULL;
  json_t *config, *run, *l3 = NULL, *contrast;
  size_t finished = json_array_size (st->results);

  ucb_measured_scalability (&st->measured);
  if (o->plan.pin == UCB_PIN_L3)
    l3 = ucb_report_l3_table (st->results);
  st->busy = ucb_report_contention_note (st->results);
  if (st->busy)
    ucb_json_push (st->notes, ucb_json_str (st->busy));
  st->starved = ucb_report_starved_note (st->results);
  if (st->starved)
    ucb_json_push (st->notes, ucb_json_str (st->starved));
  if (*cut)
    {
      cleanup_free char *note = xasprintf ("the sweep ended early (%s): results[] holds the %zu "
                                           "points finished before; the rest were not run",
                                           (*cut)->msg, finished);
      ucb_json_push (st->notes, ucb_json_str (note));
    }
  config = ucb_emit_config (o, pl, rt);
  ucb_json_set (config, "notes", steal_pointer (&st->notes));
  doc = ucb_report_document (argc, argv, st->t_real, (double) (ucb_now_ns () - st->t0) / 1e9,
                             steal_pointer (&st->host), config, steal_pointer (&st->results));
  run = json_object_get (doc, "run");
  ucb_json_set (run, "peak_rss_kib", ucb_json_int ((long long) ucb_peak_rss_kib ()));
  if (*cut)
    ucb_json_set (run, "interrupted", interrupted_record (o, ucb_interrupted (), cut, finished));
  if (st->precision)
    ucb_json_set (doc, "precision", steal_pointer (&st->precision));
  if (l3)
    ucb_json_set (doc, "l3_scaling", l3);
  contrast = ucb_report_owner_contrast (json_object_get (doc, "results"));
  if (contrast)
    ucb_json_set (doc, "owner_contrast", contrast);
  return emit (o, doc, st->busy, st->starved, st->auto_line, err);
}

int
ucb_cmd_run (int argc, char **argv, ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_run_options_free))) struct ucb_run_options o = { 0 };
  __attribute__ ((cleanup (ucb_placement_free))) struct ucb_placement pl = { 0 };
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *profile = NULL;
  __attribute__ ((cleanup (ucb_runtime_close))) struct ucb_runtime rt = { 0 };
  __attribute__ ((cleanup (run_state_free))) struct run_state st = { 0 };
  struct ucb_interrupt_saved sweep_handlers; /* not put back: SIG_DFL at the end */
  ucb_error_t out_err = NULL;
  int r;

  if (ucb_run_options_parse (&o, argc, argv, allowed_cpus (), err) < 0)
    return -1;
  if (o.help)
    {
      ucb_opt_usage (&ucb_run_opts, stdout);
      return 0;
    }
  o.progress = !o.quiet && isatty (STDERR_FILENO);
  if (o.progress)
    o.plan.on_phase = progress_phase;
  st.notes = ucb_json_arr ();
  narrow_unprivileged (&o, st.notes);
  if (o.baseline_added)
    ucb_json_push (st.notes, ucb_json_str ("containers=1 added to the sweep: scale divides by the "
                                           "1-container point of its series (--no-baseline "
                                           "leaves it out)"));
  if (check_before_start (&o, &pl, st.notes, err) < 0)
    return -1;
  st.t_real = realtime_now ();
  st.t0 = ucb_now_ns ();
  /* From here a signal only sets the flag (whatever disposition we inherited: a background
   * job ignores SIGINT), so setup stops cleanly too: a wait for the cgroup turn ends at once. */
  ucb_install_interrupt_handlers ();
  /* The host as the user left it: before ensure_fds() lifts RLIMIT_NOFILE; profiles and
   * cgroups fail here, before any container exists. */
  if (ucb_host_object (&st.host, err) < 0 || ensure_fds (&o, err) < 0
      || read_seccomp (&o, &profile, err) < 0 || ucb_runtime_open (&rt, &o.plan, err) < 0
      || ucb_become_subreaper (err) < 0)
    {
      ucb_restore_interrupt_handlers ();
      return ucb_interrupted_status (-1, "", err);
    }
  st.results = ucb_json_arr ();
  if (o.plan.repeat_auto)
    r = run_sweep_auto (&o, &pl, &rt, st.results, &st.measured, &st.precision, &st.auto_line, err);
  else
    r = run_sweep (&o, &pl, &rt, st.results, &st.measured, err);
  /* Every container is gone now.  A signal from here on is only noted (a second one ends us
   * at once): what was measured is written out, then the run ends as an interrupted one. */
  ucb_interrupts_defer (&sweep_handlers);
  if (r == 0)
    r = finish (argc, argv, &o, &pl, &rt, &st, &out_err, err);
  else if (json_array_size (st.results) > 0)
    {
      /* No measurement is thrown away: the finished points, marked, then the sweep's error. */
      size_t n = json_array_size (st.results);
      if (finish (argc, argv, &o, &pl, &rt, &st, err, &out_err) == 0 && *err)
        {
          ucb_error_t e = NULL;
          /* EINTR's strerror would only repeat "interrupted by signal N". */
          ucb_make_error (&e, (*err)->code == EINTR ? 0 : (*err)->code,
                          "%s: the %zu points finished before were written out, marked as "
                          "interrupted (run.interrupted)",
                          (*err)->msg, n);
          e->status = (*err)->status;
          ucb_error_free (err);
          *err = e;
        }
      else
        ucb_error_report (&out_err);
    }
  ucb_restore_interrupt_handlers (); /* not the sweep's: a late signal ends us the ordinary way */
  /* A signal during the sweep cut it short; one after it came once the document was written. */
  return ucb_interrupted_status (r, " after the sweep: its results were written out first", err);
}
