/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-users.c - the passwd(5) reader that replaced getpwent (a static binary cannot load the
 * host's NSS modules): entries found by uid, whatever odd lines surround them (comments, empty
 * lines and fields, NIS lines, bad uids, a line longer than any buffer, no final newline); the
 * readers of login.defs(5), group(5), subuid(5) and subgid(5) and the rule for fresh owner uids
 * they make, on files written to a temporary directory; and the uid lock: one holder per
 * range, named to the next, and a lock directory or file that is not safe refused. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "host/uidlock.h"
#include "host/users.h"

/* The users of `uids` (sorted) in the file `text`, read line by line with ucb_idfile_find (the
 * passwd reader ucbench uses); the first described in `who`. */
static size_t
scan (const char *text, const uid_t *uids, size_t n, char **who)
{
  size_t found = 0;

  if (who)
    *who = NULL;
  for (const char *p = text; *p;)
    {
      size_t len = strcspn (p, "\n") + (p[strcspn (p, "\n")] == '\n');
      cleanup_free char *line = xstrndup (p, len);
      cleanup_file FILE *f = fmemopen (line, len, "r");
      cleanup_free char *name = NULL;
      unsigned long id = 0;
      uid_t key;

      p += len;
      if (f == NULL)
        return (size_t) -1;
      if (ucb_idfile_find (f, 0, UCB_MAX_UID, &name, &id) == 0)
        continue;
      key = (uid_t) id;
      if (n == 0 || !bsearch (&key, uids, n, sizeof key, ucb_cmp_uid))
        continue;
      if (found++ == 0 && who)
        *who = xasprintf ("uid %lu belongs to user `%s`", id, name);
    }
  return found;
}

static void
test_entries (void)
{
  static const uid_t uids[] = { 0, 1000, 4294967294u };
  cleanup_free char *who = NULL;

  tap_check_int (scan ("root:x:0:0:root:/root:/bin/bash\n", uids, 3, &who), ==, 1);
  tap_check_str (who, "uid 0 belongs to user `root`");
  free (who);
  who = NULL;
  /* The first match is named, every match counted; other uids are not. */
  tap_check_int (scan ("daemon:x:1:1::/:/sbin/nologin\nalice:x:1000:1000:Alice:/home/a:/bin/sh\n"
                       "nobody:x:4294967294:65534::/:\nbob:x:1001:1001::/home/b:/bin/sh\n",
                       uids, 3, &who),
                 ==, 2);
  tap_check_str (who, "uid 1000 belongs to user `alice`");
  free (who);
  who = NULL;
  tap_check_int (scan ("bob:x:1001:1001::/home/b:/bin/sh\n", uids, 3, &who), ==, 0);
  tap_check (who == NULL);
  tap_check_int (scan ("", uids, 3, &who), ==, 0);
  tap_check_int (scan ("alice:x:1000:1000::/:\n", uids, 3, NULL), ==, 1);
}

/* Odd lines are skipped without hiding the entries after them. */
static void
test_odd_lines (void)
{
  static const uid_t uids[] = { 7, 8, 9, 10, 11, 12 };
  static const char text[] = "# a comment:x:7:7::/:\n"
                             "\n"
                             "   \n"
                             "+nis:x:7:7::/:\n"
                             "-nis:x:7:7::/:\n"
                             "+\n"
                             ":x:7:7::/:\n"         /* no name */
                             "noname\n"             /* no fields */
                             "nouid:x\n"            /* no uid field */
                             "emptyuid:x::7::/:\n"  /* an empty uid */
                             "signed:x:-7:7::/:\n"  /* not a uid */
                             "junk:x:7junk:7::/:\n" /* not a number */
                             "huge:x:99999999999999999999999:7::/:\n"
                             "bare:x:8\n"               /* no gid and the rest: still an entry */
                             "empty::9:::::\n"          /* empty fields */
                             "last:x:10:10::/:/bin/sh"; /* no final newline */
  cleanup_free char *who = NULL;

  tap_check_int (scan (text, uids, 6, &who), ==, 3);
  tap_check_str (who, "uid 8 belongs to user `bare`");
}

