/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options-lists.c - the value parsers of `ucbench run` options: lists, owners, limits, CPUs;
 * and the --format of every command. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/lists.h"
#include "core/util.h"
#include "engine/owner.h"
#include "engine/workload.h"

/* A comma list of distinct values: `parse` turns each item into the next `size`-byte element
 * of *out, `same` compares two.  Usage errors name `what` (the list) or `dup_what` (a value
 * given twice). */
static int
parse_distinct (const char *s, const char *what, const char *dup_what, size_t size,
                int (*parse) (char *item, void *elem, const void *ctx, ucb_error_t *err),
                bool (*same) (const void *a, const void *b), const void *ctx, void **out, size_t *n,
                ucb_error_t *err)
{
  cleanup_items struct ucb_items items = { NULL, 0 };
  cleanup_free char *v = NULL;

  if (ucb_split_list (s, what, &items, err) < 0)
    return -1;
  v = xcalloc (items.n, size);
  for (size_t i = 0; i < items.n; i++)
    {
      if (parse (items.v[i], v + i * size, ctx, err) < 0)
        return -1;
      for (size_t j = 0; j < i; j++)
        if (same (v + j * size, v + i * size))
          return ucb_usage_error (err, "duplicate %s `%s`", dup_what, items.v[i]);
    }
  *out = steal_pointer (&v);
  *n = items.n;
  return 0;
}

struct uint_range
{
  unsigned min, max;
  const char *what;
};

static int
parse_uint_item (char *item, void *elem, const void *ctx, ucb_error_t *err)
{
  const struct uint_range *r = ctx;
  uint64_t x;

  if (ucb_parse_u64 (item, r->min, r->max, &x) < 0)
    return ucb_usage_error (err, "invalid %s `%s`: expected an integer from %u to %u", r->what,
                            item, r->min, r->max);
  *(unsigned *) elem = (unsigned) x;
  return 0;
}

static bool
same_uint (const void *a, const void *b)
{
  return *(const unsigned *) a == *(const unsigned *) b;
}

int
ucb_parse_uint_list (const char *s, unsigned min, unsigned max, unsigned **out, size_t *n,
                     const char *what, ucb_error_t *err)
{
  const struct uint_range r = { min, max, what };
  void *v = NULL;

  if (parse_distinct (s, what, what, sizeof **out, parse_uint_item, same_uint, &r, &v, n, err) < 0)
    return -1;
  *out = v;
  return 0;
}

/* UID-UID: 1 <= first <= last <= UCB_MAX_UID. */
static int
parse_owner_range (char *it, char *dash, struct ucb_owner_mode *m, ucb_error_t *err)
{
  uint64_t lo, hi;
  int ok;

  *dash = '\0';
  ok = ucb_parse_u64 (it, 1, UCB_MAX_UID, &lo) == 0
       && ucb_parse_u64 (dash + 1, 1, UCB_MAX_UID, &hi) == 0 && lo <= hi;
  *dash = '-';
  if (!ok)
    return ucb_usage_error (err,
                            "invalid owner range `%s`: expected UID-UID, 1 <= first <= last "
                            "<= %u (use `root` for uid 0)",
                            it, UCB_MAX_UID);
  m->kind = UCB_OWNER_RANGE;
  m->lo = (uint32_t) lo;
  m->hi = (uint32_t) hi;
  return 0;
}

/* What --owner takes, as the error lists it (UID and UID-UID stand for numbers). */
static const char *const owner_keywords[]
    = { "shared", "distinct", "root", "self", "UID", "UID-UID" };

static int
parse_owner_item (char *it, void *elem, const void *ctx, ucb_error_t *err)
{
  struct ucb_owner_mode *m = elem;
  char *dash = strchr (it, '-');
  uint64_t lo;
  int k = ucb_name_index (ucb_owner_kind_names, UCB_N_OWNER_KINDS, it);

  (void) ctx;
  if (k >= 0)
    {
      m->kind = (enum ucb_owner_kind) k;
      return 0;
    }
  if (dash == NULL && ucb_parse_u64 (it, 1, UCB_MAX_UID, &lo) == 0)
    {
      m->kind = UCB_OWNER_UID;
      m->lo = m->hi = (uint32_t) lo;
      return 0;
    }
  if (dash != NULL)
    return parse_owner_range (it, dash, m, err);
  if (*it >= '0' && *it <= '9')
    return ucb_usage_error (err, "invalid owner uid `%s`: expected 1 to %u (use `root` for uid 0)",
                            it, UCB_MAX_UID);
  return ucb_keyword_error (err, "unknown owner mode", it, owner_keywords,
                            UCB_ARRAY_SIZE (owner_keywords), NULL);
}

static bool
same_owner (const void *a, const void *b)
{
  return ucb_owner_same (a, b);
}

int
ucb_parse_owner_list (const char *s, struct ucb_owner_mode **out, size_t *n, ucb_error_t *err)
{
  void *v = NULL;

  if (parse_distinct (s, "owner", "owner mode", sizeof **out, parse_owner_item, same_owner, NULL,
                      &v, n, err)
      < 0)
    return -1;
  *out = v;
  return 0;
}

static const char *const format_names[] = {
  [UCB_FORMAT_TEXT] = "text",
  [UCB_FORMAT_JSON] = "json",
  [UCB_FORMAT_CSV] = "csv",
};

