/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet.c - ucbench's side of the sync protocol (see spawn.c): waiting for READY, health
 * checks while measuring, and the kill-and-reap that ends every path. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "engine/spawn-proto.h"
#include "engine/spawn.h"
#include "host/seccomp.h"

int
ucb_fleet_init (struct ucb_fleet *f, size_t cap, ucb_error_t *err)
{
  int p[2];

  memset (f, 0, sizeof *f);
  f->start_rd = f->start_wr = f->ctl = -1;
  f->cap = cap;
  f->c = xcalloc (cap, sizeof *f->c);
  if (pipe2 (p, O_CLOEXEC) < 0)
    return ucb_make_error (err, errno, "pipe for the start barrier");
  f->start_rd = p[0];
  f->start_wr = p[1];
  return 0;
}

/* One message of a sync socket, with what rides along: the sender's credentials (pid -1
 * without) and a passed fd (-1 without; the spawner's sockets), and whether the kernel cut
 * the control data (MSG_CTRUNC: no fd was free to receive it). */
struct sync_in
{
  struct ucb_sync_msg m;
  struct ucred cred;
  int fd;
  bool truncated;
};

/* 0, 1 at end of file, or < 0 (a short message: its fd is closed). */
static int
recv_msg (int sock, struct sync_in *in, ucb_error_t *err)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (struct ucred)) + CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } ctl;
  struct iovec iov = { .iov_base = &in->m, .iov_len = sizeof in->m };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf
  };
  ssize_t n;

  memset (in, 0, sizeof *in);
  in->cred.pid = -1;
  in->fd = -1;
  do
    n = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR && !ucb_interrupted ());
  if (n < 0)
    return ucb_make_error (err, errno, "recvmsg on sync socket");
  for (struct cmsghdr *cm = CMSG_FIRSTHDR (&mh); cm; cm = CMSG_NXTHDR (&mh, cm))
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS)
      memcpy (&in->cred, CMSG_DATA (cm), sizeof in->cred);
    else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS && in->fd < 0)
      memcpy (&in->fd, CMSG_DATA (cm), sizeof in->fd);
  in->truncated = (mh.msg_flags & MSG_CTRUNC) != 0;
  if (n == 0)
    return 1;
  if ((size_t) n != sizeof in->m)
    {
      if (in->fd >= 0)
        close (in->fd);
      return ucb_make_error (err, 0, "short sync message (%zd bytes)", n);
    }
  return 0;
}

/* How container `idx` ended, `when` ("before reporting", "while measuring").  Its levels pass
 * on a signal that killed the init as exit status 128 + N (spawn.c).  With a seccomp filter
 * in the run, the profile is named: a call it blocks is the likely cause (a KILL or TRAP
 * action is SIGSYS; an errno from exit_group ends as a crash), and nothing else says so. */
static int
describe_exit (struct ucb_container *c, unsigned idx, const char *when, ucb_error_t *err)
{
  const char *profile = ucb_seccomp_active ();
  int sig = WIFSIGNALED (c->status)         ? WTERMSIG (c->status)
            : WEXITSTATUS (c->status) > 128 ? WEXITSTATUS (c->status) - 128
                                            : 0;
  const char *abbrev = sig ? sigabbrev_np (sig) : NULL;
  char how[64];

  /* The owner that is the task (ucb_spec_owner_is_task) has no init to say how it died. */
  if (profile && sig && sig != SIGKILL && c->owner_is_task && WIFSIGNALED (c->status))
    return ucb_make_error (err, 0,
                           "container %u: a task was killed by SIG%s after loading the seccomp "
                           "profile %s: the profile may block a call the task needs",
                           idx, abbrev ? abbrev : "?", profile);
  if (profile == NULL || sig == SIGKILL)
    {
      if (WIFSIGNALED (c->status))
        return ucb_make_error (err, 0, "container %u: owner process killed by signal %d", idx, sig);
      return ucb_make_error (err, 0, "container %u: exited with status %d %s", idx,
                             WEXITSTATUS (c->status), when);
    }
  if (WIFSIGNALED (c->status))
    snprintf (how, sizeof how, "owner process killed by SIG%s", abbrev ? abbrev : "?");
  else if (sig && abbrev)
    snprintf (how, sizeof how, "exited with status %d (SIG%s)", WEXITSTATUS (c->status), abbrev);
  else
    snprintf (how, sizeof how, "exited with status %d", WEXITSTATUS (c->status));
  return ucb_make_error (err, 0,
                         "container %u: %s %s, after loading the seccomp profile %s: the "
                         "profile may block a call the container needs",
                         idx, how, when, profile);
}

