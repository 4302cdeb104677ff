/* vprobe.c - the probe kit of the verify cases (kernel-ucounts.md §4 conventions). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/vprobe.h"

int
ucb_vbecome (uid_t uid, ucb_error_t *err)
{
  if (setgroups (0, NULL) < 0)
    return ucb_make_error (err, errno, "setgroups(0)");
  if (setresgid (uid, uid, uid) < 0)
    return ucb_make_error (err, errno, "setresgid(%u)", (unsigned) uid);
  if (setresuid (uid, uid, uid) < 0)
    return ucb_make_error (err, errno, "setresuid(%u)", (unsigned) uid);
  /* Non-dumpable after the uid change: the id map files would be root-owned. */
  if (prctl (PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
    return ucb_make_error (err, errno, "prctl(PR_SET_DUMPABLE)");
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    return ucb_make_error (err, errno, "prctl(PR_SET_PDEATHSIG)");
  return 0;
}

int
ucb_vsoft (int resource, rlim_t soft, ucb_error_t *err)
{
  struct rlimit rl;

  if (getrlimit (resource, &rl) < 0)
    return ucb_make_error (err, errno, "getrlimit(%d)", resource);
  rl.rlim_cur = soft == RLIM_INFINITY ? rl.rlim_max : soft;
  if (setrlimit (resource, &rl) < 0)
    return ucb_make_error (err, errno, "setrlimit(%d, soft %llu)", resource,
                           (unsigned long long) rl.rlim_cur);
  return 0;
}

static int
write_self (const char *file, const char *data, ucb_error_t *err)
{
  return ucb_write_file_at (AT_FDCWD, file, data, err);
}

int
ucb_vuserns (int extra_flags, ucb_error_t *err)
{
  /* Our ids outside, read before unshare: inside they are unmapped until the maps exist. */
  cleanup_free char *umap = xasprintf ("0 %u 1\n", (unsigned) geteuid ());
  cleanup_free char *gmap = xasprintf ("0 %u 1\n", (unsigned) getegid ());

  if (unshare (CLONE_NEWUSER | extra_flags) < 0)
    return ucb_make_error (err, errno, "unshare(CLONE_NEWUSER)");
  if (write_self ("/proc/self/setgroups", "deny", err) < 0
      || write_self ("/proc/self/gid_map", gmap, err) < 0
      || write_self ("/proc/self/uid_map", umap, err) < 0)
    return -1;
  return 0;
}

pid_t
ucb_vfork (void)
{
  pid_t parent = getpid ();
  pid_t pid = fork ();

  if (pid == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (getppid () != parent)
        _exit (1);
    }
  return pid;
}

int
ucb_vwait (pid_t pid)
{
  int status;

  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

pid_t
ucb_vobserver (uid_t uid)
{
  int ready[2];
  pid_t pid;
  char c;

  /* Return only once it runs as `uid`: before that its SigQ is root's counter. */
  if (pipe2 (ready, O_CLOEXEC) < 0)
    return -1;
  pid = ucb_vfork ();
  if (pid == 0)
    {
      ucb_error_t err = NULL;
      close (ready[0]);
      if (ucb_vbecome (uid, &err) < 0)
        _exit (1);
      if (ucb_write_all (ready[1], "r", 1) < 0)
        _exit (1);
      close (ready[1]);
      for (;;)
        pause ();
    }
  close (ready[1]);
  if (pid > 0 && read (ready[0], &c, 1) != 1)
    {
      kill (pid, SIGKILL);
      ucb_vwait (pid);
      pid = -1;
    }
  close (ready[0]);
  return pid;
}

static int
block_rt (void)
{
  sigset_t set;

  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN);
  return sigprocmask (SIG_BLOCK, &set, NULL);
}

long
ucb_vfill_rt (long max, int *errnum)
{
  union sigval v = { .sival_int = 0 };
  long n = 0;

  *errnum = 0;
  if (block_rt () < 0)
    {
      *errnum = errno;
      return 0;
    }
  while (n < max)
    {
      if (sigqueue (getpid (), SIGRTMIN, v) < 0)
        {
          *errnum = errno;
          break;
        }
      n++;
    }
  return n;
}

long
ucb_vdrain_rt (void)
{
  sigset_t set;
  struct timespec zero = { 0, 0 };
  long n = 0;

  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN);
  while (sigtimedwait (&set, NULL, &zero) >= 0)
    n++;
  return n;
}

