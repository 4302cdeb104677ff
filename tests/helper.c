/* SPDX-License-Identifier: GPL-2.0-or-later */
/* helper.c - multi-call test helper: inspects containers from outside, as the tests need.
 *
 *   ucb-helper nsinfo PID   print {"pid","depth","owners":[..],"userns_inode","uid"} for PID:
 *                           depth = user-namespace levels between PID and us, owners = the
 *                           owner uid of each level (innermost first), via NS_GET_OWNER_UID
 *                           and NS_GET_PARENT; uid = real uid from /proc/PID/status.
 *   ucb-helper userns-root BASE COUNT CMD [ARG]...
 *                           run CMD as uid/gid 0 of a new user namespace whose ids 0..COUNT-1
 *                           are BASE..BASE+COUNT-1 outside (not the identity map: inside looks
 *                           like root, but is not root of the initial user namespace).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/userns.h"

static int
nsinfo (const char *pid)
{
  char path[64], line[256];
  struct stat self, st;
  unsigned long uid = (unsigned long) -1;
  unsigned owners[64];
  int depth = 0, fd;
  unsigned long long inode;
  FILE *f;

  if (stat ("/proc/self/ns/user", &self) < 0)
    return perror ("stat /proc/self/ns/user"), 1;
  snprintf (path, sizeof path, "/proc/%s/ns/user", pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0)
    return perror (path), 1;
  inode = (unsigned long long) st.st_ino;
  while (st.st_ino != self.st_ino || st.st_dev != self.st_dev)
    {
      uid_t owner;
      int parent;

      if (depth == 64 || ioctl (fd, NS_GET_OWNER_UID, &owner) < 0)
        return perror ("NS_GET_OWNER_UID"), 1;
      owners[depth++] = (unsigned) owner;
      parent = ioctl (fd, NS_GET_PARENT);
      if (parent < 0)
        return perror ("NS_GET_PARENT"), 1;
      close (fd);
      fd = parent;
      if (fstat (fd, &st) < 0)
        return perror ("fstat"), 1;
    }
  close (fd);
  snprintf (path, sizeof path, "/proc/%s/status", pid);
  f = fopen (path, "re");
  if (f == NULL)
    return perror (path), 1;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "Uid: %lu", &uid) == 1)
      break;
  fclose (f);
  printf ("{\"pid\": %s, \"depth\": %d, \"userns_inode\": %llu, \"uid\": %lu, \"owners\": [", pid,
          depth, inode, uid);
  for (int i = 0; i < depth; i++)
    printf ("%s%u", i ? ", " : "", owners[i]);
  printf ("]}\n");
  return 0;
}

/* The maps of the child's namespace (host/userns.c, as spawn.c writes them), or -1 with the
 * reason in `why` (freed and replaced on each try). */
static int
write_maps (pid_t pid, unsigned long base, unsigned long count, char **why)
{
  ucb_error_t err = NULL;

  if (ucb_userns_write_maps (pid, (uid_t) base, (gid_t) base, (unsigned) count, false, &err) == 0)
    return 0;
  free (*why);
  *why = strdup (err->msg);
  ucb_error_free (&err);
  return -1;
}

/* The child unshares and waits; we (privileged in the parent namespace) write its maps; it
 * becomes 0 inside before exec, so that CMD starts with the namespace's full capabilities. */
static int
userns_root (const char *base, const char *count, char **cmd)
{
  unsigned long b = strtoul (base, NULL, 10), n = strtoul (count, NULL, 10);
  int go[2], status, r = -1;
  char c = 0, *why = NULL;
  pid_t pid;

  if (pipe (go) < 0)
    return perror ("pipe"), 1;
  pid = fork ();
  if (pid < 0)
    return perror ("fork"), 1;
  if (pid == 0)
    {
      close (go[1]);
      if (unshare (CLONE_NEWUSER) < 0)
        _exit ((perror ("unshare(CLONE_NEWUSER)"), 127));
      if (read (go[0], &c, 1) != 1 || c != 'g')
        _exit (127);
      if (setresgid (0, 0, 0) < 0 || setresuid (0, 0, 0) < 0)
        _exit ((perror ("setresuid(0) inside"), 127));
      execvp (cmd[0], cmd);
      _exit ((perror (cmd[0]), 127));
    }
  close (go[0]);
  /* The child's unshare() may not have happened yet: retry the maps until it has. */
  for (int i = 0; i < 1000 && (r = write_maps (pid, b, n, &why)) < 0; i++)
    usleep (2000);
  if (r < 0 || write (go[1], "g", 1) != 1)
    {
      fprintf (stderr, "write the maps: %s\n", r < 0 && why ? why : strerror (errno));
      kill (pid, SIGKILL);
    }
  free (why);
  close (go[1]);
  if (waitpid (pid, &status, 0) < 0)
    return perror ("waitpid"), 1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "nsinfo") == 0)
    return nsinfo (argv[2]);
  if (argc >= 5 && strcmp (argv[1], "userns-root") == 0)
    return userns_root (argv[2], argv[3], argv + 4);
  fprintf (stderr, "usage: ucb-helper nsinfo PID | userns-root BASE COUNT CMD [ARG]...\n");
  return 2;
}