/* Handle readable data on container i's socket. */
static int
handle_message (struct ucb_fleet *f, size_t i, ucb_error_t *err)
{
  struct ucb_container *c = &f->c[i];
  struct sync_in in;
  int r = recv_msg (c->sock, &in, err);

  if (r < 0)
    return ucb_error_wrap (err, "container %zu", i);
  if (r == 1)
    {
      /* EOF: every process of the container is gone without a word. */
      if (!c->reaped && waitpid (c->pid, &c->status, 0) == c->pid)
        c->reaped = true;
      return describe_exit (c, (unsigned) i, "before reporting", err);
    }
  switch (in.m.type)
    {
    case UCB_MSG_READY:
      if (in.m.task >= c->tasks || c->task_pid[in.m.task] != 0)
        return ucb_make_error (err, 0, "container %zu: unexpected READY from task %u", i,
                               in.m.task);
      c->task_pid[in.m.task] = in.cred.pid > 0 ? in.cred.pid : in.m.pid;
      c->task_uid = in.cred.pid > 0 ? in.cred.uid : (uid_t) -1;
      c->ready++;
      return 0;
    case UCB_MSG_ERROR:
      ucb_error_from_wire (err, &in.m.err);
      return ucb_error_wrap (err, "container %zu", i);
    default:
      return ucb_make_error (err, 0, "container %zu: unknown sync message %u", i, in.m.type);
    }
}

#define CTL_KEY UINT64_MAX /* the spawner's socket in the epoll set */

/* How the spawner ended, for the message: it is reaped only by ucb_fleet_destroy, so that its
 * process group, every container's, stays ours until then. */
static int
spawner_ended (struct ucb_fleet *f, ucb_error_t *err)
{
  siginfo_t si = { 0 };

  f->spawner_gone = true;
  if (waitid (P_PID, (id_t) f->spawner, &si, WEXITED | WNOWAIT) == 0 && si.si_code != CLD_EXITED)
    return ucb_make_error (err, 0,
                           "the spawner was killed by signal %d after %zu of %zu containers",
                           si.si_status, f->spawned, f->n);
  return ucb_make_error (err, 0, "the spawner exited after %zu of %zu containers", f->spawned,
                         f->n);
}

/* One report of the spawner: a container's owner pid and sync socket (added to `ep`), or why
 * it could not make one. */
static int
handle_spawned (struct ucb_fleet *f, int ep, ucb_error_t *err)
{
  struct epoll_event ev = { .events = EPOLLIN };
  struct sync_in in;
  int r = recv_msg (f->ctl, &in, err);

  if (r < 0)
    return ucb_error_wrap (err, "the spawner");
  if (r == 1)
    return spawner_ended (f, err);
  if (in.m.task >= f->n || f->c[in.m.task].pid != 0)
    {
      if (in.fd >= 0)
        close (in.fd);
      return ucb_make_error (err, 0, "unexpected message from the spawner (container %u)",
                             in.m.task);
    }
  if (in.m.type == UCB_MSG_ERROR)
    return ucb_error_from_wire (err, &in.m.err);
  f->c[in.m.task].pid = in.m.pid;
  f->c[in.m.task].sock = in.fd;
  f->spawned++;
  if (in.fd < 0)
    return ucb_make_error (err, 0, "container %u: its sync socket did not arrive%s", in.m.task,
                           in.truncated ? " (raise `ulimit -n`)" : "");
  ev.data.u64 = in.m.task;
  if (epoll_ctl (ep, EPOLL_CTL_ADD, in.fd, &ev) < 0)
    return ucb_make_error (err, errno, "epoll_ctl container %u", in.m.task);
  return 0;
}

