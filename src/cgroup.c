/* cgroup.c - `run --cgroup`: the layout, the hierarchies used, ucbench-<pid>, c<i>, the janitor. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define UCB_CGROUP_INTERNAL
#include "cgroup.h"
#include "json-util.h"
#include "util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define JANITOR_KILL_S 10    /* how long the janitor kills and waits for what is left */
#define REMOVE_RETRY_MS 2000 /* EBUSY after a point: processes still exiting */

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
        match = strcmp (type, "cgroup") == 0 && opts && list_has (opts, strlen (opts), ctrl, ',');
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

static char *
join_rel (const char *rel, const char *name)
{
  return xasprintf ("%s/%s", strcmp (rel, "/") == 0 ? "" : rel, name);
}

static char *
dir_of (const char *mount, const char *rel)
{
  return xasprintf ("%s%s", mount, strcmp (rel, "/") == 0 ? "" : rel);
}

static uint64_t
ms_since (uint64_t t0)
{
  return (ucb_now_ns () - t0) / 1000000u;
}

static void
sleep_ms (long ms)
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

/* ---- options ---- */

static bool
ctrl_listed (char **list, size_t n, const char *ctrl)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (list[i], ctrl) == 0)
      return true;
  return false;
}

static void
ctrl_add (char ***list, size_t *n, const char *ctrl)
{
  if (ctrl_listed (*list, *n, ctrl))
    return;
  *list = xrealloc (*list, (*n + 1) * sizeof **list);
  (*list)[(*n)++] = xstrdup (ctrl);
}

/* --cgroup-set FILE=VALUE: FILE is CONTROLLER.NAME, a plain file name of a controller. */
static int
parse_set (struct ucb_cgroup *cg, const struct ucb_cgroup_opts *o, ucb_error_t *err)
{
  cg->set_file = xcalloc (o->nset, sizeof (char *));
  cg->set_value = xcalloc (o->nset, sizeof (char *));
  for (size_t i = 0; i < o->nset; i++)
    {
      const char *s = o->set[i], *eq = strchr (s, '=');
      size_t flen = eq ? (size_t) (eq - s) : 0, clen = strcspn (s, ".=");

      if (eq == NULL || flen == 0 || eq[1] == '\0' || strchr (eq, '\n'))
        return ucb_usage_error (err, "--cgroup-set `%s`: expected FILE=VALUE, e.g. pids.max=64", s);
      if (strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != flen
          || clen == 0 || clen + 1 >= flen || s[clen] != '.')
        return ucb_usage_error (err,
                                "--cgroup-set `%s`: FILE must be a controller file name "
                                "CONTROLLER.NAME (no `/`), e.g. memory.max",
                                s);
      if (clen == 6 && strncmp (s, "cgroup", 6) == 0)
        return ucb_usage_error (err,
                                "--cgroup-set `%s`: cgroup.* files are ucbench's own; set "
                                "controller files only",
                                s);
      cg->set_file[i] = xasprintf ("%.*s", (int) flen, s);
      cg->set_value[i] = xstrdup (eq + 1);
      cg->nset = i + 1;
      for (size_t j = 0; j < i; j++)
        if (strcmp (cg->set_file[j], cg->set_file[i]) == 0)
          return ucb_usage_error (err, "--cgroup-set %s is given twice", cg->set_file[i]);
      if (o->pids_max && strcmp (cg->set_file[i], "pids.max") == 0)
        return ucb_usage_error (err, "--pids-max and --cgroup-set pids.max: give only one");
      if (o->cpuset
          && (strcmp (cg->set_file[i], "cpuset.cpus") == 0
              || strcmp (cg->set_file[i], "cpuset.mems") == 0))
        return ucb_usage_error (err, "--cpuset sets %s itself: drop --cgroup-set %s",
                                cg->set_file[i], cg->set_file[i]);
    }
  return 0;
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
        ctrl_add (&cg->h[i].ctrls, &cg->h[i].nctrls, ctrl);
        return 0;
      }
  if (!find_mount (NULL, ctrl, &mp, &root))
    return ucb_make_error (err, 0, "--cgroup: the cgroup v1 hierarchy of %s is not mounted", ctrl);
  h = new_hier (cg);
  h->version = 1;
  h->name = steal_pointer (&ctrls);
  h->mount = steal_pointer (&mp);
  ctrl_add (&h->ctrls, &h->nctrls, ctrl);
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
    ctrl_add (&h->ctrls, &h->nctrls, ctrl);
  return 0;
}

