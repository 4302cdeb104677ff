/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runtime.c - what a run adds to its containers beyond namespaces (cgroups, capabilities,
 * seccomp) and observes in them (hardware counters). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/capability.h>

#include "core/util.h"
#include "engine/runtime.h"
#include "engine/spawn.h"
#include "host/caps.h"
#include "host/cgroup/cgroup.h"

/* The capabilities the container holds after --caps, for the profile's includes/excludes:
 * with `keep` that is every capability the kernel knows. */
static int *
effective_caps (const struct ucb_caps *c, size_t *n)
{
  int max = (int) cap_max_bits ();
  int *v;

  if (c->mode != UCB_CAPS_KEEP)
    {
      *n = c->nkeep;
      v = xcalloc (c->nkeep ? c->nkeep : 1, sizeof *v);
      memcpy (v, c->keep, c->nkeep * sizeof *v);
      return v;
    }
  v = xcalloc ((size_t) max, sizeof *v);
  for (int i = 0; i < max; i++)
    v[i] = i;
  *n = (size_t) max;
  return v;
}

int
ucb_runtime_open (struct ucb_runtime *rt, const struct ucb_plan *o, ucb_error_t *err)
{
  const struct ucb_runtime_options *opt = &o->rt;

  memset (rt, 0, sizeof *rt);
  rt->opt = opt;
  rt->caps_on = opt->caps.mode != UCB_CAPS_KEEP;
  if (opt->seccomp)
    {
      size_t ncaps;
      cleanup_free int *caps = effective_caps (&opt->caps, &ncaps);
      struct ucb_seccomp_opts so = { .profile = opt->seccomp_profile,
                                     .optimize = opt->seccomp_optimize ? opt->seccomp_optimize : 1,
                                     .caps = caps,
                                     .ncaps = ncaps };
      /* Its messages name the profile ("seccomp profile `FILE`: ..."). */
      if (ucb_seccomp_build (&so, &rt->sc, &rt->sc_stats, err) < 0)
        return ucb_error_wrap (err, "--seccomp");
    }
  if (opt->perf)
    {
      rt->perf_on = true;
      ucb_perf_probe (&rt->perf);
    }
  if (opt->cgroup)
    {
      struct ucb_cgroup_opts co = { .parent = opt->cgroup_parent,
                                    .cpuset = opt->cpuset,
                                    .pids_max = opt->pids_max,
                                    .set = opt->cgroup_set,
                                    .nset = opt->n_cgroup_set };
      if (ucb_cgroup_open (&co, &rt->cg, err) < 0)
        {
          ucb_runtime_close (rt);
          return ucb_error_wrap (err, "--cgroup");
        }
    }
  return 0;
}

void
ucb_runtime_close (struct ucb_runtime *rt)
{
  ucb_cgroup_close (&rt->cg);
  ucb_seccomp_free (&rt->sc);
}

int
ucb_runtime_owner_hook (void *arg, const struct ucb_container_spec *spec, ucb_error_t *err)
{
  const struct ucb_runtime *rt = arg;

  /* Before the first task exists and before the uid change takes the right to move. */
  if (rt->cg && ucb_cgroup_attach_self (rt->cg, spec->index, err) < 0)
    return -1;
  /* At depth 0 the container init is this process after its uid change, which leaves it no
   * CAP_SETPCAP: the bounding set must shrink now.  Deeper, a new user namespace would
   * hand out a full bounding set again, so the init does it there. */
  if (rt->caps_on && spec->depth == 0
      && ucb_caps_bound (rt->opt->caps.keep, rt->opt->caps.nkeep, err) < 0)
    return -1;
  return 0;
}

int
ucb_runtime_init_hook (void *arg, const struct ucb_container_spec *spec, ucb_error_t *err)
{
  const struct ucb_runtime *rt = arg;
  struct ucb_container_rec *rec = rt->rec ? &rt->rec[spec->index] : NULL;

  /* Bounding set (needs CAP_SETPCAP, so before the sets drop it), ambient, permitted/effective,
   * no-new-privs (what a seccomp filter needs without CAP_SYS_ADMIN), then seccomp. */
  if (rt->caps_on)
    {
      if (ucb_caps_apply (rt->opt->caps.keep, rt->opt->caps.nkeep, err) < 0)
        return ucb_error_wrap (err, "--caps");
      if (rec)
        rec->caps_applied = 1;
    }
  if (rt->sc)
    {
      uint64_t ns = 0;
      if (ucb_seccomp_load (rt->sc, &ns, err) < 0)
        return ucb_error_wrap (err, "--seccomp %s", rt->opt->seccomp);
      if (rec)
        rec->seccomp_load_ns = ns ? ns : 1;
    }
  return 0;
}

bool
ucb_runtime_no_new_privs (const struct ucb_runtime *rt)
{
  /* ucb_caps_apply sets it; libseccomp does too when it loads a filter
   * (SCMP_FLTATR_CTL_NNP). */
  return rt->caps_on || rt->sc != NULL;
}
