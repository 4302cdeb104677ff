/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.c - parsing and validation of `ucbench run` options. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/util.h"
#include "engine/workload.h"

/* The registry's names are the keywords of --workload. */
static int
unknown_workload (const char *name, ucb_error_t *err)
{
  size_t n = 0;
  cleanup_free const char **names = NULL;

  while (ucb_workloads[n])
    n++;
  names = xcalloc (n ? n : 1, sizeof *names);
  for (size_t i = 0; i < n; i++)
    names[i] = ucb_workloads[i]->name;
  return ucb_keyword_error (err, "unknown workload", name, names, n, NULL);
}

static int
parse_workloads (struct ucb_plan *p, const char *s, ucb_error_t *err)
{
  cleanup_items struct ucb_items items = { NULL, 0 };

  if (ucb_split_list (s, "workload", &items, err) < 0)
    return -1;
  free (p->workloads);
  p->workloads = xcalloc (items.n, sizeof *p->workloads);
  p->n_workloads = 0;
  for (size_t i = 0; i < items.n; i++)
    {
      const struct ucb_workload *w = ucb_workload_find (items.v[i]);
      if (w == NULL)
        return unknown_workload (items.v[i], err);
      for (size_t j = 0; j < p->n_workloads; j++)
        if (p->workloads[j] == w)
          return ucb_usage_error (err, "duplicate workload `%s`", items.v[i]);
      p->workloads[p->n_workloads++] = w;
    }
  return 0;
}

/* --isolate: the first replaces the default, a repeated one adds its namespaces; one named by
 * an earlier --isolate is refused as within one list. */
static int
parse_isolate (struct ucb_run_options *o, const char *s, ucb_error_t *err)
{
  cleanup_items struct ucb_items items = { NULL, 0 };
  int flags, named = 0;

  if (ucb_parse_isolate (s, &flags, err) < 0 || ucb_split_list (s, "namespace", &items, err) < 0)
    return -1;
  for (size_t i = 0; i < items.n; i++)
    {
      int one = 0;
      if (ucb_parse_isolate (items.v[i], &one, err) < 0)
        return -1;
      one = one ? one : CLONE_NEWUSER; /* `user` adds no flag */
      if (o->isolate_named & one)
        return ucb_usage_error (err, "duplicate --isolate namespace `%s`", items.v[i]);
      named |= one;
    }
  o->plan.isolate = (o->plan.isolate_given ? o->plan.isolate : 0) | flags;
  o->plan.isolate_given = true;
  o->isolate_named |= named;
  return 0;
}

static void
set_defaults (struct ucb_run_options *o, unsigned ncpus)
{
  memset (o, 0, sizeof *o);
  o->plan.duration = 3.0;
  o->plan.warmup = 1.0;
  o->plan.interval = 0.5;
  o->plan.repeat = 1;
  o->plan.contention_threshold = UCB_CONTENTION_THRESHOLD;
  o->plan.pin = UCB_PIN_AUTO;
  o->plan.uid_base = UCB_DEFAULT_UID_BASE;
  o->format = UCB_FORMAT_TEXT;
  o->plan.isolate = UCB_ISOLATE_DEFAULT_FLAGS;
  (void) ncpus;
}

