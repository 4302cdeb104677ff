/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-users.c - the passwd(5) reader that replaced getpwent (a static binary cannot load the
 * host's NSS modules): entries found by uid, whatever odd lines surround them (comments, empty
 * lines and fields, NIS lines, bad uids, a line longer than any buffer, no final newline). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "core/util.h"
#include "host/users.h"

/* The users of `uids` (sorted) in the file `text`; the first described in `who`. */
static size_t
scan (const char *text, const uid_t *uids, size_t n, char **who)
{
  cleanup_file FILE *f = fmemopen ((void *) text, strlen (text), "r");

  if (f == NULL)
    return (size_t) -1;
  return ucb_passwd_find_users (f, uids, n, who);
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

static const struct tap_test tests[] = {
  { "passwd: entries found by uid, the first named", test_entries },
  { "passwd: comments, empty lines and fields, NIS lines, bad uids, no final newline",
    test_odd_lines },
  { "passwd: a line longer than any buffer is one line", test_long_line },
};

TAP_MAIN (tests)
