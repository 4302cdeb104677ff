/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.c - who uses a uid on this host, and whether we may become another uid.
 *
 * Containers made by a uid that real processes also use would share ucounts with them and
 * measure someone else's signals; so run and verify check their uids with one function. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "core/util.h"
#include "host/users.h"

int
ucb_cmp_uid (const void *a, const void *b)
{
  uid_t x = *(const uid_t *) a, y = *(const uid_t *) b;
  return (x > y) - (x < y);
}

static bool
in_set (const uid_t *uids, size_t n, unsigned long u)
{
  uid_t key = (uid_t) u;
  return u <= UCB_MAX_UID && bsearch (&key, uids, n, sizeof key, ucb_cmp_uid) != NULL;
}

/* One passwd(5) line, "name:password:uid:gid:gecos:home:shell": its name (in place) and uid,
 * or false for what is no entry here (a comment, an empty line, a NIS "+"/"-" line, a line
 * without a name or a numeric uid). */
static bool
passwd_entry (char *line, const char **name, unsigned long *uid)
{
  char *colon = strchr (line, ':'), *uidf, *end;

  if (colon == NULL || colon == line || line[0] == '#' || line[0] == '+' || line[0] == '-')
    return false;
  *colon = '\0';
  *name = line;
  uidf = strchr (colon + 1, ':'); /* past the password field */
  if (uidf == NULL || !isdigit ((unsigned char) uidf[1]))
    return false;
  errno = 0;
  *uid = strtoul (uidf + 1, &end, 10);
  return errno == 0 && (*end == ':' || *end == '\n' || *end == '\0');
}

size_t
ucb_passwd_find_users (FILE *f, const uid_t *uids, size_t n, char **who)
{
  cleanup_free char *line = NULL;
  size_t size = 0, found = 0;

  if (who)
    *who = NULL;
  while (getline (&line, &size, f) >= 0)
    {
      const char *name;
      unsigned long uid;

      if (passwd_entry (line, &name, &uid) && in_set (uids, n, uid) && found++ == 0 && who)
        *who = xasprintf ("uid %lu belongs to user `%s`", uid, name);
    }
  return found;
}

/* The set must be sorted (ucb_owner_collect's output is). */
size_t
ucb_uids_find_users (const uid_t *uids, size_t n, char **who)
{
  cleanup_free char *first = NULL;
  size_t found = 0;
  int self = (int) getpid ();
  DIR *d;
  struct dirent *de;

  if (n == 0)
    return 0;
  d = opendir ("/proc");
  while (d && (de = readdir (d)) != NULL)
    {
      char path[300], line[256];
      unsigned long r, e, s, fs;
      cleanup_file FILE *f = NULL;

      if (!isdigit ((unsigned char) de->d_name[0]) || atoi (de->d_name) == self)
        continue;
      snprintf (path, sizeof path, "/proc/%s/status", de->d_name);
      f = fopen (path, "re");
      if (f == NULL)
        continue; /* it exited meanwhile */
      while (fgets (line, sizeof line, f))
        if (strncmp (line, "State:\tZ", 8) == 0)
          break; /* a zombie waiting for its reaper runs nothing */
        else if (sscanf (line, "Uid: %lu %lu %lu %lu", &r, &e, &s, &fs) == 4)
          {
            unsigned long ids[4] = { r, e, s, fs };
            for (size_t k = 0; k < 4; k++)
              if (in_set (uids, n, ids[k]))
                {
                  if (found++ == 0)
                    first = xasprintf ("uid %lu is used by running process %s", ids[k], de->d_name);
                  break;
                }
            break;
          }
    }
  if (d)
    closedir (d);
  {
    cleanup_file FILE *pw = fopen ("/etc/passwd", "re");
    cleanup_free char *user = NULL;

    /* Unreadable: no local accounts to collide with (the processes were checked above). */
    if (pw)
      found += ucb_passwd_find_users (pw, uids, n, found ? NULL : &user);
    if (user)
      first = steal_pointer (&user);
  }
  if (who)
    *who = steal_pointer (&first);
  return found;
}

static bool
has_cap (cap_t caps, cap_value_t cap)
{
  cap_flag_value_t v = CAP_CLEAR;
  return caps && cap_get_flag (caps, cap, CAP_EFFECTIVE, &v) == 0 && v == CAP_SET;
}

bool
ucb_can_set_ids (void)
{
  cap_t caps = cap_get_proc ();
  bool ok = has_cap (caps, CAP_SETUID) && has_cap (caps, CAP_SETGID);

  cap_free (caps);
  return ok;
}

int
ucb_check_set_ids (const uid_t *uids, size_t n, ucb_error_t *err)
{
  uid_t me = geteuid ();

  for (size_t i = 0; i < n; i++)
    if (uids[i] != me)
      {
        if (ucb_can_set_ids ())
          return 0;
        return ucb_make_error (err, 0,
                               "becoming owner uid %u needs CAP_SETUID and CAP_SETGID: run "
                               "ucbench as root, or use --owner self (uid %u, your own)",
                               (unsigned) uids[i], (unsigned) me);
      }
  return 0;
}
