/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c - CPU topology from sysfs (cores, L3 domains, NUMA nodes) and placement orders. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/lists.h"
#include "core/util.h"
#include "host/topology.h"

/* Far above any kernel's NR_CPUS (8192); bounds what a malformed range can make us allocate. */
#define MAX_CPU_NUMBER (1 << 16)

/* What sysfs says about one CPU, before the groups get their dense indices. */
struct raw_cpu
{
  int cpu;
  int package; /* -1 when absent */
  int core_id; /* -1 when absent */
  int sib_min; /* lowest CPU of core_cpus_list or thread_siblings_list, -1 when absent */
  int *l3;     /* shared_cpu_list of its level-3 cache, NULL when absent */
  size_t nl3;
  int node;
};

struct raw
{
  struct raw_cpu *c;
  size_t n;
};

/* A sort record: ordered by k[], then by the set, then by idx, so every sort is total. */
struct rec
{
  long k[4];
  const int *set;
  size_t nset;
  size_t idx;
};

static void
raw_free (struct raw *r)
{
  for (size_t i = 0; r->c && i < r->n; i++)
    free (r->c[i].l3);
  free (r->c);
}

static void
closedirp (DIR **d)
{
  if (*d)
    closedir (*d);
}

static int
cmp_key (const struct rec *a, const struct rec *b)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (a->k); i++)
    if (a->k[i] != b->k[i])
      return a->k[i] < b->k[i] ? -1 : 1;
  if (a->nset != b->nset)
    return a->nset < b->nset ? -1 : 1;
  for (size_t i = 0; i < a->nset; i++)
    if (a->set[i] != b->set[i])
      return a->set[i] < b->set[i] ? -1 : 1;
  return 0;
}

