/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-meanings.c - the table of meanings (report/meanings.h): every verdict of the schema and
 * every flag ucb_point_flags() writes has a row, a status this version does not know is no
 * verdict (never a pass), and docs/exporters.md shows this very table: the block between its
 * "meanings:" markers is what render() writes from the rows, byte for byte.  After a change to
 * the table, `UCB_MEANINGS_PRINT=1 tests/unit/test-meanings` prints the block to paste. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "core/util.h"
#include "report/meanings.h"
#include "report/model.h"

#define BEGIN                                                                                      \
  "<!-- meanings: generated from src/report/meanings.c by tests/unit/test-meanings.c -->\n"
#define END "<!-- meanings: end -->\n"

/* A TAP line's form: "`not ok # TODO known kernel bug ID (REF): DETAIL`". */
static void
tap_cell (FILE *f, const struct ucb_verdict_row *r, const struct ucb_tap_form *t, bool ktap)
{
  cleanup_free char *note = ucb_verdict_note (r, "S", "ID", "REF");

  fprintf (f, " `%s", t->word);
  if (t->directive)
    fprintf (f, " # %s %sDETAIL", t->directive, note);
  fprintf (f, "`%s |", t->diag ? ktap ? ", diagnostics before" : ", diagnostics after" : "");
}

static void
verdict_row (FILE *f, const struct ucb_verdict_row *r)
{
  cleanup_free char *note = ucb_verdict_note (r, "S", "ID", "REF");

  if (r->status)
    fprintf (f, "| `%s` | %s |", r->status, ucb_meaning_names[r->meaning]);
  else
    fprintf (f, "| any other (`S`) | %s |", ucb_meaning_names[r->meaning]);
  tap_cell (f, r, &r->tap13, false);
  tap_cell (f, r, &r->ktap1, true);
  if (r->junit)
    fprintf (f, " `<%s%s%s%s message=\"%sDETAIL\">` |", r->junit, r->junit_type ? " type=\"" : "",
             r->junit_type ? r->junit_type : "", r->junit_type ? "\"" : "", note);
  else
    fputs (" no element |", f);
  if (r->lava_reference)
    fprintf (f, " `lava-test-reference verify.ID --result %s --reference URL` |", r->lava);
  else
    fprintf (f, " `lava-test-case verify.ID --result %s` |", r->lava);
  fprintf (f, " `%s`%s |", r->kcidb,
           r->kcidb_incident ? " + an incident of issue `ucbench.bug.ID` (culprit: code)" : "");
  fprintf (f, " %d |\n", r->fails_run);
}

static void
point_row (FILE *f, const struct ucb_point_row *r)
{
  bool fl = r->meaning == UCB_MEANING_FLAGGED;

  fprintf (f, "| %s | %s | %s |", fl ? "flagged" : "clean", ucb_meaning_names[r->meaning], r->text);
  if (fl)
    fprintf (f,
             " `extra` ends `%sFLAGS` | name ends `%s` | `label: \"%sFLAGS\"` |"
             " `POINT.%s.FLAG: 1` per flag |",
             r->gab, r->bmf, r->gbench, r->flag_key);
  else
    fputs (" - | - | - | - |", f);
  fprintf (f, " metrics `--result %s`%s%s%s |", r->lava, fl ? ", a case `POINT." : "",
           fl ? r->flag_key : "", fl ? ".FLAG` per flag" : "");
  fprintf (f, " `%s`%s | %s |\n", r->kcidb,
           r->kcidb_incident ? " + per flag an incident of issue `ucbench.flag.FLAG` (culprit: "
                               "harness)"
                             : "",
           r->ci);
}

