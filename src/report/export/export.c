/* SPDX-License-Identifier: GPL-2.0-or-later */
/* export.c - `ucbench export --to FORMAT FILE.json`: a result document, read through the model
 * (report/model.h), handed to its format's descriptor (report/export/exporter.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/json-util.h"
#include "core/util.h"
#include "report/doc-file.h"
#include "report/export/exporter.h"
#include "report/output.h"

#define UCB_EXPORT_NAME(id, var, name) name,
#define UCB_EXPORT_PTR(id, var, name) &var,
const char *const ucb_export_format_names[UCB_EXPORT_N] = { UCB_EXPORTERS (UCB_EXPORT_NAME) };
static const struct ucb_exporter *const exporters[UCB_EXPORT_N]
    = { UCB_EXPORTERS (UCB_EXPORT_PTR) };
const char ucb_export_format_list[]
    = "gab, gab-smaller, bmf, gbench, lkp, junit, ktap, kcidb or lava";

/* What the format needs from the document beyond its kind (the loader checks that); a usage
 * error naming the file otherwise. */
static int
check_input (const struct ucb_exporter *x, const char *name, const struct ucb_doc *d,
             ucb_error_t *err)
{
  if (x->kinds == UCB_DOC_ANY && !d->has_verify && d->n_points == 0)
    return ucb_usage_error (
        err, "%s: neither a verify[] array nor a results[] entry to export as %s", d->name, name);
  if (x->kinds == UCB_DOC_RUN && d->n_measured == 0)
    return ucb_usage_error (err,
                            "%s: no measured results[] entry (status ok) to export as %s "
                            "(a verify document?)",
                            d->name, name);
  return 0;
}

static int
write_text (const struct ucb_exporter *x, const struct ucb_doc *d, const struct ucb_flags *fl,
            const char *output, ucb_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);

  if (m == NULL)
    ucb_oom ();
  x->text (m, d, fl);
  if (fclose (m) != 0)
    ucb_oom ();
  if (output == NULL)
    {
      if (fwrite (buf, 1, len, stdout) != len || fflush (stdout) != 0)
        return ucb_make_error (err, errno, "write to stdout");
      return 0;
    }
  return ucb_report_write_bytes (buf, len, output, err);
}

int
ucb_export_check_origin (const char *origin, ucb_error_t *err)
{
  if (*origin == '\0'
      || strspn (origin, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen (origin))
    return ucb_usage_error (
        err, "invalid --origin `%s` (KCIDB: lower-case letters, digits and _ only)", origin);
  return 0;
}

int
ucb_export (enum ucb_export_format format, const char *input, const char *output,
            const struct ucb_export_opts *opts, ucb_error_t *err)
{
  const struct ucb_exporter *x = exporters[format];
  const struct ucb_export_opts none = { NULL };
  struct ucb_doc d;
  json_t *out = NULL;
  cleanup_free struct ucb_flags *fl = NULL;
  int ret;

  if (ucb_doc_open (input, x->kinds, &d, err) < 0)
    return -1;
  if (check_input (x, ucb_export_format_names[format], &d, err) < 0)
    {
      ucb_doc_free (&d);
      return -1;
    }
  fl = ucb_flags_of_groups (&d);
  if (x->json == NULL)
    ret = write_text (x, &d, fl, output, err);
  else
    {
      out = x->json (&d, fl, opts ? opts : &none);
      ret = output ? ucb_report_write_file (out, output, err) : ucb_json_write (out, stdout, err);
    }
  json_decref (out);
  ucb_doc_free (&d);
  return ret < 0 ? -1 : 0;
}
