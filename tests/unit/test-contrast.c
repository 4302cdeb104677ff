/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-contrast.c - the owner contrast (report/contrast.c): its false-penalty rate over many
 * synthetic A/A runs and at the edge of the threshold (the nominal rate), the power and sign
 * for a known 20 % difference, the CPU check; then on documents: pairs by key (whatever the
 * order of results[]), contended repeats left out, the JSON and the text. */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "core/util.h"
#include "report/contrast.h"
#include "report/report.h"
#include "report/model.h"

/* ---- synthetic repeats ---------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double
uniform (void)
{
  /* xorshift64*: reproducible, no libc state */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return ((double) ((rng_state * 0x2545f4914f6cdd1dull) >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal (void)
{
  return sqrt (-2 * log (uniform ())) * cos (2 * M_PI * uniform ());
}

/* One side's log values: mean `mu`, SD `sd`, n of them. */
static void
draw (double *v, size_t n, double mu, double sd)
{
  for (size_t i = 0; i < n; i++)
    v[i] = mu + sd * normal ();
}

/* A simulated pair: the true ratio shared/distinct of ops/s (its CPU ns/op ratio the inverse
 * times `cpu_extra`), the repeats and the SD of their logs a side. */
struct sim
{
  double ratio, cpu_extra;
  size_t ns, nd;
  double sd_s, sd_d;
};

static void
simulate (const struct sim *s, struct ucb_cmp_test *p)
{
  double os[64], od[64], cs[64], cd[64];
  struct ucb_contrast_side sh = { os, cs, s->ns, s->ns }, di = { od, cd, s->nd, s->nd };

  draw (os, s->ns, log (1e6 * s->ratio), s->sd_s);
  draw (od, s->nd, log (1e6), s->sd_d);
  draw (cs, s->ns, log (1000 / s->ratio * s->cpu_extra), s->sd_s);
  draw (cd, s->nd, log (1000), s->sd_d);
  ucb_contrast_estimate (&sh, &di, NULL, NULL, false, p);
}

struct rates
{
  double penalty, faster, none, family_penalty;
};

/* `trials` documents of `k` pairs each, pair 0 drawn from `first`, the others from `rest`;
 * the rates over pair 0's verdicts, and of documents with any penalty. */
static void
run_trials (const struct sim *first, const struct sim *rest, size_t k, size_t trials,
            struct rates *r)
{
  struct ucb_cmp_test p[8];
  double ab[8], ai[8];
  enum ucb_cmp_verdict v[8];
  size_t pen = 0, fast = 0, none = 0, fam = 0;

  for (size_t t = 0; t < trials; t++)
    {
      bool any = false;
      for (size_t i = 0; i < k; i++)
        simulate (i == 0 ? first : rest, &p[i]);
      ucb_contrast_verdicts (p, k, ab, ai, v, NULL);
      pen += v[0] == UCB_CMP_REGRESSION;
      fast += v[0] == UCB_CMP_IMPROVEMENT;
      none += v[0] == UCB_CMP_NO_CHANGE;
      for (size_t i = 0; i < k; i++)
        any = any || v[i] == UCB_CMP_REGRESSION;
      fam += any;
    }
  r->penalty = (double) pen / (double) trials;
  r->faster = (double) fast / (double) trials;
  r->none = (double) none / (double) trials;
  r->family_penalty = (double) fam / (double) trials;
}

#define TRIALS 10000

static void
test_aa (void)
{
  /* -r 5 of a quiet host (repeats 2 % apart), and of a busy one (10 %), two pairs a document
   * (-c 1,2): the same mode run twice as if it were two */
  static const double sds[] = { 0.02, 0.10 };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (sds); i++)
    {
      struct sim aa = { 1, 1, 5, 5, sds[i], sds[i] };
      struct rates r;

      run_trials (&aa, &aa, 2, TRIALS, &r);
      printf ("# A/A, 5 v 5 repeats, SD %.0f %%: penalty %.4f, shared faster %.4f, none %.4f, "
              "a document with any penalty %.4f (%d documents of 2 pairs)\n",
              100 * sds[i], r.penalty, r.faster, r.none, r.family_penalty, TRIALS);
      tap_check (r.penalty <= UCB_COMPARE_ALPHA / 2);
      tap_check (r.family_penalty <= UCB_COMPARE_ALPHA);
    }
}

static void
test_nominal_rate (void)
{
  /* The worst case for a false penalty: a true ratio exactly at the threshold's edge (0.95 is
   * "not beyond 5 %").  The rule (interval wholly below 0.95) is a one-sided test at
   * alpha / 2 there; with unequal repeats and spreads Welch's df keeps it. */
  static const struct sim edge[] = {
    { 0.95, 1, 5, 5, 0.02, 0.02 },
    { 0.95, 1, 3, 3, 0.02, 0.02 },
    { 0.95, 1, 3, 6, 0.04, 0.01 },
    { 0.95, 1, 8, 3, 0.01, 0.05 },
  };
  const double nominal = UCB_COMPARE_ALPHA / 2;

  for (size_t i = 0; i < UCB_ARRAY_SIZE (edge); i++)
    {
      struct rates r;

      run_trials (&edge[i], &edge[i], 1, TRIALS, &r);
      printf ("# ratio 0.95 (the edge), %zu v %zu repeats, SD %.0f %% v %.0f %%: penalty %.4f "
              "(nominal %.3f; SE of the estimate %.4f)\n",
              edge[i].ns, edge[i].nd, 100 * edge[i].sd_s, 100 * edge[i].sd_d, r.penalty, nominal,
              sqrt (nominal * (1 - nominal) / TRIALS));
      /* nominal + 4 SE of the simulated rate (3.1 %): a z interval (1.96 for t) gives 5.7 %
       * at 3 v 3 and 4.2 % at 5 v 5 here */
      tap_check (r.penalty <= nominal + 4 * sqrt (nominal * (1 - nominal) / TRIALS));
      tap_check (r.faster == 0);
    }
}

static void
test_known_difference (void)
{
  struct sim slower = { 0.80, 1, 5, 5, 0.02, 0.02 }, faster = { 1.20, 1, 5, 5, 0.02, 0.02 };
  struct sim aa = { 1, 1, 5, 5, 0.02, 0.02 };
  struct rates r;

  run_trials (&slower, &aa, 2, TRIALS / 4, &r);
  printf ("# shared 20 %% slower, 5 v 5 repeats, SD 2 %%: penalty %.4f, shared faster %.4f\n",
          r.penalty, r.faster);
  tap_check (r.penalty >= 0.95);
  tap_check (r.faster == 0);
  run_trials (&faster, &aa, 2, TRIALS / 4, &r);
  printf ("# shared 20 %% faster: penalty %.4f, shared faster %.4f\n", r.penalty, r.faster);
  tap_check (r.faster >= 0.95);
  tap_check (r.penalty == 0);
}

static void
test_cpu_must_confirm (void)
{
  /* fewer ops/s at the same CPU ns/op: the tasks got less CPU, not dearer ops */
  struct sim starved = { 0.80, 0.80, 5, 5, 0.02, 0.02 };
  struct ucb_cmp_test p;
  double ab, ai;
  enum ucb_cmp_verdict v;

  simulate (&starved, &p);
  ucb_contrast_verdicts (&p, 1, &ab, &ai, &v, NULL);
  tap_check (p.ops.hi < 0.95);
  tap_check_int (v, ==, UCB_CMP_DISAGREE);
  tap_check_str (ucb_contrast_verdict_name (v), "inconclusive (metrics disagree)");
  tap_check_str (ucb_contrast_verdict_name (UCB_CMP_REGRESSION), "penalty");
  tap_check_str (ucb_contrast_verdict_name (UCB_CMP_NO_CHANGE), "none");
  tap_check_str (ucb_contrast_verdict_name (UCB_CMP_IMPROVEMENT), "shared faster");
}

/* ---- documents ------------------------------------------------------------------------------ */

/* A results[] entry of `containers` containers doing `rate` ops/s each at `cpu` ns/op. */
static json_t *
entry (const char *owner, long long containers, long long repeat, double rate, double cpu,
       bool contended)
{
  json_t *pcs = json_array ();

  for (long long i = 0; i < containers; i++)
    json_array_append_new (pcs, json_pack ("{s:i, s:f, s:f, s:{s:n}, s:[{s:f}]}", "ops", 100000,
                                           "rate_ops_per_s", rate, "cpu_ns_per_op", cpu,
                                           "ops_per_s", "stddev", "samples", "ops_per_s", rate));
  return json_pack ("{s:s, s:I, s:s, s:I, s:I, s:s, s:I, s:s, s:o, s:{s:f, s:f, s:n, s:f, s:n, "
                    "s:f, s:i}, s:{s:b}}",
                    "workload", "signal", "containers", (json_int_t) containers, "owner", owner,
                    "depth", (json_int_t) 1, "tasks", (json_int_t) 1, "mode", "process", "repeat",
                    (json_int_t) repeat, "status", "ok", "per_container", pcs, "summary",
                    "total_ops_per_s", rate * (double) containers, "per_container_ops", rate,
                    "scalability", "fairness", 1.0, "cv", "cpu_ns_per_op", cpu, "failed_ops", 0,
                    "contention", "contended", contended);
}

static const double shared2[] = { 400e3, 410e3, 395e3, 405e3, 402e3 };
static const double distinct2[] = { 800e3, 790e3, 810e3, 805e3, 798e3 };
static const double one[][2] = {
  { 1000e3, 1004e3 }, { 1002e3, 999e3 }, { 998e3, 1001e3 }, { 1003e3, 1000e3 }, { 1001e3, 997e3 }
};

/* -c 1,2 --owner shared,distinct -r 5 as run now orders it (the modes in turns), or as an
 * older run did (each point's repeats together); `root`: a third mode beside them. */
static json_t *
results (bool interleaved, bool root)
{
  json_t *a = json_array ();

  for (int n = 1; n <= 2; n++)
    for (int k = 0; k < (interleaved ? 5 : 2); k++)
      for (int j = 0; j < (interleaved ? 2 : 5); j++)
        {
          int rep = interleaved ? k : j, sh = interleaved ? j == 0 : k == 0;
          double v = n == 1 ? one[rep][!sh] : sh ? shared2[rep] : distinct2[rep];
          json_array_append_new (
              a, entry (sh ? "shared" : "distinct", n, rep + 1, v, 1e9 / v * 0.9, false));
          if (root && sh)
            json_array_append_new (a, entry ("root", n, rep + 1, v, 1e9 / v, false));
        }
  return a;
}

static double
geo_ratio (const double *a, const double *b, size_t n)
{
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += log (a[i]) - log (b[i]);
  return exp (s / (double) n);
}

static void
test_document (void)
{
  json_t *res = results (true, true), *grouped = results (false, false), *arr, *arr2, *x;
  cleanup_free char *a = NULL, *b = NULL;

  arr = ucb_report_owner_contrast (res);
  tap_check_int (json_array_size (arr), ==, 2);
  x = json_array_get (arr, 1);
  tap_check_int (json_integer_value (json_object_get (x, "containers")), ==, 2);
  tap_check_str (json_string_value (json_object_get (x, "verdict")), "penalty");
  tap_check_near (json_real_value (json_object_get (x, "ratio")), geo_ratio (shared2, distinct2, 5),
                  1e-12);
  tap_check (json_real_value (json_object_get (x, "ci_high")) < 0.95);
  tap_check_int (json_integer_value (json_object_get (x, "n_shared")), ==, 5);
  tap_check_int (
      json_integer_value (json_object_get (json_object_get (x, "distinct"), "repeats_used")), ==,
      5);
  x = json_array_get (arr, 0);
  tap_check_int (json_integer_value (json_object_get (x, "containers")), ==, 1);
  tap_check_str (json_string_value (json_object_get (x, "verdict")), "none");
  tap_check (json_is_null (json_object_get (x, "needed")));
  /* the same repeats in the older order: the same contrast (the readers group by key) */
  arr2 = ucb_report_owner_contrast (grouped);
  a = json_dumps (arr, JSON_SORT_KEYS);
  b = json_dumps (arr2, JSON_SORT_KEYS);
  tap_check_str (a, b);
  json_decref (arr);
  json_decref (arr2);
  json_decref (res);
  json_decref (grouped);
}

static void
test_contended_and_none (void)
{
  json_t *res = results (true, false), *arr, *x, *e;
  size_t i;

  /* N=2: four of distinct's five repeats contended: too few left, the ratio of every repeat */
  json_array_foreach (res, i, e)
  {
    json_int_t rep = json_integer_value (json_object_get (e, "repeat"));
    if (json_integer_value (json_object_get (e, "containers")) == 2
        && strcmp (json_string_value (json_object_get (e, "owner")), "distinct") == 0 && rep > 1)
      json_object_set_new (e, "contention", json_pack ("{s:b}", "contended", 1));
    /* N=1: one of shared's contended: left out, the verdict from the other four */
    if (json_integer_value (json_object_get (e, "containers")) == 1 && rep == 3
        && strcmp (json_string_value (json_object_get (e, "owner")), "shared") == 0)
      json_object_set_new (e, "contention", json_pack ("{s:b}", "contended", 1));
  }
  arr = ucb_report_owner_contrast (res);
  x = json_array_get (arr, 1);
  tap_check_str (json_string_value (json_object_get (x, "verdict")), "inconclusive (contended)");
  tap_check (json_is_true (json_object_get (x, "ratio_from_contended")));
  tap_check (json_is_null (json_object_get (x, "p_beyond")));
  tap_check_int (
      json_integer_value (json_object_get (json_object_get (x, "distinct"), "repeats_left_out")),
      ==, 4);
  tap_check_int (
      json_integer_value (json_object_get (json_object_get (x, "distinct"), "repeats_used")), ==,
      1);
  tap_check_near (json_real_value (json_object_get (x, "ratio")), geo_ratio (shared2, distinct2, 5),
                  1e-12);
  x = json_array_get (arr, 0);
  tap_check_int (json_integer_value (json_object_get (x, "n_shared")), ==, 4);
  tap_check_str (json_string_value (
                     json_array_get (json_object_get (json_object_get (x, "shared"), "flags"), 0)),
                 "contended");
  tap_check (!json_is_true (json_object_get (x, "ratio_from_contended")));
  json_decref (arr);
  json_decref (res);
  /* no distinct point: no contrast */
  res = json_pack ("[o]", entry ("shared", 1, 1, 1e6, 1000, false));
  tap_check (ucb_report_owner_contrast (res) == NULL);
  json_decref (res);
}

static void
test_text (void)
{
  json_t *res = results (true, false), *arr = ucb_report_owner_contrast (res);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  ucb_contrast_text (f, arr, false);
  ucb_contrast_text (f, NULL, false); /* nothing */
  fclose (f);
  tap_check (strstr (buf, "Owner contrast: shared/distinct per-container ops/s") != NULL);
  tap_check (strstr (buf, "runs s/d") != NULL);
  tap_check (strstr (buf, "5/5       penalty") != NULL);
  tap_check (strstr (buf, "5/5       none") != NULL);
  tap_check (strstr (buf, "nan") == NULL);
  for (char *save = NULL, *ln = strtok_r (buf, "\n", &save); ln; ln = strtok_r (NULL, "\n", &save))
    printf ("# %s\n", ln);
  free (buf);
  json_decref (arr);
  json_decref (res);
}

static char *
text_of (const json_t *arr, bool full)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  ucb_contrast_text (f, arr, full);
  fclose (f);
  return buf;
}

