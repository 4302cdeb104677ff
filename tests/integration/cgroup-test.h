/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-test.h - what the cgroup integration tests share (root, real cgroupfs): reading
 * files, the host's state before and its restoration after, a child in its own mount namespace
 * with cgroup2 mounted pure, and members joined to a container group.  Each test program is
 * one translation unit (tap.h's counters are static), so the helpers live here as static
 * inline functions. */
#ifndef UCB_CGROUP_TEST_H
#define UCB_CGROUP_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#define UCB_CGROUP_INTERNAL
#include "cli/doc.h"
#include "core/util.h"
#include "host/cgroup/cgroup.h"

/* The host's unified hierarchy and its cgroup.subtree_control when the test started. */
static const char *v2_root;
static char *v2_sc_before;
/* Every process that opened a session: its ucbench-<pid> groups are ours to clean up. */
static pid_t owners[64];
static size_t nowners;

/* ---- helpers ---- */

static inline bool
exists (const char *path)
{
  return access (path, F_OK) == 0;
}

/* readf/existsf: the file the format names (xasprintf checks the format), read or NULL /
 * there or not.  The path is built once here and freed by the function it goes to. */
static inline char *
read_owned (char *path)
{
  cleanup_free char *p = path;
  return ucb_read_file_or_null (p);
}

static inline bool
exists_owned (char *path)
{
  cleanup_free char *p = path;
  return exists (p);
}

#define readf(...) read_owned (xasprintf (__VA_ARGS__))
#define existsf(...) exists_owned (xasprintf (__VA_ARGS__))

static inline bool
has_word (const char *list, const char *w)
{
  cleanup_free char *copy = xstrdup (list ? list : "");
  for (char *save = NULL, *t = strtok_r (copy, " \n", &save); t; t = strtok_r (NULL, " \n", &save))
    if (strcmp (t, w) == 0)
      return true;
  return false;
}

static inline void
track (pid_t pid)
{
  if (nowners < UCB_ARRAY_SIZE (owners))
    owners[nowners++] = pid;
}

/* How long a test waits for what must happen soon (processes gone from a group, a group
 * removable): a deadline, not a count of tries, since a loaded machine is slow. */
#define CG_DEADLINE_NS 30000000000ull

/* Poll `done (dir)` every 10 ms until it holds or the deadline passes; its last answer. */
static inline bool
cg_until (bool (*done) (const char *dir), const char *dir)
{
  uint64_t t0 = ucb_now_ns ();

  while (!done (dir))
    {
      if (ucb_now_ns () - t0 > CG_DEADLINE_NS)
        return done (dir);
      usleep (10000);
    }
  return true;
}

/* Every process in the group and below it SIGKILLed, none listed any more. */
static inline bool
cg_killed (const char *dir)
{
  return ucb_cg_kill_tree (dir, true) == 0;
}

/* The tree removed, or failing for another reason than processes still exiting. */
static inline bool
cg_removed (const char *dir)
{
  return ucb_cg_remove_tree (dir) == 0 || errno != EBUSY;
}

static inline bool
cg_rmdir_done (const char *dir)
{
  return rmdir (dir) == 0 || errno != EBUSY;
}

/* Put the host back: kill and remove any group of ours, restore subtree_control. */
static inline void
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
          cg_until (cg_killed, dir);
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
      cg_until (cg_killed, x);
      cg_until (cg_removed, x);
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
static inline const char *
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

/* Whether this process may create cgroups; if not, the test is skipped with the reason.  Its
 * groups are tracked for host_restore. */
static inline bool
may_write (void)
{
  const char *why = cannot_write ();

  if (why)
    {
      tap_skip (why);
      return false;
    }
  track (getpid ());
  return true;
}

/* The host has v1 hierarchies that ucbench drives through libcgroup (a legacy or hybrid
 * layout, and a build with libcgroup). */
static inline bool
host_v1_layout (void)
{
#ifdef HAVE_CGROUP
  enum ucb_cg_layout l = ucb_cgroup_detect ();
  return l == UCB_CG_LEGACY || l == UCB_CG_HYBRID;
#else
  return false;
#endif
}

/* Whether this process may create groups in the host's cgroup2 hierarchy; if not, the test is
 * skipped with the reason. */
static inline bool
v2_writable (void)
{
  const char *why = cannot_write ();

  if (why || v2_root == NULL)
    tap_skip (why ? why : "no cgroup2 hierarchy on this host");
  return why == NULL && v2_root != NULL;
}

/* Run `fn` in a child (a private mount namespace in it must not touch ours); its failed checks
 * and its skip reason come back. */
static inline void
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

/* Each of `steps` in a child (in_child) where the host's cgroup2 hierarchy is writable, then
 * the host put back; false (skipped, with why) where it is not writable. */
static inline bool
in_v2_children (void (*const *steps) (void), size_t n)
{
  if (!v2_writable ())
    return false;
  for (size_t i = 0; i < n; i++)
    in_child (steps[i]);
  host_restore ();
  return true;
}

/* Unshare the mount namespace and mount cgroup2 over /sys/fs/cgroup: the same hierarchy as the
 * host's unified one, so every change is real, but the layout is pure v2. */
static inline bool
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
static inline char *
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

/* In a child: cgroup2 mounted pure and the --cgroup-set value that limits the first huge page
 * size to 0 ("hugetlb.2MB.max=0"), with that file in *hfile when asked; NULL (skipped, with
 * why) when either is missing.  hugetlb: the only controller of the unified hierarchy on the
 * hybrid test hosts. */
static inline char *
pure_v2_hugetlb_set (char **hfile)
{
  cleanup_free char *f = NULL;
  char *set0;

  if (!enter_pure_v2 ())
    return NULL;
  f = hugetlb_file ();
  if (f == NULL)
    {
      tap_skip ("no huge page sizes, so no hugetlb files");
      return NULL;
    }
  set0 = xasprintf ("%s=0", f);
  if (hfile)
    *hfile = steal_pointer (&f);
  return set0;
}

/* `r`, what a ucb_cgroup_* call returned, is success; otherwise said with the error (freed). */
static inline bool
cg_ok (int r, const char *what, ucb_error_t *err)
{
  tap_check_int (r, ==, 0);
  if (r < 0)
    {
      printf ("# %s: %s\n", what, *err ? (*err)->msg : "?");
      ucb_error_free (err);
    }
  return r == 0;
}

/* `r` is a refusal whose message has `needle` (and `needle2` unless NULL); the error freed. */
static inline void
cg_refused (int r, ucb_error_t *err, const char *needle, const char *needle2)
{
  tap_check_int (r, <, 0);
  tap_check (*err && strstr ((*err)->msg, needle) != NULL);
  if (needle2)
    tap_check (*err && strstr ((*err)->msg, needle2) != NULL);
  if (*err)
    printf ("# as expected: %s\n", (*err)->msg);
  ucb_error_free (err);
}

/* A child that only sleeps, moved into the v2 group `dir` (a process of its own there). */
static inline pid_t
sitter_in (const char *dir)
{
  cleanup_free char *procs = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *pid_s = NULL;
  ucb_error_t err = NULL;
  pid_t sitter;

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
  return sitter;
}

/* The group of the hierarchy holding `ctrl` ("" = the v2 one) + `suffix`, from the session
 * JSON: relative to the mount, or with it (the directory). */
static inline char *
group_path (const struct ucb_cgroup *cg, const char *ctrl, const char *suffix, bool with_mount)
{
  json_t *j = ucb_emit_cgroup (cg), *h;
  char *path = NULL;
  size_t i;

  json_array_foreach (json_object_get (j, "hierarchies"), i, h)
  {
    json_t *c;
    size_t k;
    bool match = *ctrl == '\0' && json_integer_value (json_object_get (h, "version")) == 2;
    json_array_foreach (json_object_get (h, "controllers"), k, c) match
        |= strcmp (json_string_value (c), ctrl) == 0;
    if (match && path == NULL)
      path
          = xasprintf ("%s%s%s", with_mount ? json_string_value (json_object_get (h, "mount")) : "",
                       json_string_value (json_object_get (h, "group")), suffix);
  }
  json_decref (j);
  return path;
}

static inline char *
group_dir (const struct ucb_cgroup *cg, const char *ctrl, const char *suffix)
{
  return group_path (cg, ctrl, suffix, true);
}

static inline char *
group_rel (const struct ucb_cgroup *cg, const char *ctrl, const char *suffix)
{
  return group_path (cg, ctrl, suffix, false);
}

/* Fork a child that joins c<index> and writes its /proc/self/cgroup paths of `ctrls` (one a
 * line, "-" when absent), then what `then` reports, to the returned fd. */
static inline int
spawn_member (const struct ucb_cgroup *cg, unsigned index, const char *const *ctrls, size_t n,
              void (*then) (int fd), pid_t *out)
{
  int p[2];
  pid_t pid;

  *out = -1;
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
static inline char *
read_line_fd (int fd)
{
  char *buf = xcalloc (1, 4096);
  size_t len = 0;

  while (len < 4095 && (len == 0 || buf[len - 1] != '\n') && read (fd, buf + len, 1) == 1)
    len++;
  close (fd);
  return buf;
}

static inline char *
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

/* spawn_member's report once the member exited (its exit status in *status); "" if it did
 * not start. */
static inline char *
member_report (const struct ucb_cgroup *cg, const char *const *ctrls, size_t n,
               void (*then) (int fd), int *status)
{
  pid_t member;
  int fd = spawn_member (cg, 0, ctrls, n, then, &member);
  char *report;

  tap_check_int (fd, >=, 0);
  *status = -1;
  if (fd < 0)
    return xstrdup ("");
  report = read_all_fd (fd);
  waitpid (member, status, 0);
  return report;
}

/* taplib.py's CGROUP_LOCK: one test at a time changes the host's cgroup.subtree_control and
 * checks that it is back.  Held until exit; waited for with a deadline (then said so). */
#define CG_TEST_LOCK "/tmp/ucbench-cgroup-tests.lock"
#define CG_TEST_LOCK_WAIT_NS 900000000000ull

static inline void
cg_test_lock (void)
{
  int fd = open (CG_TEST_LOCK, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  uint64_t t0 = ucb_now_ns ();

  while (fd >= 0 && flock (fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK)
    {
      if (ucb_now_ns () - t0 > CG_TEST_LOCK_WAIT_NS)
        {
          printf ("# %s still held: going on without it\n", CG_TEST_LOCK);
          return;
        }
      usleep (100000);
    }
  /* fd stays open (the lock with it) until the program exits */
}

/* Run the table under the lock, with the host's v2 state recorded first and put back last. */
static inline int
cg_test_main (const struct tap_test *tests, size_t n)
{
  enum ucb_cg_layout l;
  int rc;

  cg_test_lock ();
  l = ucb_cgroup_detect ();

  v2_root = l == UCB_CG_HYBRID    ? "/sys/fs/cgroup/unified"
            : l == UCB_CG_UNIFIED ? "/sys/fs/cgroup"
                                  : NULL;
  if (v2_root)
    v2_sc_before = readf ("%s/cgroup.subtree_control", v2_root);
  rc = tap_run (tests, n);
  host_restore ();
  free (v2_sc_before);
  return rc;
}

#endif