/* The spawner's socket while it has containers to report, and the sockets of every
 * container not yet ready, in an epoll set: a poll() over all of them per READY made waiting
 * quadratic in the containers (4096 x 4096 fds). */
static int
ready_set (struct ucb_fleet *f, ucb_error_t *err)
{
  int ep = epoll_create1 (EPOLL_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.u64 = CTL_KEY };

  if (ep < 0)
    return ucb_make_error (err, errno, "epoll_create1");
  if (f->spawned < f->n && !f->spawner_gone && epoll_ctl (ep, EPOLL_CTL_ADD, f->ctl, &ev) < 0)
    {
      int e = errno;
      close (ep);
      return ucb_make_error (err, e, "epoll_ctl spawner");
    }
  for (size_t i = 0; i < f->n; i++)
    {
      ev.data.u64 = i;
      if (f->c[i].sock >= 0 && f->c[i].ready < f->c[i].tasks
          && epoll_ctl (ep, EPOLL_CTL_ADD, f->c[i].sock, &ev) < 0)
        {
          int e = errno;
          close (ep);
          return ucb_make_error (err, e, "epoll_ctl container %zu", i);
        }
    }
  return ep;
}

int
ucb_fleet_wait_ready (struct ucb_fleet *f, double timeout_s, ucb_error_t *err)
{
  uint64_t deadline = ucb_now_ns () + (uint64_t) (timeout_s * 1e9), told = 0;
  size_t pending = 0, ready = 0;
  cleanup_close int ep = -1;

  for (size_t i = 0; i < f->n; i++)
    pending += f->c[i].tasks - f->c[i].ready; /* tasks, not containers */
  if (pending > 0 && (ep = ready_set (f, err)) < 0)
    return -1;
  while (pending > 0)
    {
      struct epoll_event ev[64];
      uint64_t now = ucb_now_ns ();
      int r, ms;

      if (ucb_interrupted ())
        return ucb_make_error (err, EINTR, "interrupted by signal %d during setup",
                               ucb_interrupted ());
      if (now >= deadline)
        return ucb_make_error (err, ETIMEDOUT, "%zu tasks of %zu containers not ready after %.0f s",
                               pending, f->n, timeout_s);
      if (f->on_ready && now - told >= 250000000ull)
        {
          f->on_ready (f->on_ready_arg, ready, f->n);
          told = now;
        }
      ms = (int) ((deadline - now) / 1000000 + 1);
      r = epoll_wait (ep, ev, 64, f->on_ready && ms > 250 ? 250 : ms); /* 250: to tell */
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ucb_make_error (err, errno, "epoll_wait on the sync sockets");
      for (int k = 0; k < r; k++)
        {
          size_t i = (size_t) ev[k].data.u64;
          unsigned before;

          if (ev[k].data.u64 == CTL_KEY)
            {
              if (handle_spawned (f, ep, err) < 0)
                return -1;
              if (f->spawned == f->n)
                (void) epoll_ctl (ep, EPOLL_CTL_DEL, f->ctl, NULL);
              continue;
            }
          before = f->c[i].ready;
          if (handle_message (f, i, err) < 0)
            return -1;
          pending -= f->c[i].ready - before;
          if (f->c[i].ready == f->c[i].tasks)
            {
              (void) epoll_ctl (ep, EPOLL_CTL_DEL, f->c[i].sock, NULL);
              ready++;
            }
        }
    }
  return 0;
}

int
ucb_fleet_start (struct ucb_fleet *f, ucb_error_t *err)
{
  if (ucb_write_all (f->start_wr, "s", 1) < 0)
    return ucb_make_error (err, errno, "release the start barrier");
  return 0;
}

