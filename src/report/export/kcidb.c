/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kcidb.c - `ucbench export --to kcidb`: a document as KernelCI's KCIDB I/O data,
 * schema v5.3 (kcidb-io kcidb_io/schema/v05_03.py).
 *
 * The running kernel is one checkout (its source: uname -r names it) and one build of it (the
 * architecture; uname -v tells builds of one release apart); each verify case and each metric
 * of each measured point is a test of that build.  Statuses, issues and incidents are the
 * table of meanings' (meanings.h): a known kernel bug is a FAIL with an incident of the bug's
 * one issue; a metric of a point that ucbench flags as not clean data is DONE, with an incident
 * of each flag's issue (culprit: the harness).  The schema forbids nulls and properties it does
 * not name: only known fields are set. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/util.h"
#include "report/export/exporter.h"
#include "report/flags.h"
#include "report/meanings.h"
#include "report/model.h"

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3
#define KCIDB_LOG_MAX 16384 /* log_excerpt maxLength */
/* What every test repeats of the host beyond the reader's bounds (a CPU model, a hypervisor
 * name; the host name is at most 64 characters) is cut to this many bytes, so the output grows
 * with the document, not with a string times the number of metrics. */
#define KCIDB_REPEATED_MAX 128

struct kcidb
{
  const struct ucb_doc *d;
  const char *origin;
  const struct ucb_flags *flags; /* per group */
  char *build_id, *run;          /* run: what makes a test id unique to this document */
  json_t *tests, *issues, *incidents, *environment;
};

/* A string field of the document, or NULL. */
static const char *
doc_str (const struct ucb_doc *d, const char *a, const char *b, const char *c)
{
  json_t *v = json_object_get (d->json, a);

  if (b)
    v = json_object_get (v, b);
  if (c)
    v = json_object_get (v, c);
  return json_string_value (v);
}

static void
set_str (json_t *o, const char *key, const char *s)
{
  if (s && *s)
    ucb_json_set (o, key, ucb_json_str (s));
}

static void
set_real (json_t *o, const char *key, double v)
{
  if (isfinite (v))
    ucb_json_set (o, key, ucb_json_real (v));
}

/* RFC 3339 date-time (the schema's format): YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM).
 * A hand-made document's other spelling is left out rather than made invalid. */
