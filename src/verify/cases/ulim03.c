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

#include "verify/verify.h"
#include "verify/vprobe.h"

static const struct
{
  rlim_t soft[4]; /* before N1, before N2, before N3, own inside N3 */
  long expect;
} variants[] = {
  { { 10, 7, 100, 100 }, 7 },
  { { 4, 7, 100, 100 }, 4 },
  { { 50, 50, 50, 3 }, 3 },
};

static int
ulim03_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    {
      pid_t pid = ucb_vfork ();
      if (pid < 0)
        return ucb_make_error (err, errno, "fork");
      if (pid == 0)
        {
          ucb_error_t e = NULL;
          char name[UCB_VNAME_MAX];
          int refused;
          long n;

          if (ucb_vbecome (ctx->uid_base + (uid_t) v, &e) < 0)
            _exit (1);
          for (int level = 0; level < 3; level++)
            if (ucb_vsoft (RLIMIT_SIGPENDING, variants[v].soft[level], &e) < 0
                || ucb_vuserns (0, &e) < 0)
              _exit (1);
          if (ucb_vsoft (RLIMIT_SIGPENDING, variants[v].soft[3], &e) < 0)
            _exit (1);
          n = ucb_vfill_rt (1000, &refused);
          ucb_vdrain_rt ();
          snprintf (name, sizeof name, "queued at depth 3 (%lu,%lu,%lu,%lu)",
                    (unsigned long) variants[v].soft[0], (unsigned long) variants[v].soft[1],
                    (unsigned long) variants[v].soft[2], (unsigned long) variants[v].soft[3]);
          ucb_vobserve (ctx->res, name, UCB_VITEM_ADMITTED, variants[v].expect, n);
          snprintf (name, sizeof name, "errno at the bound, variant %zu", v + 1);
          ucb_vobserve (ctx->res, name, UCB_VITEM_ERRNO, EAGAIN, refused);
          _exit (0);
        }
      if (ucb_vwait (pid) != 0)
        return ucb_make_error (err, 0, "the probe of variant %zu failed", v + 1);
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim03 = {
  .id = "ULIM-03",
  .name = "sigpending-nesting",
  .title = "SIGPENDING: at depth 3 the tightest snapshot on the chain (or the own limit) wins",
  .rlimit = "SIGPENDING",
  .depends = "5.16-rc7+ (59ec71575ab4)",
  .checks = "inc_rlimit_get_ucounts walks iter->ns->ucounts, max = rlimit_max of the child ns",
  .run = ulim03_run,
};
