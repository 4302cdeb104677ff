/* test-cgroup.c - run --cgroup: one group per container, its limits, nothing left behind (root). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../tap.h"
#define UCB_CGROUP_INTERNAL
#include "core/util.h"
#include "host/cgroup/cgroup.h"

/* The host's unified hierarchy and its cgroup.subtree_control when the test started. */
static const char *v2_root;
static char *v2_sc_before;
/* Every process that opened a session: its ucbench-<pid> groups are ours to clean up. */
static pid_t owners[64];
static size_t nowners;

/* ---- helpers ---- */

static char *
read_str (const char *path)
{
  ucb_error_t e = NULL;
  char *s = NULL;

  if (ucb_read_file (path, &s, &e) < 0)
    ucb_error_free (&e);
  return s;
}

static bool
exists (const char *path)
{
  return access (path, F_OK) == 0;
}

static char *__attribute__ ((format (printf, 1, 0))) vfmt (const char *fmt, va_list ap)
{
  char *s;
  if (vasprintf (&s, fmt, ap) < 0)
    ucb_oom ();
  return s;
}

/* The contents of the file the format names, or NULL. */
static char *__attribute__ ((format (printf, 1, 2))) readf (const char *fmt, ...)
{
  cleanup_free char *path = NULL;
  va_list ap;

  va_start (ap, fmt);
  path = vfmt (fmt, ap);
  va_end (ap);
  return read_str (path);
}

static bool __attribute__ ((format (printf, 1, 2))) existsf (const char *fmt, ...)
{
  cleanup_free char *path = NULL;
  va_list ap;

  va_start (ap, fmt);
  path = vfmt (fmt, ap);
  va_end (ap);
  return exists (path);
}

static bool
has_word (const char *list, const char *w)
{
  cleanup_free char *copy = xstrdup (list ? list : "");
  for (char *save = NULL, *t = strtok_r (copy, " \n", &save); t; t = strtok_r (NULL, " \n", &save))
    if (strcmp (t, w) == 0)
      return true;
  return false;
}

static void
track (pid_t pid)
{
  if (nowners < UCB_ARRAY_SIZE (owners))
    owners[nowners++] = pid;
}

/* The fstype of what is mounted on `mp` now (the last mount there wins). */
static char *
mount_type (const char *mp)
{
  cleanup_free char *text = read_str ("/proc/self/mountinfo");
  char *type = NULL;

  for (char *s1 = NULL, *line = strtok_r (text, "\n", &s1); line; line = strtok_r (NULL, "\n", &s1))
    {
      char *f[32], *s2 = NULL;
      size_t n = 0;
      for (char *t = strtok_r (line, " ", &s2); t && n < 32; t = strtok_r (NULL, " ", &s2))
        f[n++] = t;
      for (size_t i = 6; i + 1 < n; i++)
        if (strcmp (f[i], "-") == 0)
          {
            if (strcmp (f[4], mp) == 0)
              {
                free (type);
                type = xstrdup (f[i + 1]);
              }
            break;
          }
    }
  return type;
}

/* Put the host back: kill and remove any group of ours, restore subtree_control. */
static void
host_restore (void)
{
  DIR *d = opendir ("/sys/fs/cgroup");
  struct dirent *de;
  cleanup_free char *now = NULL;

  while (d && (de = readdir (d)) != NULL)
    for (size_t i = 0; i < nowners; i++)
      for (int k = 0; k < 2; k++)
        {
          cleanup_free char *dir = xasprintf ("/sys/fs/cgroup/%s/ucbench-%s%d",
                                              strcmp (de->d_name, ".") ? de->d_name : "",
                                              k ? "t" : "", (int) owners[i]);
          if (!exists (dir))
            continue;
          printf ("# cleanup: removing leftover %s\n", dir);
          for (int tries = 0; tries < 100 && ucb_cg_kill_tree (dir, true) > 0; tries++)
            usleep (10000);
          ucb_cg_remove_tree (dir);
        }
  if (d)
    closedir (d);
  if (v2_root == NULL)
    return;
  /* The scope groups X of the delegated-scope tests, before subtree_control (a child using a
   * controller keeps it in the root's). */
  for (size_t i = 0; i < nowners; i++)
    {
      cleanup_free char *x = xasprintf ("%s/ucbtest-%d-scope", v2_root, (int) owners[i]);
      if (!exists (x))
        continue;
      printf ("# cleanup: removing the scope group %s\n", x);
      for (int tries = 0; tries < 100 && ucb_cg_kill_tree (x, true) > 0; tries++)
        usleep (10000);
      for (int tries = 0; tries < 100 && ucb_cg_remove_tree (x) < 0 && errno == EBUSY; tries++)
        usleep (10000);
    }
  now = readf ("%s/cgroup.subtree_control", v2_root);
  for (char *s = NULL, *t = strtok_r (now, " ", &s); t; t = strtok_r (NULL, " ", &s))
    if (!has_word (v2_sc_before, t))
      {
        cleanup_free char *path = xasprintf ("%s/cgroup.subtree_control", v2_root);
        cleanup_free char *cmd = xasprintf ("-%s", t);
        ucb_error_t e = NULL;
        printf ("# cleanup: %s %s\n", path, cmd);
        if (ucb_write_file_at (AT_FDCWD, path, cmd, &e) < 0)
          ucb_error_free (&e);
      }
}

/* Whether this process may create cgroups, or why not. */
static const char *
cannot_write (void)
{
  enum ucb_cg_layout l = ucb_cgroup_detect ();
  cleanup_free char *probe = NULL;

  if (geteuid () != 0)
    return "not root";
  if (l == UCB_CG_NONE)
    return "no cgroup filesystem at /sys/fs/cgroup";
  probe = xasprintf ("%s/ucbench-t%d", l == UCB_CG_LEGACY ? "/sys/fs/cgroup/pids" : v2_root,
                     (int) getpid ());
  if (mkdir (probe, 0755) < 0)
    return "no write access to cgroupfs";
  rmdir (probe);
  return NULL;
}

