/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-seccomp-needs.c - a profile and what the container machinery needs after loading it:
 * the calls a blocking default action would stop are added and named, a rule of the profile
 * that blocks exit_group, exit or sendto is refused, unknown names are counted and named, and
 * the profile of the run is known to whoever reports a dead container (issue 16 item 7). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/seccomp-profile.h"
#include "core/util.h"
#include "host/seccomp.h"

#ifdef HAVE_SECCOMP

static char tmpdir[64];

static void
remove_tmpdir (void)
{
  char path[128];

  snprintf (path, sizeof path, "%s/p.json", tmpdir);
  unlink (path);
  rmdir (tmpdir);
}

static char *
write_profile (const char *text)
{
  char *path;
  FILE *f;

  if (!tmpdir[0])
    {
      snprintf (tmpdir, sizeof tmpdir, "/tmp/ucb-test-scneeds-XXXXXX");
      if (mkdtemp (tmpdir) == NULL)
        abort ();
      atexit (remove_tmpdir);
    }
  path = xasprintf ("%s/p.json", tmpdir);
  f = fopen (path, "we");
  if (f == NULL || fputs (text, f) < 0 || fclose (f) != 0)
    abort ();
  return path;
}

/* Build `text` (as file p.json, or the built-in "docker"), keeping the filter in *s when s is
 * given; what it wrote on stderr in *said; 0 or the error's status, its message in *msg. */
static int
build (const char *text, struct ucb_seccomp **s, char **said, char **msg)
{
  cleanup_free char *path = strcmp (text, "docker") ? write_profile (text) : xstrdup ("docker");
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *p = NULL;
  struct ucb_seccomp_opts o = { .optimize = 1 };
  struct ucb_seccomp *local = NULL;
  ucb_error_t err = NULL;
  FILE *cap = tmpfile ();
  int saved = dup (2), status = 0;
  char buf[4096];
  size_t n;

  fflush (stderr);
  dup2 (fileno (cap), 2);
  o.profile = ucb_seccomp_profile_read (path, &p, &err) == 0 ? p : NULL;
  if (o.profile == NULL || ucb_seccomp_build (&o, s ? s : &local, NULL, &err) < 0)
    {
      status = err->status;
      if (msg)
        *msg = xstrdup (err->msg);
      ucb_error_free (&err);
    }
  fflush (stderr);
  dup2 (saved, 2);
  close (saved);
  rewind (cap);
  n = fread (buf, 1, sizeof buf - 1, cap);
  buf[n] = '\0';
  fclose (cap);
  *said = xstrdup (buf);
  ucb_seccomp_free (&local);
  return status;
}

static void
test_default_blocks (void)
{
  static const char deny_all[] = "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [] }";
  cleanup_free char *said = NULL;
  struct ucb_seccomp *s = NULL;
  int ws = 0;
  pid_t pid;

  tap_check_int (build (deny_all, &s, &said, NULL), ==, 0);
  tap_check (strstr (said, "allowing ") != NULL && strstr (said, "exit_group, exit, sendto"));
  tap_check (strchr (said, '\n') == said + strlen (said) - 1); /* one line */
  tap_check (s != NULL && ucb_seccomp_active () && strstr (ucb_seccomp_active (), "p.json"));
  if (s == NULL)
    return;
  /* Loaded: the workload's own call is still refused, but the process can end. */
  fflush (NULL);
  pid = fork ();
  if (pid == 0)
    {
      ucb_error_t err = NULL;
      long r;

      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || ucb_seccomp_load (s, NULL, &err) < 0)
        syscall (SYS_exit_group, 9);
      r = syscall (SYS_getuid); /* not one of the machinery's */
      syscall (SYS_exit_group, r == -1 && errno == EPERM ? 7 : 8);
      _exit (8);
    }
  tap_check (pid > 0 && waitpid (pid, &ws, 0) == pid);
  if (WIFEXITED (ws) && WEXITSTATUS (ws) == 9)
    tap_skip ("seccomp filters refused here");
  else
    tap_check_int (WIFEXITED (ws) ? WEXITSTATUS (ws) : 128 + WTERMSIG (ws), ==, 7);
  ucb_seccomp_free (&s);
  tap_check (ucb_seccomp_active () == NULL);
}

