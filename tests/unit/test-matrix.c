/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-matrix.c - the property matrix of `ucbench verify` (docs/verify.md "The matrix"):
 * every (rlimit, level, P1-P5) cell is covered by a case; the rlimit operations are indexed by
 * their rlimit; every case is documented in docs/verify.md (its section, or its property's); the
 * --list matrix and the verdict table render what the cases cover and the worst verdict of each
 * cell. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../tap.h"
#include "core/util.h"
#include "verify/cells.h"
#include "verify/matrix.h"
#include "verify/verify.h"

static const enum ucb_vlevel levels[]
    = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };

static void
test_every_cell_is_covered (void)
{
  for (enum ucb_rl r = 0; r < UCB_RLS; r++)
    for (size_t l = 0; l < UCB_ARRAY_SIZE (levels); l++)
      for (int p = UCB_VPROP_P1; p <= UCB_VPROP_P9; p++)
        {
          bool hit = false;
          /* P6 and P7 are the hand-written cases' own cells; P9 is one case per rlimit that
           * refuses at the own and the parent level (docs/verify.md, "P9: the room"). */
          if (p == UCB_VPROP_P6 || p == UCB_VPROP_P7
              || (p == UCB_VPROP_P9 && levels[l] == UCB_VLEVEL_GRANDPARENT))
            continue;
          for (size_t k = 0; ucb_vcases[k] && !hit; k++)
            hit = ucb_vcase_covers (ucb_vcases[k], r, levels[l], (enum ucb_vprop) p);
          if (!hit)
            printf ("# no case covers %s %s %s\n", ucb_rl_name (r), ucb_vlevel_name (levels[l]),
                    ucb_vprop_name ((enum ucb_vprop) p));
          tap_check (hit);
        }
}

static void
test_descriptors (void)
{
  for (enum ucb_rl r = 0; r < UCB_RLS; r++) /* a generic cell's operations: its rlimit's */
    tap_check_int (ucb_rlops[r].rl, ==, r);
  for (size_t k = 0; ucb_vcases[k]; k++)
    {
      const struct ucb_vcase *c = ucb_vcases[k];
      char prefix[16];

      tap_check (ucb_vcase_ncells (c) >= 1);
      /* The rlimit is a row of the matrix, and the one the name says ("sigpending-...";
       * "non-rlimit-..." for none): a descriptor that forgot it would read as SIGPENDING. */
      tap_check ((unsigned) c->rlimit < UCB_VMATRIX_ROWS);
      snprintf (prefix, sizeof prefix, "%s-",
                c->rlimit == UCB_RL_NONE ? "non-rlimit" : ucb_rl_name (c->rlimit));
      bool named = strncasecmp (c->name, prefix, strlen (prefix)) == 0;
      if (!named)
        printf ("# %s: name %s, rlimit %s\n", c->id, c->name, ucb_rl_name (c->rlimit));
      tap_check (named);
      for (size_t j = 0; j < k; j++)
        {
          tap_check (strcmp (ucb_vcases[j]->id, c->id) < 0); /* ids unique, in order */
          tap_check (strcmp (ucb_vcases[j]->name, c->name) != 0);
        }
    }
}

static char *
read_all (const char *path)
{
  FILE *f = fopen (path, "re");
  char *buf;
  long n;

  if (f == NULL)
    return NULL;
  fseek (f, 0, SEEK_END);
  n = ftell (f);
  fseek (f, 0, SEEK_SET);
  buf = xcalloc ((size_t) n + 1, 1);
  if (fread (buf, 1, (size_t) n, f) != (size_t) n)
    buf[0] = '\0';
  fclose (f);
  return buf;
}

/* docs/verify.md has "## ULIM-NN name" for every hand-written case, and a "### Pn:" section for
 * the property of every cell of a generic one (those that run as ULIM-21 does): the doc is
 * written per property, `verify --list` gives each generic cell. */
