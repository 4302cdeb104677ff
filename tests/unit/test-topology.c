/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-topology.c - sysfs topology of synthetic trees and the host, spread/compact orders. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "host/topology.h"

static char *root; /* mkdtemp directory, one fresh tree per test below it */
static unsigned tree_seq;

/* Write `content` and a newline (as sysfs does) to `rel` below `dir`, making parents. */
static void
put (const char *dir, const char *rel, const char *content)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, rel);
  cleanup_file FILE *f = NULL;

  for (char *p = strchr (path + strlen (dir) + 1, '/'); p; p = strchr (p + 1, '/'))
    {
      *p = '\0';
      if (mkdir (path, 0755) < 0 && errno != EEXIST)
        printf ("# mkdir %s: %s\n", path, strerror (errno));
      *p = '/';
    }
  f = fopen (path, "w");
  tap_check (f != NULL);
  if (f)
    fprintf (f, "%s\n", content);
}

static void
put_cpu_file (const char *dir, int cpu, const char *name, const char *content)
{
  cleanup_free char *rel = xasprintf ("sys/devices/system/cpu/cpu%d/%s", cpu, name);
  put (dir, rel, content);
}

static char *
new_tree (void)
{
  char *dir = xasprintf ("%s/t%u", root, tree_seq++);
  if (mkdir (dir, 0755) < 0)
    printf ("# mkdir %s: %s\n", dir, strerror (errno));
  return dir;
}

/* One CPU's topology and caches; package < -1, core_id < 0 and NULL strings leave the files
 * out.  The L3 sits behind an L1 and an L2, so the level is what selects it. */
static void
put_cpu (const char *dir, int cpu, int package, int core_id, const char *siblings, const char *l3)
{
  char num[32];

  snprintf (num, sizeof num, "%d", package);
  if (package >= -1)
    put_cpu_file (dir, cpu, "topology/physical_package_id", num);
  snprintf (num, sizeof num, "%d", core_id);
  if (core_id >= 0)
    put_cpu_file (dir, cpu, "topology/core_id", num);
  if (siblings)
    {
      put_cpu_file (dir, cpu, "topology/core_cpus_list", siblings);
      put_cpu_file (dir, cpu, "topology/thread_siblings_list", siblings);
    }
  if (l3)
    {
      snprintf (num, sizeof num, "%d", cpu);
      put_cpu_file (dir, cpu, "cache/index0/level", "1");
      put_cpu_file (dir, cpu, "cache/index0/shared_cpu_list", num);
      put_cpu_file (dir, cpu, "cache/index2/level", "2");
      put_cpu_file (dir, cpu, "cache/index2/shared_cpu_list", siblings ? siblings : num);
      put_cpu_file (dir, cpu, "cache/index3/level", "3");
      put_cpu_file (dir, cpu, "cache/index3/shared_cpu_list", l3);
    }
}

static void
put_node (const char *dir, int node, const char *cpulist)
{
  cleanup_free char *rel = xasprintf ("sys/devices/system/node/node%d/cpulist", node);
  put (dir, rel, cpulist);
}

static int
rm_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) st, (void) flag, (void) ftw;
  if (remove (path) < 0)
    printf ("# remove %s: %s\n", path, strerror (errno));
  return 0;
}

static int *
range (int n)
{
  int *v = xcalloc ((size_t) n, sizeof *v);
  for (int i = 0; i < n; i++)
    v[i] = i;
  return v;
}

static int
read_all (const char *dir, int n, struct ucb_topology *t)
{
  cleanup_free int *all = range (n);
  ucb_error_t err = NULL;
  int r = ucb_topology_read (dir, all, (size_t) n, t, &err);

  if (r < 0)
    printf ("# %s\n", err->msg);
  ucb_error_free (&err);
  return r;
}

/* read_all, then the counts it found (a negative one: not checked) and the L3 source (NULL: not
 * checked); false if the read failed. */
