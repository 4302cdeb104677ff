/* options.c - parsing and validation of `ucbench run` options. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "options.h"
#include "util.h"
#include "workload.h"

const char ucb_run_usage[]
    = "Usage: ucbench run [OPTION]...\n"
      "Run workloads in N containers (user namespaces) and report per-container throughput.\n"
      "List-valued options run every combination (a sweep).\n"
      "\n"
      "  --workload NAME[,NAME..]   workloads to run (default: signal; see `ucbench list`)\n"
      "  --containers N[,N..]       containers per point, 1-4096 (default: 1,NPROC,2*NPROC)\n"
      "  --owner MODE[,MODE..]      who creates each container's user namespace:\n"
      "                             shared, distinct, root, UID or UID-UID\n"
      "                             (default: shared,distinct)\n"
      "  --depth D[,D..]            user-namespace nesting, 0-32 (0 = none; default: 1)\n"
      "  --tasks T[,T..]            tasks per container, 1-1024 (default: 1)\n"
      "  --threads                  tasks are threads of one process per container\n"
      "                             (default: one process per task)\n"
      "  --limit RLIMIT=V[,..]      soft limits set by the owner before it creates the\n"
      "                             namespace (so also its rlimit_max): SIGPENDING, MSGQUEUE\n"
      "                             (bytes), MEMLOCK (bytes), NPROC; V a number or unlimited\n"
      "  --headroom near|far        limit of the workload's counter: near = exactly its\n"
      "                             peak use, far = the hard limit (default: as started)\n"
      "  --isolate NS[,NS..]        namespaces per container: user,ipc,pid,mnt,uts,net\n"
      "                             (default: user,ipc; depth 0 has none)\n"
      "  --duration SEC             measured time per point (default: 3)\n"
      "  --warmup SEC               unmeasured time after the start barrier (default: 1)\n"
      "  --interval SEC             sampling interval (default: 0.5)\n"
      "  --repeat R                 run each point R times (default: 1)\n"
      "  --pin auto|none|CPULIST    task placement (default: auto, one task per allowed CPU)\n"
      "  --uid-base UID             first default owner uid (default: 2100000000)\n"
      "  --output FILE              write the JSON document to FILE (text table on stdout)\n"
      "  --format json|text         what stdout shows (default: text)\n"
      "  --quiet                    no progress and no table; errors only\n"
      "  -h, --help                 show this help\n";

enum
{
  OPT_WORKLOAD = 256,
  OPT_CONTAINERS,
  OPT_OWNER,
  OPT_DEPTH,
  OPT_TASKS,
  OPT_THREADS,
  OPT_LIMIT,
  OPT_HEADROOM,
  OPT_ISOLATE,
  OPT_DURATION,
  OPT_WARMUP,
  OPT_INTERVAL,
  OPT_REPEAT,
  OPT_PIN,
  OPT_UID_BASE,
  OPT_OUTPUT,
  OPT_FORMAT,
  OPT_QUIET,
};

static const struct option run_longopts[] = {
  { "workload", required_argument, NULL, OPT_WORKLOAD },
  { "containers", required_argument, NULL, OPT_CONTAINERS },
  { "owner", required_argument, NULL, OPT_OWNER },
  { "depth", required_argument, NULL, OPT_DEPTH },
  { "tasks", required_argument, NULL, OPT_TASKS },
  { "threads", no_argument, NULL, OPT_THREADS },
  { "limit", required_argument, NULL, OPT_LIMIT },
  { "headroom", required_argument, NULL, OPT_HEADROOM },
  { "isolate", required_argument, NULL, OPT_ISOLATE },
  { "duration", required_argument, NULL, OPT_DURATION },
  { "warmup", required_argument, NULL, OPT_WARMUP },
  { "interval", required_argument, NULL, OPT_INTERVAL },
  { "repeat", required_argument, NULL, OPT_REPEAT },
  { "pin", required_argument, NULL, OPT_PIN },
  { "uid-base", required_argument, NULL, OPT_UID_BASE },
  { "output", required_argument, NULL, OPT_OUTPUT },
  { "format", required_argument, NULL, OPT_FORMAT },
  { "quiet", no_argument, NULL, OPT_QUIET },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* Split a comma list; empty items ("4,,8", ",4", "4,") are errors. */