/* Run `fn` in a child (a private mount namespace in it must not touch ours); its failed checks
 * and its skip reason come back. */
static void
in_child (void (*fn) (void))
{
  int p[2], status;
  pid_t pid;
  static char reason[200];
  ssize_t n;

  if (pipe2 (p, O_CLOEXEC) < 0)
    {
      tap_check (!"pipe");
      return;
    }
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      int before = tap_failed_checks;
      close (p[0]);
      tap_skip_reason = NULL;
      fn ();
      if (tap_skip_reason && write (p[1], tap_skip_reason, strlen (tap_skip_reason)) < 0)
        _exit (3);
      fflush (stdout);
      _exit (tap_failed_checks != before ? 1 : 0);
    }
  close (p[1]);
  track (pid);
  n = read (p[0], reason, sizeof reason - 1);
  reason[n > 0 ? n : 0] = '\0';
  close (p[0]);
  waitpid (pid, &status, 0);
  tap_check_int (status, ==, 0);
  if (status == 0 && reason[0])
    tap_skip (reason);
}

/* Unshare the mount namespace and mount cgroup2 over /sys/fs/cgroup: the same hierarchy as the
 * host's unified one, so every change is real, but the layout is pure v2. */
static bool
enter_pure_v2 (void)
{
  if (unshare (CLONE_NEWNS) < 0 || mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
    {
      tap_skip ("cannot unshare the mount namespace");
      return false;
    }
  if (ucb_cgroup_detect () != UCB_CG_UNIFIED
      && mount ("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) < 0)
    {
      tap_skip ("cannot mount cgroup2 on /sys/fs/cgroup");
      return false;
    }
  return true;
}

/* A hugetlb limit file that exists here: hugetlb.<size>.max of the first huge page size. */
static char *
hugetlb_file (void)
{
  DIR *d = opendir ("/sys/kernel/mm/hugepages");
  struct dirent *de;
  char *f = NULL;

  while (d && f == NULL && (de = readdir (d)) != NULL)
    {
      unsigned long kb;
      if (sscanf (de->d_name, "hugepages-%lukB", &kb) != 1)
        continue;
      if (kb >= 1024 * 1024)
        f = xasprintf ("hugetlb.%luGB.max", kb / (1024 * 1024));
      else if (kb >= 1024)
        f = xasprintf ("hugetlb.%luMB.max", kb / 1024);
      else
        f = xasprintf ("hugetlb.%luKB.max", kb);
    }
  if (d)
    closedir (d);
  return f;
}

/* The group directory of the hierarchy holding `ctrl` ("" = the v2 one), from the session JSON. */
static char *
group_dir (const struct ucb_cgroup *cg, const char *ctrl, const char *suffix)
{
  json_t *j = ucb_cgroup_json (cg), *h;
  char *dir = NULL;
  size_t i;

  json_array_foreach (json_object_get (j, "hierarchies"), i, h)
  {
    json_t *c, *ctrls = json_object_get (h, "controllers");
    size_t k;
    bool match = *ctrl == '\0' && json_integer_value (json_object_get (h, "version")) == 2;
    json_array_foreach (ctrls, k, c) match |= strcmp (json_string_value (c), ctrl) == 0;
    if (match && dir == NULL)
      dir = xasprintf ("%s%s%s", json_string_value (json_object_get (h, "mount")),
                       json_string_value (json_object_get (h, "group")), suffix);
  }
  json_decref (j);
  return dir;
}

static char *
group_rel (const struct ucb_cgroup *cg, const char *ctrl, const char *suffix)
{
  json_t *j = ucb_cgroup_json (cg), *h;
  char *rel = NULL;
  size_t i;

  json_array_foreach (json_object_get (j, "hierarchies"), i, h)
  {
    json_t *c;
    size_t k;
    bool match = *ctrl == '\0' && json_integer_value (json_object_get (h, "version")) == 2;
    json_array_foreach (json_object_get (h, "controllers"), k, c) match
        |= strcmp (json_string_value (c), ctrl) == 0;
    if (match && rel == NULL)
      rel = xasprintf ("%s%s", json_string_value (json_object_get (h, "group")), suffix);
  }
  json_decref (j);
  return rel;
}

/* Fork a child that joins c<index> and writes its /proc/self/cgroup paths of `ctrls` (one a
 * line, "-" when absent), then what `then` reports, to the returned fd. */
static int
spawn_member (const struct ucb_cgroup *cg, unsigned index, const char *const *ctrls, size_t n,
              void (*then) (int fd), pid_t *out)
{
  int p[2];
  pid_t pid;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return -1;
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      FILE *f;
      close (p[0]);
      f = fdopen (p[1], "w");
      if (ucb_cgroup_attach_self (cg, index, &e) < 0)
        {
          fprintf (f, "attach failed: %s\n", e->msg);
          fclose (f);
          _exit (1);
        }
      for (size_t i = 0; i < n; i++)
        {
          char *path = ucb_cgroup_path_of (getpid (), ctrls[i]);
          fprintf (f, "%s\n", path ? path : "-");
          free (path);
        }
      fflush (f);
      if (then)
        then (p[1]);
      fclose (f);
      _exit (0);
    }
  close (p[1]);
  *out = pid;
  return p[0];
}

/* One line: the member keeps the write end open, so there is no EOF to wait for. */
static char *
read_line_fd (int fd)
{
  char *buf = xcalloc (1, 4096);
  size_t len = 0;

  while (len < 4095 && (len == 0 || buf[len - 1] != '\n') && read (fd, buf + len, 1) == 1)
    len++;
  close (fd);
  return buf;
}

static char *
read_all_fd (int fd)
{
  char *buf = xcalloc (1, 4096);
  size_t len = 0;
  ssize_t n;

  while (len < 4095 && (n = read (fd, buf + len, 4095 - len)) > 0)
    len += (size_t) n;
  close (fd);
  return buf;
}

/* In the member: fork children that wait until fork fails; report "forks=N errno=E". */
static void
fork_until_refused (int fd)
{
  pid_t kids[16];
  int n = 0, e = 0;
  char line[64];

  while (n < 16)
    {
      pid_t k = fork ();
      if (k < 0)
        {
          e = errno;
          break;
        }
      if (k == 0)
        {
          pause ();
          _exit (0);
        }
      kids[n++] = k;
    }
  for (int i = 0; i < n; i++)
    {
      kill (kids[i], SIGKILL);
      waitpid (kids[i], NULL, 0);
    }
  snprintf (line, sizeof line, "forks=%d errno=%d\n", n, e);
  if (write (fd, line, strlen (line)) < 0)
    _exit (2);
}

/* ---- the tests ---- */

static void
test_detect (void)
{
  cleanup_free char *top = mount_type ("/sys/fs/cgroup");
  cleanup_free char *uni = mount_type ("/sys/fs/cgroup/unified");
  cleanup_free char *self = ucb_cgroup_path_of (getpid (), NULL);
  cleanup_free char *none = ucb_cgroup_path_of (getpid (), "no-such-controller");
  const char *want = top == NULL                       ? "none"
                     : strcmp (top, "cgroup2") == 0    ? "unified"
                     : strcmp (top, "tmpfs") != 0      ? "none"
                     : uni && !strcmp (uni, "cgroup2") ? "hybrid"
                                                       : "legacy";

  printf ("# layout: %s (the shared machines are hybrid)\n",
          ucb_cg_layout_name (ucb_cgroup_detect ()));
  tap_check_str (ucb_cg_layout_name (ucb_cgroup_detect ()), want);
  tap_check_str (ucb_cg_layout_name (UCB_CG_NONE), "none");
  tap_check_str (ucb_cg_layout_name (UCB_CG_LEGACY), "legacy");
  tap_check_str (ucb_cg_layout_name (UCB_CG_HYBRID), "hybrid");
  tap_check_str (ucb_cg_layout_name (UCB_CG_UNIFIED), "unified");
  tap_check (self != NULL && self[0] == '/');
  tap_check (none == NULL);
}

/* (2) The host layout: pids + cpuset through libcgroup, attach, pids.max, cpuset.cpus. */
static void
test_host_session (void)
{
  struct ucb_cgroup_opts o = { .cpuset = true, .pids_max = 4 };
  enum ucb_cg_layout l = ucb_cgroup_detect ();
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  const char *why = cannot_write ();
  static const char *const ctrls[] = { "pids", "cpuset" };
  cleanup_free char *pids_c0 = NULL, *cpuset_c0 = NULL, *pids_dir = NULL, *cpuset_dir = NULL;
  cleanup_free char *cpus = NULL, *report = NULL, *top = NULL;
  int cpu0 = 0, r, fd, status;
  pid_t member, janitor;
  json_t *j;

  if (why)
    {
      tap_skip (why);
      return;
    }
  if (l != UCB_CG_LEGACY && l != UCB_CG_HYBRID)
    {
      tap_skip ("the host layout is not legacy/hybrid");
      return;
    }
  track (getpid ());
  r = ucb_cgroup_open (&o, &cg, &err);
#ifndef HAVE_CGROUP
  /* Without libcgroup the v1 path must refuse, clearly. */
  tap_check_int (r, <, 0);
  tap_check (err && strstr (err->msg, "libcgroup") != NULL);
  if (err)
    printf ("# as expected: %s\n", err->msg);
  ucb_error_free (&err);
  ucb_cgroup_close (&cg);
  return;
#endif
  tap_check_int (r, ==, 0);
  if (r < 0)
    {
      printf ("# open: %s\n", err->msg);
      ucb_error_free (&err);
      return;
    }
  j = ucb_cgroup_json (cg);
  tap_check_str (json_string_value (json_object_get (j, "layout")), ucb_cg_layout_name (l));
  tap_check_int (json_integer_value (json_object_get (j, "pids_max")), ==, 4);
  tap_check_str (json_string_value (json_object_get (
                     json_array_get (json_object_get (j, "hierarchies"), 0), "backend")),
                 "libcgroup");
  json_decref (j);
  pids_dir = group_dir (cg, "pids", "");
  cpuset_dir = group_dir (cg, "cpuset", "");
  tap_check (pids_dir && exists (pids_dir));
  tap_check (cpuset_dir && exists (cpuset_dir));
  janitor = ucb_cgroup_janitor_pid (cg);
  tap_check_int (janitor, >, 0);

  r = ucb_cgroup_create (cg, 0, &cpu0, 1, &err);
  tap_check_int (r, ==, 0);
  if (r < 0)
    {
      printf ("# create: %s\n", err->msg);
      ucb_error_free (&err);
      ucb_cgroup_close (&cg);
      return;
    }
  j = ucb_cgroup_container_json (cg, 0);
  tap_check_str (json_string_value (json_object_get (j, "cpuset_cpus")), "0");
  {
    cleanup_free char *rel = group_rel (cg, "pids", "/c0");
    tap_check_str (json_string_value (json_object_get (json_object_get (j, "groups"), "pids")),
                   rel);
  }
  json_decref (j);
  tap_check (ucb_cgroup_container_json (cg, 1) == NULL);
  cpus = readf ("%s/c0/cpuset.cpus", cpuset_dir);
  tap_check_str (cpus, "0");
  top = readf ("%s/c0/pids.max", pids_dir);
  tap_check_str (top, "4");

  fd = spawn_member (cg, 0, ctrls, 2, fork_until_refused, &member);
  tap_check_int (fd, >=, 0);
  report = fd >= 0 ? read_all_fd (fd) : xstrdup ("");
  waitpid (member, &status, 0);
  tap_check_int (status, ==, 0);
  pids_c0 = group_rel (cg, "pids", "/c0");
  cpuset_c0 = group_rel (cg, "cpuset", "/c0");
  for (char *nl = strchr (report, '\n'); nl && nl[1]; nl = strchr (nl, '\n'))
    *nl = '|';
  printf ("# member reported: %s", report);
  {
    cleanup_free char *want = xasprintf ("%s|%s|forks=3 errno=%d\n", pids_c0, cpuset_c0, EAGAIN);
    tap_check_str (report, want);
  }

  /* The janitor sits where ucbench does, outside the groups it removes. */
  {
    cleanup_free char *mine = ucb_cgroup_path_of (getpid (), "pids");
    cleanup_free char *its = ucb_cgroup_path_of (janitor, "pids");
    tap_check_str (its, mine);
  }
  /* A fork of ucbench that unwinds (closes) frees its copy only. */
  fflush (stdout);
  member = fork ();
  if (member == 0)
    {
      ucb_cgroup_close (&cg);
      _exit (0);
    }
  waitpid (member, &status, 0);
  tap_check (existsf ("%s/c0", pids_dir));
  tap_check (kill (janitor, 0) == 0);

  tap_check_int (ucb_cgroup_remove_containers (cg, &err), ==, 0);
  ucb_error_free (&err);
  tap_check (!existsf ("%s/c0", pids_dir));
  tap_check (!existsf ("%s/c0", cpuset_dir));
  ucb_cgroup_close (&cg);
  ucb_cgroup_close (&cg); /* twice is fine */
  tap_check (cg == NULL);
  tap_check (!exists (pids_dir));
  tap_check (!exists (cpuset_dir));
  tap_check (kill (janitor, 0) < 0 && errno == ESRCH);
  host_restore ();
}

/* (3) Pure v2 (plain cgroupfs): hugetlb through subtree_control, undone on close. */
static void
pure_v2_session (void)
{
  cleanup_free char *hfile = hugetlb_file ();
  cleanup_free char *set0 = NULL, *sc_before = NULL, *sc_mid = NULL, *sc_after = NULL;
  cleanup_free char *dir = NULL, *limit = NULL, *report = NULL, *want = NULL;
  struct ucb_cgroup_opts o = { 0 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  static const char *const v2[] = { NULL };
  int r, fd, status;
  pid_t member;
  json_t *j;

  if (!enter_pure_v2 ())
    return;
  if (hfile == NULL)
    {
      tap_skip ("no huge page sizes, so no hugetlb files");
      return;
    }
  tap_check_str (ucb_cg_layout_name (ucb_cgroup_detect ()), "unified");
  set0 = xasprintf ("%s=0", hfile);
  o.set = &set0;
  o.nset = 1;
  sc_before = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, ==, 0);
  if (r < 0)
    {
      printf ("# open: %s\n", err->msg);
      ucb_error_free (&err);
      return;
    }
  dir = xasprintf ("/sys/fs/cgroup/ucbench-%d", (int) getpid ());
  tap_check (exists (dir));
  sc_mid = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  tap_check (has_word (sc_mid, "hugetlb"));
  j = ucb_cgroup_json (cg);
  tap_check_int (json_array_size (json_object_get (j, "subtree_control_changes")), ==,
                 has_word (sc_before, "hugetlb") ? 0 : 1);
  tap_check_str (json_string_value (json_object_get (
                     json_array_get (json_object_get (j, "hierarchies"), 0), "backend")),
                 "cgroupfs");
  json_decref (j);

  tap_check_int (ucb_cgroup_create (cg, 0, NULL, 0, &err), ==, 0);
  ucb_error_free (&err);
  limit = readf ("%s/c0/%s", dir, hfile);
  tap_check_str (limit, "0");
  fd = spawn_member (cg, 0, v2, 1, NULL, &member);
  report = fd >= 0 ? read_all_fd (fd) : xstrdup ("");
  waitpid (member, &status, 0);
  want = xasprintf ("/ucbench-%d/c0\n", (int) getpid ());
  tap_check_str (report, want);
  tap_check_int (ucb_cgroup_remove_containers (cg, &err), ==, 0);
  ucb_error_free (&err);
  ucb_cgroup_close (&cg);
  tap_check (!exists (dir));
  sc_after = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  tap_check_str (sc_after, sc_before);

  /* pids is bound to v1 here: a clear error, nothing left. */
  o.nset = 0;
  o.pids_max = 4;
  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, <, 0);
  tap_check (err && strstr (err->msg, "controller pids is not available in the unified hierarchy"));
  if (err)
    printf ("# as expected: %s\n", err->msg);
  ucb_error_free (&err);
  tap_check (!exists (dir));
}

/* (3b) --cgroup=PARENT (absolute form): ancestors enabled top-down and restored; a parent with
 * processes of its own is refused with the delegation hint. */
static void
pure_v2_parent (void)
{
  cleanup_free char *hfile = hugetlb_file ();
  cleanup_free char *set0 = NULL, *parent = NULL, *sc_before = NULL, *psc = NULL, *procs = NULL;
  cleanup_free char *pid_s = NULL;
  struct ucb_cgroup_opts o = { 0 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  pid_t sitter;
  int r;

  if (!enter_pure_v2 ())
    return;
  if (hfile == NULL)
    {
      tap_skip ("no huge page sizes, so no hugetlb files");
      return;
    }
  set0 = xasprintf ("%s=0", hfile);
  o.set = &set0;
  o.nset = 1;
  parent = xasprintf ("/sys/fs/cgroup/ucbench-t%d", (int) getpid ());
  o.parent = parent;
  tap_check_int (mkdir (parent, 0755), ==, 0);
  sc_before = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, ==, 0);
  if (r == 0)
    {
      json_t *j = ucb_cgroup_json (cg);
      tap_check_str (json_string_value (json_object_get (
                         json_array_get (json_object_get (j, "hierarchies"), 0), "parent")),
                     parent + strlen ("/sys/fs/cgroup"));
      tap_check_int (json_array_size (json_object_get (j, "subtree_control_changes")), ==,
                     has_word (sc_before, "hugetlb") ? 1 : 2);
      json_decref (j);
      psc = readf ("%s/cgroup.subtree_control", parent);
      tap_check (has_word (psc, "hugetlb"));
      tap_check (existsf ("%s/ucbench-%d", parent, (int) getpid ()));
      ucb_cgroup_close (&cg);
      free (psc);
      psc = readf ("%s/cgroup.subtree_control", parent);
      tap_check_str (psc, "");
      free (psc);
      psc = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
      tap_check_str (psc, sc_before);
    }
  else
    {
      printf ("# open: %s\n", err->msg);
      ucb_error_free (&err);
    }

  /* A process in PARENT: v2 allows no controllers there ("no internal processes"). */
  fflush (stdout);
  sitter = fork ();
  if (sitter == 0)
    {
      pause ();
      _exit (0);
    }
  procs = xasprintf ("%s/cgroup.procs", parent);
  pid_s = xasprintf ("%d", (int) sitter);
  tap_check_int (ucb_write_file_at (AT_FDCWD, procs, pid_s, &err), ==, 0);
  ucb_error_free (&err);
  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, <, 0);
  tap_check (err && strstr (err->msg, "Delegate=yes") && strstr (err->msg, "--cgroup=PARENT"));
  if (err)
    printf ("# as expected: %s\n", err->msg);
  ucb_error_free (&err);
  ucb_cgroup_close (&cg);
  kill (sitter, SIGKILL);
  waitpid (sitter, NULL, 0);
  free (psc);
  psc = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  tap_check_str (psc, sc_before);
  tap_check (!existsf ("%s/ucbench-%d", parent, (int) getpid ()));
  for (int i = 0; i < 100 && rmdir (parent) < 0 && errno == EBUSY; i++)
    usleep (10000);
  tap_check (!exists (parent));
}