static void
test_refused (void)
{
  static const char *const blocking[] = {
    "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [ { \"names\": [\"getpid\", "
    "\"exit_group\"], \"action\": \"SCMP_ACT_ERRNO\" } ] }",
    "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"sendto\"], "
    "\"action\": \"SCMP_ACT_KILL_PROCESS\" } ] }",
  };
  static const char conditional[]
      = "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [ { \"names\": [\"exit_group\"], "
        "\"action\": \"SCMP_ACT_ERRNO\", \"args\": [ { \"index\": 0, \"value\": 77, \"op\": "
        "\"SCMP_CMP_EQ\" } ] } ] }";
  static const char getppid_errno[]
      = "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [ { \"names\": [\"getppid\"], "
        "\"action\": \"SCMP_ACT_ERRNO\" } ] }";

  for (size_t i = 0; i < UCB_ARRAY_SIZE (blocking); i++)
    {
      cleanup_free char *said = NULL, *msg = NULL;
      tap_check_int (build (blocking[i], NULL, &said, &msg), ==, UCB_EXIT_USAGE);
      tap_check (msg && strstr (msg, i ? "blocks sendto," : "blocks exit_group,"));
      tap_check (msg && strstr (msg, "p.json"));
    }
  {
    /* Only some arguments: the profile's choice. */
    cleanup_free char *said = NULL;
    tap_check_int (build (conditional, NULL, &said, NULL), ==, 0);
    tap_check_str (said, "");
  }
  {
    /* A machinery call the profile blocks on purpose: kept, and named. */
    cleanup_free char *said = NULL;
    tap_check_int (build (getppid_errno, NULL, &said, NULL), ==, 0);
    tap_check (strstr (said, "warning: seccomp profile ") && strstr (said, "blocks getppid,"));
  }
}

static void
test_unknown_names (void)
{
  static const char text[]
      = "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [ { \"names\": [\"nosuch_a\", "
        "\"getpid\", \"nosuch_b\"], \"action\": \"SCMP_ACT_LOG\" }, { \"name\": \"nosuch_c\", "
        "\"action\": \"SCMP_ACT_ERRNO\" } ] }";
  cleanup_free char *said = NULL, *want = NULL;

  tap_check_int (build (text, NULL, &said, NULL), ==, 0);
  want = xasprintf ("ucbench: warning: 3 unknown syscall names in %s/p.json: nosuch_a, nosuch_b, "
                    "nosuch_c (ignored)\n",
                    tmpdir);
  tap_check_str (said, want);

  /* Many: still one line, cut with an ellipsis, the count complete. */
  {
    cleanup_free char *many = xstrdup ("{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": "
                                       "[ { \"action\": \"SCMP_ACT_ERRNO\", \"names\": [");
    cleanup_free char *said2 = NULL;
    for (int i = 0; i < 40; i++)
      {
        char *next = xasprintf ("%s%s\"no_such_syscall_number_%02d\"", many, i ? ", " : "", i);
        free (many);
        many = next;
      }
    {
      char *next = xasprintf ("%s] } ] }", many);
      free (many);
      many = next;
    }
    tap_check_int (build (many, NULL, &said2, NULL), ==, 0);
    tap_check (strstr (said2, "warning: 40 unknown syscall names in ") != NULL);
    tap_check (strstr (said2, "no_such_syscall_number_00, no_such_syscall_number_01") != NULL);
    tap_check (strstr (said2, ", ... (ignored)\n") != NULL && strlen (said2) < 512);
    tap_check (strchr (said2, '\n') == said2 + strlen (said2) - 1);
  }
}

/* --seccomp docker: every call is named by it, nothing to add or say. */
static void
test_docker_quiet (void)
{
  cleanup_free char *said = NULL;

  tap_check_int (build ("docker", NULL, &said, NULL), ==, 0);
  tap_check_str (said, "");
}

static const struct tap_test tests[] = {
  { "a blocking default: the machinery's calls added and named; the process can end",
    test_default_blocks },
  { "a rule blocking exit_group or sendto is refused; conditional and other rules are kept",
    test_refused },
  { "unknown syscall names: counted and named on one warning line", test_unknown_names },
  { "the built-in docker profile: nothing added, nothing said", test_docker_quiet },
};

#else

static void
test_none (void)
{
  tap_skip ("built without libseccomp");
}

static const struct tap_test tests[] = { { "libseccomp", test_none } };

#endif

TAP_MAIN (tests)
