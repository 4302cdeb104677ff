/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-report.c - the result document: field names, derived numbers, NaN, scalability; writing
 * it to --output (atomically, no temporary left, stale ones removed, signals deferred). */
#include "config.h"

#include <jansson.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/doc.h"
#include "core/process.h"
#include "core/util.h"
#include "engine/contention.h"
#include "engine/runner.h"
#include "engine/workload.h"
#include "report/output.h"
#include "report/report.h"

/* Two containers, 3 readings 1 s apart: container 0 does 100 then 300 ops, container 1 does
 * 100 then 100; CPU 0.5 s per second each. */
static void
fake_point (struct ucb_point_result *r, struct ucb_placement *pl, unsigned containers, double scale)
{
  memset (r, 0, sizeof *r);
  memset (pl, 0, sizeof *pl);
  pl->allowed = xcalloc (2, sizeof (int));
  pl->allowed[0] = 0;
  pl->allowed[1] = 1;
  pl->nallowed = 2;
  r->pt.workload = ucb_workload_find ("signal");
  r->pt.containers = containers;
  r->pt.owner.kind = UCB_OWNER_SHARED;
  r->pt.depth = 1;
  r->pt.tasks = 1;
  r->pt.isolate = CLONE_NEWIPC;
  r->pt.repeat = 1;
  r->idle_pct = NAN;
  r->steal_pct = 1.5;
  r->setup_s = 0.01;
  /* Not measured (null), as a run writes it: a rate of 0 is out of the schema's range. */
  r->canary.before = r->canary.after = (struct ucb_canary_edge){ NAN, NAN };
  r->c = xcalloc (containers, sizeof *r->c);
  ucb_samples_init (&r->samples, containers, 3);
  r->samples.start_ns = 1000000000ull;
  for (size_t k = 0; k < 3; k++)
    {
      for (unsigned i = 0; i < containers; i++)
        {
          struct ucb_reading *x = ucb_reading_at (&r->samples, k, i);
          uint64_t per[3] = { 0, 100, i == 0 ? 400 : 200 };
          x->t_ns = 2000000000ull + k * 1000000000ull;
          x->ops = (uint64_t) ((double) per[k] * scale);
          x->cpu_ns = 1 + k * 500000000ull;
          x->fails = k == 2 && i == 1 ? 7 : 0;
        }
    }
  r->samples.nreadings = 3;
  for (unsigned i = 0; i < containers; i++)
    {
      r->c[i].index = i;
      r->c[i].owner_uid = 2100000000u;
      r->c[i].depth = 1;
      r->c[i].cpu = xcalloc (1, sizeof (int));
      r->c[i].cpu[0] = (int) i % 2;
      r->c[i].task_pid = xcalloc (1, sizeof (pid_t));
      r->c[i].task_pid[0] = 100 + (pid_t) i;
      r->c[i].task_uid = 2100000000u;
    }
  /* container 1: 5 EAGAIN and 2 EMFILE failures, the last one EAGAIN */
  r->final = aligned_alloc (UCB_SLOT_SIZE, containers * sizeof *r->final);
  memset (r->final, 0, containers * sizeof *r->final);
  if (containers > 1)
    {
      r->final[1].last_errno = EAGAIN;
      r->final[1].errs[0].err = EMFILE;
      r->final[1].errs[0].count = 2;
      r->final[1].errs[1].err = EAGAIN;
      r->final[1].errs[1].count = 5;
    }
}

static void
free_point (struct ucb_point_result *r, struct ucb_placement *pl)
{
  ucb_point_result_free (r);
  ucb_placement_free (pl);
}

static double
num_at (json_t *o, const char *path)
{
  /* "a.b.c" lookup for brevity */
  char buf[128];
  char *save = NULL;
  snprintf (buf, sizeof buf, "%s", path);
  for (char *t = strtok_r (buf, ".", &save); t && o; t = strtok_r (NULL, ".", &save))
    o = json_object_get (o, t);
  return json_is_number (o) ? json_number_value (o) : NAN;
}

