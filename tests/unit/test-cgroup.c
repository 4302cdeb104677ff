/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-cgroup.c - the --cgroup logic that needs no privilege and touches nothing: layout names
 * and detection, /proc/PID/cgroup paths, the --cgroup-set checks, PARENT normalisation and the
 * path joins.  What creates real groups is tests/integration/test-cgroup-{fs,janitor}.c. */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "../tap.h"
#define UCB_CGROUP_INTERNAL
#include "core/util.h"
#include "host/cgroup/cgroup.h"

/* The fstype of what is mounted on `mp` now (the last mount there wins). */
static char *
mount_type (const char *mp)
{
  cleanup_free char *text = ucb_read_file_or_null ("/proc/self/mountinfo");
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

static void
test_layout (void)
{
  cleanup_free char *top = mount_type ("/sys/fs/cgroup");
  cleanup_free char *uni = mount_type ("/sys/fs/cgroup/unified");
  cleanup_free char *self = ucb_cgroup_path_of (getpid (), NULL);
  cleanup_free char *self_empty = ucb_cgroup_path_of (getpid (), "");
  cleanup_free char *none = ucb_cgroup_path_of (getpid (), "no-such-controller");
  cleanup_free char *no_pid = ucb_cgroup_path_of (0, NULL); /* there is no /proc/0 */
  cleanup_free char *text = ucb_read_file_or_null ("/proc/self/cgroup");
  const char *want = top == NULL                       ? "none"
                     : strcmp (top, "cgroup2") == 0    ? "unified"
                     : strcmp (top, "tmpfs") != 0      ? "none"
                     : uni && !strcmp (uni, "cgroup2") ? "hybrid"
                                                       : "legacy";

  printf ("# layout: %s\n", ucb_cg_layout_name (ucb_cgroup_detect ()));
  tap_check_str (ucb_cg_layout_name (ucb_cgroup_detect ()), want);
  tap_check_str (ucb_cg_layout_name (UCB_CG_NONE), "none");
  tap_check_str (ucb_cg_layout_name (UCB_CG_LEGACY), "legacy");
  tap_check_str (ucb_cg_layout_name (UCB_CG_HYBRID), "hybrid");
  tap_check_str (ucb_cg_layout_name (UCB_CG_UNIFIED), "unified");
  tap_check_str (ucb_cg_layout_name ((enum ucb_cg_layout) 99), "none");
  tap_check (none == NULL);
  tap_check (no_pid == NULL);
  /* The v2 line is "0::PATH": the path found is exactly that line's. */
  if (text && strncmp (text, "0::", 3) == 0)
    {
      text[strcspn (text, "\n")] = '\0';
      tap_check_str (self, text + 3);
    }
  else if (text && strstr (text, "\n0::"))
    {
      char *p = strstr (text, "\n0::") + 4;
      p[strcspn (p, "\n")] = '\0';
      tap_check_str (self, p);
    }
  else
    tap_check (self == NULL);
  tap_check (self == NULL || self[0] == '/');
  tap_check_str (self_empty ? self_empty : "(null)", self ? self : "(null)");
}

/* --cgroup-set FILE=VALUE alone: a usage error naming the problem, or accepted. */
static void
expect_set (const char *set, bool pids_max, bool cpuset, const char *needle)
{
  char *s = xstrdup (set);
  struct ucb_cgroup_opts o
      = { .set = &s, .nset = 1, .pids_max = pids_max ? 8 : 0, .cpuset = cpuset };
  ucb_error_t err = NULL;
  int r = ucb_cgroup_check_opts (&o, &err);

  if (needle == NULL)
    {
      tap_check_int (r, ==, 0);
      if (err)
        printf ("# --cgroup-set %s: unexpected: %s\n", set, err->msg);
    }
  else
    {
      tap_check_int (r, <, 0);
      tap_check (err && strstr (err->msg, needle) != NULL);
      tap_check (err && err->status == UCB_EXIT_USAGE);
      if (err && strstr (err->msg, needle) == NULL)
        printf ("# --cgroup-set %s: %s (expected \"%s\")\n", set, err->msg, needle);
    }
  ucb_error_free (&err);
  free (s);
}

static void
test_check_opts (void)
{
  char p4[] = "pids.max=4", p5[] = "pids.max=5", m1[] = "memory.max=1G";
  char *two[] = { p4, p5 }, *ok2[] = { p4, m1 };
  struct ucb_cgroup_opts o = { .set = two, .nset = 2 };
  ucb_error_t err = NULL;

  expect_set ("pids.max=64", false, false, NULL);
  expect_set ("memory.max=1G", false, false, NULL);
  expect_set ("hugetlb.2MB.max=0", false, false, NULL);
  expect_set ("cpu.weight=a=b", false, false, NULL); /* the value may hold `=` */
  expect_set ("noequals", false, false, "expected FILE=VALUE");
  expect_set ("=1", false, false, "expected FILE=VALUE");
  expect_set ("pids.max=", false, false, "expected FILE=VALUE");
  expect_set ("pids.max=1\n2", false, false, "expected FILE=VALUE");
  expect_set ("../x=1", false, false, "CONTROLLER.NAME (no `/`)");
  expect_set ("pids/max=1", false, false, "CONTROLLER.NAME (no `/`)");
  expect_set ("max=1", false, false, "CONTROLLER.NAME");
  expect_set (".max=1", false, false, "CONTROLLER.NAME");
  expect_set ("pids.=1", false, false, "CONTROLLER.NAME");
  expect_set ("cgroup.procs=1", false, false, "cgroup.* files");
  expect_set ("cgroupx.max=1", false, false, NULL); /* only the `cgroup` controller is ours */
  expect_set ("pids.max=4", true, false, "--pids-max and --cgroup-set pids.max");
  expect_set ("pids.current=4", true, false, NULL);
  expect_set ("cpuset.cpus=0", false, true, "--cpuset sets cpuset.cpus itself");
  expect_set ("cpuset.mems=0", false, true, "--cpuset sets cpuset.mems itself");
  expect_set ("cpuset.cpus=0", false, false, NULL);

  tap_check_int (ucb_cgroup_check_opts (&o, &err), <, 0);
  tap_check (err && strstr (err->msg, "--cgroup-set pids.max is given twice"));
  tap_check (err && err->status == UCB_EXIT_USAGE);
  ucb_error_free (&err);
  o.set = ok2;
  tap_check_int (ucb_cgroup_check_opts (&o, &err), ==, 0);
  ucb_error_free (&err);
  o.nset = 0;
  tap_check_int (ucb_cgroup_check_opts (&o, &err), ==, 0);
  tap_check (err == NULL);
}

/* ucb_cgroup_open checks --cgroup-set before it looks at the host: no privilege, nothing made. */
static void
test_open_refuses_first (void)
{
  static const char *const bad[][2] = {
    { "noequals", "expected FILE=VALUE" },  { "../x=1", "CONTROLLER.NAME (no `/`)" },
    { "pids.max=", "expected FILE=VALUE" }, { "cgroup.procs=1", "cgroup.* files" },
    { "max=1", "CONTROLLER.NAME" },
  };

  for (size_t i = 0; i < UCB_ARRAY_SIZE (bad); i++)
    {
      char *s = xstrdup (bad[i][0]);
      struct ucb_cgroup_opts o = { .set = &s, .nset = 1 };
      struct ucb_cgroup *cg = NULL;
      ucb_error_t err = NULL;

      tap_check_int (ucb_cgroup_open (&o, &cg, &err), <, 0);
      tap_check (cg == NULL);
      tap_check (err && strstr (err->msg, bad[i][1]) != NULL);
      tap_check (err && err->status == UCB_EXIT_USAGE);
      ucb_error_free (&err);
      ucb_cgroup_close (&cg);
      free (s);
    }
}

static void
test_paths (void)
{
  cleanup_free char *j1 = ucb_cg_join_rel ("/", "ucbench-7");
  cleanup_free char *j2 = ucb_cg_join_rel ("/a/b", "c0");
  cleanup_free char *d1 = ucb_cg_dir_of ("/sys/fs/cgroup/pids", "/");
  cleanup_free char *d2 = ucb_cg_dir_of ("/sys/fs/cgroup/pids", "/a/ucbench-7");
  char **list = NULL;
  size_t n = 0;

  tap_check_str (j1, "/ucbench-7");
  tap_check_str (j2, "/a/b/c0");
  tap_check_str (d1, "/sys/fs/cgroup/pids");
  tap_check_str (d2, "/sys/fs/cgroup/pids/a/ucbench-7");

  ucb_cg_ctrl_add (&list, &n, "pids");
  ucb_cg_ctrl_add (&list, &n, "cpuset");
  ucb_cg_ctrl_add (&list, &n, "pids");
  tap_check_int (n, ==, 2);
  tap_check_str (n > 0 ? list[0] : NULL, "pids");
  tap_check_str (n > 1 ? list[1] : NULL, "cpuset");
  tap_check (ucb_cg_ctrl_listed (list, n, "cpuset"));
  tap_check (!ucb_cg_ctrl_listed (list, n, "cpu"));
  tap_check (!ucb_cg_ctrl_listed (list, 0, "pids"));
  for (size_t i = 0; i < n; i++)
    free (list[i]);
  free (list);
}

/* --cgroup=PARENT against two hierarchies: every parent_rel, or a usage error. */
static void
expect_parent (const char *parent, const char *want)
{
  struct ucb_cg_hier h[2] = { { .mount = (char *) "/sys/fs/cgroup/pids" },
                              { .mount = (char *) "/sys/fs/cgroup/unified" } };
  struct ucb_cgroup cg = { .h = h, .nh = 2 };
  ucb_error_t err = NULL;
  int r = ucb_cg_resolve_parent (&cg, parent, &err);

  if (want == NULL)
    {
      tap_check_int (r, <, 0);
      tap_check (err && strstr (err->msg, "PARENT must not contain `..`"));
      tap_check (err && err->status == UCB_EXIT_USAGE);
      tap_check (h[0].parent_rel == NULL && h[1].parent_rel == NULL);
    }
  else
    {
      tap_check_int (r, ==, 0);
      tap_check_str (h[0].parent_rel, want);
      tap_check_str (h[1].parent_rel, want);
      if (h[0].parent_rel && strcmp (h[0].parent_rel, want) != 0)
        printf ("# --cgroup=%s: %s, expected %s\n", parent, h[0].parent_rel, want);
    }
  ucb_error_free (&err);
  free (h[0].parent_rel);
  free (h[1].parent_rel);
}

static void
test_parent (void)
{
  expect_parent ("a//b/", "/a/b");
  expect_parent ("./a/./b", "/a/b");
  expect_parent ("/", "/");
  expect_parent ("", "/");
  expect_parent ("a/..b/c..", "/a/..b/c..");
  /* Absolute under a mount in use: relative to it; the longest mount that matches wins. */
  expect_parent ("/sys/fs/cgroup/unified/x/./y/", "/x/y");
  expect_parent ("/sys/fs/cgroup/pids", "/");
  /* A mount path must end at a `/`: .../unifiedX is not under .../unified. */
  expect_parent ("/sys/fs/cgroup/unifiedX/a", "/sys/fs/cgroup/unifiedX/a");
  expect_parent ("/a/../..", NULL);
  expect_parent ("..", NULL);
  expect_parent ("/sys/fs/cgroup/pids/..", NULL);
}

static const struct tap_test tests[] = {
  { "layout names, detection and /proc/PID/cgroup paths", test_layout },
  { "--cgroup-set checks: usage errors that name the problem", test_check_opts },
  { "ucb_cgroup_open refuses bad --cgroup-set before touching anything", test_open_refuses_first },
  { "group paths and controller lists", test_paths },
  { "--cgroup=PARENT normalised against the hierarchies' mounts", test_parent },
};

TAP_MAIN (tests)
