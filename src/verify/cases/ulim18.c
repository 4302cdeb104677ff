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
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define NSEG 8

static int
seg (size_t size)
{
  int id = shmget (IPC_PRIVATE, size, IPC_CREAT | 0600);
  if (id < 0)
    _exit (1);
  return id;
}

static int
lock (int id)
{
  return shmctl (id, SHM_LOCK, NULL) < 0 ? errno : 0;
}

static void
rmid (int id)
{
  if (id >= 0)
    shmctl (id, IPC_RMID, NULL);
}

/* SHM_LOCK ids[0..n) until refused; how many were locked. */
static long
lock_until_refused (const int *ids, long n, int *refused)
{
  long k = 0;

  *refused = 0;
  for (; k < n; k++)
    if ((*refused = lock (ids[k])) != 0)
      break;
  return k;
}

/* Root in a private IPC namespace of init_user_ns, then `uid`; exits on failure. */
static void
become_in_private_ipc (uid_t uid, rlim_t soft)
{
  ucb_error_t e = NULL;

  if (unshare (CLONE_NEWIPC) < 0 || ucb_vbecome (uid, &e) < 0
      || ucb_vsoft (RLIMIT_MEMLOCK, soft, &e) < 0)
    _exit (1);
}

/* Own level at 2 pages: count, errno, release by SHM_UNLOCK and IPC_RMID, rounding, soft 0. */
static void
part_own (struct ucb_vresult *r, uid_t uid, long page)
{
  int ids[NSEG], big, refused, after_unlock, full, after_rmid, big_err, beside, soft0, again_err;
  char name[UCB_VNAME_MAX];
  long n, again;

  become_in_private_ipc (uid, (rlim_t) (2 * page));
  for (int i = 0; i < NSEG; i++)
    ids[i] = seg ((size_t) page);
  n = lock_until_refused (ids, NSEG, &refused);
  for (int i = 0; i < NSEG; i++)
    shmctl (ids[i], SHM_UNLOCK, NULL);
  /* release: from 2 locked pages, SHM_UNLOCK one, then IPC_RMID a locked one */
  lock (ids[0]);
  lock (ids[1]);
  shmctl (ids[0], SHM_UNLOCK, NULL);
  after_unlock = lock (ids[2]);
  full = lock (ids[0]);
  rmid (ids[1]), ids[1] = -1; /* locked and unattached: destroyed now */
  after_rmid = lock (ids[0]);
  for (int i = 0; i < NSEG; i++)
    if (ids[i] >= 0)
      shmctl (ids[i], SHM_UNLOCK, NULL);
  /* rounding: PAGE_SIZE + 1 bytes are 2 pages */
  big = seg ((size_t) page + 1);
  big_err = lock (big);
  beside = lock (ids[3]);
  shmctl (big, SHM_UNLOCK, NULL);
  shmctl (ids[3], SHM_UNLOCK, NULL);
  /* soft 0: EPERM from the pre-check, even for the owner */
  if (ucb_vsoft (RLIMIT_MEMLOCK, 0, NULL) < 0)
    _exit (1);
  soft0 = lock (ids[4]);
  shmctl (ids[4], SHM_UNLOCK, NULL);
  /* all unlocked or removed: the full headroom again */
  if (ucb_vsoft (RLIMIT_MEMLOCK, (rlim_t) (2 * page), NULL) < 0)
    _exit (1);
  again = lock_until_refused (ids + 5, 3, &again_err);
  rmid (big);
  for (int i = 0; i < NSEG; i++)
    rmid (ids[i]);

  ucb_vobserve (r, "1-page SHM_LOCKs at soft 2 pages", UCB_VITEM_ADMITTED, 2, n);
  ucb_vobserve (r, "errno of the 3rd SHM_LOCK", UCB_VITEM_ERRNO, ENOMEM, refused);
  ucb_vobserve (r, "SHM_LOCK after SHM_UNLOCK of one", UCB_VITEM_ERRNO, 0, after_unlock);
  ucb_vobserve (r, "SHM_LOCK when full again", UCB_VITEM_ERRNO, ENOMEM, full);
  ucb_vobserve (r, "SHM_LOCK after IPC_RMID of a locked one", UCB_VITEM_ERRNO, 0, after_rmid);
  snprintf (name, sizeof name, "SHM_LOCK of %ld B at 2 pages", page + 1);
  ucb_vobserve (r, name, UCB_VITEM_ERRNO, 0, big_err);
  snprintf (name, sizeof name, "1-page SHM_LOCK beside %ld B", page + 1);
  ucb_vobserve (r, name, UCB_VITEM_ERRNO, ENOMEM, beside);
  ucb_vobserve (r, "SHM_LOCK by the owner at soft 0", UCB_VITEM_ERRNO, EPERM, soft0);
  ucb_vobserve (r, "1-page SHM_LOCKs again after release", UCB_VITEM_ADMITTED, 2, again);
  _exit (0);
}