/* Keep the entries of `res` with repeat <= `keep`; `contended`: mark them all contended. */
static json_t *
first_repeats (json_t *res, long long keep, bool contended)
{
  json_t *a = json_array (), *e;
  size_t i;

  json_array_foreach (res, i, e)
  {
    if (json_integer_value (json_object_get (e, "repeat")) > keep)
      continue;
    if (contended)
      json_object_set_new (e, "contention", json_pack ("{s:b}", "contended", 1));
    json_array_append (a, e);
  }
  json_decref (res);
  return a;
}

/* What the codes said, in words after the verdict (no `4-1c`, no ` c`); and the -r hint at the
 * end of a run exactly when a pair lacked repeats for a verdict. */
static void
test_words_and_hint (void)
{
  json_t *res = results (true, false), *arr, *e;
  cleanup_free char *t1 = NULL, *t2 = NULL, *t3 = NULL, *full = NULL;
  char *hint;
  size_t i;

  /* 5 repeats a side, clean: verdicts, no hint (the negative case) */
  arr = ucb_report_owner_contrast (res);
  hint = ucb_contrast_repeat_hint (arr);
  tap_check (hint == NULL);
  free (hint);
  full = text_of (arr, true);
  tap_check (strstr (full, "(ratio = owner_contrast[].ratio, shared/distinct") != NULL);
  tap_check (strstr (full, "(runs s/d: repeats used a side; after the verdict:") != NULL);
  /* an inconclusive pair that says how many repeats would settle it: -r that many */
  json_object_set_new (json_array_get (arr, 0), "verdict", json_string ("inconclusive"));
  json_object_set_new (json_array_get (arr, 0), "needed", json_integer (9));
  hint = ucb_contrast_repeat_hint (arr);
  tap_check (hint
             && strstr (hint, "on 1 of 2 points (1 inconclusive, which ~9 repeats a side "
                              "would likely settle): rerun with -r 9 (--repeat 9)"));
  free (hint);
  json_decref (arr);

  /* contended repeats left out, said in words; enough repeats, so no -r hint */
  json_array_foreach (res, i, e)
  {
    json_int_t rep = json_integer_value (json_object_get (e, "repeat"));
    bool two = json_integer_value (json_object_get (e, "containers")) == 2;
    bool sh = strcmp (json_string_value (json_object_get (e, "owner")), "shared") == 0;
    if ((two && !sh && rep > 1) || (!two && sh && rep == 3))
      json_object_set_new (e, "contention", json_pack ("{s:b}", "contended", 1));
  }
  arr = ucb_report_owner_contrast (res);
  t1 = text_of (arr, false);
  tap_check (strstr (t1, "4/5       none [shared: contended, 1 of 5 repeats left out]\n") != NULL);
  tap_check (strstr (t1, "5/1       inconclusive (contended) [distinct: contended, 4 of 5 repeats "
                         "left out; the ratio, of every repeat, decides nothing]\n")
             != NULL);
  tap_check (strstr (t1, "-1c") == NULL && strstr (t1, "] c ") == NULL);
  hint = ucb_contrast_repeat_hint (arr);
  tap_check (hint == NULL); /* a busy host, not the repeats: the busy warning says so */
  free (hint);
  json_decref (arr);
  json_decref (res);

  /* the default sweep: one repeat a side, so no verdict; the hint says -r 5 */
  res = first_repeats (results (true, false), 1, false);
  arr = ucb_report_owner_contrast (res);
  tap_check_str (json_string_value (json_object_get (json_array_get (arr, 0), "verdict")),
                 "inconclusive (1 repeat)");
  t2 = text_of (arr, false);
  tap_check (strstr (t2, "1/1       inconclusive (1 repeat)\n") != NULL);
  hint = ucb_contrast_repeat_hint (arr);
  tap_check (hint
             && strstr (hint, "the owner contrast lacked repeats for a verdict on 2 of 2 "
                              "points (2 with a single repeat a side): rerun with -r 5 "
                              "(--repeat 5)"));
  free (hint);
  /* ... with a pair that needs more than 5: the most of them */
  json_object_set_new (json_array_get (arr, 1), "verdict", json_string ("inconclusive"));
  json_object_set_new (json_array_get (arr, 1), "needed", json_integer (7));
  json_object_set_new (json_object_get (json_array_get (arr, 1), "shared"), "repeats_used",
                       json_integer (3));
  json_object_set_new (json_object_get (json_array_get (arr, 1), "distinct"), "repeats_used",
                       json_integer (3));
  hint = ucb_contrast_repeat_hint (arr);
  tap_check (hint
             && strstr (hint, "(1 with a single repeat a side; 1 inconclusive, which ~7 "
                              "repeats a side would likely settle): rerun with -r 7"));
  free (hint);
  json_decref (arr);
  json_decref (res);

  /* one repeat a side, contended (`0-1c/0-1c` before): in words, and the hint still */
  res = first_repeats (results (true, false), 1, true);
  arr = ucb_report_owner_contrast (res);
  t3 = text_of (arr, false);
  tap_check (strstr (t3, "0/0       inconclusive (contended) [shared: contended, 1 of 1 repeats "
                         "left out; distinct: contended, 1 of 1 repeats left out; the ratio, "
                         "of every repeat, decides nothing]\n")
             != NULL);
  hint = ucb_contrast_repeat_hint (arr);
  tap_check (hint && strstr (hint, "rerun with -r 5 (--repeat 5)"));
  free (hint);
  for (char *save = NULL, *ln = strtok_r (t3, "\n", &save); ln; ln = strtok_r (NULL, "\n", &save))
    printf ("# %s\n", ln);
  json_decref (arr);
  json_decref (res);
}

