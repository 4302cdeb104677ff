/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim03.c - ULIM-03: nesting; every level is bound by the snapshot of the namespace below it.
 *
 * Three nested user namespaces, each created with a soft SIGPENDING limit (a, b, c), and an own
 * soft limit d inside the innermost: the admitted count is min(a, b, c, d), the tightest
 * rlimit_max on the chain or the own limit (the walk in inc_rlimit_get_ucounts).  Variants
 * (10,7,100,100) -> 7, (4,7,100,100) -> 4, (50,50,50,3) -> 3. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "host/userns.h"
#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

static const struct
{
  rlim_t soft[4]; /* before N1, before N2, before N3, own inside N3 */
  long expect;
} variants[] = {
  { { 10, 7, 100, 100 }, 7 },
  { { 4, 7, 100, 100 }, 4 },
  { { 50, 50, 50, 3 }, 3 },
};

/* Three nested containers, each created with its soft limit, the own limit innermost. */
static int
nest_and_fill (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  size_t v = *(const size_t *) arg;
  struct ucb_vcount fill = { &ucb_rlops[UCB_RL_SIGPENDING], NULL, UCB_VTRIES (variants[v].expect) };

  for (int level = 0; level < 3; level++)
    if (ucb_vsoft (RLIMIT_SIGPENDING, variants[v].soft[level], err) < 0
        || ucb_userns_enter (0, err) < 0)
      return ucb_error_wrap (err, "nesting level %d", level + 1);
  if (ucb_vsoft (RLIMIT_SIGPENDING, variants[v].soft[3], err) < 0)
    return -1;
  return ucb_vcount (&fill, o, err);
}

static int
ulim03_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    {
      char name[UCB_VNAME_MAX], errno_name[UCB_VNAME_MAX], what[32];
      /* SIGRTMIN blocked: what it queues to itself stays pending. */
      struct ucb_probe_spec spec
          = { .what = what, .uid = ctx->uid_base + (uid_t) v, .block_rt = true };
      struct ucb_probe_out o;

      snprintf (what, sizeof what, "the probe of variant %zu", v + 1);
      if (ucb_probe_run (&spec, nest_and_fill, &v, &o, err) < 0)
        return -1;
      snprintf (name, sizeof name, "queued at depth 3 (%lu,%lu,%lu,%lu)",
                (unsigned long) variants[v].soft[0], (unsigned long) variants[v].soft[1],
                (unsigned long) variants[v].soft[2], (unsigned long) variants[v].soft[3]);
      snprintf (errno_name, sizeof errno_name, "errno at the bound, variant %zu", v + 1);
      ucb_vobserve_fill (ctx->res, name, UCB_VITEM_ADMITTED, variants[v].expect, o.v[0],
                         UCB_VTRIES (variants[v].expect), errno_name, EAGAIN, o.errnum);
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim03 = {
  .id = "ULIM-03",
  .name = "sigpending-nesting",
  .title = "SIGPENDING: at depth 3 the tightest snapshot on the chain (or the own limit) wins",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "5.16-rc7+ (59ec71575ab4)",
  .checks = "inc_rlimit_get_ucounts walks iter->ns->ucounts, max = rlimit_max of the child ns",
  .run = ulim03_run,
  .cells = { { UCB_VLEVEL_GRANDPARENT, UCB_VPROP_P1 }, { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};