static void
test_every_case_documented (void)
{
  const char *top = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/docs/verify.md", top ? top : ".");
  cleanup_free char *doc = read_all (path);
  const struct ucb_vcase *generic = ucb_vcase_find ("ULIM-21");

  if (doc == NULL)
    {
      tap_skip ("docs/verify.md not found (top_srcdir unset)");
      return;
    }
  tap_check (generic != NULL);
  for (size_t k = 0; ucb_vcases[k]; k++)
    {
      const struct ucb_vcase *c = ucb_vcases[k];
      cleanup_free char *head = xasprintf ("\n## %s %s\n", c->id, c->name);
      bool found = strstr (doc, head) != NULL;

      if (generic && c->run == generic->run)
        for (size_t i = 0; i < ucb_vcase_ncells (c); i++)
          {
            cleanup_free char *prop = xasprintf ("\n### %s:", ucb_vprop_name (c->cells[i].prop));
            found = strstr (doc, prop) != NULL;
            if (!found)
              printf ("# docs/verify.md lacks `### %s:` (%s)\n", ucb_vprop_name (c->cells[i].prop),
                      c->id);
            tap_check (found);
          }
      else
        {
          if (!found)
            printf ("# docs/verify.md lacks `## %s %s`\n", c->id, c->name);
          tap_check (found);
        }
    }
}