static bool
read_shape (const char *dir, int n, struct ucb_topology *t, int ncpus, int ncores, int nl3,
            int nnodes, const char *l3_source)
{
  if (read_all (dir, n, t) < 0)
    {
      tap_check (!"read");
      return false;
    }
  if (ncpus >= 0)
    tap_check_int (t->ncpus, ==, ncpus);
  if (ncores >= 0)
    tap_check_int (t->ncores, ==, ncores);
  if (nl3 >= 0)
    tap_check_int (t->nl3, ==, nl3);
  if (nnodes >= 0)
    tap_check_int (t->nnodes, ==, nnodes);
  if (l3_source)
    tap_check_str (t->l3_source, l3_source);
  return true;
}

/* Every described CPU exactly once. */
static bool
is_permutation (const struct ucb_topology *t, const int *order)
{
  cleanup_free int *hits = xcalloc (t->ncpus, sizeof *hits);

  for (size_t i = 0; i < t->ncpus; i++)
    {
      const struct ucb_cpu_topo *c = ucb_topology_cpu (t, order[i]);
      if (c == NULL || hits[c - t->cpu]++)
        return false;
    }
  return true;
}

static void
check_order (const struct ucb_topology *t, enum ucb_place_order mode, const int *want)
{
  cleanup_free int *got = xcalloc (t->ncpus, sizeof *got);

  ucb_topology_order (t, mode, got);
  tap_check (is_permutation (t, got));
  for (size_t i = 0; i < t->ncpus; i++)
    tap_check_int (got[i], ==, want[i]);
}

static void
test_one_domain (void)
{
  cleanup_free char *dir = new_tree ();
  struct ucb_topology t;
  const int want[] = { 0, 1, 2, 3 };

  for (int c = 0; c < 4; c++)
    {
      char sib[32];
      snprintf (sib, sizeof sib, "%d", c);
      put_cpu (dir, c, 0, c, sib, "0-3");
    }
  /* no node directory: everything on node 0 */
  if (!read_shape (dir, 4, &t, 4, 4, 1, 1, "cache"))
    return;
  for (int c = 0; c < 4; c++)
    {
      tap_check_int (t.cpu[c].cpu, ==, c);
      tap_check_int (t.cpu[c].core, ==, c);
      tap_check_int (t.cpu[c].smt, ==, 0);
      tap_check_int (t.cpu[c].package, ==, 0);
      tap_check_int (t.cpu[c].node, ==, 0);
    }
  check_order (&t, UCB_PLACE_SPREAD, want);
  check_order (&t, UCB_PLACE_COMPACT, want);
  tap_check (ucb_topology_cpu (&t, 4) == NULL);
  ucb_topology_free (&t);
}

/* 12 L3 domains x 4 cores x SMT2, numbered the Linux/AMD way: the sibling of i is i + 48. */
static char *
amd_tree (void)
{
  char *dir = new_tree ();

  for (int c = 0; c < 96; c++)
    {
      int core = c % 48, d = core / 4;
      char sib[32], l3[64];
      snprintf (sib, sizeof sib, "%d,%d", core, core + 48);
      snprintf (l3, sizeof l3, "%d-%d,%d-%d", 4 * d, 4 * d + 3, 48 + 4 * d, 48 + 4 * d + 3);
      put_cpu (dir, c, 0, core, sib, l3);
    }
  put_node (dir, 0, "0-95");
  return dir;
}

