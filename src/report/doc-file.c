/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-file.c - reading a ucbench-result document from a file, with one-line errors for bad input;
 * model.c checks what is inside. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "report/doc-file.h"
#include "report/schema.h"

#define MAX_DOC_BYTES (512ull << 20) /* far above any real sweep; refuses runaway input */

int
ucb_doc_read (const char *path, json_t **out, ucb_error_t *err)
{
  json_error_t jerr;
  struct stat st;
  const char *schema;
  json_t *doc;
  unsigned long major;
  char *end;

  *out = NULL;
  if (stat (path, &st) < 0)
    return ucb_usage_error (err, "`%s`: %s", path, strerror (errno));
  if (!S_ISREG (st.st_mode) && !S_ISFIFO (st.st_mode) && !S_ISCHR (st.st_mode))
    return ucb_usage_error (err, "`%s`: not a regular file", path);
  if (S_ISREG (st.st_mode) && (unsigned long long) st.st_size > MAX_DOC_BYTES)
    return ucb_usage_error (err, "`%s`: %llu bytes, larger than any ucbench document (%llu)", path,
                            (unsigned long long) st.st_size, MAX_DOC_BYTES);
  doc = json_load_file (path, JSON_REJECT_DUPLICATES, &jerr);
  /* jansson gives no position when the file could not be read at all (-1). */
  if (doc == NULL && jerr.line < 0)
    return ucb_usage_error (err, "`%s`: %s", path, jerr.text);
  if (doc == NULL)
    return ucb_usage_error (err, "`%s`: not valid JSON: line %d column %d: %s", path, jerr.line,
                            jerr.column, jerr.text);
  schema = json_string_value (json_object_get (doc, "schema"));
  if (!json_is_object (doc) || schema == NULL || strncmp (schema, "ucbench-result/", 15) != 0)
    {
      json_decref (doc);
      return ucb_usage_error (err, "`%s`: not a ucbench result document (no \"schema\": \"%s\")",
                              path, UCB_SCHEMA);
    }
  errno = 0;
  major = strtoul (schema + 15, &end, 10);
  if (errno || end == schema + 15 || major != 1)
    {
      /* The message first: `schema` points into the document. */
      ucb_usage_error (err, "`%s`: schema `%s` is not one this ucbench reads (%s)%s", path, schema,
                       UCB_SCHEMA, major > 1 ? ": upgrade ucbench" : "");
      json_decref (doc);
      return -1;
    }
  *out = doc;
  return 0;
}

int
ucb_doc_open (const char *path, unsigned kinds, struct ucb_doc *d, ucb_error_t *err)
{
  json_t *json;
  int ret;

  memset (d, 0, sizeof *d);
  if (ucb_doc_read (path, &json, err) < 0)
    return -1;
  ret = ucb_doc_load (json, path, kinds, d, err);
  json_decref (json);
  return ret;
}
