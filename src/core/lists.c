/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lists.c - comma lists, CPU lists ("0-3,8") and keyword lists, parsed and printed one way
 * everywhere; a mistyped keyword gets the nearest one suggested. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/lists.h"
#include "core/util.h"

/* Split a comma list; empty items ("4,,8", ",4", "4,") are errors. */
int
ucb_split_list (const char *s, const char *what, struct ucb_items *out, ucb_error_t *err)
{
  cleanup_free char *copy = NULL;
  cleanup_items struct ucb_items l = { NULL, 0 };
  char *p, *q;

  if (s == NULL || *s == '\0')
    return ucb_usage_error (err, "empty %s list", what);
  copy = xstrdup (s);
  for (p = copy;; p = q + 1)
    {
      q = strchr (p, ',');
      if (q)
        *q = '\0';
      if (*p == '\0')
        return ucb_usage_error (err, "malformed %s list `%s`: empty item", what, s);
      l.v = xrealloc (l.v, (l.n + 1) * sizeof *l.v);
      l.v[l.n++] = xstrdup (p);
      if (q == NULL)
        break;
    }
  *out = steal_struct (&l);
  return 0;
}

void
ucb_free_items (char **items, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (items[i]);
  free (items);
}

void
ucb_items_free (struct ucb_items *l)
{
  ucb_free_items (l->v, l->n);
  *l = (struct ucb_items){ NULL, 0 };
}

int
ucb_cmp_int (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

int
ucb_parse_cpu_list (const char *s, int **out, size_t *n, ucb_error_t *err)
{
  cleanup_items struct ucb_items items = { NULL, 0 };
  cleanup_free int *cpus = NULL;
  size_t ncpus = 0;

  if (ucb_split_list (s, "CPU", &items, err) < 0)
    return -1;
  for (size_t i = 0; i < items.n; i++)
    {
      char *item = items.v[i], *dash = strchr (item, '-');
      uint64_t lo, hi;

      if (dash)
        *dash = '\0';
      if (ucb_parse_u64 (item, 0, UCB_MAX_CPUS - 1, &lo) < 0
          || (dash && ucb_parse_u64 (dash + 1, 0, UCB_MAX_CPUS - 1, &hi) < 0))
        {
          if (dash)
            *dash = '-';
          return ucb_usage_error (err, "invalid CPU list item `%s` (expected N or N-M, N < %d)",
                                  item, UCB_MAX_CPUS);
        }
      if (!dash)
        hi = lo;
      if (hi < lo)
        {
          *dash = '-';
          return ucb_usage_error (err, "invalid CPU range `%s`: end before start", item);
        }
      for (uint64_t c = lo; c <= hi; c++)
        {
          cpus = xrealloc (cpus, (ncpus + 1) * sizeof *cpus);
          cpus[ncpus++] = (int) c;
        }
    }
  if (ncpus > 1) /* never NULL here (every item names a CPU), but qsort must not see NULL */
    qsort (cpus, ncpus, sizeof *cpus, ucb_cmp_int);
  for (size_t i = 1; i < ncpus; i++)
    if (cpus[i] == cpus[i - 1])
      return ucb_usage_error (err, "CPU %d listed twice in `%s`", cpus[i], s);
  *out = steal_pointer (&cpus);
  *n = ncpus;
  return 0;
}

char *
ucb_format_cpu_list (const int *cpus, size_t n)
{
  char *s = xstrdup ("");
  size_t i = 0;

  while (i < n)
    {
      size_t j = i;
      char *next;
      while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
        j++;
      if (j == i)
        next = xasprintf ("%s%s%d", s, *s ? "," : "", cpus[i]);
      else
        next = xasprintf ("%s%s%d-%d", s, *s ? "," : "", cpus[i], cpus[j]);
      free (s);
      s = next;
      i = j + 1;
    }
  return s;
}

static size_t
min3 (size_t a, size_t b, size_t c)
{
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

/* Optimal string alignment: Levenshtein plus the swap of two neighbours, the commonest typo.
 * Three rows: the one before the previous is what a swap looks back to. */
size_t
ucb_edit_distance (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b);
  cleanup_free size_t *row = xcalloc (3 * (lb + 1), sizeof *row);
  size_t *pp = row, *prev = row + lb + 1, *cur = row + 2 * (lb + 1);

  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t *t;
      cur[0] = i;
      for (size_t j = 1; j <= lb; j++)
        {
          int ca = tolower ((unsigned char) a[i - 1]), cb = tolower ((unsigned char) b[j - 1]);
          cur[j] = min3 (prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb));
          if (i > 1 && j > 1 && ca == tolower ((unsigned char) b[j - 2])
              && tolower ((unsigned char) a[i - 2]) == cb && pp[j - 2] + 1 < cur[j])
            cur[j] = pp[j - 2] + 1;
        }
      t = pp, pp = prev, prev = cur, cur = t;
    }
  return prev[lb];
}

const char *
ucb_nearest_name (const char *const *names, size_t n, const char *s)
{
  const char *best = NULL;
  size_t best_d = SIZE_MAX;

  if (s == NULL || *s == '\0')
    return NULL;
  for (size_t i = 0; i < n; i++)
    {
      size_t d, most;
      if (names[i] == NULL)
        continue;
      most = strlen (names[i]) <= 3 ? 1 : 2;
      d = ucb_edit_distance (s, names[i]);
      if (d <= most && d < best_d)
        {
          best = names[i];
          best_d = d;
        }
    }
  return best;
}

char *
ucb_names_text (const char *const *names, size_t n, const char *other)
{
  char *s = xstrdup ("");
  size_t total = 0, k = 0;

  for (size_t i = 0; i < n; i++)
    total += names[i] != NULL;
  total += other != NULL;
  for (size_t i = 0; i <= n; i++)
    {
      const char *name = i < n ? names[i] : other;
      char *next;
      if (name == NULL)
        continue;
      k++;
      next = xasprintf ("%s%s%s", s, k == 1 ? "" : k == total ? " or " : ", ", name);
      free (s);
      s = next;
    }
  return s;
}

int
ucb_keyword_error (ucb_error_t *err, const char *what, const char *s, const char *const *names,
                   size_t n, const char *other)
{
  const char *near = ucb_nearest_name (names, n, s);
  cleanup_free char *expected = ucb_names_text (names, n, other);

  if (near)
    return ucb_usage_error (err, "%s `%s`: did you mean `%s`? (expected %s)", what, s, near,
                            expected);
  return ucb_usage_error (err, "%s `%s` (expected %s)", what, s, expected);
}
