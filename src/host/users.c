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
#include <sys/types.h>
#include <unistd.h>

#include "core/util.h"
#include "host/users.h"

int
ucb_cmp_uid (const void *a, const void *b)
{
  uid_t x = *(const uid_t *) a, y = *(const uid_t *) b;
  return (x > y) - (x < y);
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

/* ---- the id files --------------------------------------------------------------------- */

const struct ucb_id_files ucb_id_files_host = {
  .login_defs = "/etc/login.defs",
  .passwd = "/etc/passwd",
  .group = "/etc/group",
  .subuid = "/etc/subuid",
  .subgid = "/etc/subgid",
};

bool
ucb_login_defs_value (FILE *f, const char *key, unsigned long *value)
{
  cleanup_free char *line = NULL;
  size_t size = 0, klen = strlen (key);
  bool found = false;

  while (getline (&line, &size, f) >= 0)
    {
      char *p = line, *end;
      unsigned long v;
      size_t n;

      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '#' || strncmp (p, key, klen) != 0 || (p[klen] != ' ' && p[klen] != '\t'))
        continue;
      p += klen;
      while (*p == ' ' || *p == '\t')
        p++;
      n = strlen (p);
      while (n > 0 && isspace ((unsigned char) p[n - 1]))
        p[--n] = '\0';
      if (n >= 2 && p[0] == '"' && p[n - 1] == '"')
        {
          p[n - 1] = '\0';
          p++;
        }
      if (!isdigit ((unsigned char) *p))
        continue;
      errno = 0;
      v = strtoul (p, &end, 0);
      if (errno == 0 && *end == '\0')
        {
          *value = v;
          found = true; /* the last line wins, as in shadow's getdef */
        }
    }
  return found;
}

size_t
ucb_idfile_find (FILE *f, uint64_t first, uint64_t last, char **name, unsigned long *id)
{
  cleanup_free char *line = NULL;
  size_t size = 0, found = 0;

  if (name)
    *name = NULL;
  while (getline (&line, &size, f) >= 0)
    {
      const char *n;
      unsigned long u;

      if (!passwd_entry (line, &n, &u) || u < first || u > last || found++ > 0)
        continue;
      if (name)
        *name = xstrdup (n);
      if (id)
        *id = u;
    }
  return found;
}

/* A number field of a subuid line, ending at `stop` (':', or the end of the line: blanks and a
 * CR may come before it). */
static bool
subid_number (const char *s, char stop, unsigned long *v, const char **next)
{
  char *end;

  if (!isdigit ((unsigned char) *s))
    return false;
  errno = 0;
  *v = strtoul (s, &end, 10);
  if (errno != 0)
    return false;
  if (stop == ':' ? *end != ':' : end[strspn (end, " \t\r\n")] != '\0')
    return false;
  *next = end + (stop == ':');
  return true;
}

size_t
ucb_subid_find (FILE *f, uint64_t first, uint64_t last, char **owner, unsigned long *start,
                unsigned long *count)
{
  cleanup_free char *line = NULL;
  size_t size = 0, found = 0;

  if (owner)
    *owner = NULL;
  while (getline (&line, &size, f) >= 0)
    {
      char *colon = strchr (line, ':');
      const char *p;
      unsigned long s, c;

      if (colon == NULL || colon == line || line[0] == '#')
        continue;
      if (!subid_number (colon + 1, ':', &s, &p) || !subid_number (p, '\n', &c, &p) || c == 0)
        continue;
      if ((uint64_t) s > last || (uint64_t) s + c - 1 < first || found++ > 0)
        continue;
      *colon = '\0';
      if (owner)
        *owner = xstrdup (line);
      if (start)
        *start = s;
      if (count)
        *count = c;
    }
  return found;
}

static FILE *
open_id_file (const char *path)
{
  return path ? fopen (path, "re") : NULL;
}