/* A line longer than any fixed buffer is one line: its tail is not read as an entry of its own
 * (as it would be by fgets with a 256- or 1024-byte buffer: the prefix is a multiple of 255 and
 * 1023), and the entry after it is found. */
static void
test_long_line (void)
{
  static const uid_t uids[] = { 5, 6 };
  static const char head[] = "long:x:1:1:";
  size_t prefix = 255 * 1023;
  cleanup_free char *text = xcalloc (prefix + 100, 1);
  cleanup_free char *who = NULL;

  memcpy (text, head, strlen (head));
  memset (text + strlen (head), 'g', prefix - strlen (head));
  strcpy (text + prefix, "fake:x:5:5::/:\nreal:x:6:6::/:\n");
  tap_check_int (scan (text, uids, 2, &who), ==, 1);
  tap_check_str (who, "uid 6 belongs to user `real`");
}

/* ---- login.defs, group, subuid: on memory ---- */

static FILE *
mem (const char *text)
{
  return fmemopen ((void *) text, strlen (text), "r");
}

static void
test_login_defs (void)
{
  static const char text[] = "# UID_MIN 5\n"
                             "\n"
                             "UID_MINIMUM 7\n"      /* another key */
                             "UID_MIN\n"            /* no value */
                             "UID_MIN abc\n"        /* not a number */
                             "UID_MIN 12x\n"        /* not a number */
                             "UID_MIN\t\t 500 \n"   /* blanks around */
                             "  GID_MIN 0x3e8\n"    /* hex, indented */
                             "SYS_UID_MIN 101\n"    /* another key */
                             "PASS_MAX_DAYS 99999"; /* no final newline */
  cleanup_file FILE *f = mem (text);
  unsigned long v = 0;

  tap_require (f);
  tap_check (ucb_login_defs_value (f, "UID_MIN", &v));
  tap_check_int (v, ==, 500);
  rewind (f);
  tap_check (ucb_login_defs_value (f, "GID_MIN", &v));
  tap_check_int (v, ==, 1000);
  rewind (f);
  tap_check (!ucb_login_defs_value (f, "UID_MAX", &v));
  {
    /* The last line wins; a quoted number; octal as shadow reads it. */
    cleanup_file FILE *g = mem ("UID_MIN 100\nUID_MIN \"2000\"\nGID_MIN 010\n");
    tap_require (g);
    tap_check (ucb_login_defs_value (g, "UID_MIN", &v));
    tap_check_int (v, ==, 2000);
    rewind (g);
    tap_check (ucb_login_defs_value (g, "GID_MIN", &v));
    tap_check_int (v, ==, 8);
  }
}

static void
test_group (void)
{
  static const char text[] = "# staff:x:50:\n"
                             "\n"
                             "+nis:x:60::\n"
                             "broken\n"
                             "nogid:x::\n"
                             "neg:x:-55:\n"
                             "root:x:0:\n"
                             "users:x:100:alice,bob\n"
                             "docker:x:999:alice\n"
                             "last:x:150:"; /* no final newline */
  cleanup_file FILE *f = mem (text);
  cleanup_free char *name = NULL;
  unsigned long id = 0;

  tap_require (f);
  tap_check_int (ucb_idfile_find (f, 50, 200, &name, &id), ==, 2);
  tap_check_str (name, "users");
  tap_check_int (id, ==, 100);
  free (name);
  name = NULL;
  rewind (f);
  tap_check_int (ucb_idfile_find (f, 1000, 2000, &name, &id), ==, 0);
  tap_check (name == NULL);
  rewind (f);
  tap_check_int (ucb_idfile_find (f, 150, 150, NULL, NULL), ==, 1);
}

