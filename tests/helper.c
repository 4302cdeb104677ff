/* helper.c - multi-call test helper: inspects containers from outside, as the tests need.
 *
 *   ucb-helper nsinfo PID   print {"pid","depth","owners":[..],"userns_inode","uid"} for PID:
 *                           depth = user-namespace levels between PID and us, owners = the
 *                           owner uid of each level (innermost first), via NS_GET_OWNER_UID
 *                           and NS_GET_PARENT; uid = real uid from /proc/PID/status.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

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

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "nsinfo") == 0)
    return nsinfo (argv[2]);
  fprintf (stderr, "usage: ucb-helper nsinfo PID\n");
  return 2;
}