unsigned long
ucb_uid_min (const struct ucb_id_files *files, const char **key, bool *set)
{
  unsigned long uid_min = UCB_UID_MIN_DEFAULT, gid_min = UCB_UID_MIN_DEFAULT;
  cleanup_file FILE *f = open_id_file ((files ? files : &ucb_id_files_host)->login_defs);
  bool uid_set = false, gid_set = false;

  if (f)
    {
      uid_set = ucb_login_defs_value (f, "UID_MIN", &uid_min);
      rewind (f);
      gid_set = ucb_login_defs_value (f, "GID_MIN", &gid_min);
    }
  if (key)
    *key = gid_min > uid_min ? "GID_MIN" : "UID_MIN";
  if (set)
    *set = gid_min > uid_min ? gid_set : uid_set;
  return gid_min > uid_min ? gid_min : uid_min;
}

/* Where the login range's start comes from, for messages: "UID_MIN of /etc/login.defs", or
 * "UID_MIN, 1000 where /etc/login.defs sets none". */
static char *
uid_min_source (const struct ucb_id_files *f, unsigned long *min)
{
  const char *key;
  bool set;

  *min = ucb_uid_min (f, &key, &set);
  return set ? xasprintf ("%s of %s", key, f->login_defs)
             : xasprintf ("%s, %u where %s sets none", key, UCB_UID_MIN_DEFAULT, f->login_defs);
}

/* Accounts (passwd) or groups (group) with an id in [first, last]: the first described. */
static bool
account_conflict (const char *path, const char *kind, uint64_t first, uint64_t last, char **why,
                  uint64_t *past)
{
  cleanup_file FILE *f = open_id_file (path);
  cleanup_free char *name = NULL;
  unsigned long id = 0;

  if (f == NULL || ucb_idfile_find (f, first, last, &name, &id) == 0)
    return false;
  *why = xasprintf ("%s %lu belongs to %s `%s` (%s)", kind[0] == 'u' ? "uid" : "gid", id, kind,
                    name, path);
  *past = (uint64_t) id + 1;
  return true;
}

/* Subordinate ranges (subuid, subgid) that overlap [first, last]: the first described. */
static bool
subid_conflict (const char *path, const char *ids, uint64_t first, uint64_t last, char **why,
                uint64_t *past)
{
  cleanup_file FILE *f = open_id_file (path);
  cleanup_free char *owner = NULL;
  unsigned long start = 0, count = 0;

  if (f == NULL || ucb_subid_find (f, first, last, &owner, &start, &count) == 0)
    return false;
  *why = xasprintf ("%ss %lu-%llu are subordinate %ss of `%s` (%s)", ids, start,
                    (unsigned long long) start + count - 1, ids, owner, path);
  *past = (uint64_t) start + count;
  return true;
}

bool
ucb_uid_range_conflict (const struct ucb_id_files *files, uint64_t first, uint64_t last, char **why,
                        uint64_t *past)
{
  const struct ucb_id_files *f = files ? files : &ucb_id_files_host;
  unsigned long min;
  cleanup_free char *source = uid_min_source (f, &min);

  *why = NULL;
  if (first < min)
    {
      *why = xasprintf ("uid %llu is below the login range, which starts at %lu (%s): the ids "
                        "of system accounts",
                        (unsigned long long) first, min, source);
      *past = min;
      return true;
    }
  return account_conflict (f->passwd, "user", first, last, why, past)
         || account_conflict (f->group, "group", first, last, why, past)
         || subid_conflict (f->subuid, "uid", first, last, why, past)
         || subid_conflict (f->subgid, "gid", first, last, why, past);
}

char *
ucb_uid_valid_text (const struct ucb_id_files *files, uint64_t highest)
{
  const struct ucb_id_files *f = files ? files : &ucb_id_files_host;
  unsigned long min;
  cleanup_free char *source = uid_min_source (f, &min);

  return xasprintf ("from %lu (%s) to %llu, clear of the ids of %s, %s, %s and %s", min, source,
                    (unsigned long long) highest, f->passwd, f->group, f->subuid, f->subgid);
}

/* ---- running processes ------------------------------------------------------------------ */

struct proc_row
{
  pid_t pid, ppid;
};

