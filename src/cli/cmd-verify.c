/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-verify.c - `ucbench verify limits`: run the cases, each in a forked child with fresh
 * uids, check that it left nothing behind, and report TAP, JSON or JUnit. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/doc.h"
#include "core/json-util.h"
#include "core/lists.h"
#include "core/process.h"
#include "core/util.h"
#include "engine/owner.h"
#include "engine/spawn.h"
#include "host/uidlock.h"
#include "host/users.h"
#include "report/export/export.h"
#include "report/output.h"
#include "report/report.h"
#include "verify/matrix.h"
#include "verify/verify.h"

/* Its help's head and tail; the rows between them are VERIFY_OPTIONS. */
#define VERIFY_HEAD                                                                                \
  "Usage: ucbench verify [limits] [CASE-ID|RLIMIT ...] [OPTION]...\n"                              \
  "Check that the kernel enforces the ucounts rlimits across the user-namespace\n"                 \
  "hierarchy (docs/kernel-ucounts.md §4).  Each case runs with fresh uids in its\n"               \
  "own user namespaces and must leave nothing behind.  Select cases by id\n"                       \
  "(ULIM-01), name or rlimit (sigpending, nproc, msgqueue, memlock); the default is\n"             \
  "every case.  A former case's id or name (ULIM-07) selects the cases that now\n"                 \
  "check its cells.\n"
#define VERIFY_TAIL                                                                                \
  "\n"                                                                                             \
  "Exit status: 0 when every case passes, skips or shows a known kernel bug and one\n"             \
  "ran; 1 when one fails or the harness failed; 2 for bad usage (an --output that\n"               \
  "cannot be written too); 4 when every case was skipped (as kselftest does), e.g.\n"              \
  "without the capabilities they need.\n"

#define VERIFY_OPTIONS(OPT, TEXT)                                                                  \
  OPT (FORMAT, "format", 'f', REQUIRED, "tap|json|junit", "output on stdout (default: tap)")       \
  OPT (OUTPUT, "output", 'o', REQUIRED, "FILE", "also write the JSON document to FILE")            \
  OPT (LIST, "list", 0, NONE, NULL,                                                                \
       "list the selected cases (all without a selection)\n"                                       \
       "and exit")                                                                                 \
  OPT (REPEAT, "repeat", 'r', REQUIRED, "N", "run every case N times (default: 1)")                \
  OPT (FAIL_FAST, "fail-fast", 0, NONE, NULL,                                                      \
       "stop at the first failing case (the cases not run\n"                                       \
       "are SKIP: the plan still lists every selected case)")                                      \
  OPT (KEEP_GOING, "keep-going", 0, NONE, NULL,                                                    \
       "run every case (the default; kept for old scripts)")                                       \
  OPT (UID_BASE, "uid-base", 0, REQUIRED, "UID",                                                   \
       "fresh uids: case i uses UID+100i .. +99 (default:\n"                                       \
       "2101000000, or the next free range after it)")                                             \
  OPT (HELP, "help", 'h', NONE, NULL, "show this help")

/* No in_order: case ids may come before or after the options. */
UCB_OPT_TABLE (ucb_verify_opts, VERIFY_OPTIONS, false, 28, VERIFY_HEAD, VERIFY_TAIL);

/* kselftest's KSFT_SKIP: nothing could run, which a CI gate must not read as a pass. */
#define VERIFY_EXIT_ALL_SKIPPED 4

enum vformat
{
  VF_TAP,
  VF_JSON,
  VF_JUNIT,
};

struct vopts
{
  enum vformat format;
  char *output;
  bool list, fail_fast, help;
  unsigned repeat;
  uid_t uid_base;
  bool uid_base_given; /* else the default, which moves past a range another ucbench holds */
  size_t ncases;       /* in the registry */
  bool *selected;      /* [ncases] */
};

static size_t
count_cases (void)
{
  size_t n = 0;

  while (ucb_vcases[n])
    n++;
  return n;
}

