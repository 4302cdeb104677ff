/* userns.c - whether this host lets us make user namespaces, and what to change when not. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
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
  pid = 0;
  if (WIFSIGNALED (status))
    return -WTERMSIG (status);
  return WEXITSTATUS (status);
}
