/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options-runtime.c - the options that make containers the way runtimes do: --cgroup, --cpuset,
 * --pids-max, --cgroup-set, --seccomp, --seccomp-optimize, --caps, --perf. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/lists.h"
#include "core/util.h"
#include "host/cgroup/cgroup.h"

static const char *const seccomp_keywords[] = { "docker", "none" };
static const char *const caps_keywords[] = { "keep", "drop", "none" };

/* --seccomp FILE that is no file but near a keyword: a mistyped keyword, said now (a file that
 * exists is the profile, whatever its name; other missing files are refused when loaded). */
static int
seccomp_typo (const char *arg, ucb_error_t *err)
{
  const char *near;

  if (ucb_name_index (seccomp_keywords, UCB_ARRAY_SIZE (seccomp_keywords), arg) >= 0
      || access (arg, F_OK) == 0)
    return 0;
  near = ucb_nearest_name (seccomp_keywords, UCB_ARRAY_SIZE (seccomp_keywords), arg);
  if (near == NULL)
    return 0;
  return ucb_usage_error (err,
                          "no such --seccomp profile file `%s`: did you mean `%s`? (expected "
                          "docker, none or a profile file)",
                          arg, near);
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
      rt->cgroup_set = xrealloc (rt->cgroup_set, (rt->n_cgroup_set + 1) * sizeof *rt->cgroup_set);
      rt->cgroup_set[rt->n_cgroup_set++] = xstrdup (arg);
      return 0;
    case UCB_OPT_SECCOMP:
      if (*arg == '\0')
        return ucb_usage_error (err, "empty --seccomp (expected docker, none or a profile file)");
      if (seccomp_typo (arg, err) < 0)
        return -1;
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
      if (ucb_caps_parse (arg, &rt->caps, err) == 0)
        return 0;
      /* One word that is no capability: most likely a mode mistyped. */
      if (strchr (arg, ',') == NULL)
        {
          ucb_error_free (err);
          return ucb_keyword_error (err, "invalid --caps", arg, caps_keywords,
                                    UCB_ARRAY_SIZE (caps_keywords),
                                    "a list of capabilities such as chown,kill");
        }
      return -1;
    case UCB_OPT_PERF:
      rt->perf = true;
      return 0;
    default:
      return ucb_make_error (err, 0, "internal: runtime option %d", opt);
    }
}

/* keep, drop or none: what `c` stands for when it is no list to add to, else NULL. */
static const char *
caps_alone (const struct ucb_caps *c)
{
  if (c->mode == UCB_CAPS_KEEP)
    return "keep";
  if (c->mode == UCB_CAPS_DROP)
    return "drop";
  return c->nkeep == 0 ? "none" : NULL;
}

int
ucb_runtime_caps_again (struct ucb_caps *caps, const char *arg, ucb_error_t *err)
{
  struct ucb_runtime_options more = { 0 }; /* parsed as the first, with its messages */
  cleanup_items struct ucb_items items = { NULL, 0 };
  const char *alone;
  int rc = -1;

  if (ucb_runtime_option (&more, UCB_OPT_CAPS, arg, err) < 0)
    goto out;
  alone = caps_alone (&more.caps) ? caps_alone (&more.caps) : caps_alone (caps);
  if (alone)
    {
      rc = ucb_usage_error (err,
                            "--caps given twice with `%s`: keep, drop and none stand alone (only "
                            "lists of capabilities add up)",
                            alone);
      goto out;
    }
  if (ucb_split_list (arg, "capability", &items, err) < 0)
    goto out;
  for (size_t i = 0; i < items.n; i++)
    {
      struct ucb_caps one = { 0 };
      bool twice = false;
      if (ucb_caps_parse (items.v[i], &one, err) < 0)
        goto out;
      for (size_t j = 0; j < caps->nkeep && one.nkeep == 1; j++)
        twice = twice || caps->keep[j] == one.keep[0];
      ucb_caps_free (&one);
      if (twice)
        {
          rc = ucb_usage_error (err, "duplicate capability `%s` in --caps", items.v[i]);
          goto out;
        }
    }
  caps->keep = xrealloc (caps->keep, (caps->nkeep + more.caps.nkeep) * sizeof *caps->keep);
  memcpy (caps->keep + caps->nkeep, more.caps.keep, more.caps.nkeep * sizeof *caps->keep);
  caps->nkeep += more.caps.nkeep;
  qsort (caps->keep, caps->nkeep, sizeof *caps->keep, ucb_cmp_int);
  rc = 0;
out:
  ucb_runtime_options_free (&more);
  return rc;
}

int
ucb_runtime_validate (const struct ucb_plan *p, ucb_error_t *err)
{
  const struct ucb_runtime_options *rt = &p->rt;

  if (!rt->cgroup && (rt->cpuset || rt->pids_max || rt->n_cgroup_set))
    return ucb_usage_error (err, "--%s needs --cgroup",
                            rt->cpuset     ? "cpuset"
                            : rt->pids_max ? "pids-max"
                                           : "cgroup-set");
  if (rt->seccomp_optimize && rt->seccomp == NULL)
    return ucb_usage_error (err, "--seccomp-optimize needs --seccomp docker or FILE");
  {
    /* One set of --cgroup-set rules: the cgroup module's, checked now, before any probe. */
    struct ucb_cgroup_opts co = { .cpuset = rt->cpuset,
                                  .pids_max = rt->pids_max,
                                  .set = rt->cgroup_set,
                                  .nset = rt->n_cgroup_set };
    return ucb_cgroup_check_opts (&co, err);
  }
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