static void
vopts_free (struct vopts *o)
{
  free (o->output);
  free (o->selected);
  o->output = NULL;
  o->selected = NULL;
}

static int
verify_opt (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  static const char *const formats[]
      = { [VF_TAP] = "tap", [VF_JSON] = "json", [VF_JUNIT] = "junit" };
  struct vopts *o = ctx;
  uint64_t v;
  int k;

  switch (id)
    {
    case OPT_FORMAT:
      k = ucb_name_index (formats, UCB_ARRAY_SIZE (formats), arg);
      if (k < 0)
        return ucb_keyword_error (err, "invalid --format", arg, formats, UCB_ARRAY_SIZE (formats),
                                  NULL);
      o->format = (enum vformat) k;
      return 0;
    case OPT_OUTPUT:
      free (o->output);
      o->output = xstrdup (arg);
      return 0;
    case OPT_LIST:
      o->list = true;
      return 0;
    case OPT_REPEAT:
      if (ucb_parse_u64 (arg, 1, 1000, &v) < 0)
        return ucb_usage_error (err, "invalid --repeat `%s`: expected 1 to 1000", arg);
      o->repeat = (unsigned) v;
      return 0;
    case OPT_KEEP_GOING:
      o->fail_fast = false;
      return 0;
    case OPT_FAIL_FAST:
      o->fail_fast = true;
      return 0;
    case OPT_UID_BASE:
      /* Case i uses base + 100 i .. + 99: the last case's range must fit below (uid_t) -1. */
      if (ucb_parse_u64 (arg, 1, UCB_MAX_UID + 1 - 100 * (uint64_t) o->ncases, &v) < 0)
        {
          cleanup_free char *valid = ucb_uid_valid_text (NULL, UCB_MAX_UID);
          return ucb_usage_error (err,
                                  "invalid --uid-base `%s`: expected the first of %zu uids (case "
                                  "i uses UID+100i .. +99), %s",
                                  arg, 100 * o->ncases, valid);
        }
      o->uid_base = (uid_t) v;
      o->uid_base_given = true;
      return 0;
    default:
      return 1;
    }
}

/* The options; optind is left at the first case id.  1: the help was shown. */
static int
parse_options (struct vopts *o, int argc, char **argv, ucb_error_t *err)
{
  return ucb_getopt_command (argc, argv, &ucb_verify_opts, verify_opt, o, err);
}

/* An argument that names no case: the nearest case name or rlimit suggested (not an id:
 * ULIM-99 is as near ULIM-09 as ULIM-19); the rlimits listed (the cases are too many for one
 * line: --list shows them). */
static int
unknown_case (const struct vopts *o, const char *arg, ucb_error_t *err)
{
  cleanup_free const char **names = xcalloc (UCB_RLS + o->ncases, sizeof *names);
  cleanup_free char *expected = NULL;
  const char *near;
  size_t n = 0;

  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    names[n++] = ucb_rl_name (b);
  expected = ucb_names_text (names, n, "a case of `ucbench verify --list`");
  for (size_t k = 0; k < o->ncases; k++)
    names[n++] = ucb_vcases[k]->name;
  near = ucb_nearest_name (names, n, arg);
  if (near)
    return ucb_usage_error (err, "unknown case or rlimit `%s`: did you mean `%s`? (expected %s)",
                            arg, near, expected);
  return ucb_usage_error (err, "unknown case or rlimit `%s` (expected %s)", arg, expected);
}

/* The cases named by the arguments from optind on (ids, names, rlimits); all without any. */
static int
select_cases (struct vopts *o, int argc, char **argv, ucb_error_t *err)
{
  bool any = false;

  for (int i = optind; i < argc; i++)
    {
      bool hit = false;
      if (i == optind && strcmp (argv[i], "limits") == 0)
        continue;
      for (size_t k = 0; k < o->ncases; k++)
        if (ucb_vcase_answers (ucb_vcases[k], argv[i])
            || strcasecmp (argv[i], ucb_rl_name (ucb_vcases[k]->rlimit)) == 0)
          hit = o->selected[k] = true;
      if (!hit)
        return unknown_case (o, argv[i], err);
      any = true;
    }
  if (!any)
    for (size_t k = 0; k < o->ncases; k++)
      o->selected[k] = true;
  return 0;
}