static void
fill_list_defaults (struct ucb_run_options *o, unsigned ncpus)
{
  if (o->plan.workloads == NULL)
    {
      o->plan.workloads = xcalloc (1, sizeof *o->plan.workloads);
      o->plan.workloads[0] = ucb_workload_find ("signal");
      o->plan.n_workloads = 1;
    }
  if (o->plan.containers == NULL)
    {
      /* The default sweep: 1, nproc and 2*nproc containers (1 and 2 on one CPU). */
      unsigned c[3] = { 1, ncpus, 2 * ncpus };
      o->plan.containers = xcalloc (3, sizeof *o->plan.containers);
      for (size_t i = 0; i < 3; i++)
        {
          bool dup = false;
          for (size_t j = 0; j < o->plan.n_containers; j++)
            dup = dup || o->plan.containers[j] == c[i];
          if (!dup && c[i] >= 1 && c[i] <= UCB_KERNEL_MAX_PIDS)
            o->plan.containers[o->plan.n_containers++] = c[i];
        }
    }
  if (o->plan.owners == NULL)
    {
      o->plan.owners = xcalloc (2, sizeof *o->plan.owners);
      o->plan.owners[0].kind = UCB_OWNER_SHARED;
      o->plan.owners[1].kind = UCB_OWNER_DISTINCT;
      o->plan.n_owners = 2;
    }
  if (o->plan.depths == NULL)
    {
      o->plan.depths = xcalloc (1, sizeof *o->plan.depths);
      o->plan.depths[0] = 1;
      o->plan.n_depths = 1;
    }
  if (o->plan.tasks == NULL)
    {
      o->plan.tasks = xcalloc (1, sizeof *o->plan.tasks);
      o->plan.tasks[0] = 1;
      o->plan.n_tasks = 1;
    }
}

/* scale divides by the 1-container point of its series: a sweep without one gets one (the
 * seed's tables read "1 and 64 containers"), unless --no-baseline. */
static void
add_baseline (struct ucb_run_options *o)
{
  unsigned *c;

  if (o->no_baseline)
    return;
  for (size_t i = 0; i < o->plan.n_containers; i++)
    if (o->plan.containers[i] == 1)
      return;
  c = xcalloc (o->plan.n_containers + 1, sizeof *c);
  c[0] = 1;
  memcpy (c + 1, o->plan.containers, o->plan.n_containers * sizeof *c);
  free (o->plan.containers);
  o->plan.containers = c;
  o->plan.n_containers++;
  o->baseline_added = true;
}

/* A sweep list option (--containers, --depth, --tasks): the last one given wins. */
static int
parse_uints (const char *arg, unsigned min, unsigned max, unsigned **list, size_t *n,
             const char *what, ucb_error_t *err)
{
  free (*list);
  *list = NULL;
  return ucb_parse_uint_list (arg, min, max, list, n, what, err) < 0 ? -1 : 0;
}

/* The --headroom values: host is the default, not a choice (it is what no --headroom means). */
static const char *const headroom_keywords[] = { "near", "far" };

static int
parse_headroom (struct ucb_plan *p, const char *arg, ucb_error_t *err)
{
  int k = ucb_name_index (ucb_headroom_names, UCB_N_HEADROOMS, arg);

  if (k < 0 || k == UCB_HEADROOM_HOST)
    return ucb_keyword_error (err, "invalid --headroom", arg, headroom_keywords,
                              UCB_ARRAY_SIZE (headroom_keywords), NULL);
  p->headroom = (enum ucb_headroom) k;
  return 0;
}

/* The --pin keywords ("list" is what the document says of a CPU list: --pin takes the CPUs). */
static const char *const pin_keywords[] = { "auto", "spread", "compact", "l3", "none" };

static int
parse_pin (struct ucb_plan *p, const char *arg, ucb_error_t *err)
{
  int k = ucb_name_index (pin_keywords, UCB_ARRAY_SIZE (pin_keywords), arg);

  free (p->pin_cpus);
  p->pin_cpus = NULL;
  p->n_pin_cpus = 0;
  if (k >= 0)
    {
      p->pin = (enum ucb_pin_mode) ucb_name_index (ucb_pin_mode_names, UCB_N_PIN_MODES, arg);
      return 0;
    }
  p->pin = UCB_PIN_LIST;
  /* A word is a mistyped mode, not a malformed CPU list: say which modes there are. */
  if (ucb_nearest_name (pin_keywords, UCB_ARRAY_SIZE (pin_keywords), arg)
      || strspn (arg, "0123456789,- ") == 0)
    return ucb_keyword_error (err, "invalid --pin", arg, pin_keywords,
                              UCB_ARRAY_SIZE (pin_keywords), "a CPU list such as 0-3,8");
  if (ucb_parse_cpu_list (arg, &p->pin_cpus, &p->n_pin_cpus, err) < 0)
    return ucb_error_wrap (err, "--pin");
  return 0;
}