static int
split_list (const char *s, const char *what, char ***items, size_t *n, ucb_error_t *err)
{
  cleanup_free char *copy = NULL;
  char **v = NULL;
  size_t count = 0;
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
        {
          for (size_t i = 0; i < count; i++)
            free (v[i]);
          free (v);
          return ucb_usage_error (err, "malformed %s list `%s`: empty item", what, s);
        }
      v = xrealloc (v, (count + 1) * sizeof *v);
      v[count++] = xstrdup (p);
      if (q == NULL)
        break;
    }
  *items = v;
  *n = count;
  return 0;
}

static void
free_items (char **items, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (items[i]);
  free (items);
}

int
ucb_parse_uint_list (const char *s, unsigned min, unsigned max, unsigned **out, size_t *n,
                     const char *what, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;
  unsigned *v;

  if (split_list (s, what, &items, &count, err) < 0)
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
  free_items (items, count);
  *out = v;
  *n = count;
  return 0;
fail:
  free_items (items, count);
  free (v);
  return -1;
}

static int
cmp_int (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

int
ucb_parse_cpu_list (const char *s, int **out, size_t *n, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0, ncpus = 0;
  int *cpus = NULL;

  if (split_list (s, "CPU", &items, &count, err) < 0)
    return -1;
  for (size_t i = 0; i < count; i++)
    {
      char *dash = strchr (items[i], '-');
      uint64_t lo, hi;

      if (dash)
        *dash = '\0';
      if (ucb_parse_u64 (items[i], 0, UCB_MAX_CPUS - 1, &lo) < 0
          || (dash && ucb_parse_u64 (dash + 1, 0, UCB_MAX_CPUS - 1, &hi) < 0))
        {
          if (dash)
            *dash = '-';
          ucb_usage_error (err, "invalid CPU list item `%s` (expected N or N-M, N < %d)", items[i],
                           UCB_MAX_CPUS);
          goto fail;
        }
      if (!dash)
        hi = lo;
      if (hi < lo)
        {
          *dash = '-';
          ucb_usage_error (err, "invalid CPU range `%s`: end before start", items[i]);
          goto fail;
        }
      for (uint64_t c = lo; c <= hi; c++)
        {
          cpus = xrealloc (cpus, (ncpus + 1) * sizeof *cpus);
          cpus[ncpus++] = (int) c;
        }
    }
  qsort (cpus, ncpus, sizeof *cpus, cmp_int);
  for (size_t i = 1; i < ncpus; i++)
    if (cpus[i] == cpus[i - 1])
      {
        ucb_usage_error (err, "CPU %d listed twice in `%s`", cpus[i], s);
        goto fail;
      }
  free_items (items, count);
  *out = cpus;
  *n = ncpus;
  return 0;
fail:
  free_items (items, count);
  free (cpus);
  return -1;
}

int
ucb_parse_owner_list (const char *s, struct ucb_owner_mode **out, size_t *n, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;
  struct ucb_owner_mode *v;

  if (split_list (s, "owner", &items, &count, err) < 0)
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
                           "unknown owner mode `%s` (expected shared, distinct, root, UID or "
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
  free_items (items, count);
  *out = v;
  *n = count;
  return 0;
fail:
  free_items (items, count);
  free (v);
  return -1;
}

char *
ucb_owner_mode_name (const struct ucb_owner_mode *m)
{
  switch (m->kind)
    {
    case UCB_OWNER_SHARED:
      return xstrdup ("shared");
    case UCB_OWNER_DISTINCT:
      return xstrdup ("distinct");
    case UCB_OWNER_ROOT:
      return xstrdup ("root");
    case UCB_OWNER_UID:
      return xasprintf ("%u", m->lo);
    case UCB_OWNER_RANGE:
      return xasprintf ("%u-%u", m->lo, m->hi);
    default:
      return xstrdup ("?");
    }
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

  if (split_list (s, "limit", &items, &count, err) < 0)
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
          free_items (items, count);
          return -1;
        }
      if (strcmp (eq + 1, "unlimited") == 0)
        v = UCB_LIMIT_UNLIMITED;
      else if (ucb_parse_u64 (eq + 1, 0, UCB_LIMIT_UNLIMITED - 1, &v) < 0)
        {
          *eq = '=';
          ucb_usage_error (err, "invalid --limit `%s`: the value must be a number or `unlimited`",
                           items[i]);
          free_items (items, count);
          return -1;
        }
      limits[b].set = true;
      limits[b].value = v;
    }
  free_items (items, count);
  return 0;
}