static char *
next_steps (const char *output, bool on_stdout, const json_t *doc)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  ucb_report_next_steps (f, output, on_stdout, doc);
  fclose (f);
  return buf;
}

/* The end of a run: the document's path, `ucbench plot` on it ready to paste, the hint last. */
static void
test_next_steps (void)
{
  json_t *doc = json_object (), *res = first_repeats (results (true, false), 1, false);
  cleanup_free char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;

  a = next_steps ("out/r.json", false, doc);
  tap_check_str (a, "ucbench: the document is in out/r.json; next: ucbench plot out/r.json -o "
                    "out/r.svg\n");
  b = next_steps ("-my run's.doc", false, doc);
  tap_check_str (b, "ucbench: the document is in -my run's.doc; next: ucbench plot "
                    "'./-my run'\\''s.doc' -o './-my run'\\''s.doc.svg'\n");
  c = next_steps (NULL, false, doc);
  tap_check_str (c, "ucbench: no document was kept; -o FILE.json keeps it, then: ucbench plot "
                    "FILE.json -o x.svg\n");
  d = next_steps (NULL, true, doc);
  tap_check (strstr (d, "ucbench: the document went to standard output; -o FILE.json") == d);
  json_object_set_new (doc, "owner_contrast", ucb_report_owner_contrast (res));
  e = next_steps ("r.json", false, doc);
  tap_check (strstr (e, "r.svg\nucbench: the owner contrast lacked repeats for a verdict on 2 "
                        "of 2 points (2 with a single repeat a side): rerun with -r 5 "
                        "(--repeat 5)\n")
             != NULL);
  json_decref (doc);
  json_decref (res);
}

static const struct tap_test tests[] = {
  { "A/A: a false penalty at most at the nominal rate", test_aa },
  { "the nominal rate at the threshold's edge, equal and unequal repeats", test_nominal_rate },
  { "a known 20 % difference is found, with its sign", test_known_difference },
  { "CPU ns/op must confirm a penalty; the verdicts' words", test_cpu_must_confirm },
  { "pairs by key, in either order of results[]", test_document },
  { "contended repeats left out; too few left: inconclusive (contended)", test_contended_and_none },
  { "the text: a line per pair", test_text },
  { "the text in words after the verdict; the -r hint only when repeats were lacking",
    test_words_and_hint },
  { "the end of a run: where the document went, the next step, the -r hint", test_next_steps },
};

TAP_MAIN (tests)