static int
parse_bounded (const char *name, const char *arg, uint64_t max, const char *what, uint64_t *out,
               ucb_error_t *err)
{
  if (ucb_parse_u64 (arg, 1, max, out) < 0)
    return ucb_usage_error (err, "invalid --%s `%s`: expected %s from 1 to %" PRIu64, name, arg,
                            what, max);
  return 0;
}

static const char *const repeat_keywords[] = { "auto" };

/* One option of what to run (the plan); 1 when `id` is none of them. */
static int
parse_plan_opt (struct ucb_run_options *o, int id, const char *arg, ucb_error_t *err)
{
  struct ucb_plan *p = &o->plan;
  uint64_t v;

  switch (id)
    {
    case UCB_OPT_WORKLOAD:
      return parse_workloads (p, arg, err);
    case UCB_OPT_CONTAINERS:
      return parse_uints (arg, 1, UCB_KERNEL_MAX_PIDS, &p->containers, &p->n_containers,
                          "container count", err);
    case UCB_OPT_OWNER:
      free (p->owners);
      p->owners = NULL;
      if (ucb_parse_owner_list (arg, &p->owners, &p->n_owners, err) < 0)
        return -1;
      p->owners_given = true;
      return 0;
    case UCB_OPT_DEPTH:
      return parse_uints (arg, 0, UCB_MAX_DEPTH, &p->depths, &p->n_depths, "depth", err);
    case UCB_OPT_TASKS:
      return parse_uints (arg, 1, UCB_MAX_TASKS, &p->tasks, &p->n_tasks, "task count", err);
    case UCB_OPT_THREADS:
      p->threads = true;
      return 0;
    case UCB_OPT_LIMIT:
      return ucb_parse_limits (arg, p->limits, err) < 0 ? -1 : 0;
    case UCB_OPT_HEADROOM:
      return parse_headroom (p, arg, err);
    case UCB_OPT_ISOLATE:
      return parse_isolate (o, arg, err);
    case UCB_OPT_DURATION:
      return ucb_parse_duration_opt ("duration", arg, 0.1, 86400, &p->duration, err);
    case UCB_OPT_WARMUP:
      return ucb_parse_duration_opt ("warmup", arg, 0, 3600, &p->warmup, err);
    case UCB_OPT_INTERVAL:
      return ucb_parse_duration_opt ("interval", arg, 0.01, 3600, &p->interval, err);
    case UCB_OPT_REPEAT:
      p->repeat_auto = strcmp (arg, "auto") == 0;
      if (p->repeat_auto)
        {
          p->repeat = 1;
          return 0;
        }
      if (ucb_nearest_name (repeat_keywords, 1, arg)) /* "aut": not a number anyway */
        return ucb_keyword_error (err, "invalid --repeat", arg, repeat_keywords, 1, "a count");
      if (parse_bounded ("repeat", arg, UCB_MAX_REPEAT, "an integer (or auto)", &v, err) < 0)
        return -1;
      p->repeat = (unsigned) v;
      return 0;
    case UCB_OPT_PRECISION:
      if (ucb_parse_seconds (arg, 0, 100, &p->precision_pct) < 0 || p->precision_pct <= 0)
        return ucb_usage_error (err,
                                "invalid --precision `%s`: expected a percentage, "
                                "0 < PCT <= 100",
                                arg);
      return 0;
    case UCB_OPT_MAX_TIME:
      return ucb_parse_duration_opt ("max-time", arg, 0.1, 7 * 86400.0, &p->max_time_s, err);
    case UCB_OPT_CONTENTION_THRESHOLD:
      if (ucb_parse_seconds (arg, 0, 1, &p->contention_threshold) < 0
          || p->contention_threshold <= 0)
        return ucb_usage_error (err,
                                "invalid --contention-threshold `%s`: expected a fraction of a "
                                "CPU, 0 < F <= 1",
                                arg);
      return 0;
    case UCB_OPT_PIN:
      return parse_pin (p, arg, err);
    case UCB_OPT_UID_BASE:
      if (parse_bounded ("uid-base", arg, UCB_MAX_UID, "a uid", &v, err) < 0)
        return -1;
      p->uid_base = (uint32_t) v;
      p->uid_base_given = true;
      return 0;
    default:
      return 1;
    }
}