/* The block of docs/exporters.md (free it). */
static char *
render (void)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&text, &len);

  if (f == NULL)
    abort ();
  fputs (BEGIN, f);
  fputs ("| status | meaning | TAP 13 (`ucbench verify`) | KTAP (`--to ktap`) | JUnit "
         "(`--to junit`) | LAVA (`--to lava`) | KCIDB test (`--to kcidb`) | exit 1 |\n"
         "|---|---|---|---|---|---|---|---|\n",
         f);
  for (size_t i = 0; i < UCB_VERDICT_ROWS; i++)
    verdict_row (f, &ucb_verdict_rows[i]);
  fputs ("\n| point | meaning | text, CSV, plot | gab | bmf | gbench | lkp | LAVA | KCIDB "
         "metric tests | CI examples |\n|---|---|---|---|---|---|---|---|---|---|\n",
         f);
  for (size_t i = 0; i < 2; i++)
    point_row (f, &ucb_point_rows[i]);
  fputs ("\n| flag (`FLAG`) | why the point is flagged |\n|---|---|\n", f);
  for (size_t i = 0; ucb_flag_rows[i].name; i++)
    fprintf (f, "| `%s` | %s |\n", ucb_flag_rows[i].name, ucb_flag_rows[i].why);
  fputs (END, f);
  fclose (f);
  return text;
}

static char *
read_all (const char *path)
{
  FILE *f = fopen (path, "r");
  char *buf = NULL;
  size_t len = 0;

  if (f == NULL)
    return NULL;
  if (getdelim (&buf, &len, '\0', f) < 0)
    {
      free (buf);
      buf = NULL;
    }
  fclose (f);
  return buf;
}

static void
test_docs_show_the_table (void)
{
  const char *top = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/docs/exporters.md", top ? top : ".");
  cleanup_free char *doc = read_all (path), *want = render (), *got = NULL;
  const char *at = doc ? strstr (doc, BEGIN) : NULL, *end = at ? strstr (at, END) : NULL;

  if (getenv ("UCB_MEANINGS_PRINT"))
    fputs (want, stdout);
  if (doc == NULL)
    {
      tap_skip ("docs/exporters.md not found (top_srcdir unset)");
      return;
    }
  tap_require (at && end);
  got = xasprintf ("%.*s", (int) (end + strlen (END) - at), at);
  tap_check_str (got, want);
}

static void
test_every_status_and_flag_has_a_row (void)
{
  static const char *const statuses[] = { "pass", "fail", "skip", "error", "known-bug" };
  struct ucb_doc_point p = { 0 };
  char flags[UCB_POINT_FLAGS_MAX];
  const char *s = flags, *flag;
  size_t n, k = 0;

  /* The schema's enum (model-ranges.c verdict_words), each its own row. */
  for (size_t i = 0; i < UCB_ARRAY_SIZE (statuses); i++)
    tap_check_str (ucb_verdict_row (statuses[i])->status, statuses[i]);
  /* Anything else is no verdict, and fails the run: never silently a pass. */
  tap_check (ucb_verdict_row ("passed")->meaning == UCB_MEANING_NO_VERDICT);
  tap_check (ucb_verdict_row (NULL)->fails_run);
  tap_check (ucb_verdict_row ("known-bug")->meaning == UCB_MEANING_KNOWN_BUG);
  /* Every flag the model can write (all of its causes at once) has its own description. */
  p.contention.starved = p.contention.contended = p.canary.moved = true;
  p.contention.unjudged = true;
  tap_require (ucb_point_flags (&p, flags, sizeof flags));
  while (ucb_flag_next (&s, &flag, &n))
    {
      k++;
      if (strcmp (ucb_flag_why (flag, n), ucb_flag_why ("", 0)) == 0)
        printf ("# flag %.*s has no row in ucb_flag_rows\n", (int) n, flag);
      tap_check (strcmp (ucb_flag_why (flag, n), ucb_flag_why ("", 0)) != 0);
    }
  tap_check_int (k, ==, 4);
  /* A flagged point never reads as a failure: no consumer form of it is a failing one. */
  tap_check (!ucb_point_rows[1].kcidb_incident || strcmp (ucb_point_rows[1].kcidb, "DONE") == 0);
  tap_check (strcmp (ucb_point_rows[1].lava, "fail") != 0);
}

static const struct tap_test tests[] = {
  { "every verdict of the schema and every flag of ucb_point_flags has a row; an unknown status "
    "is no verdict",
    test_every_status_and_flag_has_a_row },
  { "docs/exporters.md shows the table as it is in src/report/meanings.c",
    test_docs_show_the_table },
};

TAP_MAIN (tests)