static void
test_subid (void)
{
  static const char text[] = "# alice:100000:65536\n"
                             "\n"
                             "nocount:300000\n"
                             "zero:400000:0\n"
                             "junk:5x:10\n"
                             "neg:-1:10\n"
                             ":500000:10\n"
                             "trail:600000:10x\n"
                             "alice:100000:65536\n"
                             "1001:165536:65536\n" /* owner by uid */
                             "crlf:700000:10 \r\n" /* blanks and a CR before the end */
                             "big:2147483647:2147483648";
  cleanup_file FILE *f = mem (text);
  cleanup_free char *owner = NULL;
  unsigned long start = 0, count = 0;

  tap_require (f);
  /* Overlap at either end, not only inside. */
  tap_check_int (ucb_subid_find (f, 165535, 165536, &owner, &start, &count), ==, 2);
  tap_check_str (owner, "alice");
  tap_check_int (start, ==, 100000);
  tap_check_int (count, ==, 65536);
  free (owner);
  owner = NULL;
  rewind (f);
  tap_check_int (ucb_subid_find (f, 231072, 231072, &owner, NULL, NULL), ==, 0);
  rewind (f);
  tap_check_int (ucb_subid_find (f, 231071, 231071, &owner, NULL, NULL), ==, 1);
  tap_check_str (owner, "1001");
  free (owner);
  owner = NULL;
  /* The malformed lines are no ranges, whatever their numbers. */
  rewind (f);
  tap_check_int (ucb_subid_find (f, 300000, 600009, NULL, NULL, NULL), ==, 0);
  rewind (f);
  tap_check_int (ucb_subid_find (f, 700009, 700009, &owner, NULL, NULL), ==, 1);
  tap_check_str (owner, "crlf");
  free (owner);
  owner = NULL;
  rewind (f);
  tap_check_int (ucb_subid_find (f, 4294967294u, 4294967294u, &owner, NULL, NULL), ==, 1);
  tap_check_str (owner, "big");
}

/* ---- the rule, on files in a temporary directory ---- */

static char tmp[64];

static char *
write_tmp (const char *name, const char *text)
{
  char *path = xasprintf ("%s/%s", tmp, name);
  FILE *f = fopen (path, "w");

  if (f)
    {
      fputs (text, f);
      fclose (f);
    }
  return path;
}

static bool
make_tmp (void)
{
  snprintf (tmp, sizeof tmp, "/tmp/ucb-test-users-XXXXXX");
  return mkdtemp (tmp) != NULL;
}

static void
remove_tmp (void)
{
  cleanup_free char *cmd = xasprintf ("rm -rf '%s'", tmp);
  if (system (cmd) != 0)
    printf ("# could not remove %s\n", tmp);
}

/* `why` is the message `fmt` makes; freed. */
#define check_why(why, ...)                                                                        \
  do                                                                                               \
    {                                                                                              \
      char *want_ = xasprintf (__VA_ARGS__);                                                       \
      tap_check_str (why, want_);                                                                  \
      free (want_);                                                                                \
      free (why);                                                                                  \
      why = NULL;                                                                                  \
    }                                                                                              \
  while (0)