/* One option of the output, or a runtime option (cgroup, seccomp, caps, perf). */
static int
parse_other_opt (struct ucb_run_options *o, int id, const char *arg, ucb_error_t *err)
{
  switch (id)
    {
    case UCB_OPT_OUTPUT:
      if (*arg == '\0')
        return ucb_usage_error (err, "empty --output file name");
      free (o->output);
      o->output = xstrdup (arg);
      return 0;
    case UCB_OPT_FORMAT:
      return ucb_parse_format_as (arg, true, &o->format, err) < 0 ? -1 : 0;
    case UCB_OPT_QUIET:
      o->quiet = true;
      return 0;
    case UCB_OPT_LEGEND:
      o->legend = true;
      return 0;
    case UCB_OPT_NO_BASELINE:
      o->no_baseline = true;
      return 0;
    case UCB_OPT_CAPS:
      if (o->caps_given)
        return ucb_runtime_caps_again (&o->plan.rt.caps, arg, err) < 0 ? -1 : 0;
      o->caps_given = true;
      return ucb_runtime_option (&o->plan.rt, id, arg, err) < 0 ? -1 : 0;
    default:
      if (id >= UCB_OPT_RUNTIME_FIRST && id <= UCB_OPT_RUNTIME_LAST)
        return ucb_runtime_option (&o->plan.rt, id, arg, err) < 0 ? -1 : 0;
      return 1;
    }
}

/* One option, by its row of the option table (options-table.h). */
static int
run_opt (void *ctx, int id, const char *arg, ucb_error_t *err)
{
  struct ucb_run_options *o = ctx;
  int r = parse_plan_opt (o, id, arg, err);

  return r == 1 ? parse_other_opt (o, id, arg, err) : r;
}

/* Sampling: the interval fits the duration, and the samples per task stay bounded. */
static int
check_timing (const struct ucb_plan *p, ucb_error_t *err)
{
  if (p->interval > p->duration)
    return ucb_usage_error (err, "--interval %g is longer than --duration %g", p->interval,
                            p->duration);
  if (p->duration / p->interval > 100000)
    return ucb_usage_error (err, "--duration/--interval gives more than 100000 samples per task");
  return 0;
}

/* --precision and --max-time belong to --repeat auto, which needs --precision. */
static int
check_repeat (const struct ucb_plan *p, ucb_error_t *err)
{
  if (p->repeat_auto && !(p->precision_pct > 0))
    return ucb_usage_error (err, "--repeat auto needs --precision PCT (the 95 %% CI half-width "
                                 "to reach)");
  if (!p->repeat_auto && p->precision_pct > 0)
    return ucb_usage_error (err, "--precision needs --repeat auto");
  if (!p->repeat_auto && p->max_time_s > 0)
    return ucb_usage_error (err, "--max-time needs --repeat auto");
  return 0;
}

