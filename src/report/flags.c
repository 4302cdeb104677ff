/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flags.c - the flags of a group of repeats: the union of ucb_point_flags over its repeats. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "report/flags.h"

/* Whether `list` (comma-separated) has the flag of `len` bytes at `flag`. */
static bool
has_flag (const char *list, const char *flag, size_t len)
{
  for (const char *s = list; *s;)
    {
      size_t n = strcspn (s, ",");
      if (n == len && strncmp (s, flag, len) == 0)
        return true;
      s += n + (s[n] == ',');
    }
  return false;
}

void
ucb_flags_add (struct ucb_flags *f, const struct ucb_doc_point *p)
{
  char buf[UCB_POINT_FLAGS_MAX];

  f->n_measured++;
  if (!ucb_point_flags (p, buf, sizeof buf))
    return;
  f->n_flagged++;
  for (const char *s = buf; *s;)
    {
      size_t n = strcspn (s, ","), at = strlen (f->list);
      if (n > 0 && !has_flag (f->list, s, n) && at + n + 2 <= sizeof f->list)
        snprintf (f->list + at, sizeof f->list - at, "%s%.*s", at ? "," : "", (int) n, s);
      s += n + (s[n] == ',');
    }
}

struct ucb_flags *
ucb_flags_of_groups (const struct ucb_doc *d)
{
  struct ucb_flags *f = xcalloc (d->n_groups + 1, sizeof *f);

  for (size_t i = 0; i < d->n_points; i++)
    if (d->points[i].measured)
      ucb_flags_add (&f[d->points[i].group], &d->points[i]);
  return f;
}

void
ucb_flags_text (const struct ucb_flags *f, char *buf, size_t len)
{
  if (f->n_flagged == 0 || f->n_flagged == f->n_measured)
    snprintf (buf, len, "%s", f->list);
  else
    snprintf (buf, len, "%s in %zu of %zu repeats", f->list, f->n_flagged, f->n_measured);
}
