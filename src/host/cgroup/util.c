/* cgroup-util.c - `run --cgroup` plumbing: the layout, /proc parsing, paths, hierarchies, removal.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define UCB_CGROUP_INTERNAL
#include "core/util.h"
#include "host/cgroup/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* ---- layout and /proc parsing ---- */

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

/* Is `w` one of the `sep`-separated words of list[0..len)? */
static bool
list_has (const char *list, size_t len, const char *w, char sep)
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
static bool
find_cgroup_line (const char *text, const char *ctrl, char **ctrls, char **path)
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
          if ((ctrl == NULL || *ctrl == '\0') ? v2
                                              : (clen > 0 && list_has (c1 + 1, clen, ctrl, ',')))
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
  cleanup_free char *text = NULL;
  ucb_error_t e = NULL;
  char *path = NULL;

  if (ucb_read_file (file, &text, &e) < 0)
    {
      ucb_error_free (&e);
      return NULL;
    }
  return find_cgroup_line (text, controller, NULL, &path) ? path : NULL;
}

/* The mount of a hierarchy in /proc/self/mountinfo: the cgroup2 mount at `want_mp`, or the v1
 * mount whose super options name `ctrl`, preferring /sys/fs/cgroup/.  The last one wins: a
 * later mount on the same point hides the earlier. */