static void
test_amd (void)
{
  cleanup_free char *dir = amd_tree ();
  cleanup_free int *spread = xcalloc (96, sizeof *spread), *compact = xcalloc (96, sizeof *compact);
  struct ucb_topology t;

  if (!read_shape (dir, 96, &t, 96, 48, 12, 1, "cache"))
    return;
  tap_check_int (ucb_topology_cpu (&t, 53)->core, ==, ucb_topology_cpu (&t, 5)->core);
  tap_check_int (ucb_topology_cpu (&t, 53)->smt, ==, 1);
  tap_check_int (ucb_topology_cpu (&t, 5)->smt, ==, 0);
  tap_check_int (ucb_topology_cpu (&t, 53)->l3, ==, 1);

  ucb_topology_order (&t, UCB_PLACE_SPREAD, spread);
  tap_check (is_permutation (&t, spread));
  tap_check_int (ucb_topology_count_l3 (&t, spread, 12), ==, 12);
  tap_check_int (ucb_topology_count_cores (&t, spread, 48), ==, 48);
  tap_check_int (spread[0], ==, 0);
  tap_check_int (spread[1], ==, 4);
  tap_check_int (spread[12], ==, 1); /* round 2: the second core of domain 0 */
  tap_check_int (spread[48], ==, 48);
  for (int k = 0; k < 48; k++)
    tap_check_int (ucb_topology_cpu (&t, spread[k])->smt, ==, 0);

  ucb_topology_order (&t, UCB_PLACE_COMPACT, compact);
  tap_check (is_permutation (&t, compact));
  tap_check_int (ucb_topology_count_l3 (&t, compact, 8), ==, 1);
  tap_check_int (ucb_topology_cpu (&t, compact[7])->l3, ==, 0);
  tap_check_int (ucb_topology_count_cores (&t, compact, 4), ==, 4);
  tap_check_int (ucb_topology_count_cores (&t, compact, 8), ==, 4);
  tap_check_int (compact[4], ==, 48);
  tap_check_int (compact[8], ==, 4);

  tap_check_int (ucb_topology_count_l3 (&t, compact, 96), ==, 12);
  tap_check_int (ucb_topology_count_cores (&t, compact, 96), ==, 48);
  tap_check_int (ucb_topology_count_nodes (&t, compact, 96), ==, 1);
  tap_check_int (ucb_topology_count_l3 (&t, (const int[]){ 999, 3 }, 2), ==, 1);
  ucb_topology_free (&t);
}

/* 2 nodes, 2 packages of one L3 and 4 cores each, SMT siblings numbered i and i + 1. */
static void
test_two_nodes (void)
{
  cleanup_free char *dir = new_tree ();
  struct ucb_topology t;
  const int spread[] = { 0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7, 15 };
  const int compact[] = { 0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15 };

  for (int c = 0; c < 16; c++)
    {
      int p = c / 8, s = c & ~1;
      char sib[32], l3[32];
      snprintf (sib, sizeof sib, "%d-%d", s, s + 1);
      snprintf (l3, sizeof l3, "%d-%d", 8 * p, 8 * p + 7);
      put_cpu (dir, c, p, (c % 8) / 2, sib, l3);
    }
  put_node (dir, 0, "0-7");
  put_node (dir, 1, "8-15");
  if (!read_shape (dir, 16, &t, 16, 8, 2, 2, NULL))
    return;
  tap_check_int (ucb_topology_cpu (&t, 9)->node, ==, 1);
  tap_check_int (ucb_topology_cpu (&t, 9)->package, ==, 1);
  tap_check_int (ucb_topology_cpu (&t, 9)->smt, ==, 1);
  check_order (&t, UCB_PLACE_SPREAD, spread);
  for (int k = 0; k < 16; k++)
    tap_check_int (ucb_topology_cpu (&t, spread[k])->node, ==, k % 2);
  check_order (&t, UCB_PLACE_COMPACT, compact);
  tap_check_int (ucb_topology_count_nodes (&t, spread, 2), ==, 2);
  tap_check_int (ucb_topology_count_nodes (&t, compact, 8), ==, 1);
  ucb_topology_free (&t);
}

