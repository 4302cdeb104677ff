/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-cgroup-janitor.c - run --cgroup in a delegated scope (ucbench moves into a leaf so
 * that its group may enable controllers) and the janitor that removes everything after a
 * SIGKILL of ucbench, on the host layout, pure cgroup2 and a scope (root); the journal of
 * intended changes it undoes. */
#include "config.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/xattr.h>

#include "cgroup-test.h"

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
  cg_until (cg_killed, x);
  cg_until (cg_removed, x);
}

/* The state of X, the root and this process once a session is gone: as before it. */
static void
check_scope_clean (const char *x, const char *root_sc)
{
  cleanup_free char *xsc = readf ("%s/cgroup.subtree_control", x);
  cleanup_free char *rsc = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
  int r, status;
  pid_t janitor;
  json_t *j, *ch;

  if (!cg_ok (ucb_cgroup_open (&o, &cg, &err), "open", &err))
    return;
  janitor = ucb_cgroup_janitor_pid (cg);
  self = ucb_cgroup_path_of (getpid (), NULL);
  its = ucb_cgroup_path_of (janitor, NULL);
  tap_check_str (self, leaf);
  tap_check_str (its, leaf);
  xsc = readf ("%s/cgroup.subtree_control", x);
  tap_check (has_word (xsc, "hugetlb"));
  j = ucb_emit_cgroup (cg);
  tap_check_str (json_string_value (json_object_get (j, "moved_self")), leaf);
  ch = json_object_get (j, "subtree_control_changes");
  tap_check_int (json_array_size (ch), ==, has_word (root_sc, "hugetlb") ? 1 : 2);
  tap_check_str (
      json_string_value (json_object_get (json_array_get (ch, json_array_size (ch) - 1), "dir")),
      x);
  json_decref (j);

  tap_check_int (ucb_cgroup_create (cg, 0, NULL, 0, &err), ==, 0);
  ucb_error_free (&err);
  report = member_report (cg, v2, 1, NULL, &status);
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
      j = ucb_emit_cgroup (cg);
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
  pid_t sitter = sitter_in (x);

  cg_refused (ucb_cgroup_open (&o, &cg, &err), &err, "Delegate=yes", "--cgroup=PARENT");
  tap_check (cg == NULL);
  ucb_cgroup_close (&cg);
  check_scope_clean (x, root_sc);
  kill (sitter, SIGKILL);
  waitpid (sitter, NULL, 0);
}

