/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawner.c - the spawner (spawn.c, step 0 of the protocol): one process per point that forks
 * every owner, and ucbench's side of forking it. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/process.h"
#include "core/sched.h"
#include "core/util.h"
#include "engine/spawn-proto.h"
#include "engine/spawn.h"
#include "host/userns.h"

/* ---- the spawner ------------------------------------------------------------------------ */

/* Hand ucbench container `index`'s end of its sync socket, with the owner's pid (pid < 0:
 * `err` says why there is none). */
static int
send_spawned (int ctl, unsigned index, pid_t pid, int sock, ucb_error_t *err)
{
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } ctl_buf;
  struct ucb_sync_msg m;
  struct iovec iov = { .iov_base = &m, .iov_len = sizeof m };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  ssize_t n;

  memset (&m, 0, sizeof m);
  m.type = pid > 0 ? UCB_MSG_SPAWNED : UCB_MSG_ERROR;
  m.task = index;
  m.pid = (int32_t) pid;
  if (pid > 0)
    {
      struct cmsghdr *cm;
      memset (&ctl_buf, 0, sizeof ctl_buf);
      mh.msg_control = ctl_buf.buf;
      mh.msg_controllen = sizeof ctl_buf.buf;
      cm = CMSG_FIRSTHDR (&mh);
      cm->cmsg_level = SOL_SOCKET;
      cm->cmsg_type = SCM_RIGHTS;
      cm->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (cm), &sock, sizeof sock);
    }
  else
    ucb_error_to_wire (err, &m.err);
  do
    n = sendmsg (ctl, &mh, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof m ? 0 : -1;
}

/* One container: its sync socket and its owner, a child of ucbench (CLONE_PARENT), so that
 * ucbench reaps it and its PR_SET_PDEATHSIG follows ucbench.  Returns the owner's pid, or -1
 * with `err` set; sv[0] is ucbench's end. */
static pid_t
spawn_owner (const struct ucb_container_spec *spec, pid_t parent, const struct ucb_owner_creds *cr,
             int start_fd, int sv[2], ucb_task_main_fn fn, void *arg, ucb_error_t *err)
{
  int one = 1;
  pid_t pid;

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return ucb_make_error (err, errno, "socketpair for container %u%s", spec->index,
                           errno == EMFILE ? " (raise `ulimit -n`)" : "");
  /* Credentials of every message: the task's pid and uid as seen from ucbench. */
  if (setsockopt (sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
    return ucb_make_error (err, errno, "setsockopt(SO_PASSCRED)");
  pid = (pid_t) syscall (SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, NULL);
  if (pid < 0)
    {
      int e = errno;
      const char *hint = ucb_clone_hint (e);
      if (hint)
        return ucb_make_error (err, 0, "fork for container %u: %s; %s", spec->index, strerror (e),
                               hint);
      return ucb_make_error (err, e, "fork for container %u", spec->index);
    }
  if (pid == 0)
    {
      struct ucb_task_env env = { .spec = spec, .sync_fd = sv[1], .start_fd = start_fd };
      ucb_owner_main (&env, parent, cr, fn, arg);
    }
  return pid;
}

/* Drop the pages wholly inside [p, p + len) from this process (a copy: the parent keeps its
 * own); malloc's headers around them stay. */
static void
drop_pages (void *p, size_t len)
{
  uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t) p + page - 1) & ~(page - 1);
  uintptr_t hi = ((uintptr_t) p + len) & ~(page - 1);

  if (p && hi > lo)
    (void) madvise ((void *) lo, hi - lo, MADV_DONTNEED);
}

/* The spawner: forks every owner, so that neither the cost of a fork (its copy of the parent's
 * page tables and file table, the copy-on-write faults it leaves behind) nor the parent's
 * thousands of sync sockets weigh on ucbench, and ucbench waits for READY meanwhile.  It leads
 * the process group of every container (the owners start in it and stay), and lives until
 * ucbench closes its control socket or kills the group. */
