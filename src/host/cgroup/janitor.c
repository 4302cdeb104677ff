/* SPDX-License-Identifier: GPL-2.0-or-later */
/* janitor.c - `run --cgroup`: the process that removes everything if ucbench dies.  It is
 * forked before the first change and undoes what the journal (journal.c) lists. */
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

/* Undo the journal: everything in its groups killed, the groups removed with what is below
 * them, then, taking turns with other runs (share.c), the subtree_control changes bottom-up and
 * our way back from ucbench's leaf, which goes last.  An entry whose change was never made
 * finds nothing (ENOENT) and costs nothing. */
static void
janitor_clean (const struct ucb_cg_journal *j)
{
  size_t n = ucb_cg_journal_count (j);
  uint64_t t0 = ucb_now_ns ();
  bool out;

  for (;;)
    {
      size_t left = 0;
      for (size_t i = 0; i < n; i++)
        if (__atomic_load_n (&j->e[i].kind, __ATOMIC_ACQUIRE) == UCB_CG_J_GROUP)
          left += ucb_cg_kill_tree (j->e[i].path, j->e[i].v2);
      if (left == 0 || ucb_cg_ms_since (t0) > JANITOR_KILL_S * 1000)
        break;
      ucb_cg_sleep_ms (20);
    }
  t0 = ucb_now_ns ();
  for (size_t i = n; i-- > 0;)
    if (__atomic_load_n (&j->e[i].kind, __ATOMIC_ACQUIRE) == UCB_CG_J_GROUP)
      while (ucb_cg_remove_tree (j->e[i].path) < 0 && errno == EBUSY
             && ucb_cg_ms_since (t0) < UCB_CG_REMOVE_RETRY_MS)
        ucb_cg_sleep_ms (20);
  if (ucb_cg2_release (j, true, &out) > 0)
    {
      /* what could not be undone stays: nobody else is left to try */
    }
  /* The leaf goes once ucbench's exit is complete. */
  for (size_t i = 0; out && i < n; i++)
    if (__atomic_load_n (&j->e[i].kind, __ATOMIC_ACQUIRE) == UCB_CG_J_LEAF)
      ucb_cg2_remove_leaf (j->e[i].path);
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

static void __attribute__ ((noreturn))
janitor_main (const struct ucb_cg_journal *j, int rfd, pid_t parent, const sigset_t *mask)
{
  bool done = false;
  int pidfd;

  prctl (PR_SET_NAME, "ucb-cg-janitor", 0, 0, 0);
  setpgid (0, 0); /* the terminal's and the fleet's signals are not for us */
  signal (SIGINT, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
  sigprocmask (SIG_SETMASK, mask, NULL);
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
  janitor_clean (j);
  _exit (0);
}

int
ucb_cg_janitor_start (struct ucb_cgroup *cg, ucb_error_t *err)
{
  int p[2];
  pid_t pid;
  sigset_t all, old;

  /* A socket pair used as a pipe: "done" goes with MSG_NOSIGNAL, so a janitor that died cannot
   * SIGPIPE ucbench. */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
    return ucb_make_error (err, errno, "socketpair for the cgroup janitor");
  /* No signal before the janitor has its own process group and SIGINT ignored: a Ctrl-C at
   * this moment waits (and then stops ucbench, not the janitor). */
  sigfillset (&all);
  sigprocmask (SIG_SETMASK, &all, &old);
  pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      sigprocmask (SIG_SETMASK, &old, NULL);
      close (p[0]);
      close (p[1]);
      return ucb_make_error (err, e, "fork the cgroup janitor");
    }
  if (pid == 0)
    janitor_main (cg->journal, p[0], cg->pid, &old);
  setpgid (pid, pid);
  sigprocmask (SIG_SETMASK, &old, NULL);
  close (p[0]);
  cg->janitor = pid;
  cg->janitor_fd = p[1];
  return 0;
}
