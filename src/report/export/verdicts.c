/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verdicts.c - verify verdicts as JUnit XML and KTAP, for `ucbench export` and
 * `ucbench verify --format junit`, and the TAP/KTAP walker that `ucbench verify` shares; the
 * case text that every verify exporter shows. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/export/exporter.h"
#include "report/model.h"

static double
duration (const struct ucb_doc_case *c)
{
  return isfinite (c->duration_s) ? c->duration_s : 0;
}

/* The verify[] entry of case i: what the model does not keep (expected, observed). */
static json_t *
case_json (const struct ucb_doc *d, size_t i)
{
  return json_array_get (json_object_get (d->json, "verify"), i);
}

size_t
ucb_export_case_repeat (const struct ucb_doc *d, size_t i)
{
  size_t k = 1;

  for (size_t j = 0; j < i; j++)
    k += strcmp (d->cases[j].id, d->cases[i].id) == 0;
  return k;
}

/* An observation the case expected and what it saw, "name: expected E, observed O". */
static void
observation (FILE *f, const char *name, json_t *want, json_t *got)
{
  char *w = json_dumps (want, JSON_ENCODE_ANY);
  char *g = got ? json_dumps (got, JSON_ENCODE_ANY) : NULL;

  fprintf (f, "%s: expected %s, observed %s%s\n", name, w ? w : "?", g ? g : "-",
           got && !json_equal (want, got) ? "  <-- differs" : "");
  free (w);
  free (g);
}

/* The matrix cells a case covers, "cells: parent P2, own P2" (verify.md "The matrix"); nothing
 * for a document written before cells were recorded. */
static void
cells_line (FILE *f, json_t *cells)
{
  size_t i;
  json_t *c;

  if (!json_is_array (cells) || json_array_size (cells) == 0)
    return;
  fputs ("cells:", f);
  json_array_foreach (cells, i, c)
  {
    const char *lv = json_string_value (json_object_get (c, "level"));
    const char *p = json_string_value (json_object_get (c, "property"));
    fprintf (f, "%s %s %s", i ? "," : "", lv ? lv : "?", p ? p : "?");
  }
  fputc ('\n', f);
}

static void
case_text (FILE *f, const struct ucb_doc *d, size_t i)
{
  const struct ucb_doc_case *c = &d->cases[i];
  json_t *o = case_json (d, i);
  json_t *exp = json_object_get (o, "expected"), *obs = json_object_get (o, "observed");
  const char *name;
  json_t *v;

  if (c->detail && *c->detail)
    fprintf (f, "%s\n", c->detail);
  if (c->checks)
    fprintf (f, "checks: %s\n", c->checks);
  if (json_is_string (json_object_get (o, "depends_on")))
    fprintf (f, "depends on: %s\n", json_string_value (json_object_get (o, "depends_on")));
  cells_line (f, json_object_get (o, "cells"));
  json_object_foreach (exp, name, v) observation (f, name, v, json_object_get (obs, name));
}

char *
ucb_export_case_string (const struct ucb_doc *d, size_t i)
{
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&text, &len);

  if (m == NULL)
    ucb_oom ();
  case_text (m, d, i);
  if (fclose (m) != 0)
    ucb_oom ();
  return text;
}

/* ---- JUnit ---------------------------------------------------------------------------------- */

static void junit_case (FILE *f, const struct ucb_doc *d, size_t i);

