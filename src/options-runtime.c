/* options-runtime.c - the options that make containers the way runtimes do: --cgroup, --cpuset,
 * --pids-max, --cgroup-set, --seccomp, --seccomp-optimize, --caps, --perf. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"

/* FILE=VALUE for one cgroup interface file: a plain file name with a controller prefix
 * ("memory.max"), never a path. */
static int
check_cgroup_set (const char *arg, ucb_error_t *err)
{
  const char *eq = strchr (arg, '=');
  const char *dot;

  if (eq == NULL || eq == arg)
    return ucb_usage_error (err,
                            "invalid --cgroup-set `%s` (expected FILE=VALUE, e.g. "
                            "memory.max=1G)",
                            arg);
  dot = memchr (arg, '.', (size_t) (eq - arg));
  if (dot == NULL || dot == arg || dot + 1 == eq)
    return ucb_usage_error (err,
                            "invalid --cgroup-set `%s`: FILE must be CONTROLLER.KEY, e.g. "
                            "pids.max",
                            arg);
  for (const char *p = arg; p < eq; p++)
    if (!(isalnum ((unsigned char) *p) || *p == '.' || *p == '_' || *p == '-'))
      return ucb_usage_error (err,
                              "invalid --cgroup-set `%s`: FILE must be a cgroup interface "
                              "file name, not a path",
                              arg);
  if (strncmp (arg, "cgroup.", 7) == 0)
    return ucb_usage_error (err, "--cgroup-set `%s`: cgroup.* core files are ucbench's to manage",
                            arg);
  if (strchr (eq + 1, '\n'))
    return ucb_usage_error (err, "--cgroup-set `%s`: VALUE must be one line", arg);
  return 0;
}

int
ucb_runtime_option (struct ucb_runtime_options *rt, int opt, const char *arg, ucb_error_t *err)
{
  uint64_t v;

  switch (opt)
    {
    case UCB_OPT_CGROUP:
      rt->cgroup = true;
      free (rt->cgroup_parent);
      rt->cgroup_parent = NULL;
      if (arg)
        {
          if (*arg == '\0')
            return ucb_usage_error (err, "empty --cgroup=PARENT");
          rt->cgroup_parent = xstrdup (arg);
        }
      return 0;
    case UCB_OPT_CPUSET:
      rt->cpuset = true;
      return 0;
    case UCB_OPT_PIDS_MAX:
      if (ucb_parse_u64 (arg, 1, 4194304, &v) < 0)
        return ucb_usage_error (err,
                                "invalid --pids-max `%s`: expected an integer from 1 to "
                                "4194304 (pid_max's ceiling)",
                                arg);
      rt->pids_max = v;
      return 0;
    case UCB_OPT_CGROUP_SET:
      if (check_cgroup_set (arg, err) < 0)
        return -1;
      rt->cgroup_set = xrealloc (rt->cgroup_set, (rt->n_cgroup_set + 1) * sizeof *rt->cgroup_set);
      rt->cgroup_set[rt->n_cgroup_set++] = xstrdup (arg);
      return 0;
    case UCB_OPT_SECCOMP:
      if (*arg == '\0')
        return ucb_usage_error (err, "empty --seccomp (expected docker, none or a profile file)");
      free (rt->seccomp);
      rt->seccomp = strcmp (arg, "none") == 0 ? NULL : xstrdup (arg);
      return 0;
    case UCB_OPT_SECCOMP_OPTIMIZE:
      if (strcmp (arg, "1") != 0 && strcmp (arg, "2") != 0)
        return ucb_usage_error (err,
                                "invalid --seccomp-optimize `%s` (expected 1 = libseccomp's "
                                "default or 2 = binary tree)",
                                arg);
      rt->seccomp_optimize = arg[0] - '0';
      return 0;
    case UCB_OPT_CAPS:
      return ucb_caps_parse (arg, &rt->caps, err);
    case UCB_OPT_PERF:
      rt->perf = true;
      return 0;
    default:
      return ucb_make_error (err, 0, "internal: runtime option %d", opt);
    }
}

int
ucb_runtime_validate (const struct ucb_run_options *o, ucb_error_t *err)
{
  const struct ucb_runtime_options *rt = &o->rt;

  if (!rt->cgroup && (rt->cpuset || rt->pids_max || rt->n_cgroup_set))
    return ucb_usage_error (err, "--%s needs --cgroup",
                            rt->cpuset     ? "cpuset"
                            : rt->pids_max ? "pids-max"
                                           : "cgroup-set");
  if (rt->seccomp_optimize && rt->seccomp == NULL)
    return ucb_usage_error (err, "--seccomp-optimize needs --seccomp docker or FILE");
  for (size_t i = 0; i < rt->n_cgroup_set; i++)
    if ((rt->pids_max && strncmp (rt->cgroup_set[i], "pids.max=", 9) == 0)
        || (rt->cpuset && strncmp (rt->cgroup_set[i], "cpuset.cpus=", 12) == 0))
      return ucb_usage_error (err, "--cgroup-set `%s` conflicts with --%s", rt->cgroup_set[i],
                              rt->pids_max ? "pids-max" : "cpuset");
  return 0;
}

const char *
ucb_runtime_seccomp_name (const struct ucb_runtime_options *rt)
{
  return rt->seccomp ? rt->seccomp : "none";
}

void
ucb_runtime_options_free (struct ucb_runtime_options *rt)
{
  free (rt->cgroup_parent);
  ucb_free_items (rt->cgroup_set, rt->n_cgroup_set);
  free (rt->seccomp);
  ucb_caps_free (&rt->caps);
  memset (rt, 0, sizeof *rt);
}