static int
parse (struct vopts *o, int argc, char **argv, ucb_error_t *err)
{
  int r;

  memset (o, 0, sizeof *o);
  o->repeat = 1;
  o->uid_base = UCB_VERIFY_UID_BASE;
  o->ncases = count_cases ();
  o->selected = xcalloc (o->ncases ? o->ncases : 1, sizeof *o->selected);
  r = parse_options (o, argc, argv, err);
  if (r != 0)
    {
      o->help = r > 0;
      return r < 0 ? -1 : 0;
    }
  return select_cases (o, argc, argv, err);
}

/* The cases' uids, 100 per case of the registry from --uid-base: claimed as run claims its
 * owners' (ucb_uids_claim: safe, free, locked while verify lives); without --uid-base the
 * next such range when the default is not. */
static int
claim_uids (struct vopts *o, ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_uid_claim_free))) struct ucb_uid_claim c = {
    .what = "case uid range",
    .option = "--uid-base",
    .base = o->uid_base,
    .width = 100 * (uint64_t) o->ncases,
    .highest = UCB_MAX_UID,
    .movable = !o->uid_base_given,
    .procs_per_case = true,
  };

  if (ucb_uids_claim (&c, err) < 0)
    return -1;
  o->uid_base = (uid_t) c.base;
  if (c.moved)
    fprintf (stderr, "ucbench: note: %s\n", c.moved);
  if (c.unlocked)
    fprintf (stderr,
             "ucbench: note: no uid lock (%s): a ucbench started on the same uids meanwhile "
             "is not refused\n",
             c.unlocked);
  return 0;
}

/* A failure's diagnostics after its TAP line: why, what it checks, each observation. */
static void
tap_failure (FILE *f, const void *ctx, size_t i)
{
  const struct ucb_vrun *x = (const struct ucb_vrun *) ctx + i;

  fprintf (f, "# %s\n# checks: %s\n# depends on: %s\n", x->why, x->c->checks, x->c->depends);
  for (size_t k = 0; k < x->res.n; k++)
    {
      char seen[32];
      fprintf (f, "#   %-48s expected %lld, observed %s\n", x->res.items[k].name,
               x->res.items[k].expected,
               ucb_vitem_observed_text (&x->res.items[k], seen, sizeof seen));
    }
}

/* The property matrix, then the totals line last, as kselftest ends. */
static void
tap_matrix (FILE *f, const void *ctx, size_t n)
{
  ucb_vmatrix_verdicts (f, ctx, n);
}

/* The known bug of a known-bug verdict, NULL otherwise. */
static const struct ucb_vbug_info *
run_bug (const struct ucb_vrun *v)
{
  return v->verdict == UCB_VERDICT_KNOWN_BUG ? ucb_vknown_bug (&v->res) : NULL;
}

static void
print_tap (FILE *f, const struct ucb_vrun *v, size_t n)
{
  cleanup_free struct ucb_tap_case *cases = xcalloc (n + 1, sizeof *cases);
  const struct ucb_tap_hooks hooks = { tap_failure, tap_matrix, v };

  for (size_t i = 0; i < n; i++)
    {
      const struct ucb_vbug_info *bug = run_bug (&v[i]);
      cases[i] = (struct ucb_tap_case){
        v[i].c->id, v[i].c->name,         ucb_verdict_name (v[i].verdict),
        v[i].why,   bug ? bug->id : NULL, bug ? bug->reference : NULL
      };
    }
  ucb_tap_write (f, &ucb_tap13, cases, n, &hooks);
}