/* The line of `text` that starts with `start`, or NULL. */
static const char *
line_of (const char *text, const char *start)
{
  for (const char *p = text; p && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
    if (strncmp (p, start, strlen (start)) == 0)
      return p;
  return NULL;
}

/* What `fn` writes, into *text (the caller's: open_memstream updates it at fclose). */
static void
render (void (*fn) (FILE *, const struct ucb_vrun *, size_t), const struct ucb_vrun *v, size_t n,
        char **text)
{
  size_t len = 0;
  FILE *m = open_memstream (text, &len);

  if (m == NULL)
    abort ();
  fn (m, v, n);
  fclose (m);
}

static void
test_verdict_table (void)
{
  static const struct
  {
    const char *id;
    enum ucb_verdict verdict;
  } ran[] = {
    { "ULIM-01", UCB_VERDICT_PASS },      { "ULIM-21", UCB_VERDICT_PASS },
    { "ULIM-22", UCB_VERDICT_FAIL },      { "ULIM-25", UCB_VERDICT_PASS },
    { "ULIM-04", UCB_VERDICT_PASS },      { "ULIM-31", UCB_VERDICT_FAIL },
    { "ULIM-19", UCB_VERDICT_KNOWN_BUG },
  };
  struct ucb_vrun v[UCB_ARRAY_SIZE (ran)];
  cleanup_free char *text = NULL;
  const char *sig, *mem, *none;

  memset (v, 0, sizeof v);
  for (size_t i = 0; i < UCB_ARRAY_SIZE (ran); i++)
    {
      v[i] = (struct ucb_vrun){ .c = ucb_vcase_find (ran[i].id), .verdict = ran[i].verdict };
      tap_require (v[i].c != NULL);
    }
  render (ucb_vmatrix_verdicts, v, UCB_ARRAY_SIZE (ran), &text);
  sig = line_of (text, "# SIGPENDING ");
  mem = line_of (text, "# MEMLOCK ");
  none = line_of (text, "# none ");
  tap_check (sig && mem && none);
  if (!sig || !mem || !none)
    return;
  /* P1: own pass (01); P2: own pass (21), parent fail (22); P3: parent pass (25); P5: parent
   * the worst of pass (04) and fail (31); P6: parent pass (04); nothing else ran. */
  const char *want_sig = "# SIGPENDING  +..  +F.  .+.  ...  .F.  .+.  ...  ...  ...\n";
  const char *want_mem = "# MEMLOCK     .x.  ...  ...  ...  ...  ...  ...  ...  ...\n";
  const char *want_none = "# none        .    .    .    .    .    .    .    .    .\n";
  tap_check (strncmp (sig, want_sig, strlen (want_sig)) == 0);
  tap_check (strncmp (mem, want_mem, strlen (want_mem)) == 0);
  tap_check (strncmp (none, want_none, strlen (want_none)) == 0);
}

static void
list_to (FILE *f, const struct ucb_vrun *v, size_t n)
{
  (void) v, (void) n;
  ucb_vmatrix_list (f, ucb_vcases);
}

static void
test_list_matrix (void)
{
  cleanup_free char *text = NULL;
  const char *sig, *parent;

  render (list_to, NULL, 0, &text);
  sig = strstr (text, "\nSIGPENDING ");
  parent = sig ? strstr (sig, "\n  parent") : NULL;
  tap_check (parent != NULL);
  /* parent P1 is ULIM-02, P2 ULIM-22, P5 ULIM-04, 06 and 31 */
  if (parent)
    tap_check (
        strncmp (parent, "\n  parent      02        22        25        28        04,06,31 ", 61)
        == 0);
}

/* docs/verify.md shows the --list matrix as it is: the same table made it. */
static void
test_doc_matrix (void)
{
  const char *top = getenv ("top_srcdir");
  cleanup_free char *path = xasprintf ("%s/docs/verify.md", top ? top : ".");
  cleanup_free char *doc = read_all (path);
  cleanup_free char *text = NULL;
  char *start, *end;

  if (doc == NULL)
    {
      tap_skip ("docs/verify.md not found (top_srcdir unset)");
      return;
    }
  render (list_to, NULL, 0, &text);
  start = strstr (text, "Matrix: ");
  end = start ? strstr (start, "\nP1 exact bound") : NULL;
  tap_require (end != NULL);
  end[1] = '\0';
  if (strstr (doc, start) == NULL)
    printf ("# docs/verify.md lacks the matrix of `verify --list`:\n%s", start);
  tap_check (strstr (doc, start) != NULL);
}

/* Every stable ULIM number of the alias table is the generic case of its cell, and that case's
 * id is its primary cell's number. */
static void
test_alias_ids (void)
{
  const struct ucb_vcase *generic = ucb_vcase_find ("ULIM-21");
  size_t made = 0;

  tap_require (generic != NULL);
  for (enum ucb_rl r = 0; r < UCB_RLS; r++)
    for (size_t l = 0; l < UCB_ARRAY_SIZE (levels); l++)
      for (int p = UCB_VPROP_P1; p < UCB_VPROPS; p++)
        {
          unsigned num = ucb_vcell_ulim (r, levels[l], (enum ucb_vprop) p);
          char id[16];
          const struct ucb_vcase *c;

          if (!num)
            continue;
          snprintf (id, sizeof id, "ULIM-%02u", num);
          c = ucb_vcase_find (id);
          if (c == NULL || c->run != generic->run || !ucb_vcase_covers (c, r, levels[l], p))
            printf ("# %s is no generic case of %s %s %s\n", id, ucb_rl_name (r),
                    ucb_vlevel_name (levels[l]), ucb_vprop_name ((enum ucb_vprop) p));
          tap_check (c && c->run == generic->run && ucb_vcase_covers (c, r, levels[l], p));
        }
  for (size_t k = 0; ucb_vcases[k]; k++)
    if (ucb_vcases[k]->run == generic->run)
      {
        const struct ucb_vcase *c = ucb_vcases[k];
        char id[16];

        snprintf (id, sizeof id, "ULIM-%02u",
                  ucb_vcell_ulim (c->rlimit, c->cells[0].level, c->cells[0].prop));
        tap_check_str (c->id, id);
        made++;
      }
  tap_check (made > 0);
}

/* Intended and stock values: the first observation that tells them apart decides, and the rest
 * are held to that kernel (a leak on a stock kernel cannot pass as the fix item by item). */
static void
test_two_kernels (void)
{
  char why[UCB_VDETAIL_MAX];
  struct ucb_vresult r;

  memset (&r, 0, sizeof r);
  ucb_vcell_check_reset ();
  ucb_vcell_check (&r, "first", UCB_VITEM_ADMITTED, ucb_vexpect (0, 4), 4);
  ucb_vcell_check (&r, "same", UCB_VITEM_ADMITTED, ucb_vexpect (3, 3), 3);
  ucb_vcell_check (&r, "later", UCB_VITEM_ADMITTED, ucb_vexpect (0, 4), 4);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_KNOWN_BUG);
  r.items[2].observed = 0; /* the intended value, on a kernel that showed the bug first */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  memset (&r, 0, sizeof r);
  ucb_vcell_check_reset ();
  ucb_vcell_check (&r, "first", UCB_VITEM_ADMITTED, ucb_vexpect (0, 4), 0); /* a fixed kernel */
  ucb_vcell_check (&r, "later", UCB_VITEM_ADMITTED, ucb_vexpect (0, 4), 0);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_PASS);
  r.items[1].observed = 4; /* the bug's value, on a kernel that showed the fix first */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  /* Neither value first (one page fewer than stock): it fails as what it is, an early denial
   * against the stock bound, and the later counts are held to both values. */
  memset (&r, 0, sizeof r);
  ucb_vcell_check_reset ();
  ucb_vcell_check (&r, "first", UCB_VITEM_ADMITTED, ucb_vexpect (0, 4), 3);
  ucb_vcell_check (&r, "later", UCB_VITEM_ADMITTED, ucb_vexpect (0, 4), 4);
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check_str (why, "first: expected 0 (the known bug: 4), observed 3: early denial");
  tap_check (r.items[1].has_bug_value && r.items[1].bug_value == 4);
  r.items[0].observed = 5; /* one more than stock: a bypass */
  tap_check_int (ucb_vjudge (&r, why, sizeof why), ==, UCB_VERDICT_FAIL);
  tap_check (strstr (why, "over-admission") != NULL);
  /* Which kernel is decided before the cell where it can be (MEMLOCK's snapshot bounds). */
  tap_check (ucb_vcell_tells_kernels (&ucb_rlops[UCB_RL_MEMLOCK], UCB_VLEVEL_PARENT, UCB_VPROP_P2));
  tap_check (ucb_vcell_tells_kernels (&ucb_rlops[UCB_RL_MEMLOCK], UCB_VLEVEL_OWN, UCB_VPROP_P4));
  tap_check (
      !ucb_vcell_tells_kernels (&ucb_rlops[UCB_RL_MEMLOCK], UCB_VLEVEL_PARENT, UCB_VPROP_P4));
  tap_check (!ucb_vcell_tells_kernels (&ucb_rlops[UCB_RL_MEMLOCK], UCB_VLEVEL_OWN, UCB_VPROP_P2));
  tap_check (!ucb_vcell_tells_kernels (&ucb_rlops[UCB_RL_NPROC], UCB_VLEVEL_PARENT, UCB_VPROP_P2));
  tap_check_int (ucb_vexpect_sub (ucb_vexpect (7, 7), ucb_vexpect (4, 9), -2).bug, ==, 0);
  tap_check_int (ucb_vexpect_sub (ucb_vexpect (7, 7), ucb_vexpect (4, 9), -2).want, ==, 1);
}

static const struct tap_test tests[] = {
  { "intended and stock values: the first telling one decides", test_two_kernels },
  { "every (rlimit, level, P1-P5, P8, P9) cell is covered by a case", test_every_cell_is_covered },
  { "descriptors: cells, rlimit, ids in order, generic params agree", test_descriptors },
  { "every case is documented in docs/verify.md", test_every_case_documented },
  { "the verdict table: the worst verdict per cell and level", test_verdict_table },
  { "--list: the cases per cell", test_list_matrix },
  { "docs/verify.md's matrix is --list's", test_doc_matrix },
  { "the alias table: each number is its cell's generic case", test_alias_ids },
};

TAP_MAIN (tests)