/* In pure v2: make the group X = /ucbtest-<pid>-scope (marked delegated, as systemd marks a
 * Delegate=yes scope) and move this process into it; NULL if that fails. */
static char *
scope_enter (void)
{
  char *x = xasprintf ("/sys/fs/cgroup/ucbtest-%d-scope", (int) getpid ());
  cleanup_free char *procs = xasprintf ("%s/cgroup.procs", x);
  cleanup_free char *pid_s = xasprintf ("%d", (int) getpid ());
  ucb_error_t e = NULL;

  if (mkdir (x, 0755) < 0)
    {
      free (x);
      return NULL;
    }
  if (setxattr (x, "trusted.delegate", "1", 1, 0) < 0)
    {
      /* only systemd hosts look at it */
    }
  if (ucb_write_file_at (AT_FDCWD, procs, pid_s, &e) < 0)
    {
      ucb_error_free (&e);
      rmdir (x);
      free (x);
      return NULL;
    }
  return x;
}

/* Back to the root, then whatever is left in X killed and X removed (when this process is out
 * of it; otherwise the parent's host_restore does it). */
static void
scope_leave (const char *x)
{
  cleanup_free char *pid_s = xasprintf ("%d", (int) getpid ());
  cleanup_free char *self = NULL;
  ucb_error_t e = NULL;

  if (ucb_write_file_at (AT_FDCWD, "/sys/fs/cgroup/cgroup.procs", pid_s, &e) < 0)
    ucb_error_free (&e);
  self = ucb_cgroup_path_of (getpid (), NULL);
  if (self == NULL || strcmp (self, "/") != 0)
    return;
  for (int i = 0; i < 100 && ucb_cg_kill_tree (x, true) > 0; i++)
    usleep (10000);
  for (int i = 0; i < 100 && ucb_cg_remove_tree (x) < 0 && errno == EBUSY; i++)
    usleep (10000);
}

