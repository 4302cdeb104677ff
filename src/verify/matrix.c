/* SPDX-License-Identifier: GPL-2.0-or-later */
/* matrix.c - the property matrix as text (matrix.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "verify/matrix.h"

static const enum ucb_vlevel levels[]
    = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };

bool
ucb_vcase_covers (const struct ucb_vcase *c, enum ucb_rl rlimit, enum ucb_vlevel level,
                  enum ucb_vprop prop)
{
  if (c->rlimit != rlimit)
    return false;
  for (size_t i = 0; i < ucb_vcase_ncells (c); i++)
    if (c->cells[i].level == level && c->cells[i].prop == prop)
      return true;
  return false;
}

/* "01,03" for the cases covering a cell ("-" for none), into buf. */
static void
ids_of (const struct ucb_vcase *const *cases, enum ucb_rl rl, enum ucb_vlevel lv, enum ucb_vprop p,
        char *buf, size_t len)
{
  size_t used = 0;

  buf[0] = '\0';
  for (size_t k = 0; cases[k]; k++)
    if (ucb_vcase_covers (cases[k], rl, lv, p))
      {
        const char *num = strchr (cases[k]->id, '-');
        int w = snprintf (buf + used, len - used, "%s%s", used ? "," : "",
                          num ? num + 1 : cases[k]->id);
        if (w < 0 || (size_t) w >= len - used)
          break;
        used += (size_t) w;
      }
  if (!used)
    snprintf (buf, len, "-");
}

/* One column of the list: padded, but the last (no trailing blanks). */
static void
column (FILE *f, const char *text, int p)
{
  fprintf (f, p == UCB_VPROPS - 1 ? " %s" : " %-9s", text);
}

void
ucb_vmatrix_list (FILE *f, const struct ucb_vcase *const *cases)
{
  fprintf (f, "\nMatrix: the cases (ULIM numbers) that cover each cell\n");
  for (enum ucb_rl r = 0; r < UCB_VMATRIX_ROWS; r++)
    {
      bool none = r == UCB_RL_NONE;
      fprintf (f, "%-13s", ucb_rl_name (r));
      for (int p = UCB_VPROP_P1; p < UCB_VPROPS; p++)
        column (f, ucb_vprop_name ((enum ucb_vprop) p), p);
      fputc ('\n', f);
      for (size_t l = 0; l < (none ? 1 : UCB_ARRAY_SIZE (levels)); l++)
        {
          enum ucb_vlevel lv = none ? UCB_VLEVEL_NONE : levels[l];
          fprintf (f, "  %-11s", ucb_vlevel_name (lv));
          for (int p = UCB_VPROP_P1; p < UCB_VPROPS; p++)
            {
              char buf[64];
              ids_of (cases, r, lv, (enum ucb_vprop) p, buf, sizeof buf);
              column (f, buf, p);
            }
          fputc ('\n', f);
        }
    }
  fprintf (f, "P1 exact bound, P2 refusal has no side effects, P3 release restores, P4 unlimited "
              "is unlimited,\nP5 levels are independent, P6 owners are separate, P7 exemptions "
              "and overrides,\nP8 exact under concurrency, P9 nothing pinned.\n");
}

/* Worse verdicts rank higher; 0: no run. */
static int
rank (enum ucb_verdict v)
{
  switch (v)
    {
    case UCB_VERDICT_SKIP:
      return 1;
    case UCB_VERDICT_PASS:
      return 2;
    case UCB_VERDICT_KNOWN_BUG:
      return 3;
    case UCB_VERDICT_ERROR:
      return 4;
    case UCB_VERDICT_FAIL:
    default:
      return 5;
    }
}

static char
symbol (int r)
{
  static const char sym[] = { '.', 's', '+', 'x', 'E', 'F' };
  return sym[r];
}

/* The worst verdict of the runs covering a cell, as its rank. */
static int
worst (const struct ucb_vrun *v, size_t n, enum ucb_rl rl, enum ucb_vlevel lv, enum ucb_vprop p)
{
  int w = 0;

  for (size_t i = 0; i < n; i++)
    if (ucb_vcase_covers (v[i].c, rl, lv, p) && rank (v[i].verdict) > w)
      w = rank (v[i].verdict);
  return w;
}

void
ucb_vmatrix_verdicts (FILE *f, const struct ucb_vrun *v, size_t n)
{
  fprintf (f,
           "# Matrix (own/parent/grandparent: + pass, x known-bug, s skip, F fail, "
           "E error, . not run)\n# %-11s",
           "");
  for (int p = UCB_VPROP_P1; p < UCB_VPROPS; p++)
    fprintf (f, p == UCB_VPROPS - 1 ? " %s" : " %-4s", ucb_vprop_name ((enum ucb_vprop) p));
  fputc ('\n', f);
  for (enum ucb_rl r = 0; r < UCB_VMATRIX_ROWS; r++)
    {
      bool none = r == UCB_RL_NONE;
      fprintf (f, "# %-11s", ucb_rl_name (r));
      for (int p = UCB_VPROP_P1; p < UCB_VPROPS; p++)
        {
          char cell[4] = "   ";
          if (none)
            cell[0] = symbol (worst (v, n, r, UCB_VLEVEL_NONE, (enum ucb_vprop) p));
          else
            for (size_t l = 0; l < UCB_ARRAY_SIZE (levels); l++)
              cell[l] = symbol (worst (v, n, r, levels[l], (enum ucb_vprop) p));
          if (none || p == UCB_VPROPS - 1)
            cell[none ? 1 : 3] = '\0';
          fprintf (f, p == UCB_VPROPS - 1 ? " %s" : " %-4s", cell);
        }
      fputc ('\n', f);
    }
}
