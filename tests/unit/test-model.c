/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-model.c - the result model (report/model.h): loading a document, the schema errors, point
 * identity and "measured", repeat groups, verify cases. */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "core/util.h"
#include "report/doc-file.h"
#include "report/model.h"

/* A results[] entry with every field the model reads; `total` < 0 for null. */
static json_t *
point (const char *workload, long long containers, long long depth, const char *mode,
       long long repeat, const char *status, double total)
{
  json_t *pcs = json_array ();
  json_t *s = json_pack ("{s:o, s:o, s:o, s:f, s:n, s:n, s:i}", "total_ops_per_s",
                         total < 0 ? json_null () : json_real (total), "per_container_ops",
                         total < 0 ? json_null () : json_real (total / (double) containers),
                         "scalability", json_null (), "fairness", 1.0, "cv", "cpu_ns_per_op",
                         "failed_ops", 0);

  for (long long i = 0; strcmp (status, "ok") == 0 && i < containers; i++)
    json_array_append_new (
        pcs, json_pack ("{s:i, s:f, s:n, s:{s:n}, s:[{s:f}, {s:f}, {s:n}]}", "ops", 100,
                        "rate_ops_per_s", total < 0 ? 0 : total / (double) containers,
                        "cpu_ns_per_op", "ops_per_s", "stddev", "samples", "ops_per_s",
                        10.0 * (double) (i + 1), "ops_per_s", 30.0, "ops_per_s"));
  return json_pack ("{s:s, s:I, s:s, s:I, s:I, s:s, s:I, s:s, s:o, s:o}", "workload", workload,
                    "containers", (json_int_t) containers, "owner", "shared", "depth",
                    (json_int_t) depth, "tasks", (json_int_t) 1, "mode", mode, "repeat",
                    (json_int_t) repeat, "status", status, "per_container", pcs, "summary", s);
}

struct spec
{
  const char *workload;
  long long containers, depth;
  const char *mode;
  long long repeat;
  const char *status;
  double total;
};

static json_t *
points (const struct spec *s, size_t n)
{
  json_t *a = json_array ();
  for (size_t i = 0; i < n; i++)
    json_array_append_new (a, point (s[i].workload, s[i].containers, s[i].depth, s[i].mode,
                                     s[i].repeat, s[i].status, s[i].total));
  return a;
}

static json_t *
document (json_t *results)
{
  return json_pack ("{s:s, s:o}", "schema", "ucbench-result/1", "results", results);
}

/* Load `doc` (stolen); the error message, or NULL when it loads. */
static char *
load_error (json_t *doc)
{
  struct ucb_doc d;
  ucb_error_t err = NULL;
  char *msg = NULL;

  if (ucb_doc_load (doc, "t.json", UCB_DOC_ANY, &d, &err) < 0)
    {
      tap_check_int (err->status, ==, UCB_EXIT_USAGE);
      msg = xstrdup (err->msg);
      ucb_error_free (&err);
    }
  else
    ucb_doc_free (&d);
  json_decref (doc);
  return msg;
}

/* Load a document of `res` (stolen) into `d`; false (and a failed check) when it does not load. */
static bool
load_results (json_t *res, struct ucb_doc *d)
{
  json_t *doc = document (res);
  ucb_error_t err = NULL;
  int r = ucb_doc_load (doc, "t.json", UCB_DOC_ANY, d, &err);

  json_decref (doc); /* the model holds its own reference */
  tap_check_int (r, ==, 0);
  ucb_error_free (&err);
  return r == 0;
}

static void
test_good_document (void)
{
  const char *srcdir = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/examples/run-small.json", srcdir ? srcdir : "..");
  struct ucb_doc d;
  ucb_error_t err = NULL;

  tap_check_int (ucb_doc_open (path, UCB_DOC_RUN, &d, &err), ==, 0);
  if (err)
    return;
  tap_check_int (d.n_points, ==, 2);
  tap_check_int (d.n_measured, ==, 2);
  tap_check_int (d.n_groups, ==, 2);
  tap_check_int (d.n_series, ==, 1);
  tap_check (!d.has_repeats && !d.has_verify);
  tap_check_str (d.points[0].workload, "signal");
  tap_check_str (d.points[1].mode, "process");
  tap_check_int (d.points[1].containers, ==, 2);
  tap_check_int (d.points[1].n_pc, ==, 2);
  tap_check (d.points[1].n_intervals > 0 && isfinite (d.points[1].intervals[0]));
  tap_check (d.host.kernel_release != NULL && d.host.cpus_online > 0);
  tap_check_near (d.config.duration_s, 1, 0);
  tap_check_near (d.groups[d.points[1].group].median.per_container_ops,
                  d.points[1].sum.per_container_ops, 0);
  ucb_doc_free (&d);
}

