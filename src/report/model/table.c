/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c - `ucbench model`'s input (table.h): a document, or the user's own
 * numbers as a document in memory.  A user of will-it-scale or of a benchmark of their own has a
 * column of numbers, not a ucbench run; the fit needs only (N, per-container ops/s) pairs, so a
 * table is read into the points the fit takes from a document, and nothing downstream knows the
 * difference.  The forms (docs/statistics.md, "Your own numbers"):
 *   - a table: N, ops/s per container, an optional repeat, separated by commas or blanks; a
 *     header line optional, `#` comments;
 *   - will-it-scale's runtest.py output: the header tasks,processes,processes_idle,threads,
 *     threads_idle,linear, then a row per task count; `processes` is the total ops/s of all the
 *     processes, so per container (a task is taken as one container) it is processes / tasks.
 * The first byte that is not a blank tells a document (`{`, `[`: JSON) from a table. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/doc-file.h"
#include "report/model/parts.h"
#include "report/usl-doc.h"

/* Far above any container count, and a double holds every N up to it exactly. */
#define MAX_N 1000000000ull
#define MAX_FIELDS 16

/* runtest.py prints this header, then `0,0,100,0,100,0`, then a row per task count. */
static const char wis_header[] = "tasks,processes,processes_idle,threads,threads_idle,linear";
#define WIS_COLS 6
#define BOM "\xef\xbb\xbf" /* a UTF-8 byte order mark, as spreadsheets write one */

enum form
{
  FORM_TABLE,
  FORM_WIS,
};

struct row
{
  long long n, repeat; /* repeat 0: not given, numbered by the order of the rows of its N */
  double x;            /* ops/s per container */
  size_t line;
};

struct reader
{
  const char *path;
  enum form form;
  char *header; /* the first header line, trimmed; NULL when the table has none */
  size_t cols;  /* a table's columns (2 or 3), from its header or first row; 0 before */
  struct row *rows;
  size_t n_rows, cap;
};

static int __attribute__ ((format (printf, 4, 5)))
bad (const struct reader *r, size_t line, ucb_error_t *err, const char *fmt, ...)
{
  cleanup_free char *what = NULL;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&what, fmt, ap) < 0)
    ucb_oom ();
  va_end (ap);
  return ucb_usage_error (err, "`%s`: line %zu: %s", r->path, line, what);
}

/* The fields of `line` (cut in place): comma-separated when it has a comma (each field's blanks
 * trimmed, an empty one SIZE_MAX), else blank-separated.  Only the first `max` are stored. */
static size_t
split (char *line, char **f, size_t max)
{
  bool comma = strchr (line, ',') != NULL;
  char *p = line;
  size_t n = 0;

  for (;;)
    {
      char *start, *end, *e;
      bool last;

      while (*p == ' ' || *p == '\t')
        p++;
      if (!comma && *p == '\0')
        return n;
      start = p;
      end = comma ? p + strcspn (p, ",") : p + strcspn (p, " \t");
      last = *end == '\0';
      for (e = end; e > start && (e[-1] == ' ' || e[-1] == '\t'); e--)
        ;
      *e = '\0';
      if (comma && e == start)
        return SIZE_MAX;
      if (n < max)
        f[n] = start;
      n++;
      if (last)
        return n;
      p = end + 1;
    }
}

/* A rate: a decimal above 0 (no sign, no inf or nan). */
static int
parse_rate (const char *s, double *out)
{
  return ucb_parse_seconds (s, 0, 1e300, out) < 0 || !(*out > 0) ? -1 : 0;
}

static void
add_row (struct reader *r, uint64_t n, uint64_t repeat, double x, size_t line)
{
  if (r->n_rows == r->cap)
    {
      r->cap = r->cap ? 2 * r->cap : 64;
      r->rows = xrealloc (r->rows, r->cap * sizeof *r->rows);
    }
  r->rows[r->n_rows++] = (struct row){ (long long) n, (long long) repeat, x, line };
}

static int
table_row (struct reader *r, char **f, size_t nf, size_t line, ucb_error_t *err)
{
  uint64_t n, repeat = 0;
  double x;

  if (r->cols == 0 && (nf == 2 || nf == 3))
    r->cols = nf;
  if (nf != r->cols)
    return r->cols ? bad (r, line, err, "%zu columns where the table has %zu", nf, r->cols)
                   : bad (r, line, err,
                          "%zu columns; a table has N, ops/s per container and an optional "
                          "repeat",
                          nf);
  if (ucb_parse_u64 (f[0], 1, MAX_N, &n) < 0)
    return bad (r, line, err, "N `%.40s` is not a whole number from 1 to %llu", f[0], MAX_N);
  if (parse_rate (f[1], &x) < 0)
    return bad (r, line, err, "ops/s per container `%.40s` is not a number above 0", f[1]);
  if (nf == 3 && ucb_parse_u64 (f[2], 1, MAX_N, &repeat) < 0)
    return bad (r, line, err, "repeat `%.40s` is not a whole number from 1 to %llu", f[2], MAX_N);
  add_row (r, n, repeat, x, line);
  return 0;
}