static int
cmp_rec (const void *a, const void *b)
{
  const struct rec *x = a, *y = b;
  int c = cmp_key (x, y);

  if (c != 0)
    return c;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Number the groups of equal keys 0.. in order of their lowest idx (r[i].idx == i on entry, and
 * the caller's index is ascending by CPU, so the lowest CPU decides).  Sorts r; returns the
 * number of groups. */
static size_t
dense_ids (struct rec *r, size_t n, int *id)
{
  cleanup_free size_t *leader = xcalloc (n, sizeof *leader);
  size_t next = 0;

  qsort (r, n, sizeof *r, cmp_rec);
  for (size_t s = 0; s < n; s++)
    leader[r[s].idx] = s > 0 && cmp_key (&r[s - 1], &r[s]) == 0 ? leader[r[s - 1].idx] : r[s].idx;
  for (size_t i = 0; i < n; i++)
    id[i] = leader[i] == i ? (int) next++ : id[leader[i]];
  return next;
}

/* A file that older kernels, other architectures or a container's /sys may lack: *out stays
 * NULL when it does not exist; any other failure is an error. */
static int
read_optional (const char *path, char **out, ucb_error_t *err)
{
  *out = NULL;
  if (access (path, F_OK) < 0 && (errno == ENOENT || errno == ENOTDIR))
    return 0;
  return ucb_read_file (path, out, err);
}

static int
parse_int (const char *path, const char *s, long min, int *out, ucb_error_t *err)
{
  const char *p = s[0] == '-' ? s + 1 : s;
  char *end;
  long v;

  errno = 0;
  v = strtol (s, &end, 10);
  if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 || v < min || v > INT_MAX)
    return ucb_make_error (err, 0, "malformed `%s`: expected an integer, got `%.40s`", path, s);
  *out = (int) v;
  return 0;
}

/* The Linux cpulist syntax as sysfs writes it: "0-3,8,10-11", possibly empty (a memoryless
 * node).  Returns the CPUs ascending and without duplicates. */
static int
parse_cpulist (const char *path, const char *s, int **out, size_t *n, ucb_error_t *err)
{
  cleanup_free uint64_t *bits = xcalloc (MAX_CPU_NUMBER / 64, sizeof *bits);
  const char *p = s;
  size_t count = 0, nwords = 0;
  int *v;

  while (*p)
    {
      long lo, hi;
      char *end;

      if (*p < '0' || *p > '9')
        goto bad;
      lo = hi = strtol (p, &end, 10);
      p = end;
      if (*p == '-')
        {
          if (p[1] < '0' || p[1] > '9')
            goto bad;
          hi = strtol (p + 1, &end, 10);
          p = end;
        }
      if (lo > hi || hi >= MAX_CPU_NUMBER)
        goto bad;
      for (long c = lo; c <= hi; c++)
        bits[c / 64] |= UINT64_C (1) << (c % 64);
      if ((size_t) hi / 64 + 1 > nwords)
        nwords = (size_t) hi / 64 + 1;
      if (*p == ',' && p[1] != '\0')
        p++;
      else if (*p != '\0')
        goto bad;
    }
  /* Only up to the highest CPU seen: this runs a few times per CPU of the host. */
  for (size_t w = 0; w < nwords; w++)
    count += (size_t) __builtin_popcountll (bits[w]);
  v = xcalloc (count, sizeof *v);
  *n = 0;
  for (size_t w = 0; w < nwords; w++)
    for (uint64_t b = bits[w]; b != 0; b &= b - 1)
      v[(*n)++] = (int) (w * 64 + (size_t) __builtin_ctzll (b));
  *out = v;
  return 0;
bad:
  return ucb_make_error (err, 0, "malformed CPU list in `%s`: `%.80s`", path, s);
}

/* Read and parse an optional cpulist file; *out stays NULL when the file is absent. */
static int
read_cpulist (const char *path, int **out, size_t *n, ucb_error_t *err)
{
  cleanup_free char *s = NULL;

  *out = NULL;
  *n = 0;
  if (read_optional (path, &s, err) < 0)
    return -1;
  if (s == NULL)
    return 0;
  return parse_cpulist (path, s, out, n, err);
}

/* "indexN" -> N; -1 for anything else (uevent, power, ...). */
static long
entry_number (const char *name, const char *prefix)
{
  size_t len = strlen (prefix);
  uint64_t v;

  if (strncmp (name, prefix, len) != 0 || ucb_parse_u64 (name + len, 0, INT_MAX, &v) < 0)
    return -1;
  return (long) v;
}

/* The lowest-numbered cache/indexN of level 3 and its shared_cpu_list; none leaves c->l3 NULL. */
static int
read_l3 (const char *base, struct raw_cpu *c, ucb_error_t *err)
{
  cleanup_free char *dir = xasprintf ("%s/cache", base), *path = NULL;
  __attribute__ ((cleanup (closedirp))) DIR *d = NULL;
  struct dirent *de;
  long best = -1;

  d = opendir (dir);
  if (d == NULL)
    return errno == ENOENT || errno == ENOTDIR ? 0 : ucb_make_error (err, errno, "open `%s`", dir);
  for (errno = 0; (de = readdir (d)) != NULL; errno = 0)
    {
      cleanup_free char *lpath = NULL, *level = NULL;
      long idx = entry_number (de->d_name, "index");
      int lv;

      if (idx < 0 || (best >= 0 && idx > best))
        continue;
      lpath = xasprintf ("%s/%s/level", dir, de->d_name);
      if (read_optional (lpath, &level, err) < 0)
        return -1;
      if (level == NULL)
        continue;
      if (parse_int (lpath, level, 0, &lv, err) < 0)
        return -1;
      if (lv == 3)
        best = idx;
    }
  if (errno != 0)
    return ucb_make_error (err, errno, "read directory `%s`", dir);
  if (best < 0)
    return 0;
  path = xasprintf ("%s/index%ld/shared_cpu_list", dir, best);
  return read_cpulist (path, &c->l3, &c->nl3, err);
}

static int
read_cpu (const char *root, struct raw_cpu *c, ucb_error_t *err)
{
  static const char *const sibling_files[] = { "core_cpus_list", "thread_siblings_list" };
  cleanup_free char *base = xasprintf ("%s/sys/devices/system/cpu/cpu%d", root, c->cpu);
  cleanup_free char *ppath = xasprintf ("%s/topology/physical_package_id", base);
  cleanup_free char *cpath = xasprintf ("%s/topology/core_id", base);
  cleanup_free char *pkg = NULL, *core = NULL;

  c->package = c->core_id = c->sib_min = -1;
  if (read_optional (ppath, &pkg, err) < 0 || read_optional (cpath, &core, err) < 0)
    return -1;
  /* Some architectures write -1 when they do not know. */
  if (pkg && parse_int (ppath, pkg, -1, &c->package, err) < 0)
    return -1;
  if (core && parse_int (cpath, core, -1, &c->core_id, err) < 0)
    return -1;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (sibling_files) && c->sib_min < 0; i++)
    {
      cleanup_free char *spath = xasprintf ("%s/topology/%s", base, sibling_files[i]);
      cleanup_free int *sib = NULL;
      size_t nsib;

      if (read_cpulist (spath, &sib, &nsib, err) < 0)
        return -1;
      if (sib && nsib > 0)
        c->sib_min = sib[0];
    }
  return read_l3 (base, c, err);
}