/* The matrix cells of a case: [{"level", "property"}], its primary one first. */
static json_t *
cells_json (const struct ucb_vcase *c)
{
  json_t *arr = ucb_json_arr ();

  for (size_t k = 0; k < ucb_vcase_ncells (c); k++)
    {
      json_t *o = ucb_json_obj ();
      ucb_json_set (o, "level", ucb_json_str (ucb_vlevel_name (c->cells[k].level)));
      ucb_json_set (o, "property", ucb_json_str (ucb_vprop_name (c->cells[k].prop)));
      ucb_json_push (arr, o);
    }
  return arr;
}

/* known_bug: which bug a known-bug case saw, so that readers name it (KCIDB: one issue). */
static json_t *
bug_json (const struct ucb_vbug_info *b)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "id", ucb_json_str (b->id));
  ucb_json_set (o, "title", ucb_json_str (b->title));
  ucb_json_set (o, "reference", ucb_json_str (b->reference));
  ucb_json_set (o, "url", ucb_json_str (b->url));
  return o;
}

static json_t *
verify_json (const struct ucb_vrun *v, size_t n)
{
  json_t *arr = ucb_json_arr ();

  for (size_t i = 0; i < n; i++)
    {
      json_t *o = ucb_json_obj (), *exp = ucb_json_obj (), *obs = ucb_json_obj ();
      json_t *capped = NULL;
      const struct ucb_vbug_info *bug;
      for (size_t k = 0; k < v[i].res.n; k++)
        {
          const struct ucb_vitem *it = &v[i].res.items[k];
          ucb_json_set (exp, it->name, ucb_json_int (it->expected));
          ucb_json_set (obs, it->name, ucb_json_int (it->observed));
          if (ucb_vitem_capped (it))
            {
              if (!capped)
                capped = ucb_json_obj ();
              ucb_json_set (capped, it->name, ucb_json_int (it->tries - 1));
            }
        }
      ucb_json_set (o, "id", ucb_json_str (v[i].c->id));
      ucb_json_set (o, "name", ucb_json_str (v[i].c->name));
      ucb_json_set (o, "title", ucb_json_str (v[i].c->title));
      ucb_json_set (o, "rlimit", ucb_json_str (ucb_rl_name (v[i].c->rlimit)));
      ucb_json_set (o, "level", ucb_json_str (ucb_vlevel_name (v[i].c->cells[0].level)));
      ucb_json_set (o, "property", ucb_json_str (ucb_vprop_name (v[i].c->cells[0].prop)));
      ucb_json_set (o, "cells", cells_json (v[i].c));
      ucb_json_set (o, "checks", ucb_json_str (v[i].c->checks));
      ucb_json_set (o, "depends_on", ucb_json_str (v[i].c->depends));
      ucb_json_set (o, "status", ucb_json_str (ucb_verdict_name (v[i].verdict)));
      if (v[i].not_run)
        ucb_json_set (o, "not_run", json_true ());
      ucb_json_set (o, "expected", exp);
      ucb_json_set (o, "observed", obs);
      if (capped) /* those observed values are "more than the cap", not counts */
        ucb_json_set (o, "capped", capped);
      ucb_json_set (o, "detail", ucb_json_str (v[i].why));
      bug = run_bug (&v[i]);
      if (bug)
        ucb_json_set (o, "known_bug", bug_json (bug));
      ucb_json_set (o, "duration_s", ucb_json_real (v[i].duration_s));
      ucb_json_push (arr, o);
    }
  return arr;
}

/* The selected cases (every one without a selection; its cells: "parent P2, own P2"), then the
 * matrix of those cases per cell. */
