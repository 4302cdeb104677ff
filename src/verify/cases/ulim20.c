/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim20.c - ULIM-20: the non-rlimit ucounts: per-namespace sysctl maxima, ENOSPC and EMFILE.
 *
 * inc_ucount(current_user_ns(), current_euid(), type) charges every level of the chain with
 * atomic_long_inc_below against that level's own namespace's ucount_max[type] (the
 * /proc/sys/user/max_* sysctls of the namespace, writable by its root: set_permissions checks
 * ns_capable(CAP_SYS_RESOURCE) in it), not against a creator's snapshot.  As U in a container,
 * its root sets max_user_namespaces = 1, max_inotify_instances = 2, max_inotify_watches = 1 in
 * the container's own table: a nested user namespace is created (create_user_ns ->
 * inc_user_namespaces), a second one while the first lives gets ENOSPC; after the holder of the
 * first is reaped, creation succeeds again, but asynchronously (free_user_ns runs from a workqueue
 * and only then dec_user_namespaces), so it is polled for, up to 10 s: a loaded machine runs
 * that work late.  inotify_init1 twice, the
 * third EMFILE (inc_inotify_instances); one watch, the second ENOSPC (inc_inotify_watches).  The
 * host's /proc/sys/user values are read before and after: the writes must not reach them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/probe-work.h"

#define SYSCTL_DIR "/proc/sys/user"
#define MAX_SYSCTLS 32

static const struct
{
  const char *file;
  long long value;
} settings[] = {
  { "max_user_namespaces", 1 },
  { "max_inotify_instances", 2 },
  { "max_inotify_watches", 1 },
};

struct snapshot
{
  size_t n;
  char name[MAX_SYSCTLS][64];
  long long value[MAX_SYSCTLS];
};

static long long
read_sysctl (const char *file)
{
  char path[128], buf[64];
  long long v = -1;
  FILE *f;

  snprintf (path, sizeof path, SYSCTL_DIR "/%s", file);
  f = fopen (path, "re");
  if (f && fgets (buf, sizeof buf, f))
    v = strtoll (buf, NULL, 10);
  if (f)
    fclose (f);
  return v;
}

static int
take_snapshot (struct snapshot *s, ucb_error_t *err)
{
  DIR *d = opendir (SYSCTL_DIR);
  struct dirent *de;

  memset (s, 0, sizeof *s);
  if (d == NULL)
    return ucb_make_error (err, errno, "opendir %s", SYSCTL_DIR);
  while ((de = readdir (d)) && s->n < MAX_SYSCTLS)
    if (de->d_name[0] != '.')
      {
        snprintf (s->name[s->n], sizeof s->name[0], "%.63s", de->d_name);
        s->value[s->n++] = read_sysctl (de->d_name);
      }
  closedir (d);
  return 0;
}

static long long
snapshot_value (const struct snapshot *s, const char *file)
{
  for (size_t i = 0; i < s->n; i++)
    if (strcmp (s->name[i], file) == 0)
      return s->value[i];
  return -1;
}

#define USERNS_BACK_S 10 /* how long the count may take to come back after the reaping */

enum
{
  READ_BACK,             /* 3 values: the settings read back inside */
  FIRST = READ_BACK + 3, /* errno of the 1st nested user namespace */
  SECOND,                /* of the 2nd, while the 1st lives */
  BACK,                  /* 1: a nested one could be made again after the reaping */
  INSTANCES,
  INSTANCES_ERR,
  WATCHES,
  WATCHES_ERR,
};

/* unshare(CLONE_NEWUSER): its errno (0: made) in o->errnum; with `arg`, hold it until ordered. */
static int
make_userns (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  o->errnum = unshare (CLONE_NEWUSER) < 0 ? errno : 0;
  if (arg && (ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0))
    return -1;
  return 0;
}

/* A probe's attempt at one nested user namespace, waiting up to `wait_ns` for the room
 * (ucb_vnest): 1 when made, else 0 with the refusal's errno in *refused; -1 with `err` set. */
static int
try_userns (uint64_t wait_ns, int *refused, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "an attempt at a nested user namespace" };
  struct ucb_vnest n = { .want = 1, .max = 1, .wait_ns = wait_ns };
  struct ucb_probe_out o;

  if (ucb_probe_run (&spec, ucb_vnest, &n, &o, err) < 0)
    return -1;
  *refused = o.errnum;
  return (int) o.v[0];
}

/* One nested user namespace held, a second refused, then free again once the holder is
 * reaped: the kernel frees it from a workqueue, so wait for that, with a deadline. */
static int
nested_userns (struct ucb_probe_out *o, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the holder of a nested user namespace" };
  struct ucb_probe holder = UCB_PROBE_NONE;
  struct ucb_probe_out held;
  static bool hold = true;
  int rc, second = 0, back = 0;

  if (ucb_probe_start_report (&holder, &spec, make_userns, &hold, &held, err) < 0)
    return -1;
  if (try_userns (0, &second, err) < 0 || ucb_probe_order (&holder, &held, err) < 0
      || ucb_probe_finish (&holder, NULL, err) < 0)
    {
      ucb_probe_kill (&holder);
      return -1;
    }
  o->v[FIRST] = held.errnum;
  o->v[SECOND] = second;
  if ((rc = try_userns (USERNS_BACK_S * 1000000000ull, &back, err)) < 0)
    return -1;
  o->v[BACK] = rc == 1;
  return 0;
}

/* inotify: instances, then watches on one instance, each counted up to the safety cap.  A
 * watch needs an inode of its own (a second one on the same inode charges nothing): each is
 * on a memfd of ours, by its /proc/self/fd path. */