/* The state of X, the root and this process once a session is gone: as before it. */
static void
check_scope_clean (const char *x, const char *root_sc)
{
  cleanup_free char *xsc = readf ("%s/cgroup.subtree_control", x);
  cleanup_free char *rsc = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  cleanup_free char *self = ucb_cgroup_path_of (getpid (), NULL);

  tap_check_str (self, x + strlen ("/sys/fs/cgroup"));
  tap_check_str (xsc, "");
  tap_check_str (rsc, root_sc);
  tap_check (!existsf ("%s/ucbench-%d-self", x, (int) getpid ()));
  tap_check (!existsf ("%s/ucbench-%d", x, (int) getpid ()));
}

/* (3c) No PARENT, ucbench alone in a non-root group X (`systemd-run --scope -p Delegate=yes`):
 * it moves into X/ucbench-<pid>-self so that X may enable controllers, and back at close. */
static void
scope_session (const char *x, char *set0, const char *root_sc)
{
  struct ucb_cgroup_opts o = { .set = &set0, .nset = 1 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  static const char *const v2[] = { NULL };
  const char *xrel = x + strlen ("/sys/fs/cgroup");
  cleanup_free char *leaf = xasprintf ("%s/ucbench-%d-self", xrel, (int) getpid ());
  cleanup_free char *self = NULL, *its = NULL, *xsc = NULL, *report = NULL, *want = NULL;
  int r, fd, status;
  pid_t member, janitor;
  json_t *j, *ch;

  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, ==, 0);
  if (r < 0)
    {
      printf ("# open: %s\n", err->msg);
      ucb_error_free (&err);
      return;
    }
  janitor = ucb_cgroup_janitor_pid (cg);
  self = ucb_cgroup_path_of (getpid (), NULL);
  its = ucb_cgroup_path_of (janitor, NULL);
  tap_check_str (self, leaf);
  tap_check_str (its, leaf);
  xsc = readf ("%s/cgroup.subtree_control", x);
  tap_check (has_word (xsc, "hugetlb"));
  j = ucb_cgroup_json (cg);
  tap_check_str (json_string_value (json_object_get (j, "moved_self")), leaf);
  ch = json_object_get (j, "subtree_control_changes");
  tap_check_int (json_array_size (ch), ==, has_word (root_sc, "hugetlb") ? 1 : 2);
  tap_check_str (
      json_string_value (json_object_get (json_array_get (ch, json_array_size (ch) - 1), "dir")),
      x);
  json_decref (j);

  tap_check_int (ucb_cgroup_create (cg, 0, NULL, 0, &err), ==, 0);
  ucb_error_free (&err);
  fd = spawn_member (cg, 0, v2, 1, NULL, &member);
  report = fd >= 0 ? read_all_fd (fd) : xstrdup ("");
  waitpid (member, &status, 0);
  want = xasprintf ("%s/ucbench-%d/c0\n", xrel, (int) getpid ());
  tap_check_str (report, want);
  tap_check_int (ucb_cgroup_remove_containers (cg, &err), ==, 0);
  ucb_error_free (&err);
  ucb_cgroup_close (&cg);
  tap_check (kill (janitor, 0) < 0 && errno == ESRCH);
  check_scope_clean (x, root_sc);

  /* No controller needed: v2 groups work with processes in X, nothing moves. */
  o.nset = 0;
  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, ==, 0);
  if (r == 0)
    {
      free (self);
      self = ucb_cgroup_path_of (getpid (), NULL);
      tap_check_str (self, xrel);
      j = ucb_cgroup_json (cg);
      tap_check (json_is_null (json_object_get (j, "moved_self")));
      json_decref (j);
      tap_check (existsf ("%s/ucbench-%d", x, (int) getpid ()));
      ucb_cgroup_close (&cg);
    }
  ucb_error_free (&err);
  check_scope_clean (x, root_sc);
}