__attribute__ ((noreturn)) static void
spawner_main (const struct ucb_container_spec *specs, size_t n, pid_t parent, int ctl, int start_fd,
              ucb_task_main_fn fn, void *arg)
{
  ucb_error_t err = NULL;
  struct ucb_sched_saved sched;
  struct ucb_owner_creds cr;
  int keep[2] = { ctl, start_fd };
  char c;

  ucb_close_all_but (keep, 2);
  if (ucb_arm_pdeathsig (parent, "parent", &err) < 0)
    _exit (UCB_EXIT_FAILURE);
  (void) setpgid (0, 0);
  /* Terminal signals go to ucbench, which stops us in order. */
  signal (SIGINT, SIG_IGN);
  signal (SIGTERM, SIG_DFL);
  signal (SIGHUP, SIG_IGN);
  prctl (PR_SET_NAME, "ucb-spawner", 0, 0, 0);
  ucb_owner_creds_init (&cr, specs, n);
  /* Real-time like ucbench while it spawns (its forks are the setup's critical path; the
   * owners start as SCHED_OTHER again); refused exactly when ucbench's was. */
  (void) ucb_sched_raise (&sched);
  for (size_t i = 0; i < n; i++)
    {
      int sv[2] = { -1, -1 };
      pid_t pid = spawn_owner (&specs[i], parent, &cr, start_fd, sv, fn, arg, &err);
      int r = send_spawned (ctl, specs[i].index, pid, sv[0], &err);

      if (sv[0] >= 0)
        close (sv[0]);
      if (sv[1] >= 0)
        close (sv[1]);
      if (pid < 0 || r < 0)
        _exit (UCB_EXIT_FAILURE);
    }
  ucb_sched_restore (&sched);
  while (read (ctl, &c, 1) < 0 && errno == EINTR)
    ;
  _exit (0);
}

/* ---- the parent's side of the fork ------------------------------------------------------ */

int
ucb_fleet_spawn_all (struct ucb_fleet *f, const struct ucb_container_spec *specs, size_t n,
                     ucb_task_main_fn fn, void *arg, ucb_error_t *err)
{
  pid_t parent = getpid ();
  int sv[2];
  pid_t pid;

  if (n > f->cap || f->spawner > 0)
    return ucb_make_error (err, 0, "internal: fleet of %zu spawned again or too big", f->cap);
  for (size_t i = 0; i < n; i++)
    {
      struct ucb_container *c = &f->c[i];
      memset (c, 0, sizeof *c);
      c->sock = -1;
      c->owner_is_task = ucb_spec_owner_is_task (&specs[i]);
      c->tasks = specs[i].tasks;
      c->task_uid = (uid_t) -1;
    }
  f->n = n;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return ucb_make_error (err, errno, "socketpair for the spawner");
  fflush (NULL); /* no buffered output may be written twice */
  pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      const char *hint = ucb_clone_hint (e);
      close (sv[0]);
      close (sv[1]);
      if (hint)
        return ucb_make_error (err, 0, "fork for the spawner: %s; %s", strerror (e), hint);
      return ucb_make_error (err, e, "fork for the spawner");
    }
  if (pid == 0)
    {
      drop_pages (f->spare, f->spare_len);
      drop_pages (f->c, f->cap * sizeof *f->c);
      spawner_main (specs, n, parent, sv[1], f->start_rd, fn, arg);
    }
  close (sv[1]);
  /* Both sides set the group: a kill right after fork must not miss it. */
  (void) setpgid (pid, pid);
  f->spawner = pid;
  f->ctl = sv[0];
  /* Only now: the spawner, and so every owner, need not copy them. */
  for (size_t i = 0; i < n; i++)
    f->c[i].task_pid = xcalloc (specs[i].tasks, sizeof *f->c[i].task_pid);
  return 0;
}
