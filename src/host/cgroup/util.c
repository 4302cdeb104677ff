/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - `run --cgroup` helpers that call nothing of the module: paths, clocks, controller
 * lists, and killing and removing what is left in a tree. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "host/cgroup/internal.h"

/* ---- paths, clocks, controller lists ---- */

/* "/a/b" from "a//b/", "/./a/"; NULL for "..".  The root is "/". */
char *
ucb_cg_norm_rel (const char *p)
{
  char *out = xcalloc (1, strlen (p) + 2), *o = out;

  while (*p)
    {
      size_t n;
      p += strspn (p, "/");
      n = strcspn (p, "/");
      if (n == 0 || (n == 1 && p[0] == '.'))
        {
          p += n;
          continue;
        }
      if (n == 2 && p[0] == '.' && p[1] == '.')
        {
          free (out);
          return NULL;
        }
      *o++ = '/';
      memcpy (o, p, n);
      o += n;
      p += n;
    }
  if (o == out)
    *o++ = '/';
  *o = '\0';
  return out;
}

/* `path` of /proc/self/cgroup relative to a mount of the hierarchy whose root is `root`. */
char *
ucb_cg_rel_to_mount (const char *path, const char *root)
{
  size_t n = strlen (root);

  if (strcmp (root, "/") == 0)
    return ucb_cg_norm_rel (path);
  if (strncmp (path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'))
    return ucb_cg_norm_rel (path + n);
  return NULL;
}

char *
ucb_cg_join_rel (const char *rel, const char *name)
{
  return xasprintf ("%s/%s", strcmp (rel, "/") == 0 ? "" : rel, name);
}

char *
ucb_cg_dir_of (const char *mount, const char *rel)
{
  return xasprintf ("%s%s", mount, strcmp (rel, "/") == 0 ? "" : rel);
}

uint64_t
ucb_cg_ms_since (uint64_t t0)
{
  return (ucb_now_ns () - t0) / 1000000u;
}

void
ucb_cg_sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep (&ts, NULL);
}

int
ucb_cg_access_error (ucb_error_t *err, const char *dir)
{
  return ucb_make_error (err, 0,
                         "--cgroup needs write access to %s: run as root or inside a delegated "
                         "subtree (systemd-run --scope -p Delegate=yes)",
                         dir);
}

bool
ucb_cg_ctrl_listed (char **list, size_t n, const char *ctrl)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (list[i], ctrl) == 0)
      return true;
  return false;
}

void
ucb_cg_ctrl_add (char ***list, size_t *n, const char *ctrl)
{
  if (ucb_cg_ctrl_listed (*list, *n, ctrl))
    return;
  *list = xrealloc (*list, (*n + 1) * sizeof **list);
  (*list)[(*n)++] = xstrdup (ctrl);
}

/* ---- killing and removing what is left (the backstop, and the janitor) ---- */

static size_t
kill_tree_at (const char *dir, bool use_kill, int depth)
{
  cleanup_free char *procs_path = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *procs = NULL;
  size_t n = 0;
  DIR *d;

  /* cgroup.kill (Linux 5.14) kills the whole subtree at once, forks in flight included. */
  if (use_kill)
    {
      cleanup_free char *kill_path = xasprintf ("%s/cgroup.kill", dir);
      cleanup_close int fd = open (kill_path, O_WRONLY | O_CLOEXEC);
      if (fd >= 0 && write (fd, "1", 1) < 0)
        {
          /* fall back to the pids below */
        }
    }
  procs = ucb_read_file_or_null (procs_path);
  if (procs != NULL)
    for (char *save = NULL, *t = strtok_r (procs, "\n", &save); t; t = strtok_r (NULL, "\n", &save))
      {
        uint64_t pid;
        if (ucb_parse_u64 (t, 1, INT32_MAX, &pid) == 0)
          {
            kill ((pid_t) pid, SIGKILL);
            n++;
          }
      }
  if (depth >= 16 || (d = opendir (dir)) == NULL)
    return n;
  for (struct dirent *de; (de = readdir (d)) != NULL;)
    if (de->d_type == DT_DIR && strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
      {
        cleanup_free char *sub = xasprintf ("%s/%s", dir, de->d_name);
        n += kill_tree_at (sub, false, depth + 1);
      }
  closedir (d);
  return n;
}

size_t
ucb_cg_kill_tree (const char *dir, bool use_kill)
{
  return kill_tree_at (dir, use_kill, 0);
}

static int
remove_tree_at (const char *dir, int depth)
{
  int rc = 0, e = 0;
  DIR *d = opendir (dir);

  if (d == NULL)
    return errno == ENOENT ? 0 : -1;
  for (struct dirent *de; depth < 16 && (de = readdir (d)) != NULL;)
    if (de->d_type == DT_DIR && strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
      {
        cleanup_free char *sub = xasprintf ("%s/%s", dir, de->d_name);
        if (remove_tree_at (sub, depth + 1) < 0 && rc == 0)
          {
            rc = -1;
            e = errno;
          }
      }
  closedir (d);
  if (rmdir (dir) < 0 && errno != ENOENT && rc == 0)
    {
      rc = -1;
      e = errno;
    }
  errno = e;
  return rc;
}

int
ucb_cg_remove_tree (const char *dir)
{
  return remove_tree_at (dir, 0);
}