static void
test_rule (void)
{
  cleanup_free char *defs = NULL, *pw = NULL, *gr = NULL, *su = NULL, *sg = NULL;
  cleanup_free char *why = NULL, *valid = NULL;
  struct ucb_id_files f;
  uint64_t past = 0;

  tap_require (make_tmp ());
  defs = write_tmp ("login.defs", "UID_MIN 2000\nGID_MIN 1500\n");
  pw = write_tmp ("passwd", "root:x:0:0::/root:/bin/sh\nalice:x:2500:2500::/home/a:/bin/sh\n");
  gr = write_tmp ("group", "root:x:0:\nproj:x:7000:alice\n");
  su = write_tmp ("subuid", "alice:100000:65536\n");
  sg = write_tmp ("subgid", "alice:300000:65536\n");
  f = (struct ucb_id_files){ defs, pw, gr, su, sg };

  tap_check_int (ucb_uid_min (&f, NULL, NULL), ==, 2000);
  tap_check (!ucb_uid_range_conflict (&f, 3000, 3999, &why, &past));
  tap_check (why == NULL);
  tap_check (ucb_uid_range_conflict (&f, 12, 12, &why, &past));
  check_why (why,
             "uid 12 is below the login range, which starts at 2000 (UID_MIN of %s): the ids of "
             "system accounts",
             defs);
  tap_check_int (past, ==, 2000);
  tap_check (ucb_uid_range_conflict (&f, 2400, 2599, &why, &past));
  check_why (why, "uid 2500 belongs to user `alice` (%s)", pw);
  tap_check_int (past, ==, 2501);
  tap_check (ucb_uid_range_conflict (&f, 6000, 7000, &why, &past));
  check_why (why, "gid 7000 belongs to group `proj` (%s)", gr);
  tap_check_int (past, ==, 7001);
  tap_check (ucb_uid_range_conflict (&f, 165000, 170000, &why, &past));
  check_why (why, "uids 100000-165535 are subordinate uids of `alice` (%s)", su);
  tap_check_int (past, ==, 165536);
  tap_check (ucb_uid_range_conflict (&f, 365535, 365535, &why, &past));
  check_why (why, "gids 300000-365535 are subordinate gids of `alice` (%s)", sg);
  tap_check_int (past, ==, 365536);
  why = NULL;
  valid = ucb_uid_valid_text (&f, 4294967294u);
  tap_check (strstr (valid, "from 2000 (UID_MIN of ") && strstr (valid, ") to 4294967294, clear"));
  /* GID_MIN decides where it is the higher; files that are missing hold no id. */
  free (defs);
  defs = write_tmp ("login.defs", "UID_MIN 1000\nGID_MIN 1500\n");
  f.login_defs = defs;
  tap_check (ucb_uid_range_conflict (&f, 1200, 1200, &why, &past));
  tap_check (why && strstr (why, "starts at 1500 (GID_MIN of "));
  free (why);
  why = NULL;
  f = (struct ucb_id_files){ "/nonexistent/a", "/nonexistent/b", "/nonexistent/c", "/nonexistent/d",
                             "/nonexistent/e" };
  tap_check_int (ucb_uid_min (&f, NULL, NULL), ==, UCB_UID_MIN_DEFAULT);
  tap_check (!ucb_uid_range_conflict (&f, 1000, 4294967294u, &why, &past));
  tap_check (ucb_uid_range_conflict (&f, 999, 999, &why, &past));
  tap_check (why && strstr (why, "starts at 1000 (UID_MIN, 1000 where /nonexistent/a sets none)"));
  remove_tmp ();
}

/* The default ranges of run and verify keep the rule on this host's files. */
static void
test_defaults_clear (void)
{
  cleanup_free char *why = NULL;
  uint64_t past;

  /* A host may give them away (a subuid range over them): then run and verify move on, and
   * there is nothing to check here. */
  if (ucb_uid_range_conflict (NULL, 2100000000u, 2100000000u + 4095, &why, &past)
      || ucb_uid_range_conflict (NULL, 2101000000u, 2101000000u + 9999, &why, &past))
    {
      printf ("# %s\n", why);
      tap_skip ("this host's ids take a default range");
    }
}

/* ---- the lock ---- */

/* In a child: try [first, last] on a lock file of its own opening; exit 0 held, 10 + the
 * holder's pid matching `parent`, 1 otherwise. */
