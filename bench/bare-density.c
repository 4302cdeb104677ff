/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bare-density.c - the kernel's own cost of N containers, without ucbench: N children made
 * with clone(CLONE_NEWUSER), setgroups/uid_map/gid_map written by the parent, all N held
 * alive, then killed and reaped.  The reference bench/density.py puts beside ucbench's
 * setup_s and teardown_s.  A program that prints numbers, not a test.
 *
 *   bare-density N [OWNER_UID [NAMESPACES [busy]]]   prints: create_s=... teardown_s=...
 *
 * NAMESPACES is a comma list like ucbench's --isolate (user, ipc, pid, mnt, uts, net; default
 * user): the same namespaces as ucbench's containers, for a like-for-like reference.  `busy`:
 * the children wait on a start pipe, as ucbench's tasks wait on its barrier, then all loop on
 * getppid() for half a second before they are killed, as ucbench's are at the end of a window
 * (killing N running tasks takes longer than N sleeping ones).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int
write_file (pid_t pid, const char *name, const char *text)
{
  char path[64];
  int fd, ok;

  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, name);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ok = write (fd, text, strlen (text)) == (ssize_t) strlen (text);
  close (fd);
  return ok ? 0 : -1;
}

static int
clone_flags (const char *list)
{
  static const struct
  {
    const char *name;
    int flag;
  } ns[] = { { "user", CLONE_NEWUSER }, { "ipc", CLONE_NEWIPC }, { "pid", CLONE_NEWPID },
             { "mnt", CLONE_NEWNS },    { "uts", CLONE_NEWUTS }, { "net", CLONE_NEWNET } };
  char *copy = strdup (list), *save = NULL;
  int flags = CLONE_NEWUSER;

  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    {
      size_t i = 0;
      while (i < sizeof ns / sizeof *ns && strcmp (ns[i].name, t) != 0)
        i++;
      if (i == sizeof ns / sizeof *ns)
        {
          free (copy);
          return -1;
        }
      flags |= ns[i].flag;
    }
  free (copy);
  return flags;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? strtol (argv[1], NULL, 10) : 0;
  unsigned long owner = argc > 2 ? strtoul (argv[2], NULL, 10) : 0;
  int flags = clone_flags (argc > 3 ? argv[3] : "user");
  int busy = argc > 4 && strcmp (argv[4], "busy") == 0;
  pid_t *pid;
  int hold[2]; /* one pipe for all: a child's read returns only if the parent died */
  int go[2];   /* busy: the start, written once, never read (POLLIN stays set) */
  double t0, t1, t2, t3;
  char map[64];

  if (n <= 0 || flags < 0)
    {
      fprintf (stderr, "usage: bare-density N [OWNER_UID [NAMESPACES [busy]]]\n");
      return 2;
    }
  pid = calloc ((size_t) n, sizeof *pid);
  if (pid == NULL || pipe2 (hold, O_CLOEXEC) < 0 || pipe2 (go, O_CLOEXEC) < 0)
    return 1;
  snprintf (map, sizeof map, "0 %lu 1\n", owner);
  t0 = now_s ();
  for (long i = 0; i < n; i++)
    {
      char c;
      pid[i] = (pid_t) syscall (SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
      if (pid[i] < 0)
        {
          perror ("clone(CLONE_NEWUSER)");
          return 1;
        }
      if (pid[i] == 0)
        {
          close (hold[1]);
          if (busy)
            {
              struct pollfd p = { .fd = go[0], .events = POLLIN };
              (void) poll (&p, 1, -1);
              for (;;)
                (void) getppid ();
            }
          (void) read (hold[0], &c, 1); /* held until killed */
          _exit (0);
        }
      if (write_file (pid[i], "setgroups", "deny") < 0 || write_file (pid[i], "uid_map", map) < 0
          || write_file (pid[i], "gid_map", map) < 0)
        {
          perror ("id maps");
          return 1;
        }
    }
  t1 = now_s ();
  if (busy)
    {
      /* Real-time from here, as ucbench is while it stops containers: the killer is not one
       * of N running tasks. */
      struct sched_param sp = { .sched_priority = 1 };
      struct timespec half = { 0, 500000000 };

      (void) sched_setscheduler (0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
      if (write (go[1], "g", 1) != 1)
        return 1;
      nanosleep (&half, NULL);
    }
  t2 = now_s ();
  for (long i = 0; i < n; i++)
    kill (pid[i], SIGKILL);
  for (long i = 0; i < n; i++)
    while (waitpid (pid[i], NULL, 0) < 0 && errno == EINTR)
      ;
  t3 = now_s ();
  printf ("create_s=%.4f teardown_s=%.4f\n", t1 - t0, t3 - t2);
  free (pid);
  return 0;
}