static int
wis_row (struct reader *r, char **f, size_t nf, size_t line, ucb_error_t *err)
{
  uint64_t tasks;
  double x;

  if (nf != WIS_COLS)
    return bad (r, line, err, "%zu columns where will-it-scale's rows have %d (%s)", nf, WIS_COLS,
                wis_header);
  if (ucb_parse_u64 (f[0], 0, MAX_N, &tasks) < 0)
    return bad (r, line, err, "tasks `%.40s` is not a whole number from 0 to %llu", f[0], MAX_N);
  if (tasks == 0)
    return 0; /* runtest.py's first row, `0,0,100,0,100,0`: no task, nothing measured */
  if (strcmp (f[1], "-1") == 0)
    return bad (r, line, err,
                "processes is -1: runtest.py got no average from the processes "
                "run of %llu tasks",
                (unsigned long long) tasks);
  if (parse_rate (f[1], &x) < 0)
    return bad (r, line, err, "processes `%.40s` is not a number above 0", f[1]);
  add_row (r, tasks, 0, x / (double) tasks, line);
  return 0;
}

/* A line that does not start with a number: the header, when it is the first line of the table
 * or repeats it (runs concatenated: `cat run1.csv run2.csv`). */
static int
header_line (struct reader *r, char *text, size_t line, ucb_error_t *err)
{
  cleanup_free char *copy = xstrdup (text);
  char *f[MAX_FIELDS] = { NULL };
  size_t nf;

  if (r->header)
    return strcmp (r->header, text) == 0
               ? 0
               : bad (r, line, err, "`%.40s` is not a number (a header only opens the table)",
                      text);
  if (r->n_rows > 0 || r->cols > 0)
    return bad (r, line, err, "`%.40s` is not a number (a header only opens the table)", text);
  r->header = xstrdup (text);
  nf = split (copy, f, MAX_FIELDS);
  if (nf == WIS_COLS)
    {
      cleanup_free char *joined
          = xasprintf ("%s,%s,%s,%s,%s,%s", f[0], f[1], f[2], f[3], f[4], f[5]);
      if (strcmp (joined, wis_header) == 0)
        {
          r->form = FORM_WIS;
          return 0;
        }
    }
  if (nf != 2 && nf != 3)
    return bad (r, line, err,
                "a header of %zu columns; a table has N, ops/s per container and an optional "
                "repeat (or is will-it-scale's runtest.py output: %s)",
                nf == SIZE_MAX ? 0 : nf, wis_header);
  r->cols = nf;
  return 0;
}