static int
child_try (const char *dir, uint64_t first, uint64_t last, pid_t parent)
{
  pid_t pid = fork ();
  int status = 0;

  if (pid == 0)
    {
      ucb_error_t e = NULL;
      char *why = NULL;
      struct ucb_uidlock_holder h = { 0 };
      int fd = ucb_uidlock_open (dir, &why, &e), r;

      if (fd < 0)
        _exit (1);
      r = ucb_uidlock_take (fd, first, last, &h, &e);
      _exit (r == 0 ? 0 : r == 1 && h.pid == parent && h.first <= last && h.last >= first ? 10 : 1);
    }
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}

static void
test_lock (void)
{
  cleanup_free char *dir = NULL, *file = NULL;
  ucb_error_t e = NULL;
  char *why = NULL;
  struct ucb_uidlock_holder h;
  int fd, fd2;

  tap_require (make_tmp ());
  dir = xasprintf ("%s/locks", tmp);
  file = xasprintf ("%s/%s", dir, UCB_UIDLOCK_FILE);
  fd = ucb_uidlock_open (dir, &why, &e); /* made: the directory, then the file */
  tap_require (fd >= 0);
  tap_check_int (ucb_uidlock_take (fd, 2100000000u, 2100000099u, &h, &e), ==, 0);
  /* Another process: refused over any overlap, told our pid; beside it, held. */
  tap_check_int (child_try (dir, 2100000099u, 2100000199u, getpid ()), ==, 10);
  tap_check_int (child_try (dir, 4294967000u, 4294967294u, getpid ()), ==, 0);
  tap_check_int (child_try (dir, 2100000100u, 2100000199u, getpid ()), ==, 0);
  /* A fork neither holds nor, closing its copy of the fd, drops ours. */
  {
    pid_t pid = fork ();
    if (pid == 0)
      {
        close (fd);
        _exit (0);
      }
    waitpid (pid, NULL, 0);
  }
  tap_check_int (child_try (dir, 2100000000u, 2100000000u, getpid ()), ==, 10);
  ucb_uidlock_drop (fd, 2100000000u, 2100000099u);
  tap_check_int (child_try (dir, 2100000000u, 2100000099u, getpid ()), ==, 0);
  /* Unsafe: a world-writable directory, a symbolic link, a file of another owner. */
  tap_check (chmod (dir, 0777) == 0);
  fd2 = ucb_uidlock_open (dir, &why, &e);
  tap_check_int (fd2, ==, -1);
  tap_check (e && strstr (e->msg, "writable by its group or by everyone"));
  ucb_error_free (&e);
  tap_check (chmod (dir, 0755) == 0);
  {
    cleanup_free char *link = xasprintf ("%s/link", tmp);
    tap_check (symlink (dir, link) == 0);
    tap_check_int (ucb_uidlock_open (link, &why, &e), ==, -1);
    tap_check (e && strstr (e->msg, "symbolic link"));
    ucb_error_free (&e);
  }
  if (geteuid () == 0)
    {
      tap_check (chown (file, 1, 1) == 0);
      tap_check_int (ucb_uidlock_open (dir, &why, &e), ==, -1);
      tap_check (e && strstr (e->msg, "is owned by uid 1, neither root nor"));
      ucb_error_free (&e);
    }
  close (fd);
  remove_tmp ();
}

static const struct tap_test tests[] = {
  { "passwd: entries found by uid, the first named", test_entries },
  { "passwd: comments, empty lines and fields, NIS lines, bad uids, no final newline",
    test_odd_lines },
  { "passwd: a line longer than any buffer is one line", test_long_line },
  { "login.defs: the last UID_MIN, comments, other keys, bad values, hex and octal",
    test_login_defs },
  { "group: entries found by gid, odd lines skipped", test_group },
  { "subuid: ranges that overlap, odd lines skipped", test_subid },
  { "the uid rule: below UID_MIN/GID_MIN, an account, a group, a subordinate range", test_rule },
  { "the default ranges keep the rule here", test_defaults_clear },
  { "the uid lock: one holder per range, named; unsafe directories and files refused", test_lock },
};

TAP_MAIN (tests)