static void
inotify_limits (struct ucb_probe_out *o)
{
  int fds[UCB_VTRIES (2)], files[UCB_VTRIES (1)], refused = 0, werr = 0;
  long nfd = 0, nw = 0, nfiles = 0;

  for (; nfd < (long) UCB_ARRAY_SIZE (fds); nfd++)
    if ((fds[nfd] = inotify_init1 (IN_CLOEXEC)) < 0)
      {
        refused = errno;
        break;
      }
  for (; nfd > 0 && nw < (long) UCB_ARRAY_SIZE (files); nw++)
    {
      char path[64];

      if ((files[nfiles] = memfd_create ("ulim20", MFD_CLOEXEC)) < 0)
        {
          werr = errno;
          break;
        }
      snprintf (path, sizeof path, "/proc/self/fd/%d", files[nfiles++]);
      if (inotify_add_watch (fds[0], path, IN_ATTRIB) < 0)
        {
          werr = errno;
          break;
        }
    }
  for (long i = 0; i < nfd; i++)
    close (fds[i]);
  for (long i = 0; i < nfiles; i++)
    close (files[i]);
  o->v[INSTANCES] = nfd;
  o->v[INSTANCES_ERR] = refused;
  o->v[WATCHES] = nw;
  o->v[WATCHES_ERR] = werr;
}

/* As U in a container of its own: its root sets the container's table, then uses it. */
static int
probe (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  ino_t host_userns = *(const ino_t *) arg;

  /* Never the host's table (ucb_vuserns_sysctl refuses it). */
  for (size_t i = 0; i < UCB_ARRAY_SIZE (settings); i++)
    if (ucb_vuserns_sysctl (host_userns, settings[i].file, settings[i].value, err) < 0)
      return -1;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (settings); i++)
    o->v[READ_BACK + i] = read_sysctl (settings[i].file);
  if (nested_userns (o, err) < 0)
    return -1;
  inotify_limits (o);
  return 0;
}

static void
observe_probe (struct ucb_vresult *r, const struct ucb_probe_out *o)
{
  const int64_t *v = o->v;

  for (size_t i = 0; i < UCB_ARRAY_SIZE (settings); i++)
    {
      char name[UCB_VNAME_MAX];
      snprintf (name, sizeof name, "%s read back inside", settings[i].file);
      ucb_vobserve (r, name, UCB_VITEM_EXACT, settings[i].value, v[READ_BACK + i]);
    }
  ucb_vobserve (r, "1st nested user namespace", UCB_VITEM_ERRNO, 0, v[FIRST]);
  ucb_vobserve (r, "2nd nested user namespace while 1st lives", UCB_VITEM_ERRNO, ENOSPC, v[SECOND]);
  /* Not back: the reaped holder's namespace still counts. */
  ucb_vobserve_pinned (r, "nested user ns within 10 s of the reaping",
                       "(the reaped holder's nested one: a reference not put)", 1, v[BACK], 0);
  ucb_vobserve (r, "inotify instances at max 2", UCB_VITEM_ADMITTED, 2, v[INSTANCES]);
  ucb_vobserve (r, "errno of the 3rd inotify_init1", UCB_VITEM_ERRNO, EMFILE, v[INSTANCES_ERR]);
  ucb_vobserve (r, "inotify watches at max 1", UCB_VITEM_ADMITTED, 1, v[WATCHES]);
  ucb_vobserve (r, "errno of the 2nd inotify_add_watch", UCB_VITEM_ERRNO, ENOSPC, v[WATCHES_ERR]);
}

static int
ulim20_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct snapshot before, after;
  struct stat st;
  struct ucb_probe_spec spec = { .uid = ctx->uid_base, .userns = CLONE_NEWUSER };
  struct ucb_probe_out o;
  long changed = 0;

  if (stat ("/proc/self/ns/user", &st) < 0)
    return ucb_make_error (err, errno, "stat /proc/self/ns/user");
  if (take_snapshot (&before, err) < 0)
    return -1;
  if (ucb_probe_run (&spec, probe, &st.st_ino, &o, err) < 0)
    return -1;
  observe_probe (ctx->res, &o);
  if (take_snapshot (&after, err) < 0)
    return -1;
  for (size_t i = 0; i < UCB_ARRAY_SIZE (settings); i++)
    {
      char name[UCB_VNAME_MAX];
      snprintf (name, sizeof name, "host %s unchanged", settings[i].file);
      ucb_vobserve (ctx->res, name, UCB_VITEM_EXACT, snapshot_value (&before, settings[i].file),
                    snapshot_value (&after, settings[i].file));
    }
  for (size_t i = 0; i < before.n; i++)
    if (snapshot_value (&after, before.name[i]) != before.value[i])
      changed++;
  changed += after.n != before.n;
  ucb_vobserve (ctx->res, "host /proc/sys/user values changed", UCB_VITEM_EXACT, 0, changed);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim20 = {
  .id = "ULIM-20",
  .name = "non-rlimit-ucounts",
  .title = "Non-rlimit ucounts: per-namespace max_* sysctls, ENOSPC/EMFILE, async userns release",
  .rlimit = UCB_RL_NONE,
  .depends = "ucounts (5.14+); asynchronous free_user_ns",
  .checks = "inc_ucount/atomic_long_inc_below per level vs that ns's ucount_max "
            "(/proc/sys/user); free_user_ns workqueue -> dec_user_namespaces",
  .run = ulim20_run,
  .cells = { { UCB_VLEVEL_NONE, UCB_VPROP_P1 }, { UCB_VLEVEL_NONE, UCB_VPROP_P3 } },
};
