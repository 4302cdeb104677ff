/* export-verify.c - verify verdicts as JUnit XML and KTAP, for `ucbench export` and
 * `ucbench verify --format junit`. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "report/export.h"
#include "report/model.h"

static double
duration (const struct ucb_doc_case *c)
{
  return isfinite (c->duration_s) ? c->duration_s : 0;
}

static void junit_case (FILE *f, const struct ucb_doc_case *c);

void
ucb_export_junit_doc (FILE *f, const struct ucb_doc *d)
{
  unsigned fail = 0, error = 0, skip = 0;
  double t = 0;

  for (size_t i = 0; i < d->n_cases; i++)
    {
      const char *st = d->cases[i].status;
      fail += strcmp (st, "fail") == 0;
      error += strcmp (st, "error") == 0;
      skip += strcmp (st, "skip") == 0 || strcmp (st, "known-bug") == 0;
      t += duration (&d->cases[i]);
    }
  fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf (f,
           "<testsuites name=\"ucbench verify\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" "
           "skipped=\"%u\" time=\"%.3f\">\n",
           d->n_cases, fail, error, skip, t);
  fprintf (f,
           "  <testsuite name=\"limits\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" "
           "skipped=\"%u\" time=\"%.3f\" timestamp=\"",
           d->n_cases, fail, error, skip, t);
  ucb_xml_puts (f, d->start_time ?: "");
  fputs ("\" hostname=\"", f);
  ucb_xml_puts (f, d->host.hostname ?: "");
  fputs ("\">\n", f);
  for (size_t i = 0; i < d->n_cases; i++)
    junit_case (f, &d->cases[i]);
  fputs ("  </testsuite>\n</testsuites>\n", f);
}

static void
junit_case (FILE *f, const struct ucb_doc_case *c)
{
  {
    const char *st = c->status;
    const char *tag = strcmp (st, "fail") == 0                                    ? "failure"
                      : strcmp (st, "skip") == 0 || strcmp (st, "known-bug") == 0 ? "skipped"
                      : strcmp (st, "pass") == 0                                  ? NULL
                                                                                  : "error";

    fputs ("    <testcase classname=\"limits.", f);
    ucb_xml_puts (f, c->rlimit ?: "none");
    fputs ("\" name=\"", f);
    ucb_xml_puts (f, c->id);
    fputc (' ', f);
    ucb_xml_puts (f, c->name ?: "?");
    fprintf (f, "\" time=\"%.3f\"", duration (c));
    if (tag == NULL)
      {
        fputs ("/>\n", f);
        return;
      }
    fprintf (f, ">\n      <%s message=\"", tag);
    if (strcmp (st, "known-bug") == 0)
      fputs ("known kernel bug: ", f);
    else if (strcmp (tag, "error") == 0 && strcmp (st, "error") != 0)
      fprintf (f, "unknown status %s: ", st); /* never silently a pass */
    ucb_xml_puts (f, c->detail ?: "");
    fputs ("\"/>\n    </testcase>\n", f);
  }
}

/* One line of KTAP: a newline in a detail would end the line early. */
static void
oneline (FILE *f, const char *s)
{
  for (; *s; s++)
    fputc (*s == '\n' ? ' ' : *s, f);
}

void
ucb_export_ktap_doc (FILE *f, const struct ucb_doc *d)
{
  unsigned pass = 0, fail = 0, xfail = 0, skip = 0, error = 0;

  fprintf (f, "KTAP version 1\n1..%zu\n", d->n_cases);
  for (size_t i = 0; i < d->n_cases; i++)
    {
      const struct ucb_doc_case *c = &d->cases[i];
      const char *st = c->status;
      const char *detail = c->detail ?: "";
      bool ok
          = strcmp (st, "pass") == 0 || strcmp (st, "skip") == 0 || strcmp (st, "known-bug") == 0;

      fprintf (f, "%s %zu %s %s", ok ? "ok" : "not ok", i + 1, c->id, c->name ?: "?");
      if (strcmp (st, "pass") == 0)
        pass++;
      else if (strcmp (st, "skip") == 0)
        {
          skip++;
          fputs (" # SKIP ", f);
          oneline (f, detail);
        }
      else if (strcmp (st, "known-bug") == 0)
        {
          xfail++;
          fputs (" # XFAIL known kernel bug: ", f);
          oneline (f, detail);
        }
      else if (strcmp (st, "fail") == 0)
        {
          fail++;
          fputs ("\n# ", f);
          oneline (f, detail);
          fputs ("\n# checks: ", f);
          oneline (f, c->checks ?: "");
        }
      else
        {
          error++;
          fputs (" # ERROR ", f);
          if (strcmp (st, "error") != 0)
            fprintf (f, "unknown status %s: ", st);
          oneline (f, detail);
        }
      fputc ('\n', f);
    }
  fprintf (f, "# Totals: pass:%u fail:%u xfail:%u xpass:0 skip:%u error:%u\n", pass, fail, xfail,
           skip, error);
}

/* `write` over a document that ucbench has just built. */
static void
export_built (FILE *f, json_t *doc, void (*write) (FILE *, const struct ucb_doc *))
{
  struct ucb_doc d;

  if (ucb_doc_built (doc, &d))
    {
      write (f, &d);
      ucb_doc_free (&d);
    }
}

void
ucb_export_junit (FILE *f, json_t *doc)
{
  export_built (f, doc, ucb_export_junit_doc);
}

void
ucb_export_ktap (FILE *f, json_t *doc)
{
  export_built (f, doc, ucb_export_ktap_doc);
}