static void
check_error (json_t *doc, const char *want)
{
  cleanup_free char *msg = load_error (doc);
  tap_check_str (msg ? msg : "(loaded)", want);
}

static void
test_schema_errors (void)
{
  json_t *p;

  check_error (json_pack ("{s:s, s:i}", "schema", "ucbench-result/1", "results", 3),
               "`t.json`: \"results\" is not an array");
  check_error (document (json_pack ("[i]", 1)), "`t.json`: results[0]: not an object");
  p = point ("signal", 1, 1, "process", 1, "ok", 100);
  json_object_del (p, "depth");
  check_error (document (json_pack ("[o]", p)),
               "`t.json`: results[0]: missing \"depth\" (an integer)");
  p = point ("signal", 1, 1, "process", 1, "ok", 100);
  json_object_set_new (p, "mode", json_integer (1));
  check_error (document (json_pack ("[o]", p)), "`t.json`: results[0]: \"mode\" is not a string");
  /* a nested object's location keeps its dot (run.interrupted, once written "runinterrupted") */
  check_error (json_pack ("{s:s, s:[], s:{s:{s:s}}}", "schema", "ucbench-result/1", "results",
                          "run", "interrupted", "signal", "x"),
               "`t.json`: run.interrupted: \"signal\" is not an integer or null");
  p = point ("signal", 1, 1, "process", 1, "ok", 100);
  json_object_del (p, "tasks");
  check_error (document (json_pack ("[o]", p)),
               "`t.json`: results[0]: missing \"tasks\" (an integer)");
  p = point ("signal", 2, 1, "process", 1, "ok", 100);
  json_object_set_new (json_array_get (json_object_get (p, "per_container"), 1), "rate_ops_per_s",
                       json_null ());
  check_error (document (json_pack ("[o]", p)),
               "`t.json`: results[0].per_container[1]: \"rate_ops_per_s\" is not a number");
  p = point ("signal", 1, 1, "process", 1, "ok", 100);
  json_object_set_new (
      json_array_get (
          json_object_get (json_array_get (json_object_get (p, "per_container"), 0), "samples"), 2),
      "ops_per_s", json_string ("x"));
  check_error (
      document (json_pack ("[o]", p)),
      "`t.json`: results[0].per_container[0].samples[2]: \"ops_per_s\" is not a number or null");
  p = point ("signal", 1, 1, "process", 1, "ok", 100);
  json_object_del (json_object_get (p, "summary"), "failed_ops");
  check_error (document (json_pack ("[o]", p)),
               "`t.json`: results[0].summary: missing \"failed_ops\" (an integer)");
  check_error (json_pack ("{s:s, s:[], s:[{s:s}]}", "schema", "ucbench-result/1", "results",
                          "verify", "id", "ULIM-01"),
               "`t.json`: verify[0]: missing \"status\" (a string)");
  /* Optional: host, config, run, and the verify fields other than id and status. */
  check_error (json_pack ("{s:s, s:[], s:[{s:s, s:s}]}", "schema", "ucbench-result/1", "results",
                          "verify", "id", "ULIM-01", "status", "pass"),
               "(loaded)");
}

