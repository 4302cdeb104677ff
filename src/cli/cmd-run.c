/* cmd-run.c - `ucbench run`: the sweep over workloads, owners, depths and container counts. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/record.h"
#include "core/json-util.h"
#include "core/process.h"
#include "core/util.h"
#include "engine/owner.h"
#include "engine/rlimits.h"
#include "engine/runner.h"
#include "engine/runtime.h"
#include "engine/spawn.h"
#include "engine/workload.h"
#include "host/hostinfo.h"
#include "host/topology.h"
#include "host/users.h"
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

/* Default uids must be free; explicit ones are the user's choice, so only warn. */
static int
check_owner_uids (const struct ucb_run_options *o, ucb_error_t *err)
{
  cleanup_free uid_t *all = NULL;
  cleanup_free uid_t *strict = NULL;
  cleanup_free char *who = NULL;
  size_t nall, nstrict, found;

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
  found = ucb_uids_find_users (strict, nstrict, &who);
  if (found)
    return ucb_make_error (err, 0,
                           "owner uid range %u-%u is in use (%s%s): containers would share "
                           "ucounts with it; choose a free range with --uid-base",
                           (unsigned) strict[0], (unsigned) strict[nstrict - 1], who,
                           found > 1 ? ", and more" : "");
  free (who);
  who = NULL;
  if (nall > nstrict && ucb_uids_find_users (all, nall, &who) > 0)
    fprintf (stderr, "ucbench: warning: %s; its ucounts are shared with the containers\n", who);
  return 0;
}

/* Unprivileged (no CAP_SETUID/CAP_SETGID): the default owner modes cannot work, so the run
 * narrows to your own uid and says so, in the document too; an explicit --owner is kept and
 * refused with the reason later. */
static void
narrow_unprivileged (struct ucb_run_options *o, json_t *notes)
{
  const char *note = "no CAP_SETUID/CAP_SETGID: every container is owned by your own uid "
                     "(--owner self); shared, distinct and root need root";

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
static int
check_output_dir (const char *path, ucb_error_t *err)
{
  cleanup_free char *copy = xstrdup (path);
  const char *dir = dirname (copy);

  if (access (dir, W_OK) < 0)
    return ucb_usage_error (err, "cannot write --output `%s`: directory `%s`: %s", path, dir,
                            strerror (errno));
  return 0;
}

static double
realtime_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

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
  fprintf (stderr,
           "\r\033[K[%zu/%zu] %s owner=%s depth=%u tasks=%u containers=%u repeat=%u  ETA %.0fs",
           k + 1, total, pt->workload->name, owner, pt->depth, pt->tasks, pt->containers,
           pt->repeat, eta);
}

static int
run_sweep (const struct ucb_run_options *o, const struct ucb_placement *pl, struct ucb_runtime *rt,
           json_t *results, ucb_error_t *err)
{
  size_t total = ucb_sweep_size (&o->plan);
  uint64_t t_start = ucb_now_ns ();

  for (size_t k = 0; k < total; k++)
    {
      struct ucb_point pt;
      struct ucb_point_result res;
      int r;

      ucb_sweep_point (&o->plan, k, &pt);
      progress (o, k, total, t_start, &pt);
      if (pt.workload->unsupported_reason)
        {
          /* Listed, never run: the document says why (stress-ng's unimplemented). */
          ucb_json_push (results, ucb_record_skipped (&pt, pt.workload->unsupported_reason));
          continue;
        }
      r = ucb_run_point (&o->plan, pl, rt, &pt, &res, err);
      if (r == 0)
        ucb_json_push (results, ucb_record_point (&res, pl));
      ucb_point_result_free (&res);
      if (r < 0)
        {
          cleanup_free char *owner = ucb_owner_mode_name (&pt.owner);
          if (o->progress)
            fputc ('\n', stderr);
          return ucb_error_wrap (err, "%s owner=%s depth=%u tasks=%u containers=%u repeat=%u",
                                 pt.workload->name, owner, pt.depth, pt.tasks, pt.containers,
                                 pt.repeat);
        }
    }
  if (o->progress)
    fprintf (stderr, "\r\033[K");
  return 0;
}

int
ucb_cmd_run (int argc, char **argv, ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_run_options_free))) struct ucb_run_options o = { 0 };
  __attribute__ ((cleanup (ucb_placement_free))) struct ucb_placement pl = { 0 };
  __attribute__ ((cleanup (ucb_runtime_close))) struct ucb_runtime rt = { 0 };
  json_t *host = NULL, *results = NULL, *doc = NULL, *notes = NULL, *config;
  cleanup_free char *busy = NULL;
  double t_real;
  uint64_t t0;
  int r;

  if (ucb_run_options_parse (&o, argc, argv, allowed_cpus (), err) < 0)
    return -1;
  if (o.help)
    {
      fputs (ucb_run_usage, stdout);
      return 0;
    }
  o.progress = !o.quiet && isatty (STDERR_FILENO);
  notes = ucb_json_arr ();
  narrow_unprivileged (&o, notes);
  if (ucb_placement_init (&pl, &o.plan, err) < 0)
    {
      json_decref (notes);
      return -1;
    }
  if ((o.output && check_output_dir (o.output, err) < 0) || check_owner_uids (&o, err) < 0
      || ucb_limits_check (&o.plan, err) < 0)
    {
      json_decref (notes);
      return -1;
    }
  t_real = realtime_now ();
  t0 = ucb_now_ns ();
  /* The host as the user left it: before ensure_fds() lifts RLIMIT_NOFILE. */
  if (ucb_host_collect (&host, err) < 0)
    {
      json_decref (notes);
      return -1;
    }
  /* Profiles and cgroups fail here, before any container exists. */
  if (ensure_fds (&o, err) < 0 || ucb_runtime_open (&rt, &o.plan, err) < 0
      || ucb_become_subreaper (err) < 0)
    {
      json_decref (host);
      json_decref (notes);
      return -1;
    }
  results = ucb_json_arr ();
  ucb_install_interrupt_handlers ();
  r = run_sweep (&o, &pl, &rt, results, err);
  /* Every container is gone now: a late signal ends us the ordinary way. */
  ucb_restore_interrupt_handlers ();
  if (r == 0 && ucb_interrupted ())
    r = ucb_make_error (err, EINTR, "interrupted by signal %d", ucb_interrupted ());
  if (r < 0)
    {
      json_decref (host);
      json_decref (results);
      json_decref (notes);
      if (ucb_interrupted () && *err)
        (*err)->status = 128 + ucb_interrupted ();
      return -1;
    }
  ucb_report_scalability (results);
  busy = ucb_report_contention_note (results);
  if (busy)
    ucb_json_push (notes, ucb_json_str (busy));
  config = ucb_record_config (&o, &pl, &rt);
  ucb_json_set (config, "notes", notes);
  doc = ucb_report_document (argc, argv, t_real, (double) (ucb_now_ns () - t0) / 1e9, host, config,
                             results);
  if (o.plan.pin == UCB_PIN_L3)
    ucb_json_set (doc, "l3_scaling", ucb_report_l3_table (results));
  r = 0;
  if (o.output)
    r = ucb_report_write_file (doc, o.output, err);
  if (r == 0 && o.format == UCB_FORMAT_JSON)
    r = ucb_json_write (doc, stdout, err);
  else if (r == 0 && !o.quiet)
    ucb_report_text (stdout, doc);
  /* Once, after the table: a busy host makes every number above suspect. */
  if (busy && !o.quiet)
    {
      fflush (stdout);
      fprintf (stderr, "ucbench: warning: %s\n", busy);
    }
  json_decref (doc);
  return r;
}