static void
pure_v2_scope (void)
{
  cleanup_free char *set0 = pure_v2_hugetlb_set (NULL);
  cleanup_free char *root_sc = NULL, *x = NULL;

  if (set0 == NULL)
    return;
  root_sc = ucb_read_file_or_null ("/sys/fs/cgroup/cgroup.subtree_control");
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
test_scope (void)
{
  static void (*const steps[]) (void) = { pure_v2_scope };

  if (in_v2_children (steps, UCB_ARRAY_SIZE (steps)) && nowners > 0)
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
  j = ucb_emit_cgroup (cg);
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

/* One janitor case: the victim's session (its janitor, member and groups), then the wait until
 * all of it is gone. */
struct janitor_run
{
  enum janitor_mode mode;
  pid_t victim;
  int jpid, mpid;
  char *dirs[8]; /* the session's groups, as this mount namespace sees them */
  size_t ndirs;
  char *x;        /* the scope group X of JANITOR_SCOPE */
  char *sc, *xsc; /* subtree_control of the v2 root and of X, last read */
};

static const char *
janitor_mode_name (enum janitor_mode mode)
{
  return mode == JANITOR_SCOPE ? "scope" : mode == JANITOR_PURE_V2 ? "pure v2" : "host";
}

/* Fork the victim and read its report; the report, or NULL when it could not be forked. */
static char *
janitor_start (struct janitor_run *jr)
{
  int p[2];

  janitor_mode = jr->mode;
  if (pipe2 (p, O_CLOEXEC) < 0)
    return NULL;
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* the orphans come to us, to be reaped */
  fflush (stdout);
  jr->victim = fork ();
  if (jr->victim == 0)
    {
      close (p[0]);
      janitor_victim (p[1]);
    }
  close (p[1]);
  track (jr->victim);
  jr->x = xasprintf ("%s/ucbtest-%d-scope", v2_root, (int) jr->victim);
  return read_line_fd (p[0]);
}

/* "JANITOR MEMBER DIR..." into jr; false if the session did not start. */
static bool
janitor_parse (struct janitor_run *jr, char *report)
{
  int n = 0;

  if (sscanf (report, "%d %d %n", &jr->jpid, &jr->mpid, &n) < 2 || jr->jpid <= 0 || jr->mpid <= 0)
    return false;
  for (char *s = NULL, *t = strtok_r (report + n, " \n", &s); t && jr->ndirs < 8;
       t = strtok_r (NULL, " \n", &s))
    /* In its mount namespace the unified hierarchy is /sys/fs/cgroup. */
    jr->dirs[jr->ndirs++] = jr->mode != JANITOR_HOST
                                ? xasprintf ("%s%s", v2_root, t + strlen ("/sys/fs/cgroup"))
                                : xstrdup (t);
  return true;
}

/* Whether everything of the session is gone: processes, groups, subtree_control as before. */
static bool
janitor_done (struct janitor_run *jr)
{
  bool gone;

  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
  gone = kill (jr->mpid, 0) < 0 && kill (jr->jpid, 0) < 0;
  for (size_t i = 0; i < jr->ndirs; i++)
    gone &= !exists (jr->dirs[i]);
  free (jr->sc);
  jr->sc = readf ("%s/cgroup.subtree_control", v2_root);
  gone &= strcmp (jr->sc ? jr->sc : "", v2_sc_before ? v2_sc_before : "") == 0;
  if (jr->mode == JANITOR_SCOPE)
    {
      free (jr->xsc);
      jr->xsc = readf ("%s/cgroup.subtree_control", jr->x);
      gone &= jr->xsc && *jr->xsc == '\0';
    }
  return gone;
}

/* SIGKILL the victim and wait (with the deadline) until its janitor cleaned up; then check. */
static void
janitor_kill_and_check (struct janitor_run *jr)
{
  uint64_t t0;

  kill (jr->victim, SIGKILL);
  waitpid (jr->victim, NULL, 0);
  t0 = ucb_now_ns ();
  while (!janitor_done (jr) && ucb_now_ns () - t0 < CG_DEADLINE_NS)
    usleep (20000);
  printf ("# cleaned up after %.2f s\n", (double) (ucb_now_ns () - t0) / 1e9);
  tap_check (kill (jr->mpid, 0) < 0 && errno == ESRCH);
  tap_check (kill (jr->jpid, 0) < 0 && errno == ESRCH);
  for (size_t i = 0; i < jr->ndirs; i++)
    tap_check (!exists (jr->dirs[i]));
  tap_check_str (jr->sc, v2_sc_before);
  if (jr->mode == JANITOR_SCOPE)
    tap_check_str (jr->xsc, "");
}

static void
run_janitor_case (enum janitor_mode mode)
{
  struct janitor_run jr = { .mode = mode };
  cleanup_free char *report = janitor_start (&jr);
  bool skipped = report && strncmp (report, "skip ", 5) == 0, started = false;

  if (report == NULL)
    return;
  printf ("# %s session: %s", janitor_mode_name (mode), report);
  if (skipped)
    {
      static char why[200];
      snprintf (why, sizeof why, "%s", report + 5);
      why[strcspn (why, "\n")] = '\0';
      waitpid (jr.victim, NULL, 0);
      tap_skip (why);
    }
  else if (!janitor_parse (&jr, report))
    {
      tap_check (!"the session started");
      kill (jr.victim, SIGKILL);
      waitpid (jr.victim, NULL, 0);
    }
  else
    {
      started = true;
      for (size_t i = 0; i < jr.ndirs; i++)
        tap_check (exists (jr.dirs[i]));
      janitor_kill_and_check (&jr);
    }
  prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  while (waitpid (-1, NULL, WNOHANG) > 0)
    ;
  if (!skipped)
    {
      host_restore ();
      if (started)
        tap_check (!exists (jr.x));
    }
  for (size_t i = 0; i < jr.ndirs; i++)
    free (jr.dirs[i]);
  free (jr.x);
  free (jr.sc);
  free (jr.xsc);
}

static void
test_janitor (void)
{
  enum ucb_cg_layout l = ucb_cgroup_detect ();

  if (!v2_writable ())
    return;
#ifdef HAVE_CGROUP
  if (l == UCB_CG_HYBRID)
    run_janitor_case (JANITOR_HOST);
#else
  (void) l;
#endif
  run_janitor_case (JANITOR_PURE_V2);
  run_janitor_case (JANITOR_SCOPE);
}

/* (5) The journal (journal.c): a change that cannot be listed is refused, never made. */
static void
test_journal (void)
{
  ucb_error_t err = NULL;
  struct ucb_cg_journal *j = ucb_cg_journal_new (2, &err);
  cleanup_free char *longp = xcalloc (1, PATH_MAX + 1);

  tap_check (j != NULL);
  if (j == NULL)
    return;
  memset (longp, 'a', PATH_MAX);
  tap_check_int (ucb_cg_journal_count (j), ==, 0);
  tap_check_int (ucb_cg_journal_add (j, UCB_CG_J_GROUP, "/g/ucbench-1", NULL, true, &err), ==, 0);
  tap_check_int (ucb_cg_journal_add (j, UCB_CG_J_GROUP, longp, NULL, true, &err), <, 0);
  tap_check (err && err->code == ENAMETOOLONG);
  ucb_error_free (&err);
  tap_check_int (ucb_cg_journal_add (j, UCB_CG_J_ENABLE, "/g", longp, true, &err), <, 0);
  tap_check (err && err->code == ENAMETOOLONG);
  ucb_error_free (&err);
  tap_check_int (ucb_cg_journal_add (j, UCB_CG_J_ENABLE, "/g", "pids", true, &err), ==, 1);
  tap_check_int (ucb_cg_journal_add (j, UCB_CG_J_LEAF, "/g/x", NULL, true, &err), <, 0);
  tap_check (err && err->code == ENOSPC);
  ucb_error_free (&err);
  tap_check_int (ucb_cg_journal_count (j), ==, 2);
  tap_check_str (j->e[1].path, "/g");
  tap_check_str (j->e[1].ctrl, "pids");
  ucb_cg_journal_retract (j, 0);
  ucb_cg_journal_retract (j, 5); /* out of range: nothing */
  tap_check_int (j->e[0].kind, ==, UCB_CG_J_NONE);
  tap_check_int (j->e[1].kind, ==, UCB_CG_J_ENABLE);
  ucb_cg_journal_free (j);
}

/* The victim of (6): a janitor on a journal of one group made, then entries whose changes never
 * happened (a group, a subtree_control enable and a leaf, all absent); it reports and sleeps. */
static void __attribute__ ((noreturn)) journal_victim (int report_fd)
{
  static struct ucb_cgroup cg;
  ucb_error_t err = NULL;
  cleanup_free char *made = xasprintf ("%s/ucbench-%d", v2_root, (int) getpid ());
  cleanup_free char *never = xasprintf ("%s/ucbench-t%d", v2_root, (int) getpid ());
  cleanup_free char *leaf = xasprintf ("%s/ucbench-t%d/x-self", v2_root, (int) getpid ());

  cg.pid = getpid ();
  cg.journal = ucb_cg_journal_new (4, &err);
  if (cg.journal == NULL || ucb_cg_janitor_start (&cg, &err) < 0
      || ucb_cg_journal_add (cg.journal, UCB_CG_J_GROUP, made, NULL, true, &err) < 0
      || mkdir (made, 0755) < 0
      || ucb_cg_journal_add (cg.journal, UCB_CG_J_GROUP, never, NULL, true, &err) < 0
      || ucb_cg_journal_add (cg.journal, UCB_CG_J_ENABLE, never, "pids", true, &err) < 0
      || ucb_cg_journal_add (cg.journal, UCB_CG_J_LEAF, leaf, NULL, true, &err) < 0)
    {
      dprintf (report_fd, "error %s\n", err ? err->msg : strerror (errno));
      _exit (1);
    }
  dprintf (report_fd, "%d\n", (int) cg.janitor);
  close (report_fd);
  for (;;)
    pause ();
}

/* (6) SIGKILL after one change of four listed: the janitor removes it, and the three never
 * made cost nothing (ENOENT). */
static void
test_journal_janitor (void)
{
  int p[2];
  pid_t victim;
  cleanup_free char *report = NULL, *made = NULL, *sc = NULL;
  int jpid = 0;
  uint64_t t0;

  if (!v2_writable () || pipe2 (p, O_CLOEXEC) < 0)
    return;
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  fflush (stdout);
  victim = fork ();
  if (victim == 0)
    {
      close (p[0]);
      journal_victim (p[1]);
    }
  close (p[1]);
  track (victim);
  report = read_line_fd (p[0]);
  made = xasprintf ("%s/ucbench-%d", v2_root, (int) victim);
  tap_check (sscanf (report, "%d", &jpid) == 1 && jpid > 0);
  tap_check (exists (made));
  kill (victim, SIGKILL);
  waitpid (victim, NULL, 0);
  t0 = ucb_now_ns ();
  while ((exists (made) || (jpid > 0 && kill (jpid, 0) == 0))
         && ucb_now_ns () - t0 < CG_DEADLINE_NS)
    {
      while (waitpid (-1, NULL, WNOHANG) > 0)
        ;
      usleep (10000);
    }
  printf ("# cleaned up after %.2f s\n", (double) (ucb_now_ns () - t0) / 1e9);
  tap_check (!exists (made));
  tap_check (jpid > 0 && kill (jpid, 0) < 0 && errno == ESRCH);
  sc = readf ("%s/cgroup.subtree_control", v2_root);
  tap_check_str (sc, v2_sc_before);
  prctl (PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  host_restore ();
}

static const struct tap_test tests[] = {
  { "pure cgroup v2 in a delegated scope: ucbench moves into a leaf", test_scope },
  { "janitor cleans up after SIGKILL", test_janitor },
  { "journal: a change it cannot list is refused", test_journal },
  { "janitor undoes the journal: made changes go, never made ones cost nothing",
    test_journal_janitor },
};

int
main (void)
{
  return cg_test_main (tests, UCB_ARRAY_SIZE (tests));
}