/* Ranges: what the schema rejects, every reader refuses; the bounds themselves load. */
static void
test_ranges (void)
{
  static const struct
  {
    const char *where, *key;
    double v;
    const char *want;
  } bad[] = {
    { "point", "containers", -4, "results[0]: \"containers\" is -4, out of range (at least 1)" },
    { "point", "containers", 0, "results[0]: \"containers\" is 0, out of range (at least 1)" },
    { "point", "tasks", 0, "results[0]: \"tasks\" is 0, out of range (at least 1)" },
    { "point", "depth", -1, "results[0]: \"depth\" is -1, out of range (at least 0)" },
    { "point", "repeat", 0, "results[0]: \"repeat\" is 0, out of range (at least 1)" },
    { "summary", "per_container_ops", -5,
      "results[0].summary: \"per_container_ops\" is -5, out of range (at least 0)" },
    { "summary", "fairness", 1.5,
      "results[0].summary: \"fairness\" is 1.5, out of range (0 to 1)" },
    { "summary", "failed_ops", -1,
      "results[0].summary: \"failed_ops\" is -1, out of range (at least 0)" },
    { "container", "ops", -3,
      "results[0].per_container[0]: \"ops\" is -3, out of range (at least 0)" },
    { "contention", "fair_share", 0,
      "results[0].contention: \"fair_share\" is 0, out of range (above 0, at most 1)" },
    { "contention", "steal_pct_max", 101,
      "results[0].contention: \"steal_pct_max\" is 101, out of range (0 to 100)" },
  };

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      json_t *p = point ("signal", 1, 1, "process", 1, "ok", 100), *o = p;
      bool integer = strcmp (bad[i].key, "fair_share") != 0 && strcmp (bad[i].key, "fairness") != 0
                     && strcmp (bad[i].key, "per_container_ops") != 0
                     && strcmp (bad[i].key, "steal_pct_max") != 0;
      char want[200];

      if (strcmp (bad[i].where, "summary") == 0)
        o = json_object_get (p, "summary");
      else if (strcmp (bad[i].where, "container") == 0)
        o = json_array_get (json_object_get (p, "per_container"), 0);
      else if (strcmp (bad[i].where, "contention") == 0)
        {
          o = json_object ();
          json_object_set_new (p, "contention", o);
        }
      json_object_set_new (o, bad[i].key,
                           integer ? json_integer ((json_int_t) bad[i].v) : json_real (bad[i].v));
      snprintf (want, sizeof want, "`t.json`: %s", bad[i].want);
      check_error (document (json_pack ("[o]", p)), want);
    }
  /* At the bounds: loads. */
  {
    json_t *p = point ("signal", 1, 1, "process", 1, "ok", 100);
    json_object_set_new (json_object_get (p, "summary"), "fairness", json_real (1));
    json_object_set_new (p, "depth", json_integer (0));
    check_error (document (json_pack ("[o]", p)), "(loaded)");
  }
  /* Fields no reader uses are checked as well, and enums; a control character stays escaped. */
  {
    json_t *p = point ("signal", 1, 1, "process", 1, "ok", 100), *c;
    json_object_set_new (p, "status", json_string ("o\nk"));
    check_error (document (json_pack ("[o]", p)),
                 "`t.json`: results[0]: \"status\" is \"o\\nk\", not one of: ok, skipped");
    p = point ("signal", 1, 1, "process", 1, "ok", 100);
    json_object_set_new (json_object_get (p, "summary"), "per_task_ops", json_integer (-4));
    check_error (document (json_pack ("[o]", p)),
                 "`t.json`: results[0].summary: \"per_task_ops\" is -4, out of range (at least 0)");
    p = point ("signal", 1, 1, "process", 1, "ok", 100);
    c = json_array_get (json_object_get (p, "per_container"), 0);
    json_object_set_new (json_array_get (json_object_get (c, "samples"), 1), "ops",
                         json_integer (-4));
    check_error (document (json_pack ("[o]", p)),
                 "`t.json`: results[0].per_container[0].samples[1]: \"ops\" is -4, out of range "
                 "(at least 0)");
  }
}

/* A run document of one point, with `key` of the object at `where` ("" the top, "host",
 * "config", "run", "kernel_matrix", "point", "contention", "placement") set to `v` (stolen). */
static json_t *
run_with (const char *where, const char *key, json_t *v)
{
  json_t *p = point ("signal", 1, 1, "process", 1, "ok", 100);
  json_t *doc = document (json_pack ("[o]", p)), *o = doc;

  json_object_set_new (doc, "host",
                       json_pack ("{s:s, s:{s:s}, s:i}", "hostname", "h", "kernel", "release",
                                  "6.1", "cpus_online", 2));
  json_object_set_new (doc, "config", json_pack ("{s:f, s:i}", "duration_s", 1.0, "repeat", 1));
  json_object_set_new (doc, "run", json_pack ("{s:s}", "start_time", "2026-01-01T00:00:00Z"));
  json_object_set_new (p, "contention", json_pack ("{s:b}", "contended", 0));
  json_object_set_new (p, "placement", json_pack ("{s:i}", "cpus", 1));
  if (strcmp (where, "point") == 0)
    o = p;
  else if (strcmp (where, "contention") == 0 || strcmp (where, "placement") == 0)
    o = json_object_get (p, where);
  else if (*where)
    {
      o = json_object_get (doc, where);
      if (o == NULL)
        {
          o = json_object ();
          json_object_set_new (doc, where, o);
        }
    }
  json_object_set_new (o, key, v);
  return doc;
}

