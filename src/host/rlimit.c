/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rlimit.c - the ucounts rlimits' names and resources (rlimit.h). */
#include "config.h"

#include <strings.h>
#include <sys/resource.h>

#include "host/rlimit.h"

static const struct
{
  const char *name;
  int resource;
} rls[] = {
  [UCB_RL_SIGPENDING] = { "SIGPENDING", RLIMIT_SIGPENDING },
  [UCB_RL_MSGQUEUE] = { "MSGQUEUE", RLIMIT_MSGQUEUE },
  [UCB_RL_MEMLOCK] = { "MEMLOCK", RLIMIT_MEMLOCK },
  [UCB_RL_NPROC] = { "NPROC", RLIMIT_NPROC },
  [UCB_RL_NONE] = { "none", -1 },
};

static enum ucb_rl
clamp (enum ucb_rl rl)
{
  return (unsigned) rl < UCB_RLS ? rl : UCB_RL_NONE;
}

const char *
ucb_rl_name (enum ucb_rl rl)
{
  return rls[clamp (rl)].name;
}

int
ucb_rl_resource (enum ucb_rl rl)
{
  return rls[clamp (rl)].resource;
}

bool
ucb_rl_parse (const char *name, enum ucb_rl *out)
{
  for (unsigned i = 0; i <= UCB_RL_NONE; i++)
    if (strcasecmp (name, rls[i].name) == 0)
      {
        *out = (enum ucb_rl) i;
        return true;
      }
  return false;
}

enum ucb_rl
ucb_rl_first (unsigned bits)
{
  for (unsigned i = 0; i < UCB_RLS; i++)
    if (bits & UCB_RLIM_BIT (i))
      return (enum ucb_rl) i;
  return UCB_RL_NONE;
}
