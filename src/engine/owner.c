/* owner.c - owner uids of containers, and the check that nobody else uses them.
 *
 * Containers made by a uid that real processes also use would share ucounts with them and
 * measure someone else's signals; so the default range must be free, and is checked. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "engine/owner.h"
#include "core/util.h"

uid_t
ucb_owner_uid (const struct ucb_owner_mode *m, uint32_t base, unsigned index)
{
  switch (m->kind)
    {
    case UCB_OWNER_SHARED:
      return base;
    case UCB_OWNER_DISTINCT:
      return base + index;
    case UCB_OWNER_ROOT:
      return 0;
    case UCB_OWNER_SELF:
      return getuid ();
    case UCB_OWNER_UID:
      return m->lo;
    case UCB_OWNER_RANGE:
      return m->lo + index % (m->hi - m->lo + 1u);
    default:
      return (uid_t) -1;
    }
}

bool
ucb_owner_is_default_range (const struct ucb_owner_mode *m)
{
  return m->kind == UCB_OWNER_SHARED || m->kind == UCB_OWNER_DISTINCT;
}

static int
cmp_uid (const void *a, const void *b)
{
  uid_t x = *(const uid_t *) a, y = *(const uid_t *) b;
  return (x > y) - (x < y);
}

static size_t
sort_unique (uid_t *v, size_t n)
{
  size_t k = 0;

  if (n == 0)
    return 0; /* v may be NULL, which qsort must not see */
  qsort (v, n, sizeof *v, cmp_uid);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[k - 1] != v[i])
      v[k++] = v[i];
  return k;
}

static void
append_uids (const struct ucb_run_options *o, const struct ucb_owner_mode *m, uid_t **v, size_t *n)
{
  unsigned maxc = 0;

  /* Your own uid: of course in use, and needs no privilege. */
  if (m->kind == UCB_OWNER_SELF)
    return;
  for (size_t j = 0; j < o->n_containers; j++)
    if (o->containers[j] > maxc)
      maxc = o->containers[j];
  for (unsigned i = 0; i < maxc; i++)
    {
      uid_t u = ucb_owner_uid (m, o->uid_base, i);
      if (u == 0)
        continue;
      *v = xrealloc (*v, (*n + 1) * sizeof **v);
      (*v)[(*n)++] = u;
      if (m->kind == UCB_OWNER_SHARED || m->kind == UCB_OWNER_UID)
        break;
    }
}

void
ucb_owner_collect (const struct ucb_run_options *o, uid_t **all, size_t *nall, uid_t **strict,
                   size_t *nstrict)
{
  *all = *strict = NULL;
  *nall = *nstrict = 0;
  for (size_t i = 0; i < o->n_owners; i++)
    {
      append_uids (o, &o->owners[i], all, nall);
      if (ucb_owner_is_default_range (&o->owners[i]))
        append_uids (o, &o->owners[i], strict, nstrict);
    }
  *nall = sort_unique (*all, *nall);
  *nstrict = sort_unique (*strict, *nstrict);
}

static bool
in_set (const uid_t *uids, size_t n, unsigned long u)
{
  uid_t key = (uid_t) u;
  return u <= UCB_MAX_UID && bsearch (&key, uids, n, sizeof key, cmp_uid) != NULL;
}

/* The set must be sorted (ucb_owner_collect's output is). */
size_t
ucb_owner_find_users (const uid_t *uids, size_t n, char **who)
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
ucb_owner_can_set_ids (void)
{
  cap_t caps = cap_get_proc ();
  bool ok = has_cap (caps, CAP_SETUID) && has_cap (caps, CAP_SETGID);

  cap_free (caps);
  return ok;
}

int
ucb_owner_check_privilege (const uid_t *uids, size_t n, ucb_error_t *err)
{
  uid_t me = geteuid ();

  for (size_t i = 0; i < n; i++)
    if (uids[i] != me)
      {
        if (ucb_owner_can_set_ids ())
          return 0;
        return ucb_make_error (err, 0,
                               "becoming owner uid %u needs CAP_SETUID and CAP_SETGID: run "
                               "ucbench as root, or use --owner self (uid %u, your own)",
                               (unsigned) uids[i], (unsigned) me);
      }
  return 0;
}