/* (3d) Another process in X: the clear EBUSY error with the hint, nothing moved or left. */
static void
scope_busy (const char *x, char *set0, const char *root_sc)
{
  struct ucb_cgroup_opts o = { .set = &set0, .nset = 1 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  cleanup_free char *procs = xasprintf ("%s/cgroup.procs", x);
  cleanup_free char *pid_s = NULL;
  pid_t sitter;
  int r;

  fflush (stdout);
  sitter = fork ();
  if (sitter == 0)
    {
      pause ();
      _exit (0);
    }
  pid_s = xasprintf ("%d", (int) sitter);
  tap_check_int (ucb_write_file_at (AT_FDCWD, procs, pid_s, &err), ==, 0);
  ucb_error_free (&err);
  r = ucb_cgroup_open (&o, &cg, &err);
  tap_check_int (r, <, 0);
  tap_check (cg == NULL);
  tap_check (err && strstr (err->msg, "Delegate=yes") && strstr (err->msg, "--cgroup=PARENT"));
  if (err)
    printf ("# as expected: %s\n", err->msg);
  ucb_error_free (&err);
  ucb_cgroup_close (&cg);
  check_scope_clean (x, root_sc);
  kill (sitter, SIGKILL);
  waitpid (sitter, NULL, 0);
}

static void
pure_v2_scope (void)
{
  cleanup_free char *hfile = hugetlb_file ();
  cleanup_free char *set0 = NULL, *root_sc = NULL, *x = NULL;

  if (!enter_pure_v2 ())
    return;
  if (hfile == NULL)
    {
      tap_skip ("no huge page sizes, so no hugetlb files");
      return;
    }
  /* hugetlb: the only controller of the unified hierarchy on the hybrid test hosts. */
  set0 = xasprintf ("%s=0", hfile);
  root_sc = read_str ("/sys/fs/cgroup/cgroup.subtree_control");
  x = scope_enter ();
  tap_check (x != NULL);
  if (x == NULL)
    return;
  scope_session (x, set0, root_sc);
  scope_busy (x, set0, root_sc);
  scope_leave (x);
  tap_check (!exists (x));
}

static void
test_pure_v2 (void)
{
  const char *why = cannot_write ();

  if (why || v2_root == NULL)
    {
      tap_skip (why ? why : "no cgroup2 hierarchy on this host");
      return;
    }
  in_child (pure_v2_session);
  in_child (pure_v2_parent);
  host_restore ();
}

static void
test_scope (void)
{
  const char *why = cannot_write ();

  if (why || v2_root == NULL)
    {
      tap_skip (why ? why : "no cgroup2 hierarchy on this host");
      return;
    }
  in_child (pure_v2_scope);
  host_restore ();
  if (nowners > 0)
    tap_check (!existsf ("%s/ucbtest-%d-scope", v2_root, (int) owners[nowners - 1]));
}

/* The member: attached, says so (EOF) and sleeps until killed. */
static void
sleep_forever (int fd)
{
  close (fd);
  for (;;)
    pause ();
}

/* (4) The janitor: the session's process is SIGKILLed with a member inside. */
enum janitor_mode
{
  JANITOR_HOST,
  JANITOR_PURE_V2,
  JANITOR_SCOPE, /* pure v2, the victim alone in a scope group X: it moves into a leaf */
};
static enum janitor_mode janitor_mode;

static void
janitor_victim (int report_fd)
{
  /* static: this function never returns, and what it allocates must stay reachable */
  static char *set0, *self;
  char *x = NULL;
  char *hfile;
  struct ucb_cgroup_opts o = { .pids_max = 8 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  static const char *const none[] = { NULL };
  char buf[256];
  int fd, cpu0 = 0;
  pid_t member;
  json_t *j, *h;
  const char *moved;
  size_t i;

  if (janitor_mode != JANITOR_HOST && !enter_pure_v2 ())
    {
      dprintf (report_fd, "skip %s\n", tap_skip_reason);
      _exit (0);
    }
  hfile = hugetlb_file ();
  set0 = hfile ? xasprintf ("%s=0", hfile) : NULL;
  free (hfile);
  if (janitor_mode == JANITOR_SCOPE && set0 == NULL)
    {
      dprintf (report_fd, "skip no huge page sizes, so no hugetlb files\n");
      _exit (0);
    }
  if (janitor_mode == JANITOR_SCOPE && (x = scope_enter ()) == NULL)
    {
      dprintf (report_fd, "error cannot make and join the scope group\n");
      _exit (1);
    }
  free (x);
  if (janitor_mode != JANITOR_HOST)
    o.pids_max = 0; /* bound to v1 here */
  else
    o.cpuset = true;
  o.set = set0 ? &set0 : NULL;
  o.nset = set0 ? 1 : 0;
  if (ucb_cgroup_open (&o, &cg, &err) < 0 || ucb_cgroup_create (cg, 0, &cpu0, 1, &err) < 0)
    {
      dprintf (report_fd, "error %s\n", err->msg);
      _exit (1);
    }
  /* The member keeps the pipe's write end on purpose: ucbench's exit must still count. */
  fd = spawn_member (cg, 0, none, 0, sleep_forever, &member);
  if (fd < 0 || read (fd, buf, sizeof buf) != 0)
    _exit (1);
  close (fd);
  j = ucb_cgroup_json (cg);
  moved = json_string_value (json_object_get (j, "moved_self"));
  self = ucb_cgroup_path_of (getpid (), NULL);
  if (janitor_mode == JANITOR_SCOPE && (moved == NULL || self == NULL || strcmp (moved, self) != 0))
    {
      dprintf (report_fd, "error not moved into the leaf: %s\n", self ? self : "?");
      _exit (1);
    }
  dprintf (report_fd, "%d %d", (int) ucb_cgroup_janitor_pid (cg), (int) member);
  json_array_foreach (json_object_get (j, "hierarchies"), i, h)
      dprintf (report_fd, " %s%s", json_string_value (json_object_get (h, "mount")),
               json_string_value (json_object_get (h, "group")));
  if (moved)
    dprintf (report_fd, " /sys/fs/cgroup%s", moved);
  dprintf (report_fd, "\n");
  close (report_fd);
  for (;;)
    pause ();
}

static void
run_janitor_case (enum janitor_mode mode)
{
  bool pure_v2 = mode != JANITOR_HOST;
  cleanup_free char *report = NULL, *sc = NULL, *x = NULL, *xsc = NULL;
  char *dirs[8] = { NULL };
  size_t ndirs = 0;
  int p[2], jpid = 0, mpid = 0, n = 0, status;
  pid_t victim;
  uint64_t t0;
  bool gone = false;

  janitor_mode = mode;
  if (pipe2 (p, O_CLOEXEC) < 0)
    return;
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* the orphans come to us, to be reaped */
  fflush (stdout);
  victim = fork ();
  if (victim == 0)
    {
      close (p[0]);
      janitor_victim (p[1]);
    }
  close (p[1]);
  track (victim);
  report = read_line_fd (p[0]);
  x = xasprintf ("%s/ucbtest-%d-scope", v2_root, (int) victim);
  printf ("# %s session: %s",
          mode == JANITOR_SCOPE ? "scope"
          : pure_v2             ? "pure v2"
                                : "host",
          report);
  if (strncmp (report, "skip ", 5) == 0)
    {
      static char why[200];
      snprintf (why, sizeof why, "%s", report + 5);
      why[strcspn (why, "\n")] = '\0';
      waitpid (victim, NULL, 0);
      prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
      tap_skip (why);
      return;
    }
  if (sscanf (report, "%d %d %n", &jpid, &mpid, &n) < 2 || jpid <= 0 || mpid <= 0)
    {
      tap_check (!"the session started");
      kill (victim, SIGKILL);
      waitpid (victim, NULL, 0);
      prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
      host_restore ();
      return;
    }
  for (char *s = NULL, *t = strtok_r (report + n, " \n", &s); t && ndirs < 8;
       t = strtok_r (NULL, " \n", &s))
    /* In its mount namespace the unified hierarchy is /sys/fs/cgroup. */
    dirs[ndirs++]
        = pure_v2 ? xasprintf ("%s%s", v2_root, t + strlen ("/sys/fs/cgroup")) : xstrdup (t);
  for (size_t i = 0; i < ndirs; i++)
    tap_check (exists (dirs[i]));

  kill (victim, SIGKILL);
  waitpid (victim, &status, 0);
  t0 = ucb_now_ns ();
  while (!gone && ucb_now_ns () - t0 < 10000000000ull)
    {
      while (waitpid (-1, NULL, WNOHANG) > 0)
        ;
      gone = kill (mpid, 0) < 0 && kill (jpid, 0) < 0;
      for (size_t i = 0; i < ndirs; i++)
        gone &= !exists (dirs[i]);
      free (sc);
      sc = readf ("%s/cgroup.subtree_control", v2_root);
      gone &= strcmp (sc ? sc : "", v2_sc_before ? v2_sc_before : "") == 0;
      if (mode == JANITOR_SCOPE)
        {
          free (xsc);
          xsc = readf ("%s/cgroup.subtree_control", x);
          gone &= xsc && *xsc == '\0';
        }
      if (!gone)
        usleep (20000);
    }
  printf ("# cleaned up after %.2f s\n", (double) (ucb_now_ns () - t0) / 1e9);
  tap_check (kill (mpid, 0) < 0 && errno == ESRCH);
  tap_check (kill (jpid, 0) < 0 && errno == ESRCH);
  for (size_t i = 0; i < ndirs; i++)
    {
      tap_check (!exists (dirs[i]));
      free (dirs[i]);
    }
  tap_check_str (sc, v2_sc_before);
  if (mode == JANITOR_SCOPE)
    tap_check_str (xsc, "");
  prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
  host_restore ();
  tap_check (!exists (x));
}

static void
test_janitor (void)
{
  const char *why = cannot_write ();
  enum ucb_cg_layout l = ucb_cgroup_detect ();

  if (why || v2_root == NULL)
    {
      tap_skip (why ? why : "no cgroup2 hierarchy on this host");
      return;
    }
#ifdef HAVE_CGROUP
  if (l == UCB_CG_HYBRID)
    run_janitor_case (JANITOR_HOST);
#else
  (void) l;
#endif
  run_janitor_case (JANITOR_PURE_V2);
  run_janitor_case (JANITOR_SCOPE);
}

/* (5) Bad --cgroup-set: clear usage errors, nothing created. */
static void
expect_open_error (const char *set, const char *parent, const char *needle, int status)
{
  char *s = set ? xstrdup (set) : NULL;
  struct ucb_cgroup_opts o = { .set = &s, .nset = set ? 1 : 0, .parent = parent };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  int r = ucb_cgroup_open (&o, &cg, &err);

  tap_check_int (r, <, 0);
  tap_check (cg == NULL);
  if (err)
    {
      printf ("# %s%s: %s\n", set ? "--cgroup-set " : "--cgroup=",
              set      ? set
              : parent ? parent
                       : "",
              err->msg);
      tap_check (strstr (err->msg, needle) != NULL);
      tap_check_int (err->status, ==, status);
    }
  else
    tap_check (!"an error");
  ucb_error_free (&err);
  ucb_cgroup_close (&cg);
  free (s);
}

#ifdef HAVE_CGROUP
static void
bad_sets_here (void)
{
  expect_open_error ("pids.no_such_file=1", NULL, "no file pids.no_such_file", UCB_EXIT_USAGE);
  expect_open_error ("nosuchctl.max=1", NULL, "controller nosuchctl is not available",
                     UCB_EXIT_FAILURE);
  if (ucb_cgroup_detect () != UCB_CG_LEGACY)
    expect_open_error ("hugetlb.no_such_file=1", NULL, "no file hugetlb.no_such_file",
                       UCB_EXIT_USAGE);
}
#endif

static void
bad_sets_pure_v2 (void)
{
  if (!enter_pure_v2 ())
    return;
  expect_open_error ("hugetlb.no_such_file=1", NULL, "no file hugetlb.no_such_file",
                     UCB_EXIT_USAGE);
  expect_open_error ("pids.max=1", NULL, "controller pids is not available", UCB_EXIT_FAILURE);
}

static void
test_bad_set (void)
{
  const char *why = cannot_write ();
  enum ucb_cg_layout l = ucb_cgroup_detect ();

  /* Checked before anything is touched: no privilege needed. */
  expect_open_error ("noequals", NULL, "expected FILE=VALUE", UCB_EXIT_USAGE);
  expect_open_error ("../x=1", NULL, "CONTROLLER.NAME (no `/`)", UCB_EXIT_USAGE);
  expect_open_error ("pids.max=", NULL, "expected FILE=VALUE", UCB_EXIT_USAGE);
  expect_open_error ("cgroup.procs=1", NULL, "cgroup.* files", UCB_EXIT_USAGE);
  expect_open_error ("max=1", NULL, "CONTROLLER.NAME", UCB_EXIT_USAGE);
  if (why)
    {
      tap_skip (why);
      return;
    }
  track (getpid ());
#ifdef HAVE_CGROUP
  if (l == UCB_CG_LEGACY || l == UCB_CG_HYBRID)
    bad_sets_here ();
#else
  (void) l;
#endif
  if (v2_root)
    in_child (bad_sets_pure_v2);
  if (v2_root)
    {
      cleanup_free char *sc = readf ("%s/cgroup.subtree_control", v2_root);
      tap_check_str (sc, v2_sc_before);
    }
  host_restore ();
}

/* (6) A PARENT that does not exist, or leaves the hierarchy. */
static void
bad_parent_pure_v2 (void)
{
  if (!enter_pure_v2 ())
    return;
  expect_open_error (NULL, "/sys/fs/cgroup/no-such-ucbench-parent",
                     "no such cgroup /sys/fs/cgroup/no-such-ucbench-parent", UCB_EXIT_USAGE);
}

/* No write access: one clear error (an unprivileged uid, no capabilities). */
static void
unprivileged_open (void)
{
  if (ucb_cgroup_detect () != UCB_CG_UNIFIED && !enter_pure_v2 ())
    return;
  if (setgroups (0, NULL) < 0 || setresgid (65534, 65534, 65534) < 0
      || setresuid (65534, 65534, 65534) < 0)
    {
      tap_skip ("cannot become uid 65534");
      return;
    }
  expect_open_error (NULL, NULL, "--cgroup needs write access to /sys/fs/cgroup", UCB_EXIT_FAILURE);
}

static void
test_bad_parent (void)
{
  const char *why = cannot_write ();
  enum ucb_cg_layout l = ucb_cgroup_detect ();

  if (why)
    {
      tap_skip (why);
      return;
    }
  track (getpid ());
#ifdef HAVE_CGROUP
  if (l == UCB_CG_LEGACY || l == UCB_CG_HYBRID)
    {
      expect_open_error (NULL, "no-such-ucbench-parent", "no-such-ucbench-parent", UCB_EXIT_USAGE);
      expect_open_error (NULL, "/a/../..", "must not contain `..`", UCB_EXIT_USAGE);
    }
#else
  (void) l;
#endif
  if (v2_root)
    {
      in_child (bad_parent_pure_v2);
      in_child (unprivileged_open);
    }
  host_restore ();
}

static const struct tap_test tests[] = {
  { "layout detection and /proc/PID/cgroup", test_detect },
  { "host layout: pids + cpuset per container, pids.max enforced", test_host_session },
  { "pure cgroup v2: cgroupfs, subtree_control restored, PARENT, errors", test_pure_v2 },
  { "pure cgroup v2 in a delegated scope: ucbench moves into a leaf", test_scope },
  { "janitor cleans up after SIGKILL", test_janitor },
  { "bad --cgroup-set", test_bad_set },
  { "bad --cgroup=PARENT, no write access", test_bad_parent },
};

int
main (void)
{
  enum ucb_cg_layout l = ucb_cgroup_detect ();
  int rc;

  v2_root = l == UCB_CG_HYBRID    ? "/sys/fs/cgroup/unified"
            : l == UCB_CG_UNIFIED ? "/sys/fs/cgroup"
                                  : NULL;
  if (v2_root)
    v2_sc_before = readf ("%s/cgroup.subtree_control", v2_root);
  rc = tap_run (tests, UCB_ARRAY_SIZE (tests));
  host_restore ();
  free (v2_sc_before);
  return rc;
}