static void
test_point_fields (void)
{
  struct ucb_point_result r;
  struct ucb_placement pl;
  json_t *j, *c0, *c1, *s;

  fake_point (&r, &pl, 2, 1.0);
  j = ucb_emit_point (&r, &pl);
  tap_check_str (json_string_value (json_object_get (j, "workload")), "signal");
  tap_check_str (json_string_value (json_object_get (j, "owner")), "shared");
  tap_check_str (json_string_value (json_object_get (j, "mode")), "process");
  tap_check_near (num_at (j, "containers"), 2, 0);
  tap_check_near (num_at (j, "depth"), 1, 0);
  tap_check_near (num_at (j, "tasks"), 1, 0);
  tap_check_near (num_at (j, "repeat"), 1, 0);
  tap_check_int (json_array_size (json_object_get (j, "per_container")), ==, 2);
  c0 = json_array_get (json_object_get (j, "per_container"), 0);
  c1 = json_array_get (json_object_get (j, "per_container"), 1);
  /* container 0: rates 100, 300 per s */
  tap_check_near (num_at (c0, "ops_per_s.mean"), 200, 1e-9);
  tap_check_near (num_at (c0, "ops_per_s.median"), 200, 1e-9);
  tap_check_near (num_at (c0, "ops_per_s.min"), 100, 1e-9);
  tap_check_near (num_at (c0, "ops_per_s.max"), 300, 1e-9);
  tap_check_near (num_at (c0, "ops_per_s.stddev"), sqrt (20000), 1e-6);
  tap_check_near (num_at (c0, "cpu_ns_per_op"), 1e9 / 400, 1e-6);
  tap_check_near (num_at (c0, "owner_uid"), 2100000000.0, 0);
  tap_check_int (json_array_size (json_object_get (c0, "samples")), ==, 2);
  tap_check_near (num_at (json_array_get (json_object_get (c0, "samples"), 1), "t"), 3.0, 1e-9);
  tap_check_near (num_at (json_array_get (json_object_get (c0, "samples"), 1), "ops"), 300, 0);
  tap_check_int (json_integer_value (json_array_get (json_object_get (c1, "cpus"), 0)), ==, 1);
  tap_check_str (json_string_value (json_object_get (c1, "last_errno")), "EAGAIN");
  tap_check (json_is_null (json_object_get (c0, "last_errno")));
  tap_check_near (num_at (c1, "failed_ops"), 7, 0);
  tap_check_near (num_at (c1, "failed_by_errno.EAGAIN"), 5, 0);
  tap_check_near (num_at (c1, "failed_by_errno.EMFILE"), 2, 0);
  tap_check_int (json_array_size (json_object_get (c1, "tasks")), ==, 1);
  tap_check_near (num_at (json_array_get (json_object_get (c1, "tasks"), 0), "ops"), 200, 0);
  tap_check_str (json_string_value (json_object_get (json_object_get (j, "charges"), "counter")),
                 "SIGPENDING");
  tap_check_str (json_string_value (json_object_get (j, "isolate")), "user,ipc");
  s = json_object_get (j, "summary");
  /* totals: 200 + 100 = 300 ops/s */
  tap_check_near (num_at (s, "total_ops_per_s"), 300, 1e-9);
  tap_check_near (num_at (s, "per_container_ops"), 150, 1e-9);
  tap_check_near (num_at (s, "fairness"), 300.0 * 300 / (2 * (200.0 * 200 + 100 * 100)), 1e-12);
  tap_check (json_is_null (json_object_get (s, "scalability")));
  tap_check (json_is_null (json_object_get (s, "idle_pct"))); /* NaN becomes null */
  tap_check_near (num_at (s, "steal_pct"), 1.5, 0);
  tap_check_near (num_at (s, "failed_ops"), 7, 0);
  tap_check_near (num_at (s, "failed_by_errno.EAGAIN"), 5, 0);
  tap_check_near (num_at (s, "per_task_ops"), 150, 1e-9);
  json_decref (j);
  free_point (&r, &pl);
}

/* scalability from the C values: total / (N x the median 1-container total of the series);
 * another depth, mode or owner is another series; a point never run counts 0. */