static json_t *
verify_doc (const char *id, json_t *extra)
{
  json_t *c = json_pack ("{s:s, s:s}", "id", id, "status", "pass");
  if (extra)
    json_object_update (c, extra);
  json_decref (extra);
  return json_pack ("{s:s, s:[], s:[o]}", "schema", "ucbench-result/1", "results", "verify", c);
}

/* Load with `kinds`; the message, or "(loaded)". */
static void
check_kind (json_t *doc, unsigned kinds, const char *want)
{
  struct ucb_doc d;
  ucb_error_t err = NULL;

  if (ucb_doc_load (doc, "t.json", kinds, &d, &err) < 0)
    {
      tap_check_str (err->msg, want);
      ucb_error_free (&err);
    }
  else
    {
      tap_check_str ("(loaded)", want);
      ucb_doc_free (&d);
    }
  json_decref (doc);
}

static void
test_kinds (void)
{
  check_kind (verify_doc ("ULIM-01", NULL), UCB_DOC_RUN,
              "`t.json`: a `ucbench verify` document (verify[]), and this needs a `ucbench run` "
              "one");
  check_kind (document (json_array ()), UCB_DOC_VERIFY,
              "`t.json`: a `ucbench run` document (results[], no verify[]), and this needs a "
              "`ucbench verify` one");
  check_kind (json_pack ("{s:s}", "schema", "ucbench-result/1"), UCB_DOC_ANY,
              "`t.json`: neither \"results\" (a `ucbench run` document) nor \"verify\" (a "
              "`ucbench verify` one): nothing to read");
  check_kind (json_pack ("{s:s, s:[], s:{}}", "schema", "ucbench-result/1", "results", "verify"),
              UCB_DOC_ANY, "`t.json`: \"verify\" is not an array");
  check_kind (verify_doc ("ULIM-01", NULL), UCB_DOC_VERIFY, "(loaded)");
  check_kind (document (json_array ()), UCB_DOC_RUN, "(loaded)");
  check_kind (run_with ("", "host", json_null ()), UCB_DOC_RUN, "(loaded)"); /* not collected */
}

/* A field of the wrong type, where the readers would have read a default: an error naming it. */
static void
test_wrong_types (void)
{
  static const struct
  {
    const char *where, *key, *value, *want;
  } cases[] = {
    { "", "host", "[]", "`t.json`: \"host\" is not an object" },
    { "", "config", "\"x\"", "`t.json`: \"config\" is not an object" },
    { "host", "cpus_online", "\"2\"", "`t.json`: host: \"cpus_online\" is not an integer or null" },
    { "host", "cpu_model", "7", "`t.json`: host: \"cpu_model\" is not a string or null" },
    { "host", "kernel", "{\"release\": 6}",
      "`t.json`: host.kernel: \"release\" is not a string or null" },
    { "config", "duration_s", "\"1\"", "`t.json`: config: \"duration_s\" is not a number or null" },
    { "config", "repeat", "\"3\"", "`t.json`: config: \"repeat\" is not an integer or \"auto\"" },
    { "config", "workloads", "\"signal\"", "`t.json`: config: \"workloads\" is not an array" },
    { "run", "start_time", "5", "`t.json`: run: \"start_time\" is not a string or null" },
    { "kernel_matrix", "emulated_timing", "\"yes\"",
      "`t.json`: kernel_matrix: \"emulated_timing\" is not true or false" },
    { "point", "reason", "1", "`t.json`: results[0]: \"reason\" is not a string or null" },
    { "point", "contention", "[]", "`t.json`: results[0]: \"contention\" is not an object" },
    { "contention", "contended", "\"true\"",
      "`t.json`: results[0].contention: \"contended\" is not true or false" },
    { "contention", "cpu_share_median", "\"0.5\"",
      "`t.json`: results[0].contention: \"cpu_share_median\" is not a number or null" },
    { "placement", "cpus", "\"1\"", "`t.json`: results[0].placement: \"cpus\" is not an integer" },
    { "placement", "l3_domains", "1.5",
      "`t.json`: results[0].placement: \"l3_domains\" is not an integer or null" },
    { "config", "repeat", "\"auto\"", "(loaded)" },
    { "host", "cpus_online", "null", "(loaded)" },
  };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (cases); i++)
    check_kind (
        run_with (cases[i].where, cases[i].key, json_loads (cases[i].value, JSON_DECODE_ANY, NULL)),
        UCB_DOC_RUN, cases[i].want);
  check_kind (verify_doc ("ULIM-01", json_pack ("{s:i}", "name", 3)), UCB_DOC_VERIFY,
              "`t.json`: verify[0]: \"name\" is not a string or null");
  check_kind (verify_doc ("ULIM-01", json_pack ("{s:s}", "duration_s", "1.5")), UCB_DOC_VERIFY,
              "`t.json`: verify[0]: \"duration_s\" is not a number or null");
  check_kind (verify_doc ("ULIM-01", json_pack ("{s:[]}", "detail")), UCB_DOC_VERIFY,
              "`t.json`: verify[0]: \"detail\" is not a string or null");
}

