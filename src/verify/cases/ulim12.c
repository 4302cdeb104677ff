/* ulim12.c - ULIM-12: RLIMIT_NPROC, the parent level bounds a container; no charge leaks.
 *
 * U with soft NPROC 5 creates a user namespace (create_user_ns: rlimit_max[NPROC] =
 * enforced_nproc_rlimit() = 5, U not being root) and raises its soft limit inside to the hard
 * limit.  U itself is one task at level 1 (init_user_ns, U) (commit_creds moved its charge up
 * the new chain at unshare), so 4 children fork and the 5th gets EAGAIN: copy_creds charges every
 * level (inc_rlimit_ucounts), copy_process refuses when is_rlimit_overlimit finds level 1 above
 * the namespace's snapshot (59ec71575ab4; total <= limit since 8f2f9c4d82f2).  Then 50 rounds
 * of {reap every child, fork until refused}: each round admits exactly 4 again, so the refused
 * forks (bad_fork_cleanup_count: dec_rlimit_ucounts on all levels) and release_task leave no
 * charge behind on either level. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define MAXKIDS 64
#define ROUNDS 50

static void
probe (struct ucb_vresult *r, uid_t uid)
{
  ucb_error_t e = NULL;
  pid_t kids[MAXKIDS];
  long n, lo = MAXKIDS + 1, hi = -1, eagain_rounds = 0;
  int refused;

  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_NPROC, 5, &e) < 0 || ucb_vuserns (0, &e) < 0
      || ucb_vsoft (RLIMIT_NPROC, RLIM_INFINITY, &e) < 0)
    _exit (1);
  n = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
  ucb_vkill_reap (kids, n);
  ucb_vobserve (r, "children forked in the container", UCB_VITEM_ADMITTED, 4, n);
  ucb_vobserve (r, "errno at the parent bound", UCB_VITEM_ERRNO, EAGAIN, refused);

  for (int round = 0; round < ROUNDS; round++)
    {
      int why;
      long k = ucb_vfork_sleepers (kids, MAXKIDS, &why);

      ucb_vkill_reap (kids, k);
      if (k < lo)
        lo = k;
      if (k > hi)
        hi = k;
      if (why == EAGAIN)
        eagain_rounds++;
    }
  ucb_vobserve (r, "fewest children in 50 refork rounds", UCB_VITEM_ADMITTED, 4, lo);
  ucb_vobserve (r, "most children in 50 refork rounds", UCB_VITEM_ADMITTED, 4, hi);
  ucb_vobserve (r, "refork rounds refused with EAGAIN", UCB_VITEM_EXACT, ROUNDS, eagain_rounds);
  _exit (0);
}

static int
probes (struct ucb_vctx *ctx, ucb_error_t *err)
{
  pid_t pid = ucb_vfork ();

  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    probe (ctx->res, ctx->uid_base);
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe as uid %u failed", (unsigned) ctx->uid_base);
  return 0;
}

static int
ulim12_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int ret = probes (ctx, err);

  ucb_vreap_all ();
  return ret;
}

const struct ucb_vcase ucb_vcase_ulim12 = {
  .id = "ULIM-12",
  .name = "nproc-parent-bound",
  .title = "NPROC: a container is bound by its creator's soft limit; 50 refork rounds identical",
  .rlimit = "NPROC",
  .depends = "8f2f9c4d82f2 (5.17-rc5), 59ec71575ab4 (5.16-rc7)",
  .checks = "create_user_ns enforced_nproc_rlimit snapshot; copy_creds inc_rlimit_ucounts + "
            "is_rlimit_overlimit level 1 (59ec71575ab4, 8f2f9c4d82f2); bad_fork_cleanup_count "
            "and release_task uncharge",
  .run = ulim12_run,
};