static void
print_list (const struct vopts *o)
{
  cleanup_free const struct ucb_vcase **sel = xcalloc (o->ncases + 1, sizeof *sel);
  size_t n = 0;

  printf ("%-8s %-40s %-10s %s\n", "ID", "NAME", "RLIMIT", "TITLE");
  for (size_t k = 0; k < o->ncases; k++)
    {
      const struct ucb_vcase *c = ucb_vcases[k];
      if (!o->selected[k])
        continue;
      sel[n++] = c;
      printf ("%-8s %-40s %-10s %s\n%9scells:", c->id, c->name, ucb_rl_name (c->rlimit), c->title,
              "");
      for (size_t i = 0; i < ucb_vcase_ncells (c); i++)
        printf ("%s %s %s", i ? "," : "", ucb_vlevel_name (c->cells[i].level),
                ucb_vprop_name (c->cells[i].prop));
      printf ("; depends on: %s\n", c->depends);
      if (ucb_vcase_formerly (c))
        printf ("%9sformerly: %s\n", "", ucb_vcase_formerly (c));
    }
  ucb_vmatrix_list (stdout, sel);
}

/* A signal that came while case `r` ran cut it short (its process killed, its counts
 * half-made): whatever it ended as but a pass or a skip is no verdict on the kernel, so the
 * case did not run, as those after it; a pass had seen everything it checks before. */
static void
cut_short (struct ucb_vrun *r)
{
  int sig = ucb_interrupted ();

  if (!sig || r->verdict == UCB_VERDICT_PASS || r->verdict == UCB_VERDICT_SKIP)
    return;
  r->verdict = UCB_VERDICT_SKIP;
  r->not_run = true;
  snprintf (r->why, sizeof r->why, "not run: interrupted by signal %d after %.1f s", sig,
            r->duration_s);
}

/* Run every selected case, `repeat` times: their outcomes in *out (n of them), one per
 * selected case and repeat, so the plan always lists them all.  After the first failure with
 * --fail-fast, or after a signal, the rest are SKIP saying why they did not run.  Returns
 * whether one failed or erred. */
static bool
run_cases (const struct vopts *o, const struct ucb_kernel *k, struct ucb_vrun **out, size_t *nout)
{
  size_t n = 0, total = 0;
  bool bad = false;
  struct ucb_vrun *v;

  for (size_t i = 0; i < o->ncases; i++)
    total += o->selected[i];
  v = xcalloc (total * o->repeat + 1, sizeof *v);
  for (unsigned rep = 0; rep < o->repeat; rep++)
    for (size_t i = 0; i < o->ncases; i++)
      {
        if (!o->selected[i])
          continue;
        if ((bad && o->fail_fast) || ucb_interrupted ())
          {
            v[n] = (struct ucb_vrun){ .c = ucb_vcases[i],
                                      .verdict = UCB_VERDICT_SKIP,
                                      .not_run = true };
            if (ucb_interrupted ())
              snprintf (v[n].why, sizeof v[n].why, "not run: interrupted by signal %d",
                        ucb_interrupted ());
            else
              snprintf (v[n].why, sizeof v[n].why,
                        "not run: --fail-fast stopped after the first failure");
            n++;
            continue;
          }
        ucb_verify_run (ucb_vcases[i], o->uid_base + (uid_t) i * 100, k, &v[n]);
        cut_short (&v[n]);
        bad = bad || ucb_verdict_row (ucb_verdict_name (v[n].verdict))->fails_run;
        n++;
      }
  *out = v;
  *nout = n;
  return bad;
}

/* Whether no case ran (each one skipped): then say so on stderr, with the first reason. */
static bool
all_skipped (const struct ucb_vrun *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (v[i].verdict != UCB_VERDICT_SKIP)
      return false;
  if (n > 0)
    fprintf (stderr, "ucbench: verify: no case could run: %s %s%s\n", v[0].c->id, v[0].why,
             n > 1 ? ", and the others skipped too" : "");
  return n > 0;
}

/* verify_interrupted: a signal ended verify before its last case (beside verify[], which is
 * an array, as verify_kernel is); the case it cut short and those after are not_run. */