int
ucb_fleet_check (struct ucb_fleet *f, ucb_error_t *err)
{
  /* One poll over every socket and one look for an exited child, not two system calls per
   * container: at thousands of containers the check ran longer than the reading. */
  cleanup_free struct pollfd *pf = xcalloc (f->n + 1, sizeof *pf);
  siginfo_t si = { 0 };

  for (size_t i = 0; i < f->n; i++)
    pf[i] = (struct pollfd){ .fd = f->c[i].sock, .events = POLLIN };
  if (poll (pf, f->n, 0) > 0)
    for (size_t i = 0; i < f->n; i++)
      if (pf[i].revents && handle_message (f, i, err) < 0)
        return -1;
  /* WNOWAIT: only whether any child has exited (a container, or one of our other children);
   * the loop below finds and reaps it. */
  if (waitid (P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
    return 0;
  for (size_t i = 0; i < f->n; i++)
    {
      struct pollfd p = { .fd = f->c[i].sock, .events = POLLIN };
      if (!f->c[i].reaped && waitpid (f->c[i].pid, &f->c[i].status, WNOHANG) == f->c[i].pid)
        {
          f->c[i].reaped = true;
          /* The message may have raced the exit: prefer the child's own words. */
          p.revents = 0;
          if (poll (&p, 1, 0) > 0 && handle_message (f, i, err) < 0)
            return -1;
          if (ucb_seccomp_active ())
            return describe_exit (&f->c[i], (unsigned) i, "while measuring", err);
          return ucb_make_error (err, 0, "container %zu stopped while measuring (%s %d)", i,
                                 WIFSIGNALED (f->c[i].status) ? "signal" : "status",
                                 WIFSIGNALED (f->c[i].status) ? WTERMSIG (f->c[i].status)
                                                              : WEXITSTATUS (f->c[i].status));
        }
    }
  return 0;
}

/* Reap what is left of the group: the orphans of killed owners (as a child subreaper,
 * ucb_become_subreaper, we inherit them) and any owner the spawner had not reported; they are in
 * the spawner's group, which tells them from our other children (the cgroup janitor). */
static void
reap_group (pid_t pgid)
{
  uint64_t deadline = ucb_now_ns () + 5000000000ull;
  int status;

  for (;;)
    {
      pid_t pid = waitpid (-pgid, &status, WNOHANG);
      if (pid < 0 && errno == EINTR)
        continue;
      if (pid < 0 || ucb_now_ns () >= deadline)
        break; /* ECHILD: nothing of the group left */
      if (pid == 0)
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
        }
    }
}

void
ucb_fleet_destroy (struct ucb_fleet *f)
{
  if (f->c == NULL)
    return;
  /* One kill for every container: they are all in the spawner's group, whose number stays ours
   * while the spawner is unreaped (it is reaped only here).  Their members die in parallel. */
  if (f->spawner > 0)
    kill (-f->spawner, SIGKILL);
  for (size_t i = 0; i < f->n; i++)
    {
      if (f->c[i].pid > 0 && !f->c[i].reaped)
        {
          while (waitpid (f->c[i].pid, &f->c[i].status, 0) < 0 && errno == EINTR)
            ;
          f->c[i].reaped = true;
        }
      if (f->c[i].sock >= 0)
        close (f->c[i].sock);
      free (f->c[i].task_pid);
    }
  if (f->spawner > 0)
    {
      while (waitpid (f->spawner, NULL, 0) < 0 && errno == EINTR)
        ;
      reap_group (f->spawner);
    }
  if (f->ctl >= 0)
    close (f->ctl);
  if (f->start_rd >= 0)
    close (f->start_rd);
  if (f->start_wr >= 0)
    close (f->start_wr);
  free (f->c);
  memset (f, 0, sizeof *f);
  f->start_rd = f->start_wr = f->ctl = -1;
}