/* `fl`: unused (no flags in a verify document). */
static void
junit_doc (FILE *f, const struct ucb_doc *d, const struct ucb_flags *fl)
{
  unsigned fail = 0, error = 0, skip = 0;
  double t = 0;

  (void) fl;
  for (size_t i = 0; i < d->n_cases; i++)
    {
      const char *el = ucb_verdict_row (d->cases[i].status)->junit;
      fail += el && strcmp (el, "failure") == 0;
      error += el && strcmp (el, "error") == 0;
      skip += el && strcmp (el, "skipped") == 0;
      t += duration (&d->cases[i]);
    }
  fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  /* junit-10.xsd: <testsuites> has no skipped= (only <testsuite> has). */
  fprintf (f,
           "<testsuites name=\"ucbench verify\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" "
           "time=\"%.3f\">\n",
           d->n_cases, fail, error, t);
  fprintf (f,
           "  <testsuite name=\"limits\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" "
           "skipped=\"%u\" time=\"%.3f\" timestamp=\"",
           d->n_cases, fail, error, skip, t);
  ucb_xml_puts (f, d->start_time ?: "");
  fputs ("\" hostname=\"", f);
  ucb_xml_puts (f, d->host.hostname ?: "");
  fputs ("\">\n", f);
  for (size_t i = 0; i < d->n_cases; i++)
    junit_case (f, d, i);
  fputs ("  </testsuite>\n</testsuites>\n", f);
}

static void
junit_case (FILE *f, const struct ucb_doc *d, size_t i)
{
  const struct ucb_doc_case *c = &d->cases[i];
  const struct ucb_verdict_row *row = ucb_verdict_row (c->status);
  size_t rep = ucb_export_case_repeat (d, i);
  cleanup_free char *text = NULL, *note = NULL;

  fputs ("    <testcase classname=\"limits.", f);
  ucb_xml_puts (f, c->rlimit ?: "none");
  fputs ("\" name=\"", f);
  ucb_xml_puts (f, c->id);
  fputc (' ', f);
  ucb_xml_puts (f, c->name ?: "?");
  /* `verify --repeat`: one testcase per run, each named apart (a reporter merges equal
   * classname + name into one). */
  if (rep > 1)
    fprintf (f, " (repeat %zu)", rep);
  fprintf (f, "\" time=\"%.3f\"", duration (c));
  if (row->junit == NULL)
    {
      fputs ("/>\n", f);
      return;
    }
  fprintf (f, ">\n      <%s ", row->junit);
  if (row->junit_type)
    fprintf (f, "type=\"%s\" ", row->junit_type);
  note = ucb_verdict_note (row, c->status, c->bug_id, c->bug_reference);
  fputs ("message=\"", f);
  ucb_xml_puts (f, note);
  ucb_xml_puts (f, c->detail ?: "");
  /* The text too: GitLab and dorny/test-reporter show the element's text, not message=. */
  text = ucb_export_case_string (d, i);
  fputs ("\">", f);
  ucb_xml_puts (f, text);
  fprintf (f, "</%s>\n    </testcase>\n", row->junit);
}

/* ---- TAP and KTAP --------------------------------------------------------------------------- */

const struct ucb_tap_format ucb_tap13 = { .header = "TAP version 13" };

/* KTAP: a test's diagnostics come before its result line (kunit_parser.py gives the lines since
 * the previous result to the next one). */
const struct ucb_tap_format ucb_ktap1
    = { .header = "KTAP version 1", .ktap = true, .diag_first = true };

/* A document's string on a result line: one line (ucb_escape_controls: every line break a
 * reader knows, U+2028 included, or a "\u2028ok 1" would be read as a result of its own), and
 * '#' as \x23: KTAP's description "can't include #" (kunit_parser.py then reads no result),
 * and a " # SKIP" or " # TODO" in a detail would make a failure a skip to kunit_parser.py or
 * a todo to TAP::Parser. */
static void
tap_puts (FILE *f, const char *s)
{
  cleanup_free char *line = ucb_escape_controls (s ? s : "");

  for (const char *c = line; *c; c++)
    if (*c == '#')
      fputs ("\\x23", f);
    else
      fputc (*c, f);
}

