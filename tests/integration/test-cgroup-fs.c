/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-cgroup-fs.c - run --cgroup on real cgroupfs (root): one group per container with its
 * limits on the host layout and on a pure cgroup2 mount, --cgroup=PARENT, and the errors that
 * need the hierarchy to see (a missing file or controller, a missing parent, no write access). */
#include "config.h"

#include <grp.h>
#include <signal.h>

#include "cgroup-test.h"

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

/* (2) The host layout: pids + cpuset through libcgroup, attach, pids.max, cpuset.cpus.  The
 * session's state, step to step. */
struct host_session
{
  struct ucb_cgroup *cg;
  char *pids_dir, *cpuset_dir; /* the session's groups, with the mount */
  pid_t janitor;
};

/* Open: the session JSON, both groups there, a janitor. */
static bool
host_open (struct host_session *h, enum ucb_cg_layout l)
{
  struct ucb_cgroup_opts o = { .cpuset = true, .pids_max = 4 };
  ucb_error_t err = NULL;
  int r = ucb_cgroup_open (&o, &h->cg, &err);
  json_t *j;

#ifndef HAVE_CGROUP
  /* Without libcgroup the v1 path must refuse, clearly. */
  cg_refused (r, &err, "libcgroup", NULL);
  ucb_cgroup_close (&h->cg);
  return false;
#endif
  if (!cg_ok (r, "open", &err))
    return false;
  j = ucb_emit_cgroup (h->cg);
  tap_check_str (json_string_value (json_object_get (j, "layout")), ucb_cg_layout_name (l));
  tap_check_int (json_integer_value (json_object_get (j, "pids_max")), ==, 4);
  tap_check_str (json_string_value (json_object_get (
                     json_array_get (json_object_get (j, "hierarchies"), 0), "backend")),
                 "libcgroup");
  json_decref (j);
  h->pids_dir = group_dir (h->cg, "pids", "");
  h->cpuset_dir = group_dir (h->cg, "cpuset", "");
  tap_check (h->pids_dir && exists (h->pids_dir));
  tap_check (h->cpuset_dir && exists (h->cpuset_dir));
  h->janitor = ucb_cgroup_janitor_pid (h->cg);
  tap_check_int (h->janitor, >, 0);
  return true;
}

/* Container 0 on CPU 0: its JSON and its limit files. */
static bool
host_container (struct host_session *h)
{
  ucb_error_t err = NULL;
  cleanup_free char *rel = NULL, *cpus = NULL, *top = NULL;
  int cpu0 = 0;
  struct ucb_cgroup_container_info *ci;
  json_t *j;

  if (!cg_ok (ucb_cgroup_create (h->cg, 0, &cpu0, 1, &err), "create", &err))
    return false;
  ci = ucb_cgroup_container_info (h->cg, 0);
  j = ucb_emit_cgroup_container (ci);
  ucb_cgroup_container_info_free (ci);
  tap_check_str (json_string_value (json_object_get (j, "cpuset_cpus")), "0");
  rel = group_rel (h->cg, "pids", "/c0");
  tap_check_str (json_string_value (json_object_get (json_object_get (j, "groups"), "pids")), rel);
  json_decref (j);
  tap_check (ucb_cgroup_container_info (h->cg, 1) == NULL);
  cpus = readf ("%s/c0/cpuset.cpus", h->cpuset_dir);
  tap_check_str (cpus, "0");
  top = readf ("%s/c0/pids.max", h->pids_dir);
  tap_check_str (top, "4");
  return true;
}

/* A member joins both groups of c0 and hits pids.max. */
static void
host_member (struct host_session *h)
{
  static const char *const ctrls[] = { "pids", "cpuset" };
  cleanup_free char *pids_c0 = group_rel (h->cg, "pids", "/c0");
  cleanup_free char *cpuset_c0 = group_rel (h->cg, "cpuset", "/c0");
  cleanup_free char *report = NULL, *want = NULL;
  int status;

  report = member_report (h->cg, ctrls, 2, fork_until_refused, &status);
  tap_check_int (status, ==, 0);
  for (char *nl = strchr (report, '\n'); nl && nl[1]; nl = strchr (nl, '\n'))
    *nl = '|';
  printf ("# member reported: %s", report);
  want = xasprintf ("%s|%s|forks=3 errno=%d\n", pids_c0, cpuset_c0, EAGAIN);
  tap_check_str (report, want);
}

/* The janitor sits where ucbench does, outside the groups it removes; a fork of ucbench that
 * unwinds (closes) frees its copy only. */
static void
host_fork_closes (struct host_session *h)
{
  cleanup_free char *mine = ucb_cgroup_path_of (getpid (), "pids");
  cleanup_free char *its = ucb_cgroup_path_of (h->janitor, "pids");
  pid_t child;

  tap_check_str (its, mine);
  fflush (stdout);
  child = fork ();
  if (child == 0)
    {
      ucb_cgroup_close (&h->cg);
      _exit (0);
    }
  waitpid (child, NULL, 0);
  tap_check (existsf ("%s/c0", h->pids_dir));
  tap_check (kill (h->janitor, 0) == 0);
}