static bool
is_date_time (const char *s)
{
  static const char pat[] = "dddd-dd-ddTdd:dd:dd";
  size_t i = 0;

  for (; pat[i]; i++)
    if (pat[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != pat[i])
      return false;
  if (s[i] == '.')
    for (i++; s[i] >= '0' && s[i] <= '9'; i++)
      ;
  if (s[i] == 'Z')
    return s[i + 1] == '\0';
  return (s[i] == '+' || s[i] == '-') && strlen (s + i) == 6 && s[i + 3] == ':';
}

static void
set_date (json_t *o, const char *key, const char *s)
{
  if (s && is_date_time (s))
    ucb_json_set (o, key, ucb_json_str (s));
}

/* `s` cut to `max` bytes at a UTF-8 boundary, for a string every test repeats. */
static void
set_str_cut (json_t *o, const char *key, const char *s, size_t max)
{
  size_t n = s ? strnlen (s, max + 1) : 0;

  if (n > max)
    for (n = max; n > 0 && ((unsigned char) s[n] & 0xc0) == 0x80; n--)
      ;
  if (n > 0)
    ucb_json_set (o, key, ucb_json_fmt ("%.*s", (int) n, s));
}

/* A test path segment: [a-zA-Z0-9_] (ids such as ULIM-12 become ULIM_12); never empty, which
 * the path's pattern refuses. */
static char *
segment (const char *s)
{
  char *r = xstrdup (s && *s ? s : "unknown");

  for (char *p = r; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
      *p = '_';
  return r;
}

/* The kernel's architecture name for uname -m, as KernelCI names builds ([a-z0-9_]). */
static char *
kernel_arch (const char *machine)
{
  static const char *const map[][2]
      = { { "aarch64", "arm64" }, { "armv7l", "arm" },      { "armv6l", "arm" },
          { "riscv64", "riscv" }, { "ppc64le", "powerpc" }, { "ppc64", "powerpc" },
          { "s390x", "s390" },    { "i686", "i386" },       { "i586", "i386" } };
  char *r;

  for (size_t k = 0; machine && k < UCB_ARRAY_SIZE (map); k++)
    if (strcmp (machine, map[k][0]) == 0)
      return xstrdup (map[k][1]);
  r = xstrdup (machine ? machine : "");
  for (char *p = r; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      *p = '_';
  return r;
}

/* FNV-1a: a short stable tag of uname -v for the build id. */
static uint32_t
fnv1a (const char *s)
{
  uint32_t h = 2166136261u;
  for (; s && *s; s++)
    h = (h ^ (unsigned char) *s) * 16777619u;
  return h;
}

/* The distribution tree a packaged kernel comes from, when uname says it. */
static const char *
tree_name (const char *release, const char *version)
{
  if (version && strstr (version, "Debian"))
    return "debian";
  if (version && strstr (version, "Ubuntu"))
    return "ubuntu";
  if (release && strstr (release, ".fc"))
    return "fedora";
  if (release && strstr (release, ".el"))
    return "rhel";
  return NULL;
}

static json_t *
checkout (const struct kcidb *k, const char *checkout_id)
{
  const char *rel = doc_str (k->d, "host", "kernel", "release");
  const char *ver = doc_str (k->d, "host", "kernel", "version");
  json_t *o = ucb_json_obj (), *misc = ucb_json_obj ();

  ucb_json_set (o, "id", ucb_json_str (checkout_id));
  ucb_json_set (o, "origin", ucb_json_str (k->origin));
  set_str (o, "tree_name", tree_name (rel, ver));
  /* uname -r is what the kernel says of its source: "git describe" for a kernel built from
   * git (CONFIG_LOCALVERSION_AUTO), the release otherwise.  No full hash, no branch. */
  set_str (o, "git_commit_name", rel);
  set_date (o, "start_time", k->d->start_time);
  set_str (misc, "uname_r", rel);
  set_str (misc, "uname_v", ver);
  ucb_json_set (o, "misc", misc);
  return o;
}

static json_t *
build (const struct kcidb *k, const char *checkout_id, const char *arch)
{
  const char *rel = doc_str (k->d, "host", "kernel", "release");
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "id", ucb_json_str (k->build_id));
  ucb_json_set (o, "origin", ucb_json_str (k->origin));
  ucb_json_set (o, "checkout_id", ucb_json_str (checkout_id));
  set_str (o, "architecture", arch);
  /* A packaged kernel's release names its configuration (6.1.0-27-amd64). */
  set_str (o, "config_name", rel);
  set_str (o, "comment", doc_str (k->d, "host", "kernel", "version"));
  /* It booted and ran the tests: the build of the running kernel succeeded. */
  ucb_json_set (o, "status", ucb_json_str ("PASS"));
  return o;
}

/* The common part of every test. */
static json_t *
test_new (const struct kcidb *k, const char *path, const char *status, size_t repeat)
{
  json_t *o = ucb_json_obj ();

  if (repeat > 1)
    ucb_json_set (o, "id", ucb_json_fmt ("%s:%s.%s.r%zu", k->origin, k->run, path, repeat));
  else
    ucb_json_set (o, "id", ucb_json_fmt ("%s:%s.%s", k->origin, k->run, path));
  ucb_json_set (o, "origin", ucb_json_str (k->origin));
  ucb_json_set (o, "build_id", ucb_json_str (k->build_id));
  ucb_json_set (o, "path", ucb_json_str (path));
  ucb_json_set (o, "status", ucb_json_str (status));
  set_date (o, "start_time", k->d->start_time);
  ucb_json_set (o, "environment", json_deep_copy (k->environment));
  return o;
}

/* log_excerpt: at most KCIDB_LOG_MAX bytes (so characters), cut at a UTF-8 boundary. */
static void
set_log (json_t *o, char *text)
{
  size_t n = strlen (text);

  if (n > KCIDB_LOG_MAX)
    {
      n = KCIDB_LOG_MAX;
      while (n > 0 && ((unsigned char) text[n] & 0xc0) == 0x80)
        n--;
      text[n] = '\0';
    }
  if (n > 0)
    ucb_json_set (o, "log_excerpt", ucb_json_str (text));
}

/* The issue `issue_id` (version 1), once per document: a known bug is one issue however many
 * cases saw it, a flag one however many metrics it marks.  culprit: "code" (the kernel) or
 * "harness" (the host that ran the test). */
static void
issue (struct kcidb *k, const char *issue_id, const char *subject, const char *comment,
       const char *url, const char *culprit)
{
  size_t i;
  json_t *is, *cu;

  json_array_foreach (k->issues, i, is)
  {
    if (strcmp (json_string_value (json_object_get (is, "id")), issue_id) == 0)
      return;
  }
  is = ucb_json_obj ();
  cu = ucb_json_obj ();
  ucb_json_set (is, "id", ucb_json_str (issue_id));
  ucb_json_set (is, "version", ucb_json_int (1));
  ucb_json_set (is, "origin", ucb_json_str (k->origin));
  if (url && strncmp (url, "https://", 8) == 0)
    ucb_json_set (is, "report_url", ucb_json_str (url));
  ucb_json_set (cu, "code", json_boolean (strcmp (culprit, "code") == 0));
  ucb_json_set (cu, "tool", json_false ());
  ucb_json_set (cu, "harness", json_boolean (strcmp (culprit, "harness") == 0));
  ucb_json_set (is, "culprit", cu);
  set_str (is, "report_subject", subject);
  set_str (is, "comment", comment);
  ucb_json_push (k->issues, is);
}

/* The incident of issue `issue_id` in `test`; its id is the test's, then `suffix`. */
static void
incident (struct kcidb *k, const char *issue_id, json_t *test, const char *suffix,
          const char *comment)
{
  const char *test_id = json_string_value (json_object_get (test, "id"));
  json_t *inc = ucb_json_obj ();

  ucb_json_set (inc, "id", ucb_json_fmt ("%s%s", test_id, suffix));
  ucb_json_set (inc, "origin", ucb_json_str (k->origin));
  ucb_json_set (inc, "issue_id", ucb_json_str (issue_id));
  ucb_json_set (inc, "issue_version", ucb_json_int (1));
  ucb_json_set (inc, "build_id", ucb_json_str (k->build_id));
  ucb_json_set (inc, "test_id", ucb_json_str (test_id));
  ucb_json_set (inc, "present", json_true ());
  set_str (inc, "comment", comment);
  ucb_json_push (k->incidents, inc);
}

/* A known bug: the bug's issue (ORIGIN:ucbench.bug.ID, the same in every run and for every
 * case that sees it) and its incident in this case's test.  A document that does not name the
 * bug (older ones) gets an issue per case, as the case is all it says. */
static void
known_bug (struct kcidb *k, const struct ucb_doc_case *c, const char *path, json_t *test)
{
  cleanup_free char *issue_id = c->bug_id ? xasprintf ("%s:ucbench.bug.%s", k->origin, c->bug_id)
                                          : xasprintf ("%s:%s", k->origin, path);
  cleanup_free char *subject
      = c->bug_title ? xasprintf ("known kernel bug %s: %s", c->bug_id, c->bug_title)
                     : xasprintf ("known kernel bug: %s %s", c->id, c->name ? c->name : "");

  issue (k, issue_id, subject, c->bug_reference ? c->bug_reference : c->checks, c->bug_url, "code");
  incident (k, issue_id, test, "", c->detail);
}

static void
verify_tests (struct kcidb *k)
{
  const struct ucb_doc *d = k->d;

  for (size_t i = 0; i < d->n_cases; i++)
    {
      const struct ucb_doc_case *c = &d->cases[i];
      cleanup_free char *seg = segment (c->id), *path = xasprintf ("ucbench.verify.%s", seg);
      cleanup_free char *text = ucb_export_case_string (d, i);
      size_t rep = ucb_export_case_repeat (d, i);
      const struct ucb_verdict_row *row = ucb_verdict_row (c->status);
      json_t *t = test_new (k, path, row->kcidb, rep), *misc = ucb_json_obj ();

      set_log (t, text);
      ucb_json_set (t, "comment", ucb_json_fmt ("%s %s", c->id, c->name ? c->name : ""));
      set_real (t, "duration", c->duration_s);
      set_str (misc, "case", c->id);
      set_str (misc, "rlimit", c->rlimit);
      ucb_json_set (misc, "verdict", ucb_json_str (c->status));
      ucb_json_set (misc, "repeat", ucb_json_int ((long long) rep));
      ucb_json_set (t, "misc", misc);
      if (row->kcidb_incident)
        known_bug (k, c, path, t);
      ucb_json_push (k->tests, t);
    }
}

/* ---- metrics -------------------------------------------------------------------------------- */

/* A point's test path: every axis, always (the same path whatever the sweep). */
static char *
point_path (const struct ucb_doc_point *p)
{
  cleanup_free char *w = segment (p->workload), *o = segment (p->owner), *m = segment (p->mode);

  return xasprintf ("ucbench.run.%s.%s.d%lld.t%lld.%s.c%lld", w, o, p->depth, p->tasks, m,
                    p->containers);
}

struct metric
{
  const char *name, *unit;
  bool metric_prefix;
  double value;
};

/* Each flag of a flagged point's metric test: an incident of the flag's issue
 * (ORIGIN:ucbench.flag.FLAG), whose culprit is the harness: the host it ran on, not the kernel. */
static void
flag_incidents (struct kcidb *k, const struct ucb_flags *fl, json_t *test)
{
  const char *s = fl->list, *flag;
  size_t n;

  while (ucb_flag_next (&s, &flag, &n))
    {
      cleanup_free char *name = xasprintf ("%.*s", (int) n, flag);
      cleanup_free char *issue_id = xasprintf ("%s:ucbench.flag.%s", k->origin, name);
      cleanup_free char *subject = xasprintf ("measured on a disturbed host (ucbench flag %s): %s",
                                              name, ucb_flag_why (flag, n));
      cleanup_free char *suffix = xasprintf (":flag.%s", name);

      issue (k, issue_id, subject,
             "not a failure of the kernel under test: the number stays "
             "data, not a clean measurement",
             NULL, "harness");
      incident (k, issue_id, test, suffix, NULL);
    }
}

/* The median over the repeats of group g, with the repeats' range in misc.  A measurement is
 * DONE ("completed ... produced a performance measurement result"), flagged or not: the table
 * of meanings (meanings.h) says how a flagged one differs, an incident of each flag's issue,
 * with the flags in misc and the log excerpt too. */
static void
metric_test (struct kcidb *k, const struct ucb_doc_point *p, const char *base,
             const struct metric *mt)
{
  const struct ucb_doc_group *gr = &k->d->groups[p->group];
  const struct ucb_flags *fl = &k->flags[p->group];
  const struct ucb_point_row *row = &ucb_point_rows[fl->n_flagged > 0];
  cleanup_free char *path = xasprintf ("%s.%s", base, mt->name);
  json_t *t = test_new (k, path, row->kcidb, 1), *num = ucb_json_obj ();
  json_t *misc = ucb_json_obj ();
  char text[UCB_FLAGS_TEXT_MAX];

  ucb_json_set (num, "value", ucb_json_real (mt->value));
  if (mt->unit)
    ucb_json_set (num, "unit", ucb_json_str (mt->unit));
  if (mt->metric_prefix)
    ucb_json_set (num, "prefix", ucb_json_str ("metric"));
  ucb_json_set (t, "number", num);
  ucb_json_set (misc, "repeats", ucb_json_int ((long long) gr->n_measured));
  ucb_json_set (misc, "aggregate", ucb_json_str ("median over the repeats"));
  if (fl->n_flagged)
    {
      cleanup_free char *log = NULL;

      ucb_flags_text (fl, text, sizeof text);
      log = xasprintf ("not clean data (ucbench): %s", text);
      ucb_json_set (misc, "flags", ucb_json_str (fl->list));
      ucb_json_set (misc, "flagged_repeats", ucb_json_int ((long long) fl->n_flagged));
      set_log (t, log);
    }
  ucb_json_set (t, "misc", misc);
  ucb_json_push (k->tests, t);
  if (row->kcidb_incident)
    flag_incidents (k, fl, t);
}

static void
point_tests (struct kcidb *k, const struct ucb_doc_point *p)
{
  const struct ucb_doc_summary *m = &k->d->groups[p->group].median;
  cleanup_free char *base = point_path (p);
  const struct metric mt[] = {
    { "per_container_ops", "ops/s", true, m->per_container_ops },
    { "total_ops_per_s", "ops/s", true, m->total_ops_per_s },
    { "per_task_ops", "ops/s", true, ucb_doc_per_task_ops (p, m) },
    { "scalability", NULL, false, m->scalability },
    { "fairness", NULL, false, m->fairness },
    { "cpu_ns_per_op", "ns", false, m->cpu_ns_per_op },
  };

  for (size_t j = 0; j < UCB_ARRAY_SIZE (mt); j++)
    if (isfinite (mt[j].value))
      metric_test (k, p, base, &mt[j]);
}

/* A point none of whose repeats was measured: one test, SKIP or ERROR, with the reason. */
static void
unmeasured_test (struct kcidb *k, const struct ucb_doc_point *p)
{
  cleanup_free char *base = point_path (p);
  cleanup_free char *why
      = xasprintf ("%s%s%s", p->status, p->reason ? ": " : "", p->reason ? p->reason : "");
  json_t *t = test_new (k, base, strcmp (p->status, "skipped") == 0 ? "SKIP" : "ERROR", 1);

  set_log (t, why);
  ucb_json_push (k->tests, t);
}

static void
points_tests (struct kcidb *k)
{
  const struct ucb_doc *d = k->d;
  cleanup_free bool *seen = xcalloc (d->n_groups + 1, sizeof *seen);

  for (size_t i = 0; i < d->n_points; i++)
    {
      const struct ucb_doc_point *p = &d->points[i];
      bool none = d->groups[p->group].n_measured == 0;

      if (seen[p->group] || !(p->measured || none))
        continue;
      seen[p->group] = true;
      if (none)
        unmeasured_test (k, p);
      else
        point_tests (k, p);
    }
}

/* ---- the document --------------------------------------------------------------------------- */

static json_t *
kcidb_json (const struct ucb_doc *d, const struct ucb_flags *flags, const struct ucb_export_opts *o)
{
  const char *origin = o->origin ? o->origin : UCB_KCIDB_ORIGIN;
  const char *rel = doc_str (d, "host", "kernel", "release");
  const char *ver = doc_str (d, "host", "kernel", "version");
  cleanup_free char *arch = kernel_arch (doc_str (d, "host", "arch", NULL));
  cleanup_free char *checkout_id = xasprintf ("%s:%s", origin, rel ? rel : "unknown");
  cleanup_free char *host = segment (d->host.hostname ? d->host.hostname : "host");
  cleanup_free char *when = segment (d->start_time ? d->start_time : "0");
  json_t *out = ucb_json_obj (), *v = ucb_json_obj ();
  struct kcidb k = { .d = d, .origin = origin, .flags = flags };

  k.build_id = xasprintf ("%s:%s.%s.%08x", origin, rel ? rel : "unknown", arch, fnv1a (ver));
  k.run = xasprintf ("%s.%s", host, when);
  k.tests = ucb_json_arr ();
  k.issues = ucb_json_arr ();
  k.incidents = ucb_json_arr ();
  k.environment = ucb_json_obj ();
  set_str_cut (k.environment, "comment", d->host.hostname, KCIDB_REPEATED_MAX);
  ucb_json_set (k.environment, "misc", ucb_json_obj ());
  set_str_cut (json_object_get (k.environment, "misc"), "cpu_model", d->host.cpu_model,
               KCIDB_REPEATED_MAX);
  set_str_cut (json_object_get (k.environment, "misc"), "virtualization", d->host.virtualization,
               KCIDB_REPEATED_MAX);
  if (d->host.cpus_online > 0)
    ucb_json_set (json_object_get (k.environment, "misc"), "cpus_online",
                  ucb_json_int (d->host.cpus_online));
  ucb_json_set (v, "major", ucb_json_int (KCIDB_MAJOR));
  ucb_json_set (v, "minor", ucb_json_int (KCIDB_MINOR));
  ucb_json_set (out, "version", v);
  ucb_json_set (out, "checkouts", ucb_json_arr ());
  ucb_json_push (json_object_get (out, "checkouts"), checkout (&k, checkout_id));
  ucb_json_set (out, "builds", ucb_json_arr ());
  ucb_json_push (json_object_get (out, "builds"), build (&k, checkout_id, arch));
  verify_tests (&k);
  points_tests (&k);
  ucb_json_set (out, "tests", k.tests);
  if (json_array_size (k.issues) > 0)
    ucb_json_set (out, "issues", k.issues);
  else
    json_decref (k.issues);
  if (json_array_size (k.incidents) > 0)
    ucb_json_set (out, "incidents", k.incidents);
  else
    json_decref (k.incidents);
  json_decref (k.environment);
  free (k.build_id);
  free (k.run);
  return out;
}

const struct ucb_exporter ucb_exporter_kcidb = { .kinds = UCB_DOC_ANY, .json = kcidb_json };
