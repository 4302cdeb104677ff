/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout.c - the host's cgroup setup, read only: the layout at /sys/fs/cgroup (statfs), where a
 * process sits (/proc/PID/cgroup), where a hierarchy is mounted (mountinfo). */
#include "config.h"

#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

#include "core/util.h"
#include "host/cgroup/layout.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

const char *
ucb_cg_layout_name (enum ucb_cg_layout l)
{
  switch (l)
    {
    case UCB_CG_LEGACY:
      return "legacy";
    case UCB_CG_HYBRID:
      return "hybrid";
    case UCB_CG_UNIFIED:
      return "unified";
    case UCB_CG_NONE:
    default:
      return "none";
    }
}

static bool
fs_is (const char *path, long magic)
{
  struct statfs st;
  return statfs (path, &st) == 0 && (long) st.f_type == magic;
}

/* libcgroup 2.0.2 cannot say which layout, so ask statfs. */
enum ucb_cg_layout
ucb_cgroup_detect (void)
{
  if (fs_is ("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
    return UCB_CG_UNIFIED;
  if (!fs_is ("/sys/fs/cgroup", TMPFS_MAGIC))
    return UCB_CG_NONE;
  if (fs_is ("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
    return UCB_CG_HYBRID;
  return UCB_CG_LEGACY;
}

const char *
ucb_cg_v2_mount (enum ucb_cg_layout l)
{
  switch (l)
    {
    case UCB_CG_UNIFIED:
      return "/sys/fs/cgroup";
    case UCB_CG_HYBRID:
      return "/sys/fs/cgroup/unified";
    case UCB_CG_LEGACY:
    case UCB_CG_NONE:
    default:
      return NULL;
    }
}

/* Is `w` one of the `sep`-separated words of list[0..len)? */
bool
ucb_cg_list_has (const char *list, size_t len, const char *w, char sep)
{
  size_t wl = strlen (w);
  const char *end = list + len;

  for (const char *p = list; p < end;)
    {
      const char *q = memchr (p, sep, (size_t) (end - p));
      if (q == NULL)
        q = end;
      if ((size_t) (q - p) == wl && strncmp (p, w, wl) == 0)
        return true;
      p = q + 1;
    }
  return false;
}

/* The line of /proc/PID/cgroup text ("id:controllers:path") of the v2 hierarchy (ctrl NULL or
 * "") or of the v1 hierarchy holding ctrl: its controllers field and its path. */
bool
ucb_cg_find_line (const char *text, const char *ctrl, char **ctrls, char **path)
{
  for (const char *line = text; line && *line;)
    {
      const char *eol = strchrnul (line, '\n');
      const char *c1 = memchr (line, ':', (size_t) (eol - line));
      const char *c2 = c1 ? memchr (c1 + 1, ':', (size_t) (eol - c1 - 1)) : NULL;

      if (c2)
        {
          size_t clen = (size_t) (c2 - c1 - 1);
          bool v2 = clen == 0 && c1 - line == 1 && line[0] == '0';
          if ((ctrl == NULL || *ctrl == '\0')
                  ? v2
                  : (clen > 0 && ucb_cg_list_has (c1 + 1, clen, ctrl, ',')))
            {
              if (ctrls)
                *ctrls = xasprintf ("%.*s", (int) clen, c1 + 1);
              *path = xasprintf ("%.*s", (int) (eol - c2 - 1), c2 + 1);
              return true;
            }
        }
      line = *eol ? eol + 1 : NULL;
    }
  return false;
}

char *
ucb_cgroup_path_of (pid_t pid, const char *controller)
{
  cleanup_free char *file = xasprintf ("/proc/%d/cgroup", (int) pid);
  cleanup_free char *text = ucb_read_file_or_null (file);
  char *path = NULL;

  if (text == NULL)
    return NULL;
  return ucb_cg_find_line (text, controller, NULL, &path) ? path : NULL;
}

/* The mount of a hierarchy in /proc/self/mountinfo: the cgroup2 mount at `want_mp`, or the v1
 * mount whose super options name `ctrl`, preferring /sys/fs/cgroup/.  The last one wins: a
 * later mount on the same point hides the earlier. */
bool
ucb_cg_find_mount (const char *want_mp, const char *ctrl, char **mp, char **root)
{
  cleanup_free char *text = ucb_read_file_or_null ("/proc/self/mountinfo");
  bool found = false, found_std = false;

  if (text == NULL)
    return false;
  for (char *save = NULL, *line = strtok_r (text, "\n", &save); line;
       line = strtok_r (NULL, "\n", &save))
    {
      char *f[16], *s2 = NULL, *type = NULL, *opts = NULL;
      size_t n = 0;
      bool match;

      for (char *t = strtok_r (line, " ", &s2); t && n < UCB_ARRAY_SIZE (f);
           t = strtok_r (NULL, " ", &s2))
        f[n++] = t;
      for (size_t i = 6; i + 1 < n; i++)
        if (strcmp (f[i], "-") == 0)
          {
            type = f[i + 1];
            opts = i + 3 < n ? f[i + 3] : NULL;
            break;
          }
      if (n < 5 || type == NULL)
        continue;
      if (want_mp)
        match = strcmp (type, "cgroup2") == 0 && strcmp (f[4], want_mp) == 0;
      else
        match = strcmp (type, "cgroup") == 0 && opts && ctrl
                && ucb_cg_list_has (opts, strlen (opts), ctrl, ',');
      if (!match)
        continue;
      if (!want_mp && found_std && strncmp (f[4], "/sys/fs/cgroup/", 15) != 0)
        continue;
      free (*mp);
      free (*root);
      *mp = xstrdup (f[4]);
      *root = xstrdup (f[3]);
      found = true;
      found_std = strncmp (f[4], "/sys/fs/cgroup/", 15) == 0;
    }
  return found;
}
