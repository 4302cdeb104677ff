/* janitor.c - `run --cgroup`: the process that removes everything if ucbench dies. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"
#include "host/cgroup/internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define JANITOR_KILL_S 10 /* how long the janitor kills and waits for what is left */

/* Everything in the groups killed, the groups removed bottom-up, subtree_control restored,
 * ucbench's leaf removed. */
static void
janitor_clean (struct ucb_cgroup *cg)
{
  uint64_t t0 = ucb_now_ns ();

  for (;;)
    {
      size_t left = 0;
      for (size_t i = 0; i < cg->nh; i++)
        if (cg->h[i].created)
          left += ucb_cg_kill_tree (cg->h[i].group_dir, cg->h[i].version == 2);
      if (left == 0 || ucb_cg_ms_since (t0) > JANITOR_KILL_S * 1000)
        break;
      ucb_cg_sleep_ms (20);
    }
  t0 = ucb_now_ns ();
  for (size_t i = cg->nh; i-- > 0;)
    while (cg->h[i].created && ucb_cg_remove_tree (cg->h[i].group_dir) < 0 && errno == EBUSY
           && ucb_cg_ms_since (t0) < UCB_CG_REMOVE_RETRY_MS)
      ucb_cg_sleep_ms (20);
  ucb_cg2_revert (cg);
  /* The janitor was forked in ucbench's leaf: out of it (X has no controllers now) to remove
   * it, empty once ucbench is gone. */
  if (cg->self_leaf && ucb_cg2_leave_leaf (cg) == 0)
    ucb_cg2_remove_leaf (cg);
}

/* 1: ucbench said it is done; 0: EOF without it; -1: nothing to read yet. */
static int
janitor_drain (int fd, bool *done)
{
  for (;;)
    {
      char buf[16];
      ssize_t n = read (fd, buf, sizeof buf);
      if (n > 0)
        {
          if (memchr (buf, 'D', (size_t) n))
            *done = true;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;
      if (*done)
        return 1;
      return n == 0 ? 0 : n < 0 && errno == EAGAIN ? -1 : 0;
    }
}

static void __attribute__ ((noreturn)) janitor_main (struct ucb_cgroup *cg, int rfd, pid_t parent)
{
  bool done = false;
  int pidfd;

  prctl (PR_SET_NAME, "ucb-cg-janitor", 0, 0, 0);
  setpgid (0, 0); /* the terminal's and the fleet's signals are not for us */
  signal (SIGINT, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
  if (rfd > 0)
    syscall (SYS_close_range, 0u, (unsigned) rfd - 1, 0);
  syscall (SYS_close_range, (unsigned) rfd + 1, ~0u, 0);
  fcntl (rfd, F_SETFL, O_NONBLOCK);
  /* A process ucbench forked may still hold the other end: ucbench's exit counts as well,
   * seen through a pidfd, or (without pidfd_open) as our reparenting. */
  pidfd = (int) syscall (SYS_pidfd_open, parent, 0);
  while (getppid () == parent)
    {
      struct pollfd p[2] = { { .fd = rfd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
      int r;
      if (poll (p, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 200) < 0 && errno != EINTR)
        break;
      r = janitor_drain (rfd, &done);
      if (r == 1)
        _exit (0);
      if (r == 0 || (pidfd >= 0 && p[1].revents))
        break;
    }
  janitor_clean (cg);
  _exit (0);
}

int
ucb_cg_janitor_start (struct ucb_cgroup *cg, ucb_error_t *err)
{
  int p[2];
  pid_t pid;

  /* A socket pair used as a pipe: "done" goes with MSG_NOSIGNAL, so a janitor that died cannot
   * SIGPIPE ucbench. */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
    return ucb_make_error (err, errno, "socketpair for the cgroup janitor");
  pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      close (p[0]);
      close (p[1]);
      return ucb_make_error (err, e, "fork the cgroup janitor");
    }
  if (pid == 0)
    janitor_main (cg, p[0], cg->pid);
  setpgid (pid, pid);
  close (p[0]);
  cg->janitor = pid;
  cg->janitor_fd = p[1];
  return 0;
}
