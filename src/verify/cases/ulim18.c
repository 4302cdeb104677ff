/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim18.c - ULIM-18: RLIMIT_MEMLOCK (SHM_LOCK) at the own level: rounding, release, errno, bypass.
 *
 * shmctl(SHM_LOCK) -> shmem_lock -> user_shm_lock charges ceil(size / PAGE_SIZE) pages with
 * inc_rlimit_ucounts(MEMLOCK) and refuses with ENOMEM when the own level exceeds the soft limit
 * >> PAGE_SHIFT (5c2a956c3eea, v5.18) and the caller lacks capable(CAP_IPC_LOCK).  U with soft 2
 * pages: two one-page locks, the third ENOMEM; SHM_UNLOCK (user_shm_unlock) and IPC_RMID of a
 * locked segment (shm_destroy) give the pages back at once; a (PAGE_SIZE + 1)-byte segment counts
 * 2 pages.  The shmctl pre-check: without ns_capable(ipc_ns->user_ns, CAP_IPC_LOCK) a soft limit
 * of 0 is EPERM, even for the owner; the root of a user namespace that owns its IPC namespace
 * passes that check and gets ENOMEM from user_shm_lock instead.  CAP_IPC_LOCK bypasses the limit
 * but the pages are still charged to the real uid's ucounts (a55d07294f1e): ruid U / euid 0
 * (setresuid(U, 0, 0) keeps the capabilities) with soft 1 page locks 3 pages; after
 * setresuid(U, U, U) drops them, the next lock is ENOMEM; once those segments are removed, 1 page
 * fits again.  Except for the user-namespace root, U runs in init_user_ns (own level (init_user_ns,
 * U)) in a private IPC namespace that root creates (owned by init_user_ns: the host's pre-check).
 * Every segment is removed with IPC_RMID (its charge goes synchronously; an IPC namespace is freed
 * from a workqueue). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

/* The own-level fills are counted up to the safety cap (UCB_VTRIES); the "again" fill uses
 * the segments from AGAIN_FIRST on. */
#define AGAIN_FIRST 5
#define NSEG (AGAIN_FIRST + UCB_VTRIES (2))

/* Segments are made first and SHM_LOCKed later, each lock through the ops (a shape of the
 * case's segments): a refused lock keeps its segment, which the case locks again after a
 * release, at soft 0, beside a bigger one; the case itself unlocks or removes by id (what is
 * released how is what it checks). */
static const struct ucb_rlops *const memlock = &ucb_rlops[UCB_RL_MEMLOCK];
_Static_assert(UCB_VTRIES (2) <= UCB_RL_HELD_MAX, "the locks fit the held table");

/* A segment of `size` bytes; -1 with `err` set. */
static int
seg (size_t size, ucb_error_t *err)
{
  int id = shmget (IPC_PRIVATE, size, IPC_CREAT | 0600);

  if (id < 0)
    return ucb_make_error (err, errno, "shmget(%zu B)", size);
  return id;
}

/* SHM_LOCK of segment `id`: 0 or the errno. */
static int
lock (int id)
{
  struct ucb_rlheld one = { .shape = { .shm_ids = &id, .shm_n = 1 } };
  int refused;

  ucb_rlops_fill (memlock, &one, 1, false, &refused);
  return refused;
}

/* SHM_LOCK ids[0..n) in turn until refused: how many; those stay locked, held in *held. */
static long
lock_fill (struct ucb_rlheld *held, const int *ids, long n, int *refused)
{
  *held = (struct ucb_rlheld){ .shape = { .shm_ids = ids, .shm_n = n } };
  return ucb_rlops_fill (memlock, held, n, false, refused);
}

static void
rmid (int id)
{
  if (id >= 0)
    shmctl (id, IPC_RMID, NULL);
}

static void
rmid_all (const int *ids, int n)
{
  for (int i = 0; i < n; i++)
    rmid (ids[i]);
}

/* n segments of `size` bytes in ids[] (-1 where none); -1 with `err` set (all removed). */
static int
segs (int *ids, int n, size_t size, ucb_error_t *err)
{
  for (int i = 0; i < n; i++)
    ids[i] = -1;
  for (int i = 0; i < n; i++)
    if ((ids[i] = seg (size, err)) < 0)
      {
        rmid_all (ids, i);
        return -1;
      }
  return 0;
}

enum
{
  N,
  REFUSED,
  AFTER_UNLOCK,
  FULL,
  AFTER_RMID,
  BIG_ERR,
  BESIDE,
  SOFT0,
  AGAIN,
};

/* Own level at 2 pages: release by SHM_UNLOCK and IPC_RMID of a locked one. */
static void
release (int *ids, struct ucb_probe_out *o)
{
  struct ucb_rlheld held;
  int refused;

  o->v[N] = lock_fill (&held, ids, UCB_VTRIES (2), &refused);
  o->v[REFUSED] = refused;
  ucb_rlops_release (memlock, &held, -1); /* SHM_UNLOCK each */
  /* from 2 locked pages, SHM_UNLOCK one, then IPC_RMID a locked one */
  lock (ids[0]);
  lock (ids[1]);
  shmctl (ids[0], SHM_UNLOCK, NULL);
  o->v[AFTER_UNLOCK] = lock (ids[2]);
  o->v[FULL] = lock (ids[0]);
  rmid (ids[1]), ids[1] = -1; /* locked and unattached: destroyed now */
  o->v[AFTER_RMID] = lock (ids[0]);
  for (int i = 0; i < NSEG; i++)
    if (ids[i] >= 0)
      shmctl (ids[i], SHM_UNLOCK, NULL);
}

/* Own level at 2 pages: count, errno, release, rounding, soft 0. */
static int
part_own (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  long page = *(const long *) arg;
  struct ucb_rlshape again = { .shm_ids = NULL, .shm_n = UCB_VTRIES (2) };
  int ids[NSEG], big, again_err;

  if (segs (ids, NSEG, (size_t) page, err) < 0)
    return -1;
  again.shm_ids = ids + AGAIN_FIRST;
  release (ids, o);
  /* rounding: PAGE_SIZE + 1 bytes are 2 pages */
  if ((big = seg ((size_t) page + 1, err)) < 0)
    goto fail;
  o->v[BIG_ERR] = lock (big);
  o->v[BESIDE] = lock (ids[3]);
  shmctl (big, SHM_UNLOCK, NULL);
  shmctl (ids[3], SHM_UNLOCK, NULL);
  rmid (big);
  /* soft 0: EPERM from the pre-check, even for the owner */
  if (ucb_vsoft (RLIMIT_MEMLOCK, 0, err) < 0)
    goto fail;
  o->v[SOFT0] = lock (ids[4]);
  shmctl (ids[4], SHM_UNLOCK, NULL);
  /* all unlocked or removed: the full headroom again */
  if (ucb_vsoft (RLIMIT_MEMLOCK, (rlim_t) (2 * page), err) < 0)
    goto fail;
  o->v[AGAIN] = ucb_rlops_count (memlock, &again, UCB_VTRIES (2), &again_err);
  rmid_all (ids, NSEG);
  return 0;
fail:
  rmid_all (ids, NSEG);
  return -1;
}

static void
observe_own (struct ucb_vresult *r, const struct ucb_probe_out *o, long page)
{
  const int64_t *v = o->v;
  char name[UCB_VNAME_MAX];

  ucb_vobserve_fill (r, "1-page SHM_LOCKs at soft 2 pages", UCB_VITEM_ADMITTED, 2, v[N],
                     UCB_VTRIES (2), "errno of the 3rd SHM_LOCK", ENOMEM, v[REFUSED]);
  ucb_vobserve (r, "SHM_LOCK after SHM_UNLOCK of one", UCB_VITEM_ERRNO_RELEASED, 0,
                v[AFTER_UNLOCK]);
  ucb_vobserve (r, "SHM_LOCK when full again", UCB_VITEM_ERRNO, ENOMEM, v[FULL]);
  ucb_vobserve (r, "SHM_LOCK after IPC_RMID of a locked one", UCB_VITEM_ERRNO_RELEASED, 0,
                v[AFTER_RMID]);
  snprintf (name, sizeof name, "SHM_LOCK of %ld B at 2 pages", page + 1);
  ucb_vobserve (r, name, UCB_VITEM_ERRNO, 0, v[BIG_ERR]);
  snprintf (name, sizeof name, "1-page SHM_LOCK beside %ld B", page + 1);
  ucb_vobserve (r, name, UCB_VITEM_ERRNO, ENOMEM, v[BESIDE]);
  ucb_vobserve (r, "SHM_LOCK by the owner at soft 0", UCB_VITEM_ERRNO, EPERM, v[SOFT0]);
  ucb_vobserve_count (r, "1-page SHM_LOCKs again after release", UCB_VITEM_READMITTED, 2, v[AGAIN],
                      UCB_VTRIES (2));
}

/* One 1-page SHM_LOCK: its errno in o->errnum (soft 0 as the root of a user namespace that
 * owns its IPC namespace; or U without CAP_IPC_LOCK). */
static int
lock_one (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  long page = *(const long *) arg;
  int id = seg ((size_t) page, err);

  if (id < 0)
    return -1;
  o->errnum = lock (id);
  rmid (id);
  return 0;
}

/* ruid U / euid 0 with CAP_IPC_LOCK, soft 1 page: 3 locks charged; a probe without the
 * capability (all ids U: a segment U owns passes the shmctl pre-check) is then refused. */
static int
part_bypass (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  long page = *(const long *) arg;
  struct ucb_probe_spec spec = { .what = "the probe without CAP_IPC_LOCK", .uid = getuid () };
  struct ucb_probe_out dropped;
  struct ucb_rlheld held;
  int ids[3], refused, r;

  if (segs (ids, 3, (size_t) page, err) < 0)
    return -1;
  o->v[0] = lock_fill (&held, ids, 3, &refused);
  r = ucb_probe_run (&spec, lock_one, &page, &dropped, err);
  rmid_all (ids, 3); /* locked, unattached: destroyed at once, shm_destroy uncharges */
  o->v[1] = dropped.errnum;
  return r < 0 ? -1 : 0;
}

/* After the bypass segments are gone, U's counter is back to 0: 1 page fits at soft 1 page. */
static int
part_bypass_release (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  long page = *(const long *) arg;
  struct ucb_rlshape shape = { .shm_ids = NULL, .shm_n = UCB_VTRIES (1) };
  int ids[UCB_VTRIES (1)], refused;

  if (segs (ids, UCB_VTRIES (1), (size_t) page, err) < 0)
    return -1;
  shape.shm_ids = ids;
  o->v[0] = ucb_rlops_count (memlock, &shape, UCB_VTRIES (1), &refused);
  rmid_all (ids, UCB_VTRIES (1));
  return 0;
}

static int
parts (struct ucb_vctx *ctx, long page, ucb_error_t *err)
{
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;
  /* U runs in a private IPC namespace that root creates (owned by init_user_ns: the host's
   * pre-check), except as the root of its own user namespace. */
  struct ucb_probe_spec spec = { .what = "part 1",
                                 .unshare = CLONE_NEWIPC,
                                 .uid = ctx->uid_base,
                                 .resource = RLIMIT_MEMLOCK,
                                 .soft = (rlim_t) (2 * page) };

  if (ucb_probe_run (&spec, part_own, &page, &o, err) < 0)
    return -1;
  observe_own (r, &o, page);
  spec = (struct ucb_probe_spec){ .what = "part 2",
                                  .uid = ctx->uid_base + 1,
                                  .resource = RLIMIT_MEMLOCK,
                                  .soft = UCB_PROBE_SOFT_0,
                                  .userns = CLONE_NEWUSER | CLONE_NEWIPC };
  if (ucb_probe_run (&spec, lock_one, &page, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "SHM_LOCK at soft 0, own IPC ns as root", UCB_VITEM_ERRNO, ENOMEM, o.errnum);
  spec = (struct ucb_probe_spec){ .what = "part 3",
                                  .unshare = CLONE_NEWIPC,
                                  .ruid = ctx->uid_base + 2,
                                  .resource = RLIMIT_MEMLOCK,
                                  .soft = (rlim_t) page };
  if (ucb_probe_run (&spec, part_bypass, &page, &o, err) < 0)
    return -1;
  ucb_vobserve (r, "SHM_LOCK after dropping CAP_IPC_LOCK", UCB_VITEM_ERRNO, ENOMEM, o.v[1]);
  ucb_vobserve (r, "SHM_LOCKs with CAP_IPC_LOCK at 1 page", UCB_VITEM_ADMITTED, 3, o.v[0]);
  /* part 3's, as U itself: no capability left */
  spec.what = "part 4";
  spec.uid = spec.ruid;
  spec.ruid = 0;
  if (ucb_probe_run (&spec, part_bypass_release, &page, &o, err) < 0)
    return -1;
  ucb_vobserve_count (r, "1-page locks at 1 page after the bypass", UCB_VITEM_READMITTED, 1, o.v[0],
                      UCB_VTRIES (1));
  return 0;
}

static int
ulim18_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  long page = sysconf (_SC_PAGESIZE);
  struct rlimit rl;

  if (getrlimit (RLIMIT_MEMLOCK, &rl) < 0)
    return ucb_make_error (err, errno, "getrlimit(MEMLOCK)");
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t) (2 * page))
    {
      ucb_vskip (ctx->res, "hard RLIMIT_MEMLOCK %llu B is below 2 pages",
                 (unsigned long long) rl.rlim_max);
      return 0;
    }
  return parts (ctx, page, err);
}

const struct ucb_vcase ucb_vcase_ulim18 = {
  .id = "ULIM-18",
  .name = "memlock-own-level",
  .title = "MEMLOCK: SHM_LOCK pages at the own level, rounding, release, EPERM/ENOMEM, bypass",
  .rlimit = UCB_RL_MEMLOCK,
  .depends = "5c2a956c3eea (5.18): user_shm_lock on ucounts; a55d07294f1e (5.17)",
  .checks = "shmctl SHM_LOCK pre-check (EPERM) -> user_shm_lock inc_rlimit_ucounts(MEMLOCK, pages) "
            "vs soft >> PAGE_SHIFT unless capable(CAP_IPC_LOCK); user_shm_unlock on unlock/destroy",
  /* The bypass is capable(CAP_IPC_LOCK) in the initial namespace; private IPC namespaces
   * of init_user_ns (CAP_SYS_ADMIN). */
  .needs_caps = UCB_VCAP (CAP_IPC_LOCK) | UCB_VCAP (CAP_SYS_ADMIN),
  .needs_init_root = true,
  .run = ulim18_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 }, { UCB_VLEVEL_OWN, UCB_VPROP_P7 } },
};