/* Several L3 domains per node: spread deals them across nodes, compact keeps node order. */
static void
test_domains_per_node (void)
{
  static const struct
  {
    const char *node0, *node1;
    int spread[8], compact[8];
  } cases[] = {
    /* domains 0,1 on node 0 and 2,3 on node 1 */
    { "0-3", "4-7", { 0, 4, 2, 6, 1, 5, 3, 7 }, { 0, 1, 2, 3, 4, 5, 6, 7 } },
    /* domains 0,2 on node 0 and 1,3 on node 1 */
    { "0-1,4-5", "2-3,6-7", { 0, 2, 4, 6, 1, 3, 5, 7 }, { 0, 1, 4, 5, 2, 3, 6, 7 } },
  };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (cases); i++)
    {
      cleanup_free char *dir = new_tree ();
      struct ucb_topology t;

      for (int c = 0; c < 8; c++)
        {
          char sib[32], l3[32];
          snprintf (sib, sizeof sib, "%d", c);
          snprintf (l3, sizeof l3, "%d-%d", c & ~1, (c & ~1) + 1);
          put_cpu (dir, c, 0, c, sib, l3);
        }
      put_node (dir, 0, cases[i].node0);
      put_node (dir, 1, cases[i].node1);
      if (!read_shape (dir, 8, &t, 8, -1, 4, 2, NULL))
        continue;
      check_order (&t, UCB_PLACE_SPREAD, cases[i].spread);
      check_order (&t, UCB_PLACE_COMPACT, cases[i].compact);
      ucb_topology_free (&t);
    }
}