static json_t *
interrupted_record (int sig, const struct ucb_vrun *v, size_t n)
{
  json_t *in = ucb_json_obj ();
  size_t finished = 0;
  cleanup_free char *reason = NULL;

  for (size_t i = 0; i < n; i++)
    if (!v[i].not_run)
      finished++;
    else if (!reason)
      reason = xasprintf ("%s %s", v[i].c->id, v[i].why);
  ucb_json_set (in, "signal", ucb_json_int (sig));
  ucb_json_set (in, "reason", ucb_json_str (reason ? reason : "interrupted after the last case"));
  ucb_json_set (in, "cases_finished", ucb_json_int ((long long) finished));
  ucb_json_set (in, "cases_planned", ucb_json_int ((long long) n));
  return in;
}

/* TAP on stdout, or the document (JSON, JUnit) and --output. */
static int
write_outputs (const struct vopts *o, int argc, char **argv, double t_real, uint64_t t0,
               json_t *host, const struct ucb_kernel *k, const struct ucb_vrun *v, size_t n,
               int sig, ucb_error_t *err)
{
  json_t *doc;
  int r = 0;

  if (o->format == VF_TAP)
    print_tap (stdout, v, n);
  if (!(o->format == VF_JSON || o->format == VF_JUNIT || o->output))
    {
      json_decref (host);
      return 0;
    }
  doc = ucb_report_document (argc, argv, t_real, (double) (ucb_now_ns () - t0) / 1e9, host,
                             ucb_json_obj (), ucb_json_arr ());
  ucb_json_set (doc, "verify", verify_json (v, n));
  if (sig)
    ucb_json_set (doc, "verify_interrupted", interrupted_record (sig, v, n));
  ucb_json_set (doc, "verify_kernel",
                ucb_json_checked (json_sprintf ("%u.%u.%u", k->major, k->minor, k->patch)));
  ucb_json_set (doc, "verify_uid_base", ucb_json_int (o->uid_base));
  if (o->output)
    r = ucb_report_write_kept (doc, o->output, "verify", err);
  if (r == 0 && o->format == VF_JSON)
    r = ucb_json_write (doc, stdout, err);
  else if (r == 0 && o->format == VF_JUNIT)
    ucb_export_junit (stdout, doc); /* the same XML as `ucbench export --to junit` */
  json_decref (doc);
  return r;
}

int
ucb_cmd_verify (int argc, char **argv, ucb_error_t *err)
{
  __attribute__ ((cleanup (vopts_free))) struct vopts o = { 0 };
  struct ucb_kernel k;
  cleanup_free struct ucb_vrun *v = NULL;
  size_t n = 0;
  json_t *host = NULL;
  bool bad;
  int sig;
  struct ucb_interrupt_saved saved;
  double t_real = (double) time (NULL);
  uint64_t t0 = ucb_now_ns ();
  int r;

  if (parse (&o, argc, argv, err) < 0)
    return -1;
  if (o.help || o.list)
    {
      if (!o.help) /* which parse() has shown */
        print_list (&o);
      return 0;
    }
  /* A path that cannot be written is the user's to change (2), found before any case runs;
   * so are uids another ucbench holds (1) or that are not safe (2). */
  if ((o.output && ucb_report_check_output (o.output, err) < 0) || claim_uids (&o, err) < 0)
    return -1;
  if (ucb_kernel_probe (&k, err) < 0 || ucb_host_object (&host, err) < 0)
    {
      json_decref (host);
      return -1;
    }
  ucb_install_interrupt_handlers ();
  bad = run_cases (&o, &k, &v, &n);
  sig = ucb_interrupted (); /* while the cases ran: one that comes later cuts none short */
  /* The cases are over: a signal from here on is only noted, so the document is finished
   * (as run does), then verify ends as an interrupted one. */
  ucb_interrupts_defer (&saved);
  r = write_outputs (&o, argc, argv, t_real, t0, host, &k, v, n, sig, err);
  ucb_restore_interrupt_handlers ();
  if (ucb_interrupted_status (r, "", err) < 0)
    return -1;
  if (bad)
    return UCB_EXIT_FAILURE;
  return all_skipped (v, n) ? VERIFY_EXIT_ALL_SKIPPED : 0;
}