static void
test_scalability (void)
{
  struct ucb_point_result r1, r2;
  struct ucb_placement p1, p2;
  struct ucb_point_total p[7];
  double s[7];

  fake_point (&r1, &p1, 1, 1.0); /* 1 container: 200 ops/s */
  fake_point (&r2, &p2, 2, 1.0); /* 2 containers: 300 ops/s total */
  p[0] = (struct ucb_point_total){ r1.pt, ucb_point_total_ops (&r1) };
  p[1] = (struct ucb_point_total){ r2.pt, ucb_point_total_ops (&r2) };
  p[2] = (struct ucb_point_total){ r1.pt, 600 };  /* B = median (200, 600) = 400 */
  p[3] = (struct ucb_point_total){ r2.pt, NAN };  /* never run */
  p[4] = (struct ucb_point_total){ r2.pt, 1000 }; /* another depth, no 1-container point */
  p[4].pt.depth = 2;
  p[5] = (struct ucb_point_total){ r1.pt, 50 }; /* threads: a series of their own */
  p[5].pt.threads = true;
  p[6] = (struct ucb_point_total){ r2.pt, 800 }; /* another owner: none */
  p[6].pt.owner.kind = UCB_OWNER_DISTINCT;
  ucb_scalability (p, 7, s);
  tap_check_near (p[0].total, 200, 1e-9);
  tap_check_near (s[0], 200.0 / 400, 1e-12);
  tap_check_near (s[1], 300.0 / (2 * 400.0), 1e-12);
  tap_check_near (s[2], 600.0 / 400, 1e-12);
  tap_check_near (s[3], 0, 0);
  tap_check (isnan (s[4]));
  tap_check_near (s[5], 1, 1e-12);
  tap_check (isnan (s[6]));
  free_point (&r1, &p1);
  free_point (&r2, &p2);
}

static void
test_document_roundtrip (void)
{
  struct ucb_point_result r;
  struct ucb_placement pl;
  struct ucb_run_options o;
  ucb_error_t err = NULL;
  char *argv[] = { (char *) "run", (char *) "--containers", (char *) "2" };
  json_t *results = json_array (), *doc, *back;
  char *text;
  json_error_t jerr;

  tap_check_int (ucb_run_options_parse (&o, 3, argv, 2, &err), ==, 0);
  fake_point (&r, &pl, 2, 1.0);
  json_array_append_new (results, ucb_emit_point (&r, &pl));
  doc = ucb_report_document (3, argv, 1.7e9, 12.5, json_object (), ucb_emit_config (&o, &pl, NULL),
                             results);
  tap_check_str (json_string_value (json_object_get (doc, "schema")), "ucbench-result/1");
  tap_check_str (json_string_value (json_object_get (json_object_get (doc, "tool"), "name")),
                 "ucbench");
  tap_check_str (json_string_value (json_object_get (json_object_get (doc, "run"), "start_time")),
                 "2023-11-14T22:13:20Z");
  tap_check_int (json_array_size (json_object_get (json_object_get (doc, "run"), "argv")), ==, 4);
  tap_check_near (num_at (doc, "config.repeat"), 1, 0);
  tap_check_near (num_at (doc, "config.duration_s"), 3, 0);
  text = json_dumps (doc, JSON_SORT_KEYS);
  back = json_loads (text, 0, &jerr);
  tap_check (back != NULL);
  tap_check (json_equal (doc, back));
  free (text);
  json_decref (back);
  json_decref (doc);
  free_point (&r, &pl);
  ucb_run_options_free (&o);
}

/* The names in `dir`, sorted, comma-separated ("" when empty). */
static char *
listing (const char *dir)
{
  struct dirent **e;
  int n = scandir (dir, &e, NULL, alphasort);
  char *out = xstrdup ("");

  for (int i = 0; i < n; i++)
    {
      if (strcmp (e[i]->d_name, ".") != 0 && strcmp (e[i]->d_name, "..") != 0)
        {
          char *next = xasprintf ("%s%s%s", out, *out ? "," : "", e[i]->d_name);
          free (out);
          out = next;
        }
      free (e[i]);
    }
  free (e);
  return out;
}

/* Does `path` hold a JSON object with "k": v? */
static bool
holds (const char *path, long long v)
{
  json_t *j = json_load_file (path, 0, NULL);
  bool ok = json_integer_value (json_object_get (j, "k")) == v;
  json_decref (j);
  return ok;
}

static void
write_doc (long long v, const char *path)
{
  json_t *doc = json_pack ("{s:I}", "k", (json_int_t) v);
  ucb_error_t err = NULL;

  tap_check_int (ucb_report_write_file (doc, path, &err), ==, 0);
  tap_check_str (err ? err->msg : "", "");
  ucb_error_free (&err);
  json_decref (doc);
}

