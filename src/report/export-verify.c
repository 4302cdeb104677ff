/* export-verify.c - verify verdicts as JUnit XML and KTAP, for `ucbench export` and
 * `ucbench verify --format junit`. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/json-util.h"
#include "core/util.h"
#include "report/export.h"

void
ucb_export_junit (FILE *f, json_t *doc)
{
  json_t *ver = json_object_get (doc, "verify"), *v;
  unsigned fail = 0, error = 0, skip = 0;
  double t = 0;
  size_t i;

  json_array_foreach (ver, i, v)
  {
    const char *st = ucb_json_str_or (v, "status", "error");
    fail += strcmp (st, "fail") == 0;
    error += strcmp (st, "error") == 0;
    skip += strcmp (st, "skip") == 0 || strcmp (st, "known-bug") == 0;
    t += json_number_value (json_object_get (v, "duration_s"));
  }
  fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf (f,
           "<testsuites name=\"ucbench verify\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" "
           "skipped=\"%u\" time=\"%.3f\">\n",
           json_array_size (ver), fail, error, skip, t);
  fprintf (f,
           "  <testsuite name=\"limits\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" "
           "skipped=\"%u\" time=\"%.3f\" timestamp=\"",
           json_array_size (ver), fail, error, skip, t);
  ucb_xml_puts (f, ucb_json_str_or (json_object_get (doc, "run"), "start_time", ""));
  fputs ("\" hostname=\"", f);
  ucb_xml_puts (f, ucb_json_str_or (json_object_get (doc, "host"), "hostname", ""));
  fputs ("\">\n", f);
  json_array_foreach (ver, i, v)
  {
    const char *st = ucb_json_str_or (v, "status", "error");
    const char *tag = strcmp (st, "fail") == 0                                    ? "failure"
                      : strcmp (st, "skip") == 0 || strcmp (st, "known-bug") == 0 ? "skipped"
                      : strcmp (st, "pass") == 0                                  ? NULL
                                                                                  : "error";

    fputs ("    <testcase classname=\"limits.", f);
    ucb_xml_puts (f, ucb_json_str_or (v, "rlimit", "none"));
    fputs ("\" name=\"", f);
    ucb_xml_puts (f, ucb_json_str_or (v, "id", "?"));
    fputc (' ', f);
    ucb_xml_puts (f, ucb_json_str_or (v, "name", "?"));
    fprintf (f, "\" time=\"%.3f\"", json_number_value (json_object_get (v, "duration_s")));
    if (tag == NULL)
      {
        fputs ("/>\n", f);
        continue;
      }
    fprintf (f, ">\n      <%s message=\"", tag);
    if (strcmp (st, "known-bug") == 0)
      fputs ("known kernel bug: ", f);
    else if (strcmp (tag, "error") == 0 && strcmp (st, "error") != 0)
      fprintf (f, "unknown status %s: ", st); /* never silently a pass */
    ucb_xml_puts (f, ucb_json_str_or (v, "detail", ""));
    fputs ("\"/>\n    </testcase>\n", f);
  }
  fputs ("  </testsuite>\n</testsuites>\n", f);
}

/* One line of KTAP: a newline in a detail would end the line early. */
static void
oneline (FILE *f, const char *s)
{
  for (; *s; s++)
    fputc (*s == '\n' ? ' ' : *s, f);
}

void
ucb_export_ktap (FILE *f, json_t *doc)
{
  json_t *ver = json_object_get (doc, "verify"), *v;
  unsigned pass = 0, fail = 0, xfail = 0, skip = 0, error = 0;
  size_t i;

  fprintf (f, "KTAP version 1\n1..%zu\n", json_array_size (ver));
  json_array_foreach (ver, i, v)
  {
    const char *st = ucb_json_str_or (v, "status", "error");
    bool ok = strcmp (st, "pass") == 0 || strcmp (st, "skip") == 0 || strcmp (st, "known-bug") == 0;

    fprintf (f, "%s %zu %s %s", ok ? "ok" : "not ok", i + 1, ucb_json_str_or (v, "id", "?"),
             ucb_json_str_or (v, "name", "?"));
    if (strcmp (st, "pass") == 0)
      pass++;
    else if (strcmp (st, "skip") == 0)
      {
        skip++;
        fputs (" # SKIP ", f);
        oneline (f, ucb_json_str_or (v, "detail", ""));
      }
    else if (strcmp (st, "known-bug") == 0)
      {
        xfail++;
        fputs (" # XFAIL known kernel bug: ", f);
        oneline (f, ucb_json_str_or (v, "detail", ""));
      }
    else if (strcmp (st, "fail") == 0)
      {
        fail++;
        fputs ("\n# ", f);
        oneline (f, ucb_json_str_or (v, "detail", ""));
        fputs ("\n# checks: ", f);
        oneline (f, ucb_json_str_or (v, "checks", ""));
      }
    else
      {
        error++;
        fputs (" # ERROR ", f);
        if (strcmp (st, "error") != 0)
          fprintf (f, "unknown status %s: ", st);
        oneline (f, ucb_json_str_or (v, "detail", ""));
      }
    fputc ('\n', f);
  }
  fprintf (f, "# Totals: pass:%u fail:%u xfail:%u xpass:0 skip:%u error:%u\n", pass, fail, xfail,
           skip, error);
}

/* ---- output --------------------------------------------------------------------------------- */