/* Each controller to the hierarchy that has it: v1 first on legacy/hybrid (libcgroup), the
 * unified hierarchy for what only it has; everything in the unified one on a pure v2 host. */
static int
resolve_hierarchies (struct ucb_cgroup *cg, char **need, size_t nneed, ucb_error_t *err)
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
static int
resolve_parent (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
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

static int
check_parents (struct ucb_cgroup *cg, const char *parent, ucb_error_t *err)
{
  bool systemd = access ("/run/systemd/system", F_OK) == 0;

  for (size_t i = 0; i < cg->nh; i++)
    {
      struct ucb_cg_hier *h = &cg->h[i];
      cleanup_free char *dir = dir_of (h->mount, h->parent_rel);
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

static int
hier_create (const struct ucb_cg_hier *h, const char *rel, const struct ucb_cg_kv *kv, size_t nkv,
             ucb_error_t *err)
{
  return h->version == 1 ? ucb_cg1_create (h, rel, kv, nkv, err)
                         : ucb_cg2_create (h, rel, kv, nkv, err);
}

/* Remove one empty group; processes still inside after a point are killed (the backstop) and
 * EBUSY retried for REMOVE_RETRY_MS. */
static int
hier_remove (const struct ucb_cg_hier *h, const char *rel, ucb_error_t *err)
{
  cleanup_free char *dir = dir_of (h->mount, rel);
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
      if ((*err)->code != EBUSY || ms_since (t0) > REMOVE_RETRY_MS)
        return -1;
      ucb_error_free (err);
      ucb_cg_kill_tree (dir, h->version == 2);
      sleep_ms (10);
    }
}

static bool
hier_has (const struct ucb_cg_hier *h, const char *ctrl)
{
  return ctrl_listed (h->ctrls, h->nctrls, ctrl);
}

/* Create ucbench-<pid> in one hierarchy; v1 cpuset needs cpus and mems before any task joins
 * (pitfall 6): copy the parent's. */
static int
create_parent_group (struct ucb_cgroup *cg, struct ucb_cg_hier *h, ucb_error_t *err)
{
  cleanup_free char *name = xasprintf ("ucbench-%d", (int) cg->pid);
  cleanup_free char *pdir = dir_of (h->mount, h->parent_rel);
  cleanup_free char *subtree = NULL;
  struct ucb_cg_kv kv[2];
  size_t nkv = 0;

  h->group_rel = join_rel (h->parent_rel, name);
  h->group_dir = dir_of (h->mount, h->group_rel);
  if (h->version == 2)
    {
      if (ucb_cg2_enable (cg, h, err) < 0)
        return -1;
      if (h->nctrls)
        {
          subtree = xstrdup ("");
          for (size_t i = 0; i < h->nctrls; i++)
            {
              char *s = xasprintf ("%s%s+%s", subtree, i ? " " : "", h->ctrls[i]);
              free (subtree);
              subtree = s;
            }
          kv[nkv++] = (struct ucb_cg_kv){ "cgroup.subtree_control", subtree };
        }
    }
  else
    {
      if (ucb_cg1_init (err) < 0)
        return -1;
      if (hier_has (h, "cpuset"))
        {
          cleanup_free char *cpus_path = xasprintf ("%s/cpuset.cpus", pdir);
          cleanup_free char *mems_path = xasprintf ("%s/cpuset.mems", pdir);
          if (ucb_read_file (cpus_path, &h->cpuset_cpus, err) < 0
              || ucb_read_file (mems_path, &h->cpuset_mems, err) < 0)
            return -1;
          if (*h->cpuset_cpus == '\0' || *h->cpuset_mems == '\0')
            return ucb_make_error (
                err, 0, "--cpuset: the parent cpuset %s has no CPUs or memory nodes", pdir);
          kv[nkv++] = (struct ucb_cg_kv){ "cpuset.cpus", h->cpuset_cpus };
          kv[nkv++] = (struct ucb_cg_kv){ "cpuset.mems", h->cpuset_mems };
        }
    }
  if (hier_create (h, h->group_rel, kv, nkv, err) < 0)
    return -1;
  h->created = true;
  for (size_t i = 0; i < cg->nset; i++)
    {
      size_t clen = strcspn (cg->set_file[i], ".");
      cleanup_free char *ctrl = xasprintf ("%.*s", (int) clen, cg->set_file[i]);
      cleanup_free char *file = NULL;
      if (!hier_has (h, ctrl))
        continue;
      file = xasprintf ("%s/%s", h->group_dir, cg->set_file[i]);
      if (access (file, F_OK) < 0)
        return ucb_usage_error (err,
                                "--cgroup-set %s=%s: no file %s in the %s hierarchy (cgroup v%d; "
                                "v1 and v2 names differ, e.g. memory.limit_in_bytes / memory.max)",
                                cg->set_file[i], cg->set_value[i], cg->set_file[i], h->name,
                                h->version);
    }
  return 0;
}

/* ---- the janitor ---- */

/* Everything in the groups killed, the groups removed bottom-up, subtree_control restored. */
static void
janitor_clean (struct ucb_cgroup *cg)
{
  uint64_t t0 = ucb_now_ns ();

  for (;;)
    {
      size_t left = 0;
      for (size_t i = 0; i < cg->nh; i++)
        if (cg->h[i].created)
          left += ucb_cg_kill_tree (cg->h[i].group_dir, cg->h[i].version == 2);
      if (left == 0 || ms_since (t0) > JANITOR_KILL_S * 1000)
        break;
      sleep_ms (20);
    }
  t0 = ucb_now_ns ();
  for (size_t i = cg->nh; i-- > 0;)
    while (cg->h[i].created && ucb_cg_remove_tree (cg->h[i].group_dir) < 0 && errno == EBUSY
           && ms_since (t0) < REMOVE_RETRY_MS)
      sleep_ms (20);
  ucb_cg2_revert (cg);
}

/* 1: ucbench said it is done; 0: EOF without it; -1: nothing to read yet. */
static int
janitor_drain (int fd, bool *done)
{
  for (;;)
    {
      char buf[16];
      ssize_t n = read (fd, buf, sizeof buf);
      if (n > 0)
        {
          if (memchr (buf, 'D', (size_t) n))
            *done = true;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;
      if (*done)
        return 1;
      return n == 0 ? 0 : n < 0 && errno == EAGAIN ? -1 : 0;
    }
}

static void __attribute__ ((noreturn)) janitor_main (struct ucb_cgroup *cg, int rfd, pid_t parent)
{
  bool done = false;
  int pidfd;

  prctl (PR_SET_NAME, "ucb-cg-janitor", 0, 0, 0);
  setpgid (0, 0); /* the terminal's and the fleet's signals are not for us */
  signal (SIGINT, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
  if (rfd > 0)
    syscall (SYS_close_range, 0u, (unsigned) rfd - 1, 0);
  syscall (SYS_close_range, (unsigned) rfd + 1, ~0u, 0);
  fcntl (rfd, F_SETFL, O_NONBLOCK);
  /* A process ucbench forked may still hold the other end: ucbench's exit counts as well,
   * seen through a pidfd, or (without pidfd_open) as our reparenting. */
  pidfd = (int) syscall (SYS_pidfd_open, parent, 0);
  while (getppid () == parent)
    {
      struct pollfd p[2] = { { .fd = rfd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
      int r;
      if (poll (p, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 200) < 0 && errno != EINTR)
        break;
      r = janitor_drain (rfd, &done);
      if (r == 1)
        _exit (0);
      if (r == 0 || (pidfd >= 0 && p[1].revents))
        break;
    }
  janitor_clean (cg);
  _exit (0);
}

static int
start_janitor (struct ucb_cgroup *cg, ucb_error_t *err)
{
  int p[2];
  pid_t pid;

  /* A socket pair used as a pipe: "done" goes with MSG_NOSIGNAL, so a janitor that died cannot
   * SIGPIPE ucbench. */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
    return ucb_make_error (err, errno, "socketpair for the cgroup janitor");
  pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      close (p[0]);
      close (p[1]);
      return ucb_make_error (err, e, "fork the cgroup janitor");
    }
  if (pid == 0)
    janitor_main (cg, p[0], cg->pid);
  setpgid (pid, pid);
  close (p[0]);
  cg->janitor = pid;
  cg->janitor_fd = p[1];
  return 0;
}

/* ---- the API ---- */

int
ucb_cgroup_open (const struct ucb_cgroup_opts *o, struct ucb_cgroup **out, ucb_error_t *err)
{
  struct ucb_cgroup *cg = xcalloc (1, sizeof *cg);
  char **need = NULL;
  size_t nneed = 0;
  int rc = -1;

  cg->pid = getpid ();
  cg->janitor_fd = -1;
  cg->cpuset = o->cpuset;
  cg->pids_max = o->pids_max;
  if (parse_set (cg, o, err) < 0)
    goto out;
  cg->layout = ucb_cgroup_detect ();
  if (cg->layout == UCB_CG_NONE)
    {
      ucb_make_error (err, 0, "--cgroup: no cgroup filesystem at /sys/fs/cgroup");
      goto out;
    }
  /* pids is the membership and the backstop in v1; v2 groups are members without it. */
  if (cg->layout != UCB_CG_UNIFIED || o->pids_max)
    ctrl_add (&need, &nneed, "pids");
  if (o->cpuset)
    ctrl_add (&need, &nneed, "cpuset");
  for (size_t i = 0; i < cg->nset; i++)
    {
      cleanup_free char *ctrl
          = xasprintf ("%.*s", (int) strcspn (cg->set_file[i], "."), cg->set_file[i]);
      ctrl_add (&need, &nneed, ctrl);
    }
  if (resolve_hierarchies (cg, need, nneed, err) < 0
      || (o->parent && resolve_parent (cg, o->parent, err) < 0)
      || check_parents (cg, o->parent, err) < 0)
    goto out;
  for (size_t i = 0; i < cg->nh; i++)
    if (create_parent_group (cg, &cg->h[i], err) < 0)
      goto out;
  if (start_janitor (cg, err) < 0)
    goto out;
  *out = steal_pointer (&cg);
  rc = 0;
out:
  for (size_t i = 0; i < nneed; i++)
    free (need[i]);
  free (need);
  ucb_cgroup_close (&cg);
  return rc;
}

static char *
cpu_list (const int *cpus, size_t n)
{
  cleanup_free int *v = xcalloc (n, sizeof *v);
  char *s = xstrdup ("");
  size_t m = 0;

  for (size_t i = 0; i < n; i++)
    {
      size_t j = m;
      while (j > 0 && v[j - 1] > cpus[i]) /* insertion sort: a few CPUs */
        {
          v[j] = v[j - 1];
          j--;
        }
      if (j > 0 && v[j - 1] == cpus[i])
        {
          memmove (&v[j], &v[j + 1], (m - j) * sizeof *v);
          continue;
        }
      v[j] = cpus[i];
      m++;
    }
  for (size_t i = 0; i < m;)
    {
      size_t j = i;
      char *next;
      while (j + 1 < m && v[j + 1] == v[j] + 1)
        j++;
      next = j > i ? xasprintf ("%s%s%d-%d", s, *s ? "," : "", v[i], v[j])
                   : xasprintf ("%s%s%d", s, *s ? "," : "", v[i]);
      free (s);
      s = next;
      i = j + 1;
    }
  return s;
}

static void
container_free (struct ucb_cgroup *cg, struct ucb_cg_container *c)
{
  for (size_t i = 0; c->rel && i < cg->nh; i++)
    {
      free (c->rel[i]);
      free (c->procs[i]);
    }
  free (c->rel);
  free (c->procs);
  free (c->cpus);
  memset (c, 0, sizeof *c);
}

int
ucb_cgroup_create (struct ucb_cgroup *cg, unsigned index, const int *cpus, size_t ncpus,
                   ucb_error_t *err)
{
  cleanup_free char *name = xasprintf ("c%u", index);
  cleanup_free char *pids = xasprintf ("%" PRIu64, cg->pids_max);
  cleanup_free struct ucb_cg_kv *kv = xcalloc (cg->nset + 3, sizeof *kv);
  struct ucb_cg_container *c;

  if (index >= cg->nc)
    {
      cg->c = xrealloc (cg->c, (index + 1) * sizeof *cg->c);
      memset (&cg->c[cg->nc], 0, (index + 1 - cg->nc) * sizeof *cg->c);
      cg->nc = index + 1;
    }
  c = &cg->c[index];
  if (c->created)
    return ucb_make_error (err, EEXIST, "container cgroup %s", name);
  for (size_t i = 0; i < ncpus; i++)
    if (cpus[i] < 0)
      return ucb_make_error (err, 0, "container cgroup %s: CPU %d out of range", name, cpus[i]);
  c->cpus = cg->cpuset && ncpus ? cpu_list (cpus, ncpus) : NULL;
  c->rel = xcalloc (cg->nh, sizeof (char *));
  c->procs = xcalloc (cg->nh, sizeof (char *));
  for (size_t i = 0; i < cg->nh; i++)
    {
      const struct ucb_cg_hier *h = &cg->h[i];
      cleanup_free char *dir = NULL;
      size_t nkv = 0;

      if (cg->cpuset && hier_has (h, "cpuset") && (c->cpus || h->version == 1))
        kv[nkv++] = (struct ucb_cg_kv){ "cpuset.cpus", c->cpus ? c->cpus : h->cpuset_cpus };
      if (cg->cpuset && hier_has (h, "cpuset") && h->version == 1)
        kv[nkv++] = (struct ucb_cg_kv){ "cpuset.mems", h->cpuset_mems };
      if (cg->pids_max && hier_has (h, "pids"))
        kv[nkv++] = (struct ucb_cg_kv){ "pids.max", pids };
      for (size_t k = 0; k < cg->nset; k++)
        {
          cleanup_free char *ctrl
              = xasprintf ("%.*s", (int) strcspn (cg->set_file[k], "."), cg->set_file[k]);
          if (hier_has (h, ctrl))
            kv[nkv++] = (struct ucb_cg_kv){ cg->set_file[k], cg->set_value[k] };
        }
      c->rel[i] = join_rel (h->group_rel, name);
      if (hier_create (h, c->rel[i], kv, nkv, err) < 0)
        {
          ucb_error_t e2 = NULL;
          while (i-- > 0)
            if (hier_remove (&cg->h[i], c->rel[i], &e2) < 0)
              ucb_error_free (&e2);
          container_free (cg, c);
          return -1;
        }
      dir = dir_of (h->mount, c->rel[i]);
      c->procs[i] = xasprintf ("%s/cgroup.procs", dir);
    }
  c->created = true;
  return 0;
}

int
ucb_cgroup_attach_self (const struct ucb_cgroup *cg, unsigned index, ucb_error_t *err)
{
  const struct ucb_cg_container *c = index < cg->nc ? &cg->c[index] : NULL;
  char buf[24], *p = buf + sizeof buf;
  pid_t pid = getpid ();

  if (c == NULL || !c->created)
    return ucb_make_error (err, 0, "attach to container cgroup c%u: it was not created", index);
  /* No snprintf/malloc: this runs in a fork of ucbench. */
  for (unsigned long v = (unsigned long) pid; p == buf + sizeof buf || v; v /= 10)
    *--p = (char) ('0' + v % 10);
  for (size_t i = 0; i < cg->nh; i++)
    {
      int fd = open (c->procs[i], O_WRONLY | O_CLOEXEC);
      if (fd < 0 || ucb_write_all (fd, p, (size_t) (buf + sizeof buf - p)) < 0)
        {
          int e = errno;
          if (fd >= 0)
            close (fd);
          return ucb_make_error (err, e, "move pid %d into %s", (int) pid, c->procs[i]);
        }
      close (fd);
    }
  return 0;
}

int
ucb_cgroup_remove_containers (struct ucb_cgroup *cg, ucb_error_t *err)
{
  int rc = 0;

  for (size_t j = cg->nc; j-- > 0;)
    {
      struct ucb_cg_container *c = &cg->c[j];
      bool all = true;
      if (!c->created)
        continue;
      for (size_t i = cg->nh; i-- > 0;)
        {
          ucb_error_t e = NULL;
          if (c->rel[i] == NULL)
            continue;
          if (hier_remove (&cg->h[i], c->rel[i], &e) < 0)
            {
              all = false;
              if (rc == 0 && err)
                {
                  ucb_error_free (err);
                  *err = steal_pointer (&e);
                }
              rc = -1;
              ucb_error_free (&e);
              continue;
            }
          free (c->rel[i]);
          c->rel[i] = NULL;
        }
      if (all)
        container_free (cg, c);
    }
  return rc;
}

pid_t
ucb_cgroup_janitor_pid (const struct ucb_cgroup *cg)
{
  return cg ? cg->janitor : 0;
}

/* Our own cleanup: true when nothing is left for the janitor. */
static bool
teardown (struct ucb_cgroup *cg)
{
  ucb_error_t e = NULL;
  bool ok = true;

  if (ucb_cgroup_remove_containers (cg, &e) < 0)
    {
      ok = false;
      ucb_error_free (&e);
    }
  for (size_t i = cg->nh; i-- > 0;)
    if (cg->h[i].created)
      {
        if (hier_remove (&cg->h[i], cg->h[i].group_rel, &e) < 0)
          {
            ok = false;
            ucb_error_free (&e);
            continue;
          }
        cg->h[i].created = false;
      }
  if (ucb_cg2_revert (cg) > 0)
    ok = false;
  return ok;
}

void
ucb_cgroup_close (struct ucb_cgroup **pcg)
{
  struct ucb_cgroup *cg = pcg ? *pcg : NULL;

  if (cg == NULL)
    return;
  *pcg = NULL;
  if (getpid () == cg->pid)
    {
      /* "D": nothing is left for the janitor.  Without it, it does the job itself. */
      if (teardown (cg) && cg->janitor_fd >= 0 && send (cg->janitor_fd, "D", 1, MSG_NOSIGNAL) < 0)
        {
          /* it is gone already */
        }
      if (cg->janitor_fd >= 0)
        close (cg->janitor_fd);
      if (cg->janitor > 0)
        while (waitpid (cg->janitor, NULL, 0) < 0 && errno == EINTR)
          ;
    }
  else if (cg->janitor_fd >= 0)
    close (cg->janitor_fd); /* in a fork of ucbench (an owner that unwinds): the memory only */
  for (size_t j = 0; j < cg->nc; j++)
    container_free (cg, &cg->c[j]);
  free (cg->c);
  for (size_t i = 0; i < cg->nh; i++)
    {
      struct ucb_cg_hier *h = &cg->h[i];
      for (size_t k = 0; k < h->nctrls; k++)
        free (h->ctrls[k]);
      free (h->ctrls);
      free (h->name);
      free (h->mount);
      free (h->parent_rel);
      free (h->group_rel);
      free (h->group_dir);
      free (h->cpuset_cpus);
      free (h->cpuset_mems);
    }
  free (cg->h);
  for (size_t i = 0; i < cg->nchanges; i++)
    {
      free (cg->changes[i].dir);
      free (cg->changes[i].ctrl);
    }
  free (cg->changes);
  for (size_t i = 0; i < cg->nset; i++)
    {
      free (cg->set_file[i]);
      free (cg->set_value[i]);
    }
  free (cg->set_file);
  free (cg->set_value);
  free (cg);
}

/* ---- JSON ---- */

static json_t *
str_array (char **v, size_t n)
{
  json_t *a = ucb_json_arr ();
  for (size_t i = 0; i < n; i++)
    ucb_json_push (a, ucb_json_str (v[i]));
  return a;
}

json_t *
ucb_cgroup_json (const struct ucb_cgroup *cg)
{
  json_t *o = ucb_json_obj (), *hs = ucb_json_arr (), *ch = ucb_json_arr (), *set = ucb_json_obj ();

  for (size_t i = 0; i < cg->nh; i++)
    {
      const struct ucb_cg_hier *h = &cg->h[i];
      json_t *j = ucb_json_obj ();
      ucb_json_set (j, "name", ucb_json_str (h->name));
      ucb_json_set (j, "version", ucb_json_int (h->version));
      ucb_json_set (j, "backend", ucb_json_str (h->version == 1 ? "libcgroup" : "cgroupfs"));
      ucb_json_set (j, "mount", ucb_json_str (h->mount));
      ucb_json_set (j, "controllers", str_array (h->ctrls, h->nctrls));
      ucb_json_set (j, "parent", ucb_json_str (h->parent_rel));
      ucb_json_set (j, "group", ucb_json_str (h->group_rel));
      ucb_json_push (hs, j);
    }
  for (size_t i = 0; i < cg->nchanges; i++)
    ucb_json_push (ch, ucb_json_checked (json_pack ("{s:s, s:s}", "dir", cg->changes[i].dir,
                                                    "controller", cg->changes[i].ctrl)));
  for (size_t i = 0; i < cg->nset; i++)
    ucb_json_set (set, cg->set_file[i], ucb_json_str (cg->set_value[i]));
  ucb_json_set (o, "layout", ucb_json_str (ucb_cg_layout_name (cg->layout)));
  ucb_json_set (o, "pid", ucb_json_int (cg->pid));
  ucb_json_set (o, "cpuset", json_boolean (cg->cpuset));
  ucb_json_set (o, "pids_max", cg->pids_max ? ucb_json_int ((long long) cg->pids_max) : NULL);
  ucb_json_set (o, "set", set);
  ucb_json_set (o, "hierarchies", hs);
  ucb_json_set (o, "subtree_control_changes", ch);
  return o;
}

json_t *
ucb_cgroup_container_json (const struct ucb_cgroup *cg, unsigned index)
{
  const struct ucb_cg_container *c = index < cg->nc ? &cg->c[index] : NULL;
  json_t *o, *groups;

  if (c == NULL || !c->created)
    return NULL;
  o = ucb_json_obj ();
  groups = ucb_json_obj ();
  for (size_t i = 0; i < cg->nh; i++)
    ucb_json_set (groups, cg->h[i].name, ucb_json_str (c->rel[i]));
  ucb_json_set (o, "index", ucb_json_int (index));
  ucb_json_set (o, "groups", groups);
  ucb_json_set (o, "cpuset_cpus", ucb_json_str (c->cpus));
  return o;
}