/* Soft 0 as the root of a user namespace that owns its IPC namespace. */
static void
part_userns_root (struct ucb_vresult *r, uid_t uid, long page)
{
  ucb_error_t e = NULL;
  int id, err;

  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_MEMLOCK, 0, &e) < 0
      || ucb_vuserns (CLONE_NEWIPC, &e) < 0)
    _exit (1);
  id = seg ((size_t) page);
  err = lock (id);
  rmid (id);
  ucb_vobserve (r, "SHM_LOCK at soft 0, own IPC ns as root", UCB_VITEM_ERRNO, ENOMEM, err);
  _exit (0);
}

/* ruid U / euid 0 with CAP_IPC_LOCK, soft 1 page: 3 locks charged; without the capability the
 * next is refused. */
static void
part_bypass (struct ucb_vresult *r, uid_t uid, long page)
{
  int ids[3], refused;
  long n;
  pid_t pid;

  if (unshare (CLONE_NEWIPC) < 0 || ucb_vsoft (RLIMIT_MEMLOCK, (rlim_t) page, NULL) < 0
      || setresuid (uid, 0, 0) < 0)
    _exit (1);
  for (int i = 0; i < 3; i++)
    ids[i] = seg ((size_t) page);
  n = lock_until_refused (ids, 3, &refused);
  pid = ucb_vfork ();
  if (pid == 0)
    {
      int id, err;
      if (setresuid (uid, uid, uid) < 0) /* all ids non-zero: the capabilities go */
        _exit (1);
      id = seg ((size_t) page); /* U owns it: the shmctl pre-check passes */
      err = lock (id);
      rmid (id);
      ucb_vobserve (r, "SHM_LOCK after dropping CAP_IPC_LOCK", UCB_VITEM_ERRNO, ENOMEM, err);
      _exit (0);
    }
  if (pid < 0 || ucb_vwait (pid) != 0)
    {
      for (int i = 0; i < 3; i++)
        rmid (ids[i]);
      _exit (1);
    }
  for (int i = 0; i < 3; i++)
    rmid (ids[i]);
  ucb_vobserve (r, "SHM_LOCKs with CAP_IPC_LOCK at 1 page", UCB_VITEM_ADMITTED, 3, n);
  _exit (0);
}

/* After the bypass segments are gone, U's counter is back to 0: 1 page fits at soft 1 page. */
static void
part_bypass_release (struct ucb_vresult *r, uid_t uid, long page)
{
  int ids[3], refused;
  long n;

  become_in_private_ipc (uid, (rlim_t) page);
  for (int i = 0; i < 3; i++)
    ids[i] = seg ((size_t) page);
  n = lock_until_refused (ids, 3, &refused);
  for (int i = 0; i < 3; i++)
    rmid (ids[i]);
  ucb_vobserve (r, "1-page locks at 1 page after the bypass", UCB_VITEM_ADMITTED, 1, n);
  _exit (0);
}

static bool
has_cap_ipc_lock (void)
{
  FILE *f = fopen ("/proc/self/status", "re");
  unsigned long long eff = 0;
  char line[256];
  bool found = false;

  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "CapEff: %llx", &eff) == 1)
      {
        found = true;
        break;
      }
  if (f)
    fclose (f);
  return found && (eff & (1ULL << 14)) != 0; /* CAP_IPC_LOCK */
}

static int
ulim18_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  static void (*const parts[]) (struct ucb_vresult *, uid_t, long)
      = { part_own, part_userns_root, part_bypass, part_bypass_release };
  static const uid_t uid_of[] = { 0, 1, 2, 2 };
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
  if (!has_cap_ipc_lock ())
    {
      ucb_vskip (ctx->res, "root lacks CAP_IPC_LOCK (the bypass part)");
      return 0;
    }
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    {
      pid_t pid = ucb_vfork ();
      int st;
      if (pid < 0)
        return ucb_make_error (err, errno, "fork");
      if (pid == 0)
        parts[i](ctx->res, ctx->uid_base + uid_of[i], page);
      st = ucb_vwait (pid);
      if (st != 0)
        return ucb_make_error (err, 0, "part %zu as uid %u failed (%d)", i + 1,
                               (unsigned) (ctx->uid_base + uid_of[i]), st);
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim18 = {
  .id = "ULIM-18",
  .name = "memlock-own-level",
  .title = "MEMLOCK: SHM_LOCK pages at the own level, rounding, release, EPERM/ENOMEM, bypass",
  .rlimit = "MEMLOCK",
  .depends = "5c2a956c3eea (5.18): user_shm_lock on ucounts; a55d07294f1e (5.17)",
  .checks = "shmctl SHM_LOCK pre-check (EPERM) -> user_shm_lock inc_rlimit_ucounts(MEMLOCK, pages) "
            "vs soft >> PAGE_SHIFT unless capable(CAP_IPC_LOCK); user_shm_unlock on unlock/destroy",
  .run = ulim18_run,
};