/* Load `doc` (stolen) as any kind into `d`, named `name`. */
static bool
load_named (json_t *doc, const char *name, struct ucb_doc *d)
{
  ucb_error_t err = NULL;
  int r = ucb_doc_load (doc, name, UCB_DOC_ANY, d, &err);

  json_decref (doc);
  tap_check_int (r, ==, 0);
  ucb_error_free (&err);
  return r == 0;
}

static void
check_comparable (json_t *base, json_t *head, const char *want)
{
  struct ucb_doc d[2];
  ucb_error_t err = NULL;

  if (!load_named (base, "b.json", &d[0]))
    return;
  if (load_named (head, "h.json", &d[1]))
    {
      int r = ucb_doc_comparable (&d[0], 1, &d[1], 1, &err);
      tap_check_str (r == 0 ? "(comparable)" : err->msg, want);
      if (r < 0)
        tap_check_int (err->status, ==, UCB_EXIT_USAGE);
      ucb_error_free (&err);
      ucb_doc_free (&d[1]);
    }
  ucb_doc_free (&d[0]);
}

static void
test_comparable (void)
{
  static const struct spec a[] = { { "signal", 1, 1, "process", 1, "ok", 100 },
                                   { "signal", 2, 1, "process", 1, "ok", 100 } };
  static const struct spec other[] = { { "getppid", 1, 1, "process", 1, "ok", 100 } };
  static const struct spec skipped[] = { { "signal", 2, 1, "process", 1, "skipped", -1 } };

  check_comparable (document (points (a, 2)), document (points (a, 1)), "(comparable)");
  /* Present on both sides is enough: compare says what it makes of a skipped point. */
  check_comparable (document (points (a, 2)), document (points (skipped, 1)), "(comparable)");
  check_comparable (document (points (a, 2)), document (points (other, 1)),
                    "`b.json` and `h.json` have no point (workload, containers, owner, depth, "
                    "tasks, mode) in common: nothing to compare");
  check_comparable (document (points (a, 2)), document (json_array ()),
                    "`h.json`: no results[] entry and no verify[] case: nothing to compare");
  check_comparable (verify_doc ("ULIM-01", NULL), document (points (a, 1)),
                    "`b.json` is a `ucbench verify` document and `h.json` a `ucbench run` one: "
                    "compare documents of one kind");
  check_comparable (verify_doc ("ULIM-01", NULL), verify_doc ("ULIM-01", NULL), "(comparable)");
  check_comparable (verify_doc ("ULIM-01", NULL), verify_doc ("ULIM-02", NULL),
                    "`b.json` and `h.json` have no verify case in common: nothing to compare");
}

