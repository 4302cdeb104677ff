/* test-cgroup-fs.c - run --cgroup on real cgroupfs (root): one group per container with its
 * limits on the host layout and on a pure cgroup2 mount, --cgroup=PARENT, and the errors that
 * need the hierarchy to see (a missing file or controller, a missing parent, no write access). */
#include "config.h"

#include <grp.h>
#include <signal.h>

#include "cgroup-test.h"

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
  sc_before = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
  sc_mid = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
  sc_after = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
  sc_before = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
      psc = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
  psc = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
  tap_check_str (psc, sc_before);
  tap_check (!existsf ("%s/ucbench-%d", parent, (int) getpid ()));
  cg_until (cg_rmdir_done, parent);
  tap_check (!exists (parent));
}

static void
test_pure_v2 (void)
{
  if (!v2_writable ())
    return;
  in_child (pure_v2_session);
  in_child (pure_v2_parent);
  host_restore ();
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

  /* The checks before anything is touched are unit tests (tests/unit/test-cgroup.c). */
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
  { "host layout: pids + cpuset per container, pids.max enforced", test_host_session },
  { "pure cgroup v2: cgroupfs, subtree_control restored, PARENT, errors", test_pure_v2 },
  { "bad --cgroup-set the hierarchy refuses", test_bad_set },
  { "bad --cgroup=PARENT, no write access", test_bad_parent },
};

int
main (void)
{
  return cg_test_main (tests, UCB_ARRAY_SIZE (tests));
}