/* Every point of the sweep can be built: task totals, and the namespaces its workloads need. */
static int
check_shape (const struct ucb_plan *p, ucb_error_t *err)
{
  bool depth0 = false;

  for (size_t i = 0; i < p->n_containers; i++)
    for (size_t j = 0; j < p->n_tasks; j++)
      if ((uint64_t) p->containers[i] * p->tasks[j] > UCB_KERNEL_MAX_PIDS)
        return ucb_usage_error (err,
                                "%u containers x %u tasks is more than the %u tasks any "
                                "kernel can run",
                                p->containers[i], p->tasks[j], UCB_KERNEL_MAX_PIDS);
  for (size_t j = 0; j < p->n_depths; j++)
    depth0 = depth0 || p->depths[j] == 0;
  if (p->isolate_given && p->isolate && depth0)
    return ucb_usage_error (err, "--isolate beyond `user` needs --depth >= 1: at depth 0 no "
                                 "container user namespace exists to own the other namespaces");
  for (size_t i = 0; i < p->n_workloads; i++)
    if (p->workloads[i]->needs_ipc_ns && (depth0 || !(p->isolate & CLONE_NEWIPC)))
      return ucb_usage_error (err,
                              "workload `%s` needs a private IPC namespace per container "
                              "(--isolate with ipc, --depth >= 1), so that its objects "
                              "cannot outlive it",
                              p->workloads[i]->name);
  return 0;
}

/* The limits and the owners that hold them: --headroom against root and --limit, and room for
 * the distinct owner uids. */
static int
check_owners (const struct ucb_plan *p, ucb_error_t *err)
{
  if (p->headroom == UCB_HEADROOM_NEAR)
    for (size_t i = 0; i < p->n_owners; i++)
      if (p->owners[i].kind == UCB_OWNER_ROOT
          || (p->owners[i].kind == UCB_OWNER_SELF && getuid () == 0))
        return ucb_usage_error (err, "--headroom near needs a non-root owner: uid 0's counters "
                                     "are shared with every root process");
  if (p->headroom != UCB_HEADROOM_HOST)
    for (size_t i = 0; i < p->n_workloads; i++)
      for (enum ucb_rl b = 0; b < UCB_RLS; b++)
        if ((p->workloads[i]->rlimits & UCB_RLIM_BIT (b)) && p->limits[b].set)
          return ucb_usage_error (err, "--limit %s and --headroom both set the limit of `%s`",
                                  ucb_rl_name (b), p->workloads[i]->name);
  /* distinct needs base..base+N-1; shared needs base alone (checked by the parser). */
  for (size_t i = 0; i < p->n_owners; i++)
    if (p->owners[i].kind == UCB_OWNER_DISTINCT)
      for (size_t j = 0; j < p->n_containers; j++)
        if ((uint64_t) p->uid_base + p->containers[j] - 1 > UCB_MAX_UID)
          return ucb_usage_error (err, "--uid-base %u leaves no room for %u owner uids",
                                  p->uid_base, p->containers[j]);
  return 0;
}

int
ucb_run_options_parse (struct ucb_run_options *o, int argc, char **argv, unsigned ncpus,
                       ucb_error_t *err)
{
  set_defaults (o, ncpus);
  if (ucb_getopt_each (argc, argv, &ucb_run_opts, run_opt, o, &o->help, err) < 0)
    return -1;
  if (o->help) /* nothing else matters */
    return 0;
  if (optind < argc)
    return ucb_usage_error (err, "unexpected argument `%s`", argv[optind]);
  if (ucb_runtime_validate (&o->plan, err) < 0 || check_timing (&o->plan, err) < 0
      || check_repeat (&o->plan, err) < 0)
    return -1;
  fill_list_defaults (o, ncpus);
  add_baseline (o);
  if (check_shape (&o->plan, err) < 0 || check_owners (&o->plan, err) < 0)
    return -1;
  return 0;
}

void
ucb_run_options_free (struct ucb_run_options *o)
{
  free (o->plan.workloads);
  free (o->plan.containers);
  free (o->plan.owners);
  free (o->plan.depths);
  free (o->plan.tasks);
  free (o->plan.pin_cpus);
  free (o->output);
  ucb_runtime_options_free (&o->plan.rt);
  memset (o, 0, sizeof *o);
}