static int
read_line (struct reader *r, char *text, size_t line, ucb_error_t *err)
{
  char *f[MAX_FIELDS] = { NULL }, *hash = strchr (text, '#'), *end;
  size_t nf;

  if (hash)
    *hash = '\0';
  while (*text == ' ' || *text == '\t')
    text++;
  end = text + strlen (text);
  while (end > text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    *--end = '\0';
  if (*text == '\0')
    return 0;
  if (strchr ("0123456789.+-", *text) == NULL)
    return header_line (r, text, line, err);
  nf = split (text, f, MAX_FIELDS);
  if (nf == SIZE_MAX)
    return bad (r, line, err, "an empty field between commas");
  if (nf > MAX_FIELDS)
    return bad (r, line, err,
                "%zu columns; a table has N, ops/s per container and an optional "
                "repeat",
                nf);
  return r->form == FORM_WIS ? wis_row (r, f, nf, line, err) : table_row (r, f, nf, line, err);
}

static int
cmp_row (const void *a, const void *b)
{
  const struct row *x = a, *y = b;
  if (x->n != y->n)
    return (x->n > y->n) - (x->n < y->n);
  if (x->repeat != y->repeat)
    return (x->repeat > y->repeat) - (x->repeat < y->repeat);
  return (x->line > y->line) - (x->line < y->line);
}

/* Number the repeats not given (1, 2, ... in the order of the rows of each N); two rows of the
 * same N and repeat are an error. */
static int
number_repeats (struct reader *r, ucb_error_t *err)
{
  qsort (r->rows, r->n_rows, sizeof *r->rows, cmp_row);
  for (size_t i = 0; i < r->n_rows; i++)
    {
      struct row *w = &r->rows[i], *prev = i ? &r->rows[i - 1] : NULL;
      bool same_n = prev && prev->n == w->n;

      if (w->repeat == 0)
        w->repeat = same_n ? prev->repeat + 1 : 1;
      else if (same_n && prev->repeat == w->repeat)
        return bad (r, w->line, err, "N=%lld repeat %lld again (first on line %zu)", w->n,
                    w->repeat, prev->line);
    }
  return 0;
}

/* The rows as the points of a run document of one series. */
static void
make_doc (const struct reader *r, struct ucb_doc *d)
{
  memset (d, 0, sizeof *d);
  d->kind = UCB_DOC_RUN;
  d->name = r->path;
  d->host.cpus_online = d->host.cpus_allowed = -1;
  d->config = (struct ucb_doc_config){
    .duration_s = NAN, .warmup_s = NAN, .interval_s = NAN, .repeat = 1
  };
  d->points_finished = d->points_planned = -1;
  d->n_points = d->n_measured = r->n_rows;
  d->points = xcalloc (r->n_rows + 1, sizeof *d->points);
  for (size_t i = 0; i < r->n_rows; i++)
    {
      const struct row *w = &r->rows[i];
      d->points[i] = (struct ucb_doc_point){
        .workload = r->form == FORM_WIS ? "will-it-scale" : "table",
        .owner = UCB_TABLE_OWNER,
        .mode = "process",
        .containers = w->n,
        .depth = 0,
        .tasks = 1,
        .repeat = w->repeat,
        .status = "ok",
        .measured = true,
        .sum = { .total_ops_per_s = w->x * (double) w->n,
                 .per_container_ops = w->x,
                 .scalability = NAN,
                 .fairness = NAN,
                 .cv = NAN,
                 .cpu_ns_per_op = NAN },
        .contention = { .cpu_share_median = NAN,
                        .steal_pct_max = NAN,
                        .idle_pct_min = NAN,
                        .fair_share = NAN,
                        .window_needed_s = NAN },
        .canary = { .before = NAN, .after = NAN, .change_pct = NAN },
      };
      d->has_repeats = d->has_repeats || w->repeat > 1;
      if (w->repeat > d->config.repeat)
        d->config.repeat = w->repeat;
    }
  d->n_series = d->n_workloads = r->n_rows ? 1 : 0;
}

static int
parse_table (const char *path, char *text, size_t len, struct ucb_doc *d, ucb_error_t *err)
{
  struct reader r = { .path = path, .form = FORM_TABLE };
  size_t line = 1;
  char *p = text + (strncmp (text, BOM, 3) == 0 ? 3 : 0);
  int ret = 0;

  if (strlen (text) != len)
    {
      for (const char *q = text; q < text + strlen (text); q++)
        line += *q == '\n';
      return bad (&r, line, err, "a NUL byte: not a table of numbers");
    }
  while (ret == 0 && *p)
    {
      char *nl = strchr (p, '\n');
      if (nl)
        *nl = '\0';
      ret = read_line (&r, p, line++, err);
      p = nl ? nl + 1 : p + strlen (p);
    }
  if (ret == 0 && r.n_rows == 0)
    ret = ucb_usage_error (err, "`%s`: no rows of numbers: nothing to model", path);
  if (ret == 0)
    ret = number_repeats (&r, err);
  if (ret == 0)
    make_doc (&r, d);
  free (r.rows);
  free (r.header);
  return ret < 0 ? -1 : 0;
}

int
ucb_model_input_open (const char *path, struct ucb_doc *d, ucb_error_t *err)
{
  cleanup_free char *text = NULL;
  const char *first;
  json_t *json;
  size_t len;
  int ret;

  memset (d, 0, sizeof *d);
  if (ucb_doc_read_text (path, &text, &len, err) < 0)
    return -1;
  first = text + strspn (text, " \t\r\n");
  if (strncmp (first, BOM, 3) == 0)
    first += 3 + strspn (first + 3, " \t\r\n");
  if (*first != '{' && *first != '[')
    return parse_table (path, text, len, d, err);
  if (ucb_doc_parse (path, text, len, &json, err) < 0)
    return -1;
  ret = ucb_doc_load (json, path, UCB_DOC_RUN, d, err);
  json_decref (json);
  return ret;
}
