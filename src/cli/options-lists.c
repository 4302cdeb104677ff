/* options-lists.c - the value parsers of `ucbench run` options: lists, owners, limits, CPUs. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/lists.h"
#include "core/util.h"
#include "engine/workload.h"

int
ucb_parse_uint_list (const char *s, unsigned min, unsigned max, unsigned **out, size_t *n,
                     const char *what, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;
  unsigned *v;

  if (ucb_split_list (s, what, &items, &count, err) < 0)
    return -1;
  v = xcalloc (count, sizeof *v);
  for (size_t i = 0; i < count; i++)
    {
      uint64_t x;
      if (ucb_parse_u64 (items[i], min, max, &x) < 0)
        {
          ucb_usage_error (err, "invalid %s `%s`: expected an integer from %u to %u", what,
                           items[i], min, max);
          goto fail;
        }
      v[i] = (unsigned) x;
      for (size_t j = 0; j < i; j++)
        if (v[j] == v[i])
          {
            ucb_usage_error (err, "duplicate %s `%s`", what, items[i]);
            goto fail;
          }
    }
  ucb_free_items (items, count);
  *out = v;
  *n = count;
  return 0;
fail:
  ucb_free_items (items, count);
  free (v);
  return -1;
}

int
ucb_parse_owner_list (const char *s, struct ucb_owner_mode **out, size_t *n, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;
  struct ucb_owner_mode *v;

  if (ucb_split_list (s, "owner", &items, &count, err) < 0)
    return -1;
  v = xcalloc (count, sizeof *v);
  for (size_t i = 0; i < count; i++)
    {
      const char *it = items[i];
      char *dash = strchr (items[i], '-');
      uint64_t lo, hi;

      if (strcmp (it, "shared") == 0)
        v[i].kind = UCB_OWNER_SHARED;
      else if (strcmp (it, "distinct") == 0)
        v[i].kind = UCB_OWNER_DISTINCT;
      else if (strcmp (it, "root") == 0)
        v[i].kind = UCB_OWNER_ROOT;
      else if (strcmp (it, "self") == 0)
        v[i].kind = UCB_OWNER_SELF;
      else if (dash == NULL && ucb_parse_u64 (it, 1, UCB_MAX_UID, &lo) == 0)
        {
          v[i].kind = UCB_OWNER_UID;
          v[i].lo = v[i].hi = (uint32_t) lo;
        }
      else if (dash != NULL)
        {
          int ok;
          *dash = '\0';
          ok = ucb_parse_u64 (it, 1, UCB_MAX_UID, &lo) == 0
               && ucb_parse_u64 (dash + 1, 1, UCB_MAX_UID, &hi) == 0 && lo <= hi;
          *dash = '-';
          if (!ok)
            {
              ucb_usage_error (err,
                               "invalid owner range `%s`: expected UID-UID, 1 <= first <= last "
                               "<= %u (use `root` for uid 0)",
                               it, UCB_MAX_UID);
              goto fail;
            }
          v[i].kind = UCB_OWNER_RANGE;
          v[i].lo = (uint32_t) lo;
          v[i].hi = (uint32_t) hi;
        }
      else
        {
          ucb_usage_error (err,
                           "unknown owner mode `%s` (expected shared, distinct, root, self, UID or "
                           "UID-UID; use `root` for uid 0)",
                           it);
          goto fail;
        }
      for (size_t j = 0; j < i; j++)
        if (v[j].kind == v[i].kind && v[j].lo == v[i].lo && v[j].hi == v[i].hi)
          {
            ucb_usage_error (err, "duplicate owner mode `%s`", it);
            goto fail;
          }
    }
  ucb_free_items (items, count);
  *out = v;
  *n = count;
  return 0;
fail:
  ucb_free_items (items, count);
  free (v);
  return -1;
}

int
ucb_parse_format (const char *arg, enum ucb_format *out, ucb_error_t *err)
{
  if (strcmp (arg, "json") == 0)
    *out = UCB_FORMAT_JSON;
  else if (strcmp (arg, "text") == 0)
    *out = UCB_FORMAT_TEXT;
  else
    return ucb_usage_error (err, "invalid --format `%s` (expected json or text)", arg);
  return 0;
}

int
ucb_getopt_error (int c, char **argv, ucb_error_t *err)
{
  /* optstring starts with ':', so ':' is a missing value; optopt holds a short option's
   * letter, or a long option's `val` (>= 256 here), or 0 for an unknown long option. */
  if (c == ':')
    return ucb_usage_error (err, "option `%s` needs a value", argv[optind - 1]);
  if (optopt > 0 && optopt < 256)
    return ucb_usage_error (err, "unknown option `-%c`", optopt);
  return ucb_usage_error (err, "unknown option `%s`", argv[optind - 1]);
}

int
ucb_parse_limits (const char *s, struct ucb_limit *limits, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;

  if (ucb_split_list (s, "limit", &items, &count, err) < 0)
    return -1;
  for (size_t i = 0; i < count; i++)
    {
      char *eq = strchr (items[i], '=');
      unsigned b = UCB_NLIMITS;
      uint64_t v = 0;

      if (eq)
        *eq = '\0';
      for (unsigned k = 0; k < UCB_NLIMITS && eq; k++)
        if (strcasecmp (items[i], ucb_rlimit_name (1u << k)) == 0)
          b = k;
      if (b == UCB_NLIMITS)
        {
          if (eq)
            *eq = '=';
          ucb_usage_error (err,
                           "invalid --limit `%s`: expected RLIMIT=VALUE with RLIMIT one of "
                           "SIGPENDING, MSGQUEUE, MEMLOCK, NPROC",
                           items[i]);
          ucb_free_items (items, count);
          return -1;
        }
      if (strcmp (eq + 1, "unlimited") == 0)
        v = UCB_LIMIT_UNLIMITED;
      else if (ucb_parse_u64 (eq + 1, 0, UCB_LIMIT_UNLIMITED - 1, &v) < 0)
        {
          *eq = '=';
          ucb_usage_error (err, "invalid --limit `%s`: the value must be a number or `unlimited`",
                           items[i]);
          ucb_free_items (items, count);
          return -1;
        }
      limits[b].set = true;
      limits[b].value = v;
    }
  ucb_free_items (items, count);
  return 0;
}