/* "ok 3 ULIM-03 name # TODO known kernel bug ID (REF): detail". */
static void
tap_line (FILE *f, const struct ucb_tap_format *fmt, const struct ucb_tap_case *c, size_t i,
          const struct ucb_verdict_row *row)
{
  const struct ucb_tap_form *form = fmt->ktap ? &row->ktap1 : &row->tap13;
  cleanup_free char *note = NULL;

  fprintf (f, "%s %zu ", form->word, i + 1);
  tap_puts (f, c->id);
  fputc (' ', f);
  tap_puts (f, c->name);
  if (form->directive)
    {
      note = ucb_verdict_note (row, c->status, c->bug_id, c->bug_reference);
      fprintf (f, " # %s ", form->directive);
      tap_puts (f, note);
      tap_puts (f, c->detail);
    }
  fputc ('\n', f);
}

void
ucb_tap_write (FILE *f, const struct ucb_tap_format *fmt, const struct ucb_tap_case *cases,
               size_t n, const struct ucb_tap_hooks *hooks)
{
  unsigned tot[UCB_MEANING_N] = { 0 };

  fprintf (f, "%s\n1..%zu\n", fmt->header, n);
  for (size_t i = 0; i < n; i++)
    {
      const struct ucb_verdict_row *row = ucb_verdict_row (cases[i].status);
      bool diag = (fmt->ktap ? row->ktap1.diag : row->tap13.diag) && hooks->diag;

      tot[row->meaning]++;
      if (diag && fmt->diag_first)
        hooks->diag (f, hooks->ctx, i);
      tap_line (f, fmt, &cases[i], i, row);
      if (diag && !fmt->diag_first)
        hooks->diag (f, hooks->ctx, i);
    }
  if (hooks->before_totals)
    hooks->before_totals (f, hooks->ctx, n);
  fprintf (f, "# Totals: pass:%u fail:%u xfail:%u xpass:0 skip:%u error:%u\n",
           tot[UCB_MEANING_PASS], tot[UCB_MEANING_KERNEL_FAIL], tot[UCB_MEANING_KNOWN_BUG],
           tot[UCB_MEANING_SKIPPED], tot[UCB_MEANING_NO_VERDICT]);
}

/* KTAP diagnostic lines, each "# ...", from the case text of document `ctx`. */
static void
ktap_diagnostics (FILE *f, const void *ctx, size_t i)
{
  cleanup_free char *text = ucb_export_case_string (ctx, i);

  for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL)
    {
      nl = strchr (line, '\n');
      if (nl)
        *nl = '\0';
      fputs ("# ", f);
      ucb_line_puts (f, line);
      fputc ('\n', f);
    }
}

static void
ktap_doc (FILE *f, const struct ucb_doc *d, const struct ucb_flags *fl)
{
  cleanup_free struct ucb_tap_case *cases = xcalloc (d->n_cases + 1, sizeof *cases);
  const struct ucb_tap_hooks hooks = { ktap_diagnostics, NULL, d };

  (void) fl;
  for (size_t i = 0; i < d->n_cases; i++)
    {
      const struct ucb_doc_case *c = &d->cases[i];
      cases[i] = (struct ucb_tap_case){ c->id,           c->name ?: "?", c->status,
                                        c->detail ?: "", c->bug_id,      c->bug_reference };
    }
  ucb_tap_write (f, &ucb_ktap1, cases, d->n_cases, &hooks);
}

/* `write` over a document that ucbench has just built. */
static void
export_built (FILE *f, json_t *doc,
              void (*write) (FILE *, const struct ucb_doc *, const struct ucb_flags *))
{
  struct ucb_doc d;

  if (ucb_doc_built (doc, &d))
    {
      write (f, &d, NULL);
      ucb_doc_free (&d);
    }
}

void
ucb_export_junit (FILE *f, json_t *doc)
{
  export_built (f, doc, junit_doc);
}

const struct ucb_exporter ucb_exporter_junit = { .kinds = UCB_DOC_VERIFY, .text = junit_doc };
const struct ucb_exporter ucb_exporter_ktap = { .kinds = UCB_DOC_VERIFY, .text = ktap_doc };