static bool
find_mount (const char *want_mp, const char *ctrl, char **mp, char **root)
{
  cleanup_free char *text = NULL;
  ucb_error_t e = NULL;
  bool found = false, found_std = false;

  if (ucb_read_file ("/proc/self/mountinfo", &text, &e) < 0)
    {
      ucb_error_free (&e);
      return false;
    }
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
                && list_has (opts, strlen (opts), ctrl, ',');
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

/* "/a/b" from "a//b/", "/./a/"; NULL for "..".  The root is "/". */
static char *
norm_rel (const char *p)
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
static char *
rel_to_mount (const char *path, const char *root)
{
  size_t n = strlen (root);

  if (strcmp (root, "/") == 0)
    return norm_rel (path);
  if (strncmp (path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'))
    return norm_rel (path + n);
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

/* ---- killing and removing what is left (the backstop, and the janitor) ---- */

static size_t
kill_tree_at (const char *dir, bool use_kill, int depth)
{
  cleanup_free char *procs_path = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *procs = NULL;
  ucb_error_t e = NULL;
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
  if (ucb_read_file (procs_path, &procs, &e) == 0)
    for (char *save = NULL, *t = strtok_r (procs, "\n", &save); t; t = strtok_r (NULL, "\n", &save))
      {
        uint64_t pid;
        if (ucb_parse_u64 (t, 1, INT32_MAX, &pid) == 0)
          {
            kill ((pid_t) pid, SIGKILL);
            n++;
          }
      }
  ucb_error_free (&e);
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

/* ---- hierarchies ---- */

static struct ucb_cg_hier *
new_hier (struct ucb_cgroup *cg)
{
  cg->h = xrealloc (cg->h, (cg->nh + 1) * sizeof *cg->h);
  memset (&cg->h[cg->nh], 0, sizeof *cg->h);
  return &cg->h[cg->nh++];
}

/* The v1 hierarchy holding `ctrl`, added on first use; 1 when no v1 hierarchy has it. */
static int
use_v1 (struct ucb_cgroup *cg, const char *self, const char *ctrl, ucb_error_t *err)
{
  cleanup_free char *ctrls = NULL, *path = NULL, *mp = NULL, *root = NULL;
  struct ucb_cg_hier *h;

  if (!find_cgroup_line (self, ctrl, &ctrls, &path))
    return 1;
  for (size_t i = 0; i < cg->nh; i++)
    if (cg->h[i].version == 1 && strcmp (cg->h[i].name, ctrls) == 0)
      {
        ucb_cg_ctrl_add (&cg->h[i].ctrls, &cg->h[i].nctrls, ctrl);
        return 0;
      }
  if (!find_mount (NULL, ctrl, &mp, &root))
    return ucb_make_error (err, 0, "--cgroup: the cgroup v1 hierarchy of %s is not mounted", ctrl);
  h = new_hier (cg);
  h->version = 1;
  h->name = steal_pointer (&ctrls);
  h->mount = steal_pointer (&mp);
  ucb_cg_ctrl_add (&h->ctrls, &h->nctrls, ctrl);
  h->parent_rel = rel_to_mount (path, root);
  if (h->parent_rel == NULL)
    return ucb_make_error (err, 0, "--cgroup: ucbench's cgroup %s is not under the mount %s", path,
                           h->mount);
  return 0;
}

/* The unified hierarchy, added on first use; `ctrl` (if any) must be in its root's
 * cgroup.controllers. */
static int
use_v2 (struct ucb_cgroup *cg, const char *self, const char *ctrl, ucb_error_t *err)
{
  const char *mount = cg->layout == UCB_CG_UNIFIED ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
  cleanup_free char *avail_path = xasprintf ("%s/cgroup.controllers", mount);
  cleanup_free char *avail = NULL, *path = NULL, *mp = NULL, *root = NULL;
  struct ucb_cg_hier *h = NULL;

  for (size_t i = 0; i < cg->nh; i++)
    if (cg->h[i].version == 2)
      h = &cg->h[i];
  if (ctrl)
    {
      if (ucb_read_file (avail_path, &avail, err) < 0)
        return -1;
      if (!list_has (avail, strlen (avail), ctrl, ' ') && cg->layout == UCB_CG_UNIFIED)
        return ucb_make_error (err, 0,
                               "controller %s is not available in the unified hierarchy "
                               "(cgroup.controllers: %s); it may be bound to a v1 hierarchy",
                               ctrl, *avail ? avail : "none");
      if (!list_has (avail, strlen (avail), ctrl, ' '))
        return ucb_make_error (err, 0,
                               "controller %s is not available: no cgroup v1 hierarchy has it and "
                               "the unified hierarchy has only `%s` (hybrid layout)",
                               ctrl, *avail ? avail : "none");
    }
  if (h == NULL)
    {
      if (!find_cgroup_line (self, NULL, NULL, &path))
        return ucb_make_error (err, 0, "--cgroup: /proc/self/cgroup has no cgroup v2 (0::) line");
      if (!find_mount (mount, NULL, &mp, &root))
        root = xstrdup ("/");
      h = new_hier (cg);
      h->version = 2;
      h->name = xstrdup ("unified");
      h->mount = xstrdup (mount);
      h->parent_rel = rel_to_mount (path, root);
      if (h->parent_rel == NULL)
        return ucb_make_error (err, 0, "--cgroup: ucbench's cgroup %s is not under the mount %s",
                               path, mount);
    }
  if (ctrl)
    ucb_cg_ctrl_add (&h->ctrls, &h->nctrls, ctrl);
  return 0;
}

/* Each controller to the hierarchy that has it: v1 first on legacy/hybrid (libcgroup), the
 * unified hierarchy for what only it has; everything in the unified one on a pure v2 host. */
int
ucb_cg_resolve_hierarchies (struct ucb_cgroup *cg, char **need, size_t nneed, ucb_error_t *err)
{
  cleanup_free char *self = NULL;

  if (ucb_read_file ("/proc/self/cgroup", &self, err) < 0)
    return -1;
  if (cg->layout == UCB_CG_UNIFIED)
    {
      if (use_v2 (cg, self, NULL, err) < 0)
        return -1;
      for (size_t i = 0; i < nneed; i++)
        if (use_v2 (cg, self, need[i], err) < 0)
          return -1;
      return 0;
    }
  for (size_t i = 0; i < nneed; i++)
    {
      int r = use_v1 (cg, self, need[i], err);
      if (r < 0)
        return -1;
      if (r == 0)
        continue;
      if (cg->layout == UCB_CG_LEGACY)
        return ucb_make_error (err, 0,
                               "controller %s is not available: no cgroup v1 hierarchy has it "
                               "(legacy layout)",
                               need[i]);
      if (use_v2 (cg, self, need[i], err) < 0)
        return -1;
    }
#ifndef HAVE_CGROUP
  for (size_t i = 0; i < cg->nh; i++)
    if (cg->h[i].version == 1)
      return ucb_make_error (err, 0,
                             "--cgroup on this %s cgroup layout needs libcgroup for the v1 "
                             "hierarchy of %s, and this ucbench was built without it: install "
                             "libcgroup-dev and rebuild",
                             ucb_cg_layout_name (cg->layout), cg->h[i].ctrls[0]);
#endif
  return 0;
}

static bool
delegated (const char *dir)
{
  static const char *const names[] = { "trusted.delegate", "user.delegate" };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (names); i++)
    {
      char v[8];
      ssize_t n = getxattr (dir, names[i], v, sizeof v);
      if (n == 1 && v[0] == '1')
        return true;
    }
  return false;
}

/* --cgroup=PARENT: relative to the hierarchy root, or absolute under a mount point in use. */
int
ucb_cg_resolve_parent (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
{
  cleanup_free char *rel = NULL;
  size_t best = 0;

  if (parent[0] == '/')
    for (size_t i = 0; i < cg->nh; i++)
      {
        size_t n = strlen (cg->h[i].mount);
        if (n > best && strncmp (parent, cg->h[i].mount, n) == 0
            && (parent[n] == '/' || parent[n] == '\0'))
          best = n;
      }
  rel = norm_rel (parent + best);
  if (rel == NULL)
    return ucb_usage_error (err, "--cgroup=%s: PARENT must not contain `..`", parent);
  for (size_t i = 0; i < cg->nh; i++)
    {
      free (cg->h[i].parent_rel);
      cg->h[i].parent_rel = xstrdup (rel);
    }
  return 0;
}

int
ucb_cg_check_parents (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
{
  bool systemd = access ("/run/systemd/system", F_OK) == 0;

  for (size_t i = 0; i < cg->nh; i++)
    {
      struct ucb_cg_hier *h = &cg->h[i];
      cleanup_free char *dir = ucb_cg_dir_of (h->mount, h->parent_rel);
      struct stat st;

      if (stat (dir, &st) < 0 || !S_ISDIR (st.st_mode))
        {
          if (parent)
            return ucb_usage_error (err,
                                    "--cgroup=%s: no such cgroup %s in the %s hierarchy; PARENT "
                                    "must exist",
                                    parent, dir, h->name);
          return ucb_make_error (err, ENOTDIR, "ucbench's own cgroup %s", dir);
        }
      if (faccessat (AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
        return ucb_cg_access_error (err, dir);
      /* Do not write into systemd's tree outside a delegated subtree. */
      if (h->version == 2 && systemd && parent == NULL && !delegated (dir))
        return ucb_make_error (err, 0,
                               "--cgroup: ucbench's cgroup %s belongs to systemd and is not "
                               "delegated; run under `systemd-run --scope -p Delegate=yes "
                               "ucbench ...` or pass --cgroup=PARENT naming an empty delegated "
                               "group",
                               dir);
    }
  return 0;
}

int
ucb_cg_hier_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv,
                    size_t nkv, ucb_error_t *err)
{
  return h->version == 1 ? ucb_cg1_create (h, rel, kv, nkv, err)
                         : ucb_cg2_create (h, rel, kv, nkv, err);
}

/* Remove one empty group; processes still inside after a point are killed (the backstop) and
 * EBUSY retried for UCB_CG_REMOVE_RETRY_MS. */
int
ucb_cg_hier_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
{
  cleanup_free char *dir = ucb_cg_dir_of (h->mount, rel);
  uint64_t t0 = ucb_now_ns ();

  for (;;)
    {
      int r;
      if (h->version == 1)
        r = ucb_cg1_remove (h, rel, err);
      else if (rmdir (dir) == 0 || errno == ENOENT)
        r = 0;
      else
        r = ucb_make_error (err, errno, "remove cgroup %s", dir);
      if (r == 0)
        return 0;
      if ((*err)->code != EBUSY || ucb_cg_ms_since (t0) > UCB_CG_REMOVE_RETRY_MS)
        return -1;
      ucb_error_free (err);
      ucb_cg_kill_tree (dir, h->version == 2);
      ucb_cg_sleep_ms (10);
    }
}