long
ucb_vsigq (pid_t pid)
{
  char path[64], line[256];
  cleanup_file FILE *f = NULL;
  long q = -1;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  f = fopen (path, "re");
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "SigQ: %ld/", &q) == 1)
      break;
  return q;
}

int
ucb_vgate_open (struct ucb_vgate *g, ucb_error_t *err)
{
  if (pipe2 (g->fd, O_CLOEXEC) < 0)
    return ucb_make_error (err, errno, "pipe");
  return 0;
}

void
ucb_vgate_post (struct ucb_vgate *g)
{
  if (ucb_write_all (g->fd[1], "x", 1) < 0)
    {
      /* the waiter is gone; it will see EOF */
    }
}

bool
ucb_vgate_wait (struct ucb_vgate *g)
{
  char c;
  ssize_t n;

  do
    n = read (g->fd[0], &c, 1);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

void
ucb_vgate_close (struct ucb_vgate *g)
{
  close (g->fd[0]);
  close (g->fd[1]);
}

long
ucb_vfork_sleepers (pid_t *kids, long max, int *refused)
{
  long n = 0;

  *refused = 0;
  while (n < max)
    {
      pid_t pid = ucb_vfork ();
      if (pid < 0)
        {
          *refused = errno;
          break;
        }
      if (pid == 0)
        for (;;)
          pause ();
      kids[n++] = pid;
    }
  return n;
}

void
ucb_vkill_reap (pid_t *kids, long n)
{
  for (long i = 0; i < n; i++)
    kill (kids[i], SIGKILL);
  for (long i = 0; i < n; i++)
    ucb_vwait (kids[i]);
}

void
ucb_vreap_all (void)
{
  while (waitpid (-1, NULL, 0) > 0 || errno == EINTR)
    ;
}

/* The exemptions concern uid 0 of init_user_ns and its capabilities: we must be it. */
bool
ucb_vroot_of_init_userns (void)
{
  cleanup_free char *map = NULL;
  ucb_error_t e = NULL;
  unsigned long inside, outside, count;

  if (geteuid () != 0 || getuid () != 0)
    return false;
  if (ucb_read_file ("/proc/self/uid_map", &map, &e) < 0)
    {
      ucb_error_free (&e);
      return false;
    }
  return sscanf (map, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 && outside == 0
         && count == 4294967295UL;
}

/* A child in a user namespace created by root, its maps written from here (ranges need a
 * writer with CAP_SETUID in the parent namespace): 0 .. width-1 inside are `first` ..
 * outside, uids and gids.  The child sets `creator_soft` (if non-zero) before unshare and
 * becomes uid/gid 0 inside.  Returns the pid here, 0 in the child, -1 on error. */
pid_t
ucb_vfork_range_container (uid_t first, unsigned width, rlim_t creator_soft, ucb_error_t *err)
{
  struct ucb_vgate ready, mapped;
  char path[64];
  cleanup_free char *map = NULL;
  pid_t pid;

  if (ucb_vgate_open (&ready, err) < 0)
    return -1;
  if (ucb_vgate_open (&mapped, err) < 0)
    {
      ucb_vgate_close (&ready);
      return -1;
    }
  pid = ucb_vfork ();
  if (pid < 0)
    {
      ucb_vgate_close (&ready);
      ucb_vgate_close (&mapped);
      return ucb_make_error (err, errno, "fork");
    }
  if (pid == 0)
    {
      ucb_error_t e = NULL;

      close (ready.fd[0]);
      close (mapped.fd[1]);
      if ((creator_soft && ucb_vsoft (RLIMIT_NPROC, creator_soft, &e) < 0)
          || unshare (CLONE_NEWUSER) < 0)
        _exit (1);
      ucb_vgate_post (&ready);
      if (!ucb_vgate_wait (&mapped))
        _exit (1);
      close (ready.fd[1]);
      close (mapped.fd[0]);
      if (setgroups (0, NULL) < 0 || setresgid (0, 0, 0) < 0 || setresuid (0, 0, 0) < 0
          || prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        _exit (1);
      return 0;
    }
  /* A child that dies is seen as EOF on `ready` (the read end of `mapped` stays open here:
   * a post to a dead child is no SIGPIPE). */
  close (ready.fd[1]);
  ready.fd[1] = -1;
  map = xasprintf ("0 %u %u\n", (unsigned) first, width);
  if (!ucb_vgate_wait (&ready))
    {
      ucb_make_error (err, 0, "the container child did not unshare");
      goto fail;
    }
  snprintf (path, sizeof path, "/proc/%d/gid_map", (int) pid);
  if (ucb_write_file_at (AT_FDCWD, path, map, err) < 0)
    goto fail;
  snprintf (path, sizeof path, "/proc/%d/uid_map", (int) pid);
  if (ucb_write_file_at (AT_FDCWD, path, map, err) < 0)
    goto fail;
  ucb_vgate_post (&mapped);
  ucb_vgate_close (&ready);
  ucb_vgate_close (&mapped);
  return pid;
fail:
  kill (pid, SIGKILL);
  ucb_vwait (pid);
  ucb_vgate_close (&ready);
  ucb_vgate_close (&mapped);
  return -1;
}

/* ---- agents: a container or host task holding RT signals, driven over a socket ---- */

/* A task of U (in the initial namespace, or in a container of its own) driven over a socket
 * pair, so that only run() records observations. */
struct ucb_vorder
{
  char op; /* 'f' queue up to n SIGRTMIN, 'd' drain, 'q' drain and exit; 'r' ready */
  int errnum;
  long n;
};

/* One message each way; MSG_NOSIGNAL: a dead peer is an error, not SIGPIPE. */
static bool
send_order (int fd, const struct ucb_vorder *o)
{
  ssize_t n;

  do
    n = send (fd, o, sizeof *o, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof *o;
}

static bool
recv_order (int fd, struct ucb_vorder *o)
{
  ssize_t n;

  do
    n = recv (fd, o, sizeof *o, 0);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof *o;
}

__attribute__ ((noreturn)) static void
agent_main (uid_t uid, rlim_t soft, bool container, int fd)
{
  ucb_error_t e = NULL;
  struct ucb_vorder o = { .op = 'r' };
  sigset_t rt;

  sigemptyset (&rt);
  sigaddset (&rt, SIGRTMIN);
  if (sigprocmask (SIG_BLOCK, &rt, NULL) < 0 || ucb_vbecome (uid, &e) < 0
      || ucb_vsoft (RLIMIT_SIGPENDING, soft, &e) < 0)
    _exit (1);
  if (container
      && (ucb_vuserns (0, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, RLIM_INFINITY, &e) < 0))
    _exit (1);
  while (send_order (fd, &o) && recv_order (fd, &o) && o.op != 'q')
    {
      o.errnum = 0;
      o.n = o.op == 'f' ? ucb_vfill_rt (o.n, &o.errnum) : ucb_vdrain_rt ();
    }
  ucb_vdrain_rt ();
  _exit (0);
}

int
ucb_vagent_start (struct ucb_vagent *a, uid_t uid, rlim_t soft, bool container, ucb_error_t *err)
{
  struct ucb_vorder o;
  int sp[2];

  a->pid = -1;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
    return ucb_make_error (err, errno, "socketpair");
  a->pid = ucb_vfork ();
  if (a->pid == 0)
    {
      close (sp[0]);
      agent_main (uid, soft, container, sp[1]);
    }
  close (sp[1]);
  a->fd = sp[0];
  if (a->pid < 0)
    {
      int e = errno;
      close (a->fd);
      return ucb_make_error (err, e, "fork");
    }
  if (!recv_order (a->fd, &o) || o.op != 'r')
    return ucb_make_error (err, 0, "a task of uid %u did not start", (unsigned) uid);
  return 0;
}

/* Queue up to `max` ('f') or drain ('d'); the count, *errnum the refusal's errno; -1: gone. */
long
ucb_vagent_do (struct ucb_vagent *a, char op, long max, int *errnum)
{
  struct ucb_vorder o = { .op = op, .n = max };

  if (!send_order (a->fd, &o) || !recv_order (a->fd, &o))
    return -1;
  *errnum = o.errnum;
  return o.n;
}

/* Drain, exit, reap; with `kill_it` (an error path) just kill it.  Its exit status. */
int
ucb_vagent_stop (struct ucb_vagent *a, bool kill_it)
{
  struct ucb_vorder o = { .op = 'q' };
  int status;

  if (a->pid <= 0)
    return -1;
  if (kill_it || !send_order (a->fd, &o))
    kill (a->pid, SIGKILL);
  close (a->fd);
  status = ucb_vwait (a->pid);
  a->pid = -1;
  return status;
}