static int
cmp_raw_cpu (const void *key, const void *elem)
{
  return ucb_cmp_int (key, &((const struct raw_cpu *) elem)->cpu);
}

/* node/nodeN/cpulist gives each CPU its node; without the directory (no CONFIG_NUMA) all stay
 * on node 0 and *listed is -1, else the number of nodeN directories. */
static int
read_nodes (const char *root, struct raw *r, long *listed, ucb_error_t *err)
{
  cleanup_free char *dir = xasprintf ("%s/sys/devices/system/node", root);
  __attribute__ ((cleanup (closedirp))) DIR *d = NULL;
  struct dirent *de;

  *listed = -1;
  d = opendir (dir);
  if (d == NULL)
    return errno == ENOENT || errno == ENOTDIR ? 0 : ucb_make_error (err, errno, "open `%s`", dir);
  *listed = 0;
  for (errno = 0; (de = readdir (d)) != NULL; errno = 0)
    {
      cleanup_free char *path = NULL;
      cleanup_free int *cpus = NULL;
      long node = entry_number (de->d_name, "node");
      size_t n;

      if (node < 0)
        continue;
      ++*listed;
      path = xasprintf ("%s/%s/cpulist", dir, de->d_name);
      if (read_cpulist (path, &cpus, &n, err) < 0)
        return -1;
      for (size_t i = 0; i < n; i++)
        {
          struct raw_cpu *c = bsearch (&cpus[i], r->c, r->n, sizeof *r->c, cmp_raw_cpu);
          if (c)
            c->node = (int) node;
        }
    }
  if (errno != 0)
    return ucb_make_error (err, errno, "read directory `%s`", dir);
  return 0;
}

int
ucb_allowed_cpus (int **cpus, size_t *n, ucb_error_t *err)
{
  /* sched_getaffinity fails with EINVAL while the mask is smaller than the kernel's. */
  for (int ncpus = 1024; ncpus <= MAX_CPU_NUMBER; ncpus *= 2)
    {
      cpu_set_t *set = CPU_ALLOC (ncpus);
      size_t size = CPU_ALLOC_SIZE (ncpus);
      int r, e;

      if (set == NULL)
        ucb_oom ();
      r = sched_getaffinity (0, size, set);
      e = errno;
      if (r == 0)
        {
          *cpus = xcalloc ((size_t) CPU_COUNT_S (size, set), sizeof **cpus);
          *n = 0;
          for (size_t c = 0; c < size * 8; c++)
            if (CPU_ISSET_S (c, size, set))
              (*cpus)[(*n)++] = (int) c;
        }
      CPU_FREE (set);
      if (r == 0)
        return 0;
      if (e != EINVAL)
        return ucb_make_error (err, e, "sched_getaffinity");
    }
  return ucb_make_error (err, EINVAL, "sched_getaffinity: more than %d CPUs", MAX_CPU_NUMBER);
}

/* "/" and "" both mean the host; "/tmp/x/" must not give "/tmp/x//sys" in messages. */
static char *
root_of (const char *sysroot)
{
  char *root = xstrdup (sysroot ? sysroot : "");
  size_t len = strlen (root);

  while (len > 0 && root[len - 1] == '/')
    root[--len] = '\0';
  return root;
}

/* The raw facts of the distinct CPUs of allowed[0..nallowed), ascending. */
static int
read_raw (const char *root, const int *allowed, size_t nallowed, struct raw *r, long *nodes_listed,
          ucb_error_t *err)
{
  cleanup_free int *cpus = xcalloc (nallowed, sizeof *cpus);
  size_t n = 0;

  for (size_t i = 0; i < nallowed; i++)
    if (allowed[i] < 0 || allowed[i] >= MAX_CPU_NUMBER)
      return ucb_make_error (err, EINVAL, "invalid CPU number %d", allowed[i]);
  if (nallowed > 0)
    {
      memcpy (cpus, allowed, nallowed * sizeof *cpus);
      qsort (cpus, nallowed, sizeof *cpus, ucb_cmp_int);
    }
  for (size_t i = 0; i < nallowed; i++)
    if (n == 0 || cpus[n - 1] != cpus[i])
      cpus[n++] = cpus[i];
  r->c = xcalloc (n, sizeof *r->c);
  r->n = n;
  for (size_t i = 0; i < n; i++)
    {
      r->c[i].cpu = cpus[i];
      if (read_cpu (root, &r->c[i], err) < 0)
        return -1;
    }
  return read_nodes (root, r, nodes_listed, err);
}

