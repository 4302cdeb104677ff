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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "vprobe.h"

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