static void
test_subset (void)
{
  cleanup_free char *dir = amd_tree ();
  const int allowed[] = { 60, 49, 1, 5, 12, 50, 5 }; /* unsorted, one duplicate */
  const int spread[] = { 1, 5, 12, 50, 49, 60 };
  const int compact[] = { 1, 50, 49, 5, 12, 60 };
  ucb_error_t err = NULL;
  struct ucb_topology t;

  if (ucb_topology_read (dir, allowed, UCB_ARRAY_SIZE (allowed), &t, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      tap_check (!"read");
      ucb_error_free (&err);
      return;
    }
  tap_check_int (t.ncpus, ==, 6);
  tap_check_int (t.cpu[0].cpu, ==, 1);
  tap_check_int (t.cpu[5].cpu, ==, 60);
  tap_check (ucb_topology_cpu (&t, 0) == NULL);
  tap_check (ucb_topology_cpu (&t, 48) == NULL);
  tap_check_int (t.ncores, ==, 4);
  tap_check_int (t.nl3, ==, 3);
  /* 50's sibling 2 is not allowed, so 50 is the first of its core */
  tap_check_int (ucb_topology_cpu (&t, 50)->smt, ==, 0);
  tap_check_int (ucb_topology_cpu (&t, 50)->core, ==, 3);
  tap_check_int (ucb_topology_cpu (&t, 49)->smt, ==, 1);
  tap_check_int (ucb_topology_cpu (&t, 60)->l3, ==, 2);
  check_order (&t, UCB_PLACE_SPREAD, spread);
  check_order (&t, UCB_PLACE_COMPACT, compact);
  ucb_topology_free (&t);
}

static void
test_fallbacks (void)
{
  cleanup_free char *pkg = new_tree (), *bare = new_tree (), *ids = new_tree ();
  struct ucb_topology t;
  const int spread[] = { 0, 4, 1, 5, 2, 6, 3, 7 };

  /* caches absent: one domain per package */
  for (int c = 0; c < 8; c++)
    {
      char sib[32];
      snprintf (sib, sizeof sib, "%d", c);
      put_cpu (pkg, c, c / 4, c % 4, sib, NULL);
    }
  if (read_all (pkg, 8, &t) == 0)
    {
      tap_check_str (t.l3_source, "package");
      tap_check_int (t.nl3, ==, 2);
      tap_check_int (ucb_topology_cpu (&t, 5)->l3, ==, 1);
      check_order (&t, UCB_PLACE_SPREAD, spread);
      ucb_topology_free (&t);
    }
  else
    tap_check (!"read package tree");

  /* nothing at all: a core each, package unknown, one domain */
  put (bare, "sys/devices/system/cpu/online", "0-2");
  if (read_all (bare, 3, &t) == 0)
    {
      tap_check_str (t.l3_source, "none");
      tap_check_int (t.nl3, ==, 1);
      tap_check_int (t.ncores, ==, 3);
      tap_check_int (t.cpu[2].package, ==, -1);
      tap_check_int (t.cpu[2].core, ==, 2);
      ucb_topology_free (&t);
    }
  else
    tap_check (!"read bare tree");
  tap_check_int (read_all (bare, 0, &t), ==, 0);
  tap_check_int (t.ncpus, ==, 0);
  tap_check_int (t.nl3, ==, 0);
  tap_check_str (t.l3_source, "none");
  ucb_topology_free (&t);

  /* no sibling lists: (package, core_id) groups the threads; package -1 counts as unknown */
  for (int c = 0; c < 4; c++)
    put_cpu (ids, c, -1, c % 2, NULL, NULL);
  if (read_all (ids, 4, &t) == 0)
    {
      tap_check_int (t.ncores, ==, 2);
      tap_check_int (ucb_topology_cpu (&t, 2)->core, ==, 0);
      tap_check_int (ucb_topology_cpu (&t, 2)->smt, ==, 1);
      tap_check_str (t.l3_source, "none");
      ucb_topology_free (&t);
    }
  else
    tap_check (!"read id tree");
}

/* Every online CPU, allowed or not: what `ucbench info` counts (a CPU-less memory node is a node
 * too; without the node directory the count is unknown). */
static void
test_online (void)
{
  cleanup_free char *dir = new_tree (), *bare = new_tree (), *none = new_tree ();
  struct ucb_topology t;
  ucb_error_t err = NULL;
  size_t threads = 0;

  put (dir, "sys/devices/system/cpu/online", "0-3");
  for (int c = 0; c < 4; c++)
    put_cpu (dir, c, 0, c / 2, c < 2 ? "0-1" : "2-3", "0-3");
  put_cpu (dir, 4, 0, 2, "4", "4"); /* offline: not in cpu/online */
  put_node (dir, 0, "0-4");
  put_node (dir, 1, "");
  tap_check_int (ucb_topology_read_online (dir, &t, &err), ==, 0);
  tap_check_int (t.ncpus, ==, 4);
  tap_check_str (t.l3_source, "cache");
  tap_check_int (t.nl3, ==, 1);
  tap_check_int (t.nnodes, ==, 1);
  tap_check_int (t.nodes_listed, ==, 2);
  tap_check (ucb_topology_cpu (&t, 0) && ucb_topology_cpu (&t, 0)->core_known);
  for (size_t i = 0; i < t.ncpus; i++)
    threads += t.cpu[i].core == ucb_topology_cpu (&t, 0)->core;
  tap_check_int (threads, ==, 2);
  ucb_topology_free (&t);

  put (bare, "sys/devices/system/cpu/online", "0-1");
  tap_check_int (ucb_topology_read_online (bare, &t, &err), ==, 0);
  tap_check_int (t.nodes_listed, ==, -1);
  tap_check_int (t.nnodes, ==, 1);
  tap_check (ucb_topology_cpu (&t, 1) && !ucb_topology_cpu (&t, 1)->core_known);
  ucb_topology_free (&t);

  tap_check_int (ucb_topology_read_online (none, &t, &err), <, 0);
  tap_check (err != NULL && strstr (err->msg, "cpu/online") != NULL);
  ucb_error_free (&err);
}

/* A malformed file fails the read, and the message names it. */
static void
check_malformed (const char *file, const char *content, int ncpus)
{
  cleanup_free char *dir = new_tree ();
  cleanup_free int *all = range (ncpus);
  struct ucb_topology t;
  ucb_error_t err = NULL;

  for (int c = 0; c < ncpus; c++)
    {
      char sib[32];
      snprintf (sib, sizeof sib, "%d", c);
      put_cpu (dir, c, 0, c, sib, "0-1");
    }
  put (dir, file, content);
  tap_check_int (ucb_topology_read (dir, all, (size_t) ncpus, &t, &err), <, 0);
  tap_check (err != NULL && strstr (err->msg, file) != NULL);
  tap_check (err != NULL && err->status == UCB_EXIT_FAILURE);
  if (err)
    printf ("# %s\n", err->msg);
  tap_check (t.cpu == NULL && t.ncpus == 0);
  ucb_error_free (&err);
}

static void
test_malformed (void)
{
  check_malformed ("sys/devices/system/cpu/cpu1/topology/core_cpus_list", "0-x", 2);
  check_malformed ("sys/devices/system/cpu/cpu1/cache/index3/shared_cpu_list", "3-1", 2);
  check_malformed ("sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0,,1", 2);
  check_malformed ("sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0-1,", 2);
  check_malformed ("sys/devices/system/node/node0/cpulist", "0 1", 2);
  check_malformed ("sys/devices/system/cpu/cpu0/topology/physical_package_id", "zero", 2);
  check_malformed ("sys/devices/system/cpu/cpu1/cache/index2/level", "", 2);
}

static void
test_host (void)
{
  cpu_set_t set;
  int allowed[CPU_SETSIZE];
  size_t n = 0;
  struct ucb_topology t;
  ucb_error_t err = NULL;
  cleanup_free int *order = NULL;

  if (sched_getaffinity (0, sizeof set, &set) < 0)
    {
      tap_skip ("sched_getaffinity failed");
      return;
    }
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, &set))
      allowed[n++] = c;
  if (ucb_topology_read ("/", allowed, n, &t, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      tap_check (!"read the host");
      ucb_error_free (&err);
      return;
    }
  printf ("# host: %zu CPUs, %zu cores, %zu L3 (%s), %zu nodes\n", t.ncpus, t.ncores, t.nl3,
          t.l3_source, t.nnodes);
  tap_check_int (t.ncpus, ==, n);
  tap_check (t.ncores >= 1 && t.ncores <= n);
  tap_check (t.nl3 >= 1 && t.nl3 <= t.ncores);
  tap_check (t.nnodes >= 1);
  order = xcalloc (n, sizeof *order);
  ucb_topology_order (&t, UCB_PLACE_SPREAD, order);
  tap_check (is_permutation (&t, order));
  tap_check_int (ucb_topology_count_l3 (&t, order, t.nl3), ==, t.nl3);
  tap_check_int (ucb_topology_count_cores (&t, order, t.ncores), ==, t.ncores);
  ucb_topology_order (&t, UCB_PLACE_COMPACT, order);
  tap_check (is_permutation (&t, order));
  ucb_topology_free (&t);
}

static const struct tap_test tests[] = {
  { "one domain, 4 CPUs, no SMT", test_one_domain },
  { "12 L3 x 4 cores x SMT2 (AMD numbering): spread and compact", test_amd },
  { "2 nodes x 1 L3 x 4 cores x SMT2 (adjacent siblings): spread alternates nodes",
    test_two_nodes },
  { "2 nodes x 2 L3: spread deals domains across nodes, compact keeps node order",
    test_domains_per_node },
  { "an allowed subset: only those CPUs described and ordered", test_subset },
  { "no caches: per-package domains; no topology: own cores, one domain", test_fallbacks },
  { "every online CPU (ucbench info): nodes listed, known cores", test_online },
  { "malformed files fail and are named", test_malformed },
  { "the real host (sysroot /, the affinity mask)", test_host },
};

int
main (void)
{
  char tmpl[] = "/tmp/ucb-topo-XXXXXX";
  int r;

  root = mkdtemp (tmpl);
  if (root == NULL)
    {
      printf ("Bail out! mkdtemp: %s\n", strerror (errno));
      return 1;
    }
  r = tap_run (tests, UCB_ARRAY_SIZE (tests));
  nftw (root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return r;
}