static void
test_identity_and_measured (void)
{
  static const struct spec specs[] = {
    { "signal", 1, 1, "process", 1, "ok", 100 }, { "signal", 1, 1, "process", 2, "ok", 300 },
    { "signal", 2, 1, "process", 1, "ok", 150 }, { "signal", 2, 1, "thread", 1, "ok", 150 },
    { "signal", 2, 0, "process", 1, "ok", -1 },  { "seccomp", 1, 1, "process", 1, "skipped", -1 },
  };
  json_t *res = points (specs, UCB_ARRAY_SIZE (specs));
  struct ucb_doc d;
  const struct ucb_doc_point *p;

  json_object_set_new (json_array_get (res, 2), "per_container", json_array ());
  if (!load_results (res, &d))
    return;
  p = d.points;
  tap_check (p[0].measured && p[1].measured && p[3].measured);
  tap_check (!p[2].measured); /* "ok" without containers */
  tap_check (!p[4].measured); /* "ok" without a per-container rate */
  tap_check (!p[5].measured); /* skipped */
  tap_check_int (d.n_measured, ==, 3);
  tap_check (d.has_repeats);
  tap_check_int (p[0].group, ==, p[1].group);   /* repeats */
  tap_check (p[2].group != p[3].group);         /* mode is identity */
  tap_check (p[2].group != p[4].group);         /* depth is identity */
  tap_check_int (p[0].series, ==, p[2].series); /* the container count is not series */
  tap_check (p[0].series != p[3].series);
  tap_check (ucb_point_cmp (&p[0], &p[1]) == 0 && ucb_point_cmp (&p[0], &p[2]) != 0);
  tap_check (ucb_doc_find_group (&d, &p[1]) == &d.groups[p[0].group]);
  tap_check_int (d.groups[p[0].group].n_measured, ==, 2);
  tap_check_near (d.groups[p[0].group].median.total_ops_per_s, 200, 1e-9);
  /* intervals: mean over the containers; a null rate stays out of the pooled rates */
  tap_check_int (p[0].n_intervals, ==, 3);
  tap_check_near (p[0].intervals[0], 10, 0);
  tap_check (isnan (p[0].intervals[2]));
  tap_check_int (d.groups[p[0].group].n_rates, ==, 4);
  tap_check_near (d.groups[p[0].group].rate_lo, 10, 0);
  tap_check_near (d.groups[p[0].group].rate_hi, 30, 0);
  tap_check_near (p[3].intervals[0], 15, 1e-12);
  ucb_doc_free (&d);
}

static void
test_verify_cases (void)
{
  json_t *doc = json_pack ("{s:s, s:[], s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}]}",
                           "schema", "ucbench-result/1", "results", "verify", "id", "ULIM-02",
                           "status", "pass", "id", "ULIM-01", "status", "pass", "id", "ULIM-02",
                           "status", "fail", "id", "ULIM-03", "status", "skip");
  struct ucb_doc d;
  ucb_error_t err = NULL;

  /* A status outside the schema's enum is refused, not ranked nowhere. */
  check_error (json_pack ("{s:s, s:[], s:[{s:s, s:s}]}", "schema", "ucbench-result/1", "results",
                          "verify", "id", "ULIM-03", "status", "odd"),
               "`t.json`: verify[0]: \"status\" is \"odd\", not one of: pass, fail, skip, error, "
               "known-bug");

  tap_check_int (ucb_doc_load (doc, "t.json", UCB_DOC_ANY, &d, &err), ==, 0);
  json_decref (doc);
  if (err)
    return;
  tap_check (d.has_verify);
  tap_check (d.cases[0].first && d.cases[1].first && !d.cases[2].first && d.cases[3].first);
  tap_check_str (d.cases[0].worst, "fail"); /* the worst of the id's repeats */
  tap_check_str (d.cases[2].worst, "fail");
  tap_check_str (d.cases[1].worst, "pass");
  tap_check_str (d.cases[3].worst, "skip");
  tap_check (ucb_doc_find_case (&d, "ULIM-02") == &d.cases[0]);
  tap_check (ucb_doc_find_case (&d, "ULIM-09") == NULL);
  tap_check (d.cases[0].name == NULL && isnan (d.cases[0].duration_s));
  ucb_doc_free (&d);
}

static const struct tap_test tests[] = {
  { "a good document: points, groups, series, host, config", test_good_document },
  { "schema errors: one line naming the file and the field", test_schema_errors },
  { "ranges: what the schema rejects is refused, naming the field; the bounds load", test_ranges },
  { "kinds: a run or a verify document, as the reader takes", test_kinds },
  { "a field of the wrong type is an error naming its path, not a default", test_wrong_types },
  { "compare: one kind, a point or a case in common", test_comparable },
  { "point identity, repeat groups, series, measured, interval rates", test_identity_and_measured },
  { "verify cases: first of an id, worst status, lookup", test_verify_cases },
};

TAP_MAIN (tests)