/* Remove the containers, close (twice): every group and the janitor gone. */
static void
host_close (struct host_session *h)
{
  ucb_error_t err = NULL;

  tap_check_int (ucb_cgroup_remove_containers (h->cg, &err), ==, 0);
  ucb_error_free (&err);
  tap_check (!existsf ("%s/c0", h->pids_dir));
  tap_check (!existsf ("%s/c0", h->cpuset_dir));
  ucb_cgroup_close (&h->cg);
  ucb_cgroup_close (&h->cg); /* twice is fine */
  tap_check (h->cg == NULL);
  tap_check (!exists (h->pids_dir));
  tap_check (!exists (h->cpuset_dir));
  tap_check (kill (h->janitor, 0) < 0 && errno == ESRCH);
}

static void
test_host_session (void)
{
  enum ucb_cg_layout l = ucb_cgroup_detect ();
  struct host_session h = { 0 };

  if (!may_write ())
    return;
  if (l != UCB_CG_LEGACY && l != UCB_CG_HYBRID)
    {
      tap_skip ("the host layout is not legacy/hybrid");
      return;
    }
  if (host_open (&h, l))
    {
      if (host_container (&h))
        {
          host_member (&h);
          host_fork_closes (&h);
          host_close (&h);
        }
      else
        ucb_cgroup_close (&h.cg);
    }
  free (h.pids_dir);
  free (h.cpuset_dir);
  host_restore ();
}

/* (3) Pure v2 (plain cgroupfs): hugetlb through subtree_control, undone on close. */
static void
pure_v2_session (void)
{
  cleanup_free char *hfile = NULL, *set0 = pure_v2_hugetlb_set (&hfile);
  cleanup_free char *sc_before = NULL, *sc_mid = NULL, *sc_after = NULL;
  cleanup_free char *dir = NULL, *limit = NULL, *report = NULL, *want = NULL;
  struct ucb_cgroup_opts o = { .set = &set0, .nset = 1 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  static const char *const v2[] = { NULL };
  int status;
  json_t *j;

  if (set0 == NULL)
    return;
  tap_check_str (ucb_cg_layout_name (ucb_cgroup_detect ()), "unified");
  sc_before = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
  if (!cg_ok (ucb_cgroup_open (&o, &cg, &err), "open", &err))
    return;
  dir = xasprintf ("/sys/fs/cgroup/ucbench-%d", (int) getpid ());
  tap_check (exists (dir));
  sc_mid = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
  tap_check (has_word (sc_mid, "hugetlb"));
  j = ucb_emit_cgroup (cg);
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
  report = member_report (cg, v2, 1, NULL, &status);
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
  cg_refused (ucb_cgroup_open (&o, &cg, &err), &err,
              "controller pids is not available in the unified hierarchy", NULL);
  tap_check (!exists (dir));
}

/* (3b) --cgroup=PARENT (absolute form): ancestors enabled top-down and restored; a parent with
 * processes of its own is refused with the delegation hint. */
static void
pure_v2_parent (void)
{
  cleanup_free char *set0 = pure_v2_hugetlb_set (NULL);
  cleanup_free char *parent = NULL, *sc_before = NULL, *psc = NULL;
  struct ucb_cgroup_opts o = { .set = &set0, .nset = 1 };
  struct ucb_cgroup *cg = NULL;
  ucb_error_t err = NULL;
  pid_t sitter;

  if (set0 == NULL)
    return;
  parent = xasprintf ("/sys/fs/cgroup/ucbench-t%d", (int) getpid ());
  o.parent = parent;
  tap_check_int (mkdir (parent, 0755), ==, 0);
  sc_before = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
  if (cg_ok (ucb_cgroup_open (&o, &cg, &err), "open", &err))
    {
      json_t *j = ucb_emit_cgroup (cg);
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

  /* A process in PARENT: v2 allows no controllers there ("no internal processes"). */
  sitter = sitter_in (parent);
  cg_refused (ucb_cgroup_open (&o, &cg, &err), &err, "Delegate=yes", "--cgroup=PARENT");
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
  static void (*const steps[]) (void) = { pure_v2_session, pure_v2_parent };

  in_v2_children (steps, UCB_ARRAY_SIZE (steps));
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
  /* The checks before anything is touched are unit tests (tests/unit/test-cgroup.c). */
  if (!may_write ())
    return;
  if (host_v1_layout ())
    bad_sets_here ();
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
  if (!may_write ())
    return;
  if (host_v1_layout ())
    {
      expect_open_error (NULL, "no-such-ucbench-parent", "no-such-ucbench-parent", UCB_EXIT_USAGE);
      expect_open_error (NULL, "/a/../..", "must not contain `..`", UCB_EXIT_USAGE);
    }
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