static int
cmp_row (const void *a, const void *b)
{
  pid_t x = ((const struct proc_row *) a)->pid, y = ((const struct proc_row *) b)->pid;
  return (x > y) - (x < y);
}

/* /proc/PID/status: the parent and the four uids; false for a zombie (it runs nothing, waiting
 * for its reaper) or a process gone meanwhile. */
static bool
read_status (const char *pid, pid_t *ppid, unsigned long ids[4])
{
  char path[300], line[256];
  cleanup_file FILE *f = NULL;
  long pp = -1;

  snprintf (path, sizeof path, "/proc/%s/status", pid);
  f = fopen (path, "re");
  if (f == NULL)
    return false;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "State:\tZ", 8) == 0)
      return false;
    else if (sscanf (line, "PPid: %ld", &pp) == 1)
      continue;
    else if (sscanf (line, "Uid: %lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) == 4)
      {
        *ppid = (pid_t) pp;
        return true;
      }
  return false;
}

static pid_t
parent_of (const struct proc_row *rows, size_t n, pid_t pid)
{
  struct proc_row key = { .pid = pid },
                  *r = n ? bsearch (&key, rows, n, sizeof key, cmp_row) : NULL;
  unsigned long ids[4];
  char name[24];
  pid_t pp;

  if (r)
    return r->ppid;
  /* Started after the scan read it, or its parent: ask again. */
  snprintf (name, sizeof name, "%d", (int) pid);
  return read_status (name, &pp, ids) ? pp : -1;
}

/* Whether `pid` is `self` or below it; a chain that breaks (a process gone meanwhile) counts as
 * ours: only a process known to be elsewhere is foreign. */
static bool
descends (const struct proc_row *rows, size_t n, pid_t pid, pid_t self)
{
  for (int step = 0; step < 4096; step++)
    {
      if (pid == self)
        return true;
      if (pid <= 1)
        return false;
      pid = parent_of (rows, n, pid);
      if (pid < 0)
        return true;
    }
  return true;
}

size_t
ucb_uid_range_procs (uid_t first, uid_t last, bool foreign_only, char **who)
{
  cleanup_free struct proc_row *rows = NULL;
  cleanup_free struct hit
  {
    pid_t pid;
    unsigned long uid;
  } *hits = NULL;
  size_t nrows = 0, cap = 0, nhits = 0, found = 0;
  pid_t self = getpid ();
  DIR *d = opendir ("/proc");
  struct dirent *de;

  if (who)
    *who = NULL;
  while (d && (de = readdir (d)) != NULL)
    {
      unsigned long ids[4];
      pid_t pid, ppid;

      if (!isdigit ((unsigned char) de->d_name[0]) || (pid = atoi (de->d_name)) == self
          || !read_status (de->d_name, &ppid, ids))
        continue;
      if (nrows == cap)
        rows = xrealloc (rows, (cap = cap ? 2 * cap : 256) * sizeof *rows);
      rows[nrows++] = (struct proc_row){ pid, ppid };
      for (size_t k = 0; k < 4; k++)
        if (ids[k] >= first && ids[k] <= last)
          {
            hits = xrealloc (hits, (nhits + 1) * sizeof *hits);
            hits[nhits++] = (struct hit){ pid, ids[k] };
            break;
          }
    }
  if (d)
    closedir (d);
  if (nrows)
    qsort (rows, nrows, sizeof *rows, cmp_row);
  for (size_t i = 0; i < nhits; i++)
    {
      if (foreign_only && descends (rows, nrows, hits[i].pid, self))
        continue;
      if (found++ == 0 && who)
        *who = xasprintf ("uid %lu is used by running process %d", hits[i].uid, (int) hits[i].pid);
    }
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
                               "becoming owner uid %u needs CAP_SETUID and CAP_SETGID "
                               "(ucbench setresuid()s to each owner uid; it uses no subuid "
                               "range and no newuidmap): run ucbench as root, or use --owner "
                               "self (your own uid %u then owns every container: one owner, no "
                               "shared/distinct contrast)",
                               (unsigned) uids[i], (unsigned) me);
      }
  return 0;
}