static const struct
{
  const char *name;
  int flag;
} isolate_names[] = {
  { "user", 0 }, /* always: it is what a container is (depth >= 1) */
  { "ipc", CLONE_NEWIPC }, { "pid", CLONE_NEWPID }, { "mnt", CLONE_NEWNS },
  { "uts", CLONE_NEWUTS }, { "net", CLONE_NEWNET },
};

int
ucb_parse_isolate (const char *s, int *flags, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;

  if (split_list (s, "namespace", &items, &count, err) < 0)
    return -1;
  *flags = 0;
  for (size_t i = 0; i < count; i++)
    {
      size_t k = 0;
      while (k < UCB_ARRAY_SIZE (isolate_names) && strcmp (items[i], isolate_names[k].name) != 0)
        k++;
      if (k == UCB_ARRAY_SIZE (isolate_names))
        {
          ucb_usage_error (err,
                           "unknown namespace `%s` in --isolate (expected user, ipc, pid, "
                           "mnt, uts or net)",
                           items[i]);
          free_items (items, count);
          return -1;
        }
      *flags |= isolate_names[k].flag;
    }
  free_items (items, count);
  return 0;
}

char *
ucb_isolate_name (int flags)
{
  char *s = xstrdup ("");

  for (size_t k = 1; k < UCB_ARRAY_SIZE (isolate_names); k++)
    if (flags & isolate_names[k].flag)
      {
        char *next = xasprintf ("%s%s%s", s, *s ? "," : "", isolate_names[k].name);
        free (s);
        s = next;
      }
  return s;
}

static int
parse_workloads (struct ucb_run_options *o, const char *s, ucb_error_t *err)
{
  char **items = NULL;
  size_t count = 0;

  if (split_list (s, "workload", &items, &count, err) < 0)
    return -1;
  free (o->workloads);
  o->workloads = xcalloc (count, sizeof *o->workloads);
  o->n_workloads = 0;
  for (size_t i = 0; i < count; i++)
    {
      const struct ucb_workload *w = ucb_workload_find (items[i]);
      if (w == NULL)
        {
          ucb_usage_error (err, "unknown workload `%s` (see `ucbench list`)", items[i]);
          free_items (items, count);
          return -1;
        }
      for (size_t j = 0; j < o->n_workloads; j++)
        if (o->workloads[j] == w)
          {
            ucb_usage_error (err, "duplicate workload `%s`", items[i]);
            free_items (items, count);
            return -1;
          }
      o->workloads[o->n_workloads++] = w;
    }
  free_items (items, count);
  return 0;
}

static int
parse_seconds_opt (const char *name, const char *arg, double min, double max, double *out,
                   ucb_error_t *err)
{
  if (ucb_parse_seconds (arg, min, max, out) < 0)
    return ucb_usage_error (err, "invalid --%s `%s`: expected seconds from %g to %g", name, arg,
                            min, max);
  return 0;
}

static void
set_defaults (struct ucb_run_options *o, unsigned ncpus)
{
  memset (o, 0, sizeof *o);
  o->duration = 3.0;
  o->warmup = 1.0;
  o->interval = 0.5;
  o->repeat = 1;
  o->pin = UCB_PIN_AUTO;
  o->uid_base = UCB_DEFAULT_UID_BASE;
  o->format = UCB_FORMAT_TEXT;
  o->isolate = UCB_ISOLATE_DEFAULT_FLAGS;
  (void) ncpus;
}

static void
fill_list_defaults (struct ucb_run_options *o, unsigned ncpus)
{
  if (o->workloads == NULL)
    {
      o->workloads = xcalloc (1, sizeof *o->workloads);
      o->workloads[0] = ucb_workload_find ("signal");
      o->n_workloads = 1;
    }
  if (o->containers == NULL)
    {
      /* The default sweep: 1, nproc and 2*nproc containers (1 and 2 on one CPU). */
      unsigned c[3] = { 1, ncpus, 2 * ncpus };
      o->containers = xcalloc (3, sizeof *o->containers);
      for (size_t i = 0; i < 3; i++)
        {
          bool dup = false;
          for (size_t j = 0; j < o->n_containers; j++)
            dup = dup || o->containers[j] == c[i];
          if (!dup && c[i] >= 1 && c[i] <= UCB_MAX_CONTAINERS)
            o->containers[o->n_containers++] = c[i];
        }
    }
  if (o->owners == NULL)
    {
      o->owners = xcalloc (2, sizeof *o->owners);
      o->owners[0].kind = UCB_OWNER_SHARED;
      o->owners[1].kind = UCB_OWNER_DISTINCT;
      o->n_owners = 2;
    }
  if (o->depths == NULL)
    {
      o->depths = xcalloc (1, sizeof *o->depths);
      o->depths[0] = 1;
      o->n_depths = 1;
    }
  if (o->tasks == NULL)
    {
      o->tasks = xcalloc (1, sizeof *o->tasks);
      o->tasks[0] = 1;
      o->n_tasks = 1;
    }
}

