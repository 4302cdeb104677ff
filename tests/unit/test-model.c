/* test-model.c - the result model (report/model.h): loading a document, the schema errors, point
 * identity and "measured", repeat groups, scalability, verify cases. */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "core/util.h"
#include "report/docload.h"
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
                        "rate_ops_per_s", total / (double) containers, "cpu_ns_per_op", "ops_per_s",
                        "stddev", "samples", "ops_per_s", 10.0 * (double) (i + 1), "ops_per_s",
                        30.0, "ops_per_s"));
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

  if (ucb_doc_load (doc, "t.json", &d, &err) < 0)
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
  int r = ucb_doc_load (doc, "t.json", d, &err);

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

  tap_check_int (ucb_doc_open (path, &d, &err), ==, 0);
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
test_scalability (void)
{
  static const struct spec specs[] = {
    { "signal", 1, 1, "process", 1, "ok", 100 },     { "signal", 1, 1, "process", 2, "ok", 300 },
    { "signal", 2, 1, "process", 1, "ok", 300 },     { "signal", 4, 1, "thread", 1, "ok", 400 },
    { "signal", 2, 1, "process", 2, "skipped", -1 },
  };
  struct ucb_doc d;
  double s[5];

  if (!load_results (points (specs, UCB_ARRAY_SIZE (specs)), &d))
    return;
  ucb_doc_scalability (&d, s);
  /* B = median(100, 300) = 200 */
  tap_check_near (s[0], 0.5, 1e-12);
  tap_check_near (s[1], 1.5, 1e-12);
  tap_check_near (s[2], 300.0 / (2 * 200), 1e-12);
  tap_check (isnan (s[3]));    /* no 1-container point in the thread series */
  tap_check_near (s[4], 0, 0); /* a null total counts as 0 */
  ucb_doc_free (&d);
}

static void
test_verify_cases (void)
{
  json_t *doc = json_pack ("{s:s, s:[], s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}]}",
                           "schema", "ucbench-result/1", "results", "verify", "id", "ULIM-02",
                           "status", "pass", "id", "ULIM-01", "status", "pass", "id", "ULIM-02",
                           "status", "fail", "id", "ULIM-03", "status", "odd");
  struct ucb_doc d;
  ucb_error_t err = NULL;

  tap_check_int (ucb_doc_load (doc, "t.json", &d, &err), ==, 0);
  json_decref (doc);
  if (err)
    return;
  tap_check (d.has_verify);
  tap_check (d.cases[0].first && d.cases[1].first && !d.cases[2].first && d.cases[3].first);
  tap_check_str (d.cases[0].worst, "fail"); /* the worst of the id's repeats */
  tap_check_str (d.cases[2].worst, "fail");
  tap_check_str (d.cases[1].worst, "pass");
  tap_check (d.cases[3].worst == NULL); /* an unknown status ranks nowhere */
  tap_check (ucb_doc_find_case (&d, "ULIM-02") == &d.cases[0]);
  tap_check (ucb_doc_find_case (&d, "ULIM-09") == NULL);
  tap_check (d.cases[0].name == NULL && isnan (d.cases[0].duration_s));
  ucb_doc_free (&d);
}

static const struct tap_test tests[] = {
  { "a good document: points, groups, series, host, config", test_good_document },
  { "schema errors: one line naming the file and the field", test_schema_errors },
  { "point identity, repeat groups, series, measured, interval rates", test_identity_and_measured },
  { "scalability: total / (N x median 1-container total of the series)", test_scalability },
  { "verify cases: first of an id, worst status, lookup", test_verify_cases },
};

TAP_MAIN (tests)