static void
test_write_file (void)
{
  char dir[] = "/tmp/ucb-test-write-XXXXXX";
  cleanup_free char *out = NULL, *link = NULL, *dead = NULL, *live = NULL, *ls = NULL;
  ucb_error_t err = NULL;
  struct stat st;
  pid_t pid;

  if (mkdtemp (dir) == NULL)
    {
      tap_check (false);
      return;
    }
  out = xasprintf ("%s/out.json", dir);
  /* Checked up front: nothing is left, a directory is a usage error. */
  tap_check_int (ucb_report_check_output (out, &err), ==, 0);
  ls = listing (dir);
  tap_check_str (ls, "");
  tap_check_int (ucb_report_check_output (dir, &err), <, 0);
  tap_check (err && err->status == UCB_EXIT_USAGE && strstr (err->msg, "is a directory"));
  ucb_error_free (&err);
  /* A new file, then one written over: the document, mode 0644, nothing else in the dir. */
  write_doc (1, out);
  tap_check (holds (out, 1) && stat (out, &st) == 0 && (st.st_mode & 0777) == 0644);
  write_doc (2, out);
  tap_check (holds (out, 2));
  free (ls);
  ls = listing (dir);
  tap_check_str (ls, "out.json");
  /* Through a symlink: its target is replaced, the link stays one. */
  link = xasprintf ("%s/link.json", dir);
  tap_check_int (symlink ("out.json", link), ==, 0);
  write_doc (3, link);
  tap_check (holds (out, 3) && lstat (link, &st) == 0 && S_ISLNK (st.st_mode));
  unlink (link);
  /* A temporary of a dead writer is removed; one of a live process stays. */
  pid = fork ();
  if (pid == 0)
    _exit (0);
  waitpid (pid, NULL, 0);
  dead = xasprintf ("%s.ucbench-tmp-%ld-0", out, (long) pid);
  live = xasprintf ("%s.ucbench-tmp-%ld-0", out, (long) getppid ());
  fclose (fopen (dead, "w"));
  fclose (fopen (live, "w"));
  write_doc (4, out);
  tap_check (access (dead, F_OK) < 0 && access (live, F_OK) == 0 && holds (out, 4));
  unlink (live);
  unlink (out);
  rmdir (dir);
}

/* The writer's section: a signal sets the flag instead of killing; what was there comes back. */
static void
test_interrupts_deferred (void)
{
  struct ucb_interrupt_saved saved;
  struct sigaction now;

  ucb_error_t err = NULL;

  tap_check_int (ucb_interrupted (), ==, 0);
  tap_check_int (ucb_interrupted_status (0, ": done", &err), ==, 0); /* no signal: as it was */
  tap_check (err == NULL);
  ucb_interrupts_defer (&saved);
  raise (SIGTERM);
  tap_check_int (ucb_interrupted (), ==, SIGTERM);
  ucb_interrupts_resume (&saved);
  sigaction (SIGTERM, NULL, &now);
  tap_check (now.sa_handler == SIG_DFL);
  /* The command then ends as interrupted, 128 + N, saying what it finished first. */
  tap_check_int (ucb_interrupted_status (0, ": the output was written first", &err), ==, -1);
  tap_check (err != NULL);
  if (err)
    {
      tap_check_str (err->msg, "interrupted by signal 15: the output was written first");
      tap_check_int (err->status, ==, 128 + SIGTERM);
    }
  ucb_error_free (&err);
  ucb_make_error (&err, ENOSPC, "write");
  tap_check_int (ucb_interrupted_status (-1, ": unused", &err), ==, -1);
  if (err)
    {
      tap_check_str (err->msg, "write"); /* its own error kept */
      tap_check_int (err->code, ==, ENOSPC);
      tap_check_int (err->status, ==, 128 + SIGTERM);
    }
  ucb_error_free (&err);
}

static const struct tap_test tests[] = {
  { "per-point fields and derived statistics", test_point_fields },
  { "scalability against the 1-container point", test_scalability },
  { "whole document: schema, tool, run, config; JSON round-trip", test_document_roundtrip },
  { "--output: checked up front, written atomically, stale temporaries removed", test_write_file },
  { "SIGTERM while a document is written: noted, not obeyed", test_interrupts_deferred },
};

TAP_MAIN (tests)