int
ucb_topology_read (const char *sysroot, const int *allowed, size_t nallowed, struct ucb_topology *t,
                   ucb_error_t *err)
{
  __attribute__ ((cleanup (raw_free))) struct raw r = { 0 };
  cleanup_free char *root = root_of (sysroot);
  cleanup_free int *cpus = NULL, *id = NULL, *seen = NULL;
  cleanup_free struct rec *rec = NULL;
  bool have_l3, have_package = false;
  size_t n;
  long nodes_listed = -1;

  memset (t, 0, sizeof *t);
  if (read_raw (root, allowed, nallowed, &r, &nodes_listed, err) < 0)
    return -1;
  n = r.n;
  cpus = xcalloc (n, sizeof *cpus);
  for (size_t i = 0; i < n; i++)
    cpus[i] = r.c[i].cpu;

  /* Cores: one sibling list, else one (package, core_id), else a core of its own. */
  rec = xcalloc (n, sizeof *rec);
  id = xcalloc (n, sizeof *id);
  for (size_t i = 0; i < n; i++)
    {
      const struct raw_cpu *c = &r.c[i];
      if (c->sib_min >= 0)
        rec[i] = (struct rec){ .k = { 0, c->sib_min }, .idx = i };
      else if (c->core_id >= 0)
        rec[i] = (struct rec){ .k = { 1, c->package, c->core_id }, .idx = i };
      else
        rec[i] = (struct rec){ .k = { 2, c->cpu }, .idx = i };
    }
  t->ncores = dense_ids (rec, n, id);
  t->cpu = xcalloc (n, sizeof *t->cpu);
  have_l3 = n > 0;
  seen = xcalloc (t->ncores, sizeof *seen);
  for (size_t i = 0; i < n; i++)
    {
      t->cpu[i] = (struct ucb_cpu_topo){ .cpu = r.c[i].cpu,
                                         .package = r.c[i].package,
                                         .core = id[i],
                                         .smt = seen[id[i]]++, /* ascending: lowest is 0 */
                                         .node = r.c[i].node,
                                         .core_known = r.c[i].sib_min >= 0 || r.c[i].core_id >= 0 };
      have_l3 = have_l3 && r.c[i].l3 != NULL;
      have_package = have_package || r.c[i].package >= 0;
    }

  /* L3 domains: all from the caches, or all from the fallback, so that domains compare. */
  t->l3_source = have_l3 ? "cache" : have_package ? "package" : "none";
  for (size_t i = 0; i < n; i++)
    if (have_l3)
      rec[i] = (struct rec){ .set = r.c[i].l3, .nset = r.c[i].nl3, .idx = i };
    else
      rec[i] = (struct rec){ .k = { have_package ? r.c[i].package : 0 }, .idx = i };
  t->nl3 = dense_ids (rec, n, id);
  for (size_t i = 0; i < n; i++)
    t->cpu[i].l3 = id[i];
  t->ncpus = n;
  t->nnodes = ucb_topology_count_nodes (t, cpus, n);
  t->nodes_listed = nodes_listed;
  return 0;
}

int
ucb_topology_read_online (const char *sysroot, struct ucb_topology *t, ucb_error_t *err)
{
  cleanup_free char *root = root_of (sysroot);
  cleanup_free char *path = xasprintf ("%s/sys/devices/system/cpu/online", root);
  cleanup_free int *cpus = NULL;
  size_t n = 0;

  memset (t, 0, sizeof *t);
  if (read_cpulist (path, &cpus, &n, err) < 0)
    return -1;
  if (cpus == NULL)
    return ucb_make_error (err, ENOENT, "no online CPU list `%s`", path);
  return ucb_topology_read (sysroot, cpus, n, t, err);
}

void
ucb_topology_free (struct ucb_topology *t)
{
  free (t->cpu);
  memset (t, 0, sizeof *t);
}

static int
cmp_topo_cpu (const void *key, const void *elem)
{
  return ucb_cmp_int (key, &((const struct ucb_cpu_topo *) elem)->cpu);
}

const struct ucb_cpu_topo *
ucb_topology_cpu (const struct ucb_topology *t, int cpu)
{
  if (t->ncpus == 0)
    return NULL;
  return bsearch (&cpu, t->cpu, t->ncpus, sizeof *t->cpu, cmp_topo_cpu);
}