int
ucb_parse_format_as (const char *arg, bool csv, enum ucb_format *out, ucb_error_t *err)
{
  /* listed as ever: json first, csv where taken */
  static const char *const keywords[] = { "json", "text", "csv" };
  int k = ucb_name_index (format_names, UCB_ARRAY_SIZE (format_names), arg);

  if (k < 0 || (k == UCB_FORMAT_CSV && !csv))
    return ucb_keyword_error (err, "invalid --format", arg, keywords,
                              csv ? UCB_ARRAY_SIZE (keywords) : 2, NULL);
  *out = (enum ucb_format) k;
  return 0;
}

int
ucb_parse_format (const char *arg, enum ucb_format *out, ucb_error_t *err)
{
  return ucb_parse_format_as (arg, false, out, err);
}

const char *
ucb_format_name (enum ucb_format f)
{
  return (size_t) f < UCB_ARRAY_SIZE (format_names) ? format_names[f] : "text";
}

/* The units a duration may carry, and what each is in seconds. */
static const struct
{
  const char *unit;
  double seconds;
} duration_units[] = {
  { "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "m", 60 }, { "h", 3600 },
};

int
ucb_parse_duration (const char *s, double min, double max, double *out)
{
  const char *num_end;
  char *end;
  double v;

  /* The number: digits with at most a decimal point and an exponent, as strtod reads them,
   * but no sign, hex, inf or nan (strtod would take those too). */
  if (s == NULL || ((*s < '0' || *s > '9') && *s != '.'))
    return -1;
  errno = 0;
  v = strtod (s, &end);
  if (errno != 0 || end == s || !isfinite (v))
    return -1;
  for (num_end = s; num_end < end; num_end++)
    if (strchr ("0123456789.eE+-", *num_end) == NULL)
      return -1;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (duration_units); i++)
    if (strcmp (end, duration_units[i].unit) == 0)
      {
        v *= duration_units[i].seconds;
        if (!isfinite (v) || v < min || v > max)
          return -1;
        *out = v;
        return 0;
      }
  return -1;
}

int
ucb_parse_duration_opt (const char *name, const char *arg, double min, double max, double *out,
                        ucb_error_t *err)
{
  if (ucb_parse_duration (arg, min, max, out) < 0)
    return ucb_usage_error (
        err,
        "invalid --%s `%s`: expected a duration from %gs to %gs, a number "
        "with a unit us, ms, s, m or h (no unit: seconds), e.g. 500ms, 2s, 1.5m",
        name, arg, min, max);
  return 0;
}

/* `list` and `info`: --format and --help alone. */
struct format_only
{
  bool csv;
  enum ucb_format *format;
};

static int
format_only_opt (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  const struct format_only *fo = ctx;

  (void) id; /* --format: the one option besides --help */
  return ucb_parse_format_as (arg, fo->csv, fo->format, err) < 0 ? -1 : 0;
}

int
ucb_parse_format_only (int argc, char **argv, const struct ucb_opt_table *t, bool csv,
                       enum ucb_format *format, ucb_error_t *err)
{
  struct format_only fo = { csv, format };
  int r;

  *format = UCB_FORMAT_TEXT;
  r = ucb_getopt_command (argc, argv, t, format_only_opt, &fo, err);
  if (r != 0)
    return r;
  if (optind < argc)
    return ucb_usage_error (err, "unexpected argument `%s`", argv[optind]);
  return 0;
}

/* The rlimits --limit sets, by the names the error suggests. */
static int
unknown_rlimit (const char *name, ucb_error_t *err)
{
  const char *names[UCB_RLS];

  for (enum ucb_rl b = 0; b < UCB_RLS; b++)
    names[b] = ucb_rl_name (b);
  return ucb_keyword_error (err, "unknown --limit rlimit", name, names, UCB_RLS, NULL);
}

int
ucb_parse_limits (const char *s, struct ucb_limit *limits, ucb_error_t *err)
{
  cleanup_items struct ucb_items items = { NULL, 0 };
  bool seen[UCB_RLS] = { false };

  if (ucb_split_list (s, "limit", &items, err) < 0)
    return -1;
  for (size_t i = 0; i < items.n; i++)
    {
      char *item = items.v[i], *eq = strchr (item, '=');
      enum ucb_rl b = UCB_RL_NONE;
      uint64_t v = 0;

      if (!eq)
        return ucb_usage_error (err,
                                "invalid --limit `%s`: expected RLIMIT=VALUE with RLIMIT one of "
                                "SIGPENDING, MSGQUEUE, MEMLOCK, NPROC",
                                item);
      *eq = '\0';
      if (!ucb_rl_parse (item, &b) || b == UCB_RL_NONE)
        return unknown_rlimit (item, err);
      /* Which of two values was meant is not ours to guess, in one --limit or two. */
      if (seen[b] || limits[b].set)
        return ucb_usage_error (err, "duplicate --limit rlimit `%s`: give each rlimit once", item);
      seen[b] = true;
      if (strcmp (eq + 1, "unlimited") == 0)
        v = UCB_LIMIT_UNLIMITED;
      else if (ucb_parse_u64 (eq + 1, 0, UCB_LIMIT_UNLIMITED - 1, &v) < 0)
        {
          static const char *const unlimited[] = { "unlimited" };
          *eq = '=';
          if (ucb_nearest_name (unlimited, 1, eq + 1))
            return ucb_usage_error (err,
                                    "invalid --limit `%s`: did you mean `unlimited`? "
                                    "(expected a number or unlimited)",
                                    item);
          return ucb_usage_error (
              err, "invalid --limit `%s`: the value must be a number or `unlimited`", item);
        }
      limits[b].set = true;
      limits[b].value = v;
    }
  return 0;
}
