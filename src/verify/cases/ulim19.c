/* ulim19.c - ULIM-19: the parent-level RLIMIT_MEMLOCK bound, in pages against bytes.
 *
 * U with soft MEMLOCK 16 bytes creates a user (and IPC) namespace, raises its soft limit inside
 * to the hard limit and SHM_LOCKs one-page segments.  Intended: the namespace's bound is 16 B =
 * 0 pages, so the first lock fails with ENOMEM.  Every kernel read so far (5.14 .. 7.0-rc) stores
 * rlimit_max[MEMLOCK] in bytes (create_user_ns) but compares the page counter with it
 * (inc_rlimit_ucounts in user_shm_lock): 16 one-page locks succeed and the 17th fails, a bound
 * PAGE_SIZE times looser.  That is reported as `known-bug`; a fixed kernel gets `pass`. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define SOFT_BYTES 16
#define MAX_LOCKS 64

static int
lock_pages (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  long page = *(const long *) arg, n = 0;
  int ids[MAX_LOCKS + 1];

  (void) err;
  for (; n < MAX_LOCKS; n++)
    {
      ids[n] = shmget (IPC_PRIVATE, (size_t) page, IPC_CREAT | 0600);
      if (ids[n] < 0 || shmctl (ids[n], SHM_LOCK, NULL) < 0)
        {
          o->errnum = errno;
          if (ids[n] >= 0)
            shmctl (ids[n], IPC_RMID, NULL);
          break;
        }
    }
  /* Unlock and remove now: the IPC namespace would destroy them too, but asynchronously,
   * and until then their pages stay charged to U, which a repeat of the case reuses. */
  for (long i = 0; i < n; i++)
    {
      shmctl (ids[i], SHM_UNLOCK, NULL);
      shmctl (ids[i], IPC_RMID, NULL);
    }
  o->v[0] = n;
  return 0;
}

static int
ulim19_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  long page = sysconf (_SC_PAGESIZE);
  struct ucb_probe_spec spec = { .uid = ctx->uid_base,
                                 .resource = RLIMIT_MEMLOCK,
                                 .soft = SOFT_BYTES,
                                 .userns = CLONE_NEWUSER | CLONE_NEWIPC,
                                 .soft_inside = RLIM_INFINITY };
  struct ucb_probe_out o;

  if (ucb_probe_run (&spec, lock_pages, &page, &o, err) < 0)
    return -1;
  ucb_vobserve_bug (ctx->res, "one-page SHM_LOCKs under a 16-byte parent bound", UCB_VITEM_ADMITTED,
                    SOFT_BYTES / page, o.v[0], SOFT_BYTES);
  ucb_vobserve (ctx->res, "errno of the refused SHM_LOCK", UCB_VITEM_ERRNO, ENOMEM, o.errnum);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim19 = {
  .id = "ULIM-19",
  .name = "memlock-parent-units",
  .title = "MEMLOCK: the parent bound (rlimit_max, bytes) is compared with a page counter",
  .rlimit = "MEMLOCK",
  .depends
  = "every kernel since the 5.14 conversion (unfixed as of 7.0-rc): known-bug; pass once fixed",
  .checks = "create_user_ns set_userns_rlimit_max(MEMLOCK, rlimit bytes) vs user_shm_lock "
            "inc_rlimit_ucounts(MEMLOCK, pages): known bug, intended bound in pages",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim19_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P1 } },
};