/* Rank of each domain: compact lists them by (node, index); spread deals them like cards,
 * the first of every node, then the second of every node, ... */
static void
domain_ranks (const struct ucb_topology *t, enum ucb_place_order mode, long *rank)
{
  size_t nd = t->nl3;
  cleanup_free long *node = xcalloc (nd, sizeof *node);
  cleanup_free struct rec *d = xcalloc (nd, sizeof *d);

  /* A domain's node is that of its lowest CPU: walk down so the lowest writes last. */
  for (size_t i = t->ncpus; i-- > 0;)
    node[t->cpu[i].l3] = t->cpu[i].node;
  for (size_t j = 0; j < nd; j++)
    d[j] = (struct rec){ .k = { node[j], (long) j }, .idx = j };
  qsort (d, nd, sizeof *d, cmp_rec);
  if (mode == UCB_PLACE_SPREAD)
    {
      long prev_node = 0;
      for (size_t s = 0, pos = 0; s < nd; s++)
        {
          long cur = d[s].k[0];
          pos = s > 0 && prev_node == cur ? pos + 1 : 0;
          prev_node = cur;
          d[s] = (struct rec){ .k = { (long) pos, cur, d[s].k[1] }, .idx = d[s].idx };
        }
      qsort (d, nd, sizeof *d, cmp_rec);
    }
  for (size_t s = 0; s < nd; s++)
    rank[d[s].idx] = (long) s;
}

void
ucb_topology_order (const struct ucb_topology *t, enum ucb_place_order mode, int *out)
{
  size_t n = t->ncpus;
  cleanup_free long *rank = xcalloc (t->nl3, sizeof *rank);
  cleanup_free struct rec *r = xcalloc (n, sizeof *r);

  domain_ranks (t, mode, rank);
  for (size_t i = 0; i < n; i++)
    {
      const struct ucb_cpu_topo *c = &t->cpu[i];
      if (mode == UCB_PLACE_COMPACT)
        r[i] = (struct rec){ .k = { rank[c->l3], c->smt, c->cpu }, .idx = i };
      else
        r[i] = (struct rec){ .k = { c->smt, rank[c->l3], c->core, c->cpu }, .idx = i };
    }
  qsort (r, n, sizeof *r, cmp_rec);
  if (mode == UCB_PLACE_SPREAD)
    {
      /* Within a tier, the p-th CPU of every domain comes before the (p+1)-th of any. */
      long prev_smt = -1, prev_rank = -1;
      for (size_t s = 0, pos = 0; s < n; s++)
        {
          long smt = r[s].k[0], rk = r[s].k[1];
          pos = smt == prev_smt && rk == prev_rank ? pos + 1 : 0;
          prev_smt = smt;
          prev_rank = rk;
          r[s] = (struct rec){ .k = { smt, (long) pos, rk }, .idx = r[s].idx };
        }
      qsort (r, n, sizeof *r, cmp_rec);
    }
  for (size_t s = 0; s < n; s++)
    out[s] = t->cpu[r[s].idx].cpu;
}

enum field
{
  FIELD_L3,
  FIELD_CORE,
  FIELD_NODE,
};

static size_t
count_distinct (const struct ucb_topology *t, const int *cpus, size_t n, enum field f)
{
  cleanup_free int *v = xcalloc (n, sizeof *v);
  size_t m = 0, distinct = 0;

  for (size_t i = 0; i < n; i++)
    {
      const struct ucb_cpu_topo *c = ucb_topology_cpu (t, cpus[i]);
      if (c)
        v[m++] = f == FIELD_L3 ? c->l3 : f == FIELD_CORE ? c->core : c->node;
    }
  qsort (v, m, sizeof *v, ucb_cmp_int);
  for (size_t i = 0; i < m; i++)
    distinct += i == 0 || v[i] != v[i - 1];
  return distinct;
}

size_t
ucb_topology_count_l3 (const struct ucb_topology *t, const int *cpus, size_t n)
{
  return count_distinct (t, cpus, n, FIELD_L3);
}

size_t
ucb_topology_count_cores (const struct ucb_topology *t, const int *cpus, size_t n)
{
  return count_distinct (t, cpus, n, FIELD_CORE);
}

size_t
ucb_topology_count_nodes (const struct ucb_topology *t, const int *cpus, size_t n)
{
  return count_distinct (t, cpus, n, FIELD_NODE);
}
