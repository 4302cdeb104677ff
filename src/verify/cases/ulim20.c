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
 * and only then dec_user_namespaces), so it is polled for up to 1 s.  inotify_init1 twice, the
 * third EMFILE (inc_inotify_instances); one watch, the second ENOSPC (inc_inotify_watches).  The
 * host's /proc/sys/user values are read before and after: the writes must not reach them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/vprobe.h"

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

/* A forked attempt to create a user namespace: 0 or its errno. */
static int
try_userns (void)
{
  pid_t pid = ucb_vfork ();

  if (pid == 0)
    _exit (unshare (CLONE_NEWUSER) < 0 ? errno : 0);
  return pid < 0 ? -1 : ucb_vwait (pid);
}

static void
probe (struct ucb_vresult *r, uid_t uid, ino_t host_userns)
{
  static const char *const watch_paths[] = { "/", "/dev/null", "/proc", "/dev" };
  ucb_error_t e = NULL;
  struct ucb_vgate made, release;
  int fds[8], refused, first, second, werr = 0, back = 0;
  long nfd = 0, nw = 0;
  struct stat st;
  pid_t holder;
  uint64_t deadline;

  if (ucb_vbecome (uid, &e) < 0 || ucb_vuserns (0, &e) < 0)
    _exit (1);
  /* Never write the host's table. */
  if (stat ("/proc/self/ns/user", &st) < 0 || st.st_ino == host_userns)
    _exit (1);
  for (size_t i = 0; i < UCB_ARRAY_SIZE (settings); i++)
    {
      char path[128], val[32];
      snprintf (path, sizeof path, SYSCTL_DIR "/%s", settings[i].file);
      snprintf (val, sizeof val, "%lld\n", settings[i].value);
      if (ucb_write_file_at (AT_FDCWD, path, val, &e) < 0)
        _exit (1);
    }
  for (size_t i = 0; i < UCB_ARRAY_SIZE (settings); i++)
    {
      char name[UCB_VNAME_MAX];
      snprintf (name, sizeof name, "%s read back inside", settings[i].file);
      ucb_vobserve (r, name, UCB_VITEM_EXACT, settings[i].value, read_sysctl (settings[i].file));
    }

  /* user namespaces: one held, a second refused, then free again once the holder is reaped */
  if (ucb_vgate_open (&made, &e) < 0 || ucb_vgate_open (&release, &e) < 0)
    _exit (1);
  holder = ucb_vfork ();
  if (holder == 0)
    {
      int rc = unshare (CLONE_NEWUSER) < 0 ? errno : 0;
      if (ucb_write_all (made.fd[1], &rc, sizeof rc) < 0)
        _exit (1);
      ucb_vgate_wait (&release);
      _exit (0);
    }
  if (holder < 0 || read (made.fd[0], &first, sizeof first) != (ssize_t) sizeof first)
    _exit (1);
  second = try_userns ();
  ucb_vgate_post (&release);
  if (ucb_vwait (holder) != 0)
    _exit (1);
  deadline = ucb_now_ns () + 1000000000ull;
  for (;;)
    {
      int rc = try_userns ();
      if (rc == 0)
        {
          back = 1;
          break;
        }
      if (rc != ENOSPC || ucb_now_ns () > deadline)
        break;
      nanosleep (&(struct timespec){ 0, 2000000 }, NULL);
    }
  ucb_vobserve (r, "1st nested user namespace", UCB_VITEM_ERRNO, 0, first);
  ucb_vobserve (r, "2nd nested user namespace while 1st lives", UCB_VITEM_ERRNO, ENOSPC, second);
  ucb_vobserve (r, "nested user ns within 1 s of the reaping", UCB_VITEM_EXACT, 1, back);

  /* inotify: instances, then watches on one instance */
  refused = 0;
  for (; nfd < (long) UCB_ARRAY_SIZE (fds); nfd++)
    if ((fds[nfd] = inotify_init1 (IN_CLOEXEC)) < 0)
      {
        refused = errno;
        break;
      }
  if (nfd > 0)
    for (; nw < (long) UCB_ARRAY_SIZE (watch_paths); nw++)
      if (inotify_add_watch (fds[0], watch_paths[nw], IN_ATTRIB) < 0)
        {
          werr = errno;
          break;
        }
  for (long i = 0; i < nfd; i++)
    close (fds[i]);
  ucb_vobserve (r, "inotify instances at max 2", UCB_VITEM_ADMITTED, 2, nfd);
  ucb_vobserve (r, "errno of the 3rd inotify_init1", UCB_VITEM_ERRNO, EMFILE, refused);
  ucb_vobserve (r, "inotify watches at max 1", UCB_VITEM_ADMITTED, 1, nw);
  ucb_vobserve (r, "errno of the 2nd inotify_add_watch", UCB_VITEM_ERRNO, ENOSPC, werr);
  _exit (0);
}

static int
ulim20_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct snapshot before, after;
  struct stat st;
  long changed = 0;
  pid_t pid;

  if (stat ("/proc/self/ns/user", &st) < 0)
    return ucb_make_error (err, errno, "stat /proc/self/ns/user");
  if (take_snapshot (&before, err) < 0)
    return -1;
  pid = ucb_vfork ();
  if (pid == 0)
    probe (ctx->res, ctx->uid_base, st.st_ino);
  if (pid < 0 || ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe as uid %u failed", (unsigned) ctx->uid_base);
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
  ucb_vobserve (ctx->res, "host /proc/sys/user values changed", UCB_VITEM_COUNTER, 0, changed);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim20 = {
  .id = "ULIM-20",
  .name = "non-rlimit-ucounts",
  .title = "Non-rlimit ucounts: per-namespace max_* sysctls, ENOSPC/EMFILE, async userns release",
  .rlimit = "none",
  .depends = "ucounts (5.14+); asynchronous free_user_ns",
  .checks = "inc_ucount/atomic_long_inc_below per level vs that ns's ucount_max "
            "(/proc/sys/user); free_user_ns workqueue -> dec_user_namespaces",
  .run = ulim20_run,
};