int
ucb_run_options_parse (struct ucb_run_options *o, int argc, char **argv, unsigned ncpus,
                       ucb_error_t *err)
{
  int c;

  set_defaults (o, ncpus);
  optind = 0; /* full re-initialisation: the unit tests parse many argument vectors */
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+:h", run_longopts, NULL)) != -1)
    {
      uint64_t v;

      switch (c)
        {
        case OPT_WORKLOAD:
          if (parse_workloads (o, optarg, err) < 0)
            return -1;
          break;
        case OPT_CONTAINERS:
          free (o->containers);
          o->containers = NULL;
          if (ucb_parse_uint_list (optarg, 1, UCB_MAX_CONTAINERS, &o->containers, &o->n_containers,
                                   "container count", err)
              < 0)
            return -1;
          break;
        case OPT_OWNER:
          free (o->owners);
          o->owners = NULL;
          if (ucb_parse_owner_list (optarg, &o->owners, &o->n_owners, err) < 0)
            return -1;
          break;
        case OPT_DEPTH:
          free (o->depths);
          o->depths = NULL;
          if (ucb_parse_uint_list (optarg, 0, UCB_MAX_DEPTH, &o->depths, &o->n_depths, "depth", err)
              < 0)
            return -1;
          break;
        case OPT_TASKS:
          free (o->tasks);
          o->tasks = NULL;
          if (ucb_parse_uint_list (optarg, 1, UCB_MAX_TASKS, &o->tasks, &o->n_tasks, "task count",
                                   err)
              < 0)
            return -1;
          break;
        case OPT_THREADS:
          o->threads = true;
          break;
        case OPT_LIMIT:
          if (ucb_parse_limits (optarg, o->limits, err) < 0)
            return -1;
          break;
        case OPT_HEADROOM:
          if (strcmp (optarg, "near") == 0)
            o->headroom = UCB_HEADROOM_NEAR;
          else if (strcmp (optarg, "far") == 0)
            o->headroom = UCB_HEADROOM_FAR;
          else
            return ucb_usage_error (err, "invalid --headroom `%s` (expected near or far)", optarg);
          break;
        case OPT_ISOLATE:
          if (ucb_parse_isolate (optarg, &o->isolate, err) < 0)
            return -1;
          o->isolate_given = true;
          break;
        case OPT_DURATION:
          if (parse_seconds_opt ("duration", optarg, 0.1, 86400, &o->duration, err) < 0)
            return -1;
          break;
        case OPT_WARMUP:
          if (parse_seconds_opt ("warmup", optarg, 0, 3600, &o->warmup, err) < 0)
            return -1;
          break;
        case OPT_INTERVAL:
          if (parse_seconds_opt ("interval", optarg, 0.01, 3600, &o->interval, err) < 0)
            return -1;
          break;
        case OPT_REPEAT:
          if (ucb_parse_u64 (optarg, 1, UCB_MAX_REPEAT, &v) < 0)
            return ucb_usage_error (err, "invalid --repeat `%s`: expected an integer from 1 to %d",
                                    optarg, UCB_MAX_REPEAT);
          o->repeat = (unsigned) v;
          break;
        case OPT_PIN:
          free (o->pin_cpus);
          o->pin_cpus = NULL;
          o->n_pin_cpus = 0;
          if (strcmp (optarg, "auto") == 0)
            o->pin = UCB_PIN_AUTO;
          else if (strcmp (optarg, "none") == 0)
            o->pin = UCB_PIN_NONE;
          else
            {
              o->pin = UCB_PIN_LIST;
              if (ucb_parse_cpu_list (optarg, &o->pin_cpus, &o->n_pin_cpus, err) < 0)
                return ucb_error_wrap (err, "--pin");
            }
          break;
        case OPT_UID_BASE:
          if (ucb_parse_u64 (optarg, 1, UCB_MAX_UID, &v) < 0)
            return ucb_usage_error (err, "invalid --uid-base `%s`: expected a uid from 1 to %u",
                                    optarg, UCB_MAX_UID);
          o->uid_base = (uint32_t) v;
          break;
        case OPT_OUTPUT:
          if (*optarg == '\0')
            return ucb_usage_error (err, "empty --output file name");
          free (o->output);
          o->output = xstrdup (optarg);
          break;
        case OPT_FORMAT:
          if (ucb_parse_format (optarg, &o->format, err) < 0)
            return -1;
          break;
        case OPT_QUIET:
          o->quiet = true;
          break;
        case 'h':
          o->help = true;
          return 0;
        case ':':
        case '?':
        default:
          return ucb_getopt_error (c, argv, err);
        }
    }
  if (optind < argc)
    return ucb_usage_error (err, "unexpected argument `%s`", argv[optind]);
  if (o->interval > o->duration)
    return ucb_usage_error (err, "--interval %g is longer than --duration %g", o->interval,
                            o->duration);
  if (o->duration / o->interval > 100000)
    return ucb_usage_error (err, "--duration/--interval gives more than 100000 samples per task");
  fill_list_defaults (o, ncpus);
  for (size_t i = 0; i < o->n_containers; i++)
    for (size_t j = 0; j < o->n_tasks; j++)
      if ((uint64_t) o->containers[i] * o->tasks[j] > UCB_MAX_TOTAL_TASKS)
        return ucb_usage_error (err, "%u containers x %u tasks is more than %d tasks",
                                o->containers[i], o->tasks[j], UCB_MAX_TOTAL_TASKS);
  if (o->isolate_given && o->isolate)
    for (size_t i = 0; i < o->n_depths; i++)
      if (o->depths[i] == 0)
        return ucb_usage_error (err, "--isolate beyond `user` needs --depth >= 1: at depth 0 no "
                                     "container user namespace exists to own the other namespaces");
  for (size_t i = 0; i < o->n_workloads; i++)
    if (o->workloads[i]->needs_ipc_ns)
      {
        bool depth0 = false;
        for (size_t j = 0; j < o->n_depths; j++)
          depth0 = depth0 || o->depths[j] == 0;
        if (depth0 || !(o->isolate & CLONE_NEWIPC))
          return ucb_usage_error (err,
                                  "workload `%s` needs a private IPC namespace per container "
                                  "(--isolate with ipc, --depth >= 1), so that its objects "
                                  "cannot outlive it",
                                  o->workloads[i]->name);
      }
  if (o->headroom == UCB_HEADROOM_NEAR)
    for (size_t i = 0; i < o->n_owners; i++)
      if (o->owners[i].kind == UCB_OWNER_ROOT)
        return ucb_usage_error (err, "--headroom near needs a non-root owner: uid 0's counters "
                                     "are shared with every root process");
  if (o->headroom != UCB_HEADROOM_HOST)
    for (size_t i = 0; i < o->n_workloads; i++)
      for (unsigned b = 0; b < UCB_NLIMITS; b++)
        if ((o->workloads[i]->rlimits & (1u << b)) && o->limits[b].set)
          return ucb_usage_error (err, "--limit %s and --headroom both set the limit of `%s`",
                                  ucb_rlimit_name (1u << b), o->workloads[i]->name);
  /* distinct needs base..base+N-1; shared needs base alone (checked by the parser). */
  for (size_t i = 0; i < o->n_owners; i++)
    if (o->owners[i].kind == UCB_OWNER_DISTINCT)
      for (size_t j = 0; j < o->n_containers; j++)
        if ((uint64_t) o->uid_base + o->containers[j] - 1 > UCB_MAX_UID)
          return ucb_usage_error (err, "--uid-base %u leaves no room for %u owner uids",
                                  o->uid_base, o->containers[j]);
  return 0;
}

void
ucb_run_options_free (struct ucb_run_options *o)
{
  free (o->workloads);
  free (o->containers);
  free (o->owners);
  free (o->depths);
  free (o->tasks);
  free (o->pin_cpus);
  free (o->output);
  memset (o, 0, sizeof *o);
}
