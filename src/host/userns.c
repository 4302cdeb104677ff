/* SPDX-License-Identifier: GPL-2.0-or-later */
/* userns.c - whether this host lets us make user namespaces, what to change when not, and
 * becoming a uid with id maps. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "host/userns.h"

const char *
ucb_clone_hint (int errnum)
{
  switch (errnum)
    {
    case EPERM:
      return "user namespaces are disabled or restricted here: check that "
             "/proc/sys/user/max_user_namespaces is above 0, that kernel.unprivileged_userns_clone "
             "is 1 (Debian kernels) and kernel.apparmor_restrict_unprivileged_userns is 0 "
             "(Ubuntu), "
             "and that no seccomp profile of the container ucbench runs in blocks clone";
    case ENOSPC:
      return "the user-namespace count limit was reached: raise "
             "/proc/sys/user/max_user_namespaces (sysctl -w user.max_user_namespaces=N) or run "
             "fewer --containers/--depth";
    case EAGAIN:
      return "a process limit was hit: RLIMIT_NPROC of the owner uid (ulimit -u) or a pids cgroup "
             "(pids.max); run fewer --containers/--depth or raise the limit";
    case EINVAL:
      return "this kernel does not support user namespaces (CONFIG_USER_NS)";
    case ENOMEM:
      return "out of memory or pids: run fewer --containers/--depth";
    default:
      return NULL;
    }
}

int
ucb_userns_probe (void)
{
  cleanup_pid pid_t pid = fork ();
  int status;
  pid_t r;

  if (pid < 0)
    return INT_MIN;
  if (pid == 0)
    _exit (unshare (CLONE_NEWUSER) == 0 ? 0 : (errno > 0 && errno < 255 ? errno : 255));
  while ((r = waitpid (pid, &status, 0)) < 0 && errno == EINTR)
    ;
  if (r != pid)
    return INT_MIN; /* cleanup_pid kills and reaps it */
  steal_pid (&pid); /* reaped */
  if (WIFSIGNALED (status))
    return -WTERMSIG (status);
  return WEXITSTATUS (status);
}

static bool
setgroups_denied (void)
{
  cleanup_free char *v = ucb_read_file_or_null ("/proc/self/setgroups");

  return v != NULL && strcmp (v, "deny") == 0;
}

int
ucb_userns_become (uid_t uid, gid_t gid, ucb_error_t *err)
{
  /* Inside a user namespace whose setgroups is "deny" (ucbench itself run in a container)
   * the call is refused, and nobody can change the groups anyway: carry on. */
  if (setgroups (0, NULL) < 0 && !(errno == EPERM && setgroups_denied ()))
    return ucb_make_error (err, errno, "setgroups(0)");
  if (setresgid (gid, gid, gid) < 0)
    return ucb_make_error (err, errno, "setresgid(%u)", (unsigned) gid);
  if (setresuid (uid, uid, uid) < 0)
    return ucb_make_error (err, errno, "setresuid(%u)", (unsigned) uid);
  /* A uid change made us non-dumpable, which would make /proc/<child> files root-owned and
   * our children's id maps unwritable for us. */
  if (prctl (PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
    return ucb_make_error (err, errno, "prctl(PR_SET_DUMPABLE)");
  return 0;
}

int
ucb_userns_write_maps (pid_t pid, uid_t uid, gid_t gid, unsigned count, bool deny_setgroups,
                       ucb_error_t *err)
{
  pid_t who = pid ? pid : getpid ();
  cleanup_close int dirfd = -1;
  cleanup_free char *path = pid ? xasprintf ("/proc/%d", (int) pid) : xstrdup ("/proc/self");
  cleanup_free char *umap = xasprintf ("0 %u %u\n", (unsigned) uid, count);
  cleanup_free char *gmap = xasprintf ("0 %u %u\n", (unsigned) gid, count);
  cleanup_close int sfd = -1;

  dirfd = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return ucb_make_error (err, errno, "open `%s`", path);
  /* An unprivileged writer must deny setgroups before it may write gid_map; ENOENT is a
   * kernel older than 3.19, where the file does not exist yet. */
  if (deny_setgroups)
    {
      sfd = openat (dirfd, "setgroups", O_WRONLY | O_CLOEXEC);
      if (sfd < 0 && errno != ENOENT)
        return ucb_make_error (err, errno, "open `%s/setgroups`", path);
      if (sfd >= 0 && ucb_write_all (sfd, "deny", 4) < 0)
        return ucb_make_error (err, errno, "write `%s/setgroups`", path);
    }
  if (ucb_write_file_at (dirfd, "gid_map", gmap, err) < 0)
    return ucb_error_wrap (err, "gid_map `0 %u %u` of pid %d", (unsigned) gid, count, (int) who);
  if (ucb_write_file_at (dirfd, "uid_map", umap, err) < 0)
    return ucb_error_wrap (err, "uid_map `0 %u %u` of pid %d", (unsigned) uid, count, (int) who);
  return 0;
}

int
ucb_userns_enter (int extra_flags, ucb_error_t *err)
{
  /* Our ids outside, read before unshare: inside they are unmapped until the maps exist. */
  uid_t uid = geteuid ();
  gid_t gid = getegid ();

  if (unshare (CLONE_NEWUSER | extra_flags) < 0)
    return ucb_make_error (err, errno, "unshare(CLONE_NEWUSER%s)", extra_flags ? "|..." : "");
  return ucb_userns_write_maps (0, uid, gid, 1, true, err);
}
