/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.c - who uses a uid on this host, and whether we may become another uid.
 *
 * Containers made by a uid that real processes also use would share ucounts with them and
 * measure someone else's signals; so run and verify check their uids with one function. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <pwd.h>
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

/* The set must be sorted (ucb_owner_collect's output is). */
size_t
ucb_uids_find_users (const uid_t *uids, size_t n, char **who)
{
  cleanup_free char *first = NULL;
  size_t found = 0;
  int self = (int) getpid ();
  struct passwd *pw;
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
  setpwent ();
  while ((pw = getpwent ()) != NULL)
    if (in_set (uids, n, pw->pw_uid))
      {
        if (found++ == 0)
          first = xasprintf ("uid %u belongs to user `%s`", (unsigned) pw->pw_uid, pw->pw_name);
      }
  endpwent ();
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
