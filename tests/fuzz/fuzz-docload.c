/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-docload.c - fuzz the readers of result documents: the loader, compare, export (every
 * format) and plot get arbitrary bytes as a document; none may crash, hang or leak, and every
 * refusal must be a usage error (exit status 2) or a clean result.
 *
 * Built two ways: with -fsanitize=fuzzer (clang; `make fuzz`), LLVMFuzzerTestOneInput is the
 * libFuzzer entry point.  Otherwise a small driver (the `make check` test) mutates the example
 * documents for a few seconds (bit flips, truncation, byte insertion and deletion, splices)
 * and prints TAP.  Each input runs in a child of its own, so that a crash, a sanitizer report,
 * a leak (LeakSanitizer's exit status) or a hang fails the test and leaves the input behind in
 * a file named in the TAP line; a self-test first shows that the detector does see a crash. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/util.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char doc_path[64], out_path[64];
static int bad_status;

static void
run_cmd (int (*fn) (int, char **, ucb_error_t *), int argc, char **argv)
{
  ucb_error_t err = NULL;
  int r = fn (argc, argv, &err);

  /* Allowed: success (0), a regression verdict (1, compare), a usage error (2), or an
   * unwritable output (1).  Anything else is a harness bug worth a look. */
  if (r < 0 && err && err->status != UCB_EXIT_USAGE && err->status != UCB_EXIT_FAILURE)
    bad_status++;
  ucb_error_free (&err);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const formats[]
      = { "gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap" };
  FILE *f = fopen (doc_path, "we");

  if (f == NULL)
    return 0;
  if (size)
    fwrite (data, 1, size, f);
  fclose (f);
  {
    char *argv[] = { (char *) "compare", doc_path, doc_path, NULL };
    run_cmd (ucb_cmd_compare, 3, argv);
  }
  for (size_t i = 0; i < UCB_ARRAY_SIZE (formats); i++)
    {
      char *argv[] = { (char *) "export",
                       (char *) "--to",
                       (char *) formats[i],
                       doc_path,
                       (char *) "--output",
                       out_path,
                       NULL };
      run_cmd (ucb_cmd_export, 6, argv);
    }
  {
    char svg[80];
    snprintf (svg, sizeof svg, "%s.svg", out_path);
    char *argv[] = { (char *) "plot", doc_path, (char *) "--output", svg, NULL };
    run_cmd (ucb_cmd_plot, 4, argv);
    unlink (svg);
  }
  unlink (out_path);
  return 0;
}

#ifndef UCB_LIBFUZZER
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
next (void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static char *
slurp (const char *path, size_t *len)
{
  char *buf = NULL;
  ucb_error_t err = NULL;

  if (ucb_read_file (path, &buf, &err) < 0)
    {
      ucb_error_free (&err);
      return NULL;
    }
  *len = strlen (buf);
  return buf;
}

static size_t
mutate (uint8_t *buf, size_t len, size_t cap, const uint8_t *other, size_t olen)
{
  int n = 1 + (int) (next () % 8);

  for (int k = 0; k < n && len > 0; k++)
    switch (next () % 6)
      {
      case 0: /* flip a bit */
        buf[next () % len] ^= (uint8_t) (1u << (next () % 8));
        break;
      case 1: /* truncate */
        len = next () % len;
        break;
      case 2: /* insert a JSON-ish byte */
        if (len < cap)
          {
            size_t at = next () % (len + 1);
            memmove (buf + at + 1, buf + at, len - at);
            buf[at] = (uint8_t) "{}[]\",:0-9e.nul\\"[next () % 17];
            len++;
          }
        break;
      case 3: /* delete a byte */
        {
          size_t at = next () % len;
          memmove (buf + at, buf + at + 1, len - at - 1);
          len--;
        }
        break;
      case 4: /* splice a piece of the other document */
        if (olen > 0)
          {
            size_t from = next () % olen, at = next () % len;
            size_t m = 1 + next () % 64;
            if (from + m > olen)
              m = olen - from;
            if (at + m > cap)
              m = cap - at;
            memcpy (buf + at, other + from, m);
            if (at + m > len)
              len = at + m;
          }
        break;
      default: /* a number to an extreme */
        {
          size_t at = next () % len;
          const char *big = "1e999";
          for (size_t j = 0; j < 5 && at + j < len; j++)
            buf[at + j] = (uint8_t) big[j];
        }
        break;
      }
  return len;
}

/* Child exit status for "ran, but a refusal had the wrong status" (anything else non-zero is a
 * crash, a sanitizer report or a hang). */
#define BAD_STATUS_EXIT 3
#define INPUT_TIMEOUT_S 20

/* Run one input in a child.  0 = clean, 1 = a wrong refusal status, -1 = the child crashed,
 * hung, leaked or reported (then `*why` says how and the input is saved under `saved`). */
static int
run_isolated (const uint8_t *buf, size_t len, bool selftest_crash, char *why, size_t whylen)
{
  int status;
  pid_t pid = fork ();

  if (pid < 0)
    {
      snprintf (why, whylen, "fork failed");
      return -1;
    }
  if (pid == 0)
    {
      alarm (INPUT_TIMEOUT_S);
      if (selftest_crash)
        abort ();
      LLVMFuzzerTestOneInput (buf, len);
      exit (bad_status ? BAD_STATUS_EXIT : 0); /* exit(), not _exit(): LeakSanitizer runs */
    }
  while (waitpid (pid, &status, 0) < 0)
    ;
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return 0;
  if (WIFEXITED (status) && WEXITSTATUS (status) == BAD_STATUS_EXIT)
    return 1;
  if (WIFSIGNALED (status))
    snprintf (why, whylen, "%s",
              WTERMSIG (status) == SIGALRM ? "hang" : strsignal (WTERMSIG (status)));
  else
    snprintf (why, whylen, "exit status %d (a sanitizer report?)", WEXITSTATUS (status));
  return -1;
}

static void
save_input (const uint8_t *buf, size_t len, char *path, size_t pathlen)
{
  FILE *f;

  snprintf (path, pathlen, "/tmp/ucb-fuzz-crash-%d.json", (int) getpid ());
  f = fopen (path, "we");
  if (f)
    {
      fwrite (buf, 1, len, f);
      fclose (f);
    }
}

int
main (int argc, char **argv)
{
  const char *srcdir = getenv ("top_srcdir");
  const char *seed_env = getenv ("UCB_FUZZ_SEED");
  double seconds = argc > 1 ? atof (argv[1]) : 3.0;
  cleanup_free char *p1 = xasprintf ("%s/examples/run-small.json", srcdir ? srcdir : ".");
  cleanup_free char *p2 = xasprintf ("%s/examples/verify-small.json", srcdir ? srcdir : ".");
  size_t l1 = 0, l2 = 0, runs = 0, wrong = 0;
  cleanup_free char *d1 = slurp (p1, &l1);
  cleanup_free char *d2 = slurp (p2, &l2);
  char why[128] = "", saved[96] = "", selfwhy[128] = "";
  int crashed = 0, self;
  uint64_t end, seed;
  int tap;

  seed = seed_env ? strtoull (seed_env, NULL, 0) : (uint64_t) time (NULL) ^ (uint64_t) getpid ();
  rng = seed ? seed : 0x9e3779b97f4a7c15ull;
  snprintf (doc_path, sizeof doc_path, "/tmp/ucb-fuzz-%d.json", (int) getpid ());
  snprintf (out_path, sizeof out_path, "/tmp/ucb-fuzz-%d.out", (int) getpid ());
  printf ("TAP version 13\n1..3\n# seed %llu (UCB_FUZZ_SEED=%llu reproduces it)\n",
          (unsigned long long) seed, (unsigned long long) seed);
  fflush (stdout);
  /* The commands print to stdout: keep the TAP on the real one, send theirs to /dev/null. */
  tap = dup (STDOUT_FILENO);
  if (d1 == NULL || d2 == NULL || tap < 0 || freopen ("/dev/null", "w", stdout) == NULL)
    {
      fprintf (stderr, "cannot read the example documents under %s\n", srcdir);
      return 1;
    }
  /* The detector must be able to fail: a child that aborts has to be seen as a crash. */
  self = run_isolated ((const uint8_t *) d1, l1, true, selfwhy, sizeof selfwhy);
  dprintf (tap, "%s 1 - self-test: an input whose run aborts is reported (%s)\n",
           self < 0 ? "ok" : "not ok", self < 0 ? selfwhy : "not seen");
  end = ucb_now_ns () + (uint64_t) (seconds * 1e9);
  for (int k = 0; crashed == 0 && (k < 2 || ucb_now_ns () < end); k++, runs++)
    {
      size_t cap = (l1 > l2 ? l1 : l2) + 4096, len;
      cleanup_free uint8_t *buf = xcalloc (cap, 1);
      bool first = k < 2 ? k == 0 : next () % 2;
      int r;

      len = first ? l1 : l2;
      memcpy (buf, first ? d1 : d2, len);
      if (k >= 2) /* the two documents as they are, then mutants */
        len = mutate (buf, len, cap, (const uint8_t *) (first ? d2 : d1), first ? l2 : l1);
      r = run_isolated (buf, len, false, why, sizeof why);
      if (r > 0)
        wrong++;
      else if (r < 0)
        {
          crashed = 1;
          save_input (buf, len, saved, sizeof saved);
        }
    }
  unlink (doc_path);
  unlink (out_path);
  if (crashed)
    dprintf (
        tap,
        "not ok 2 - %zu documents through compare, export and plot: %s on the input saved as %s\n",
        runs, why, saved);
  else
    dprintf (tap,
             "ok 2 - %zu documents through compare, export and plot: no crash, hang, leak or "
             "sanitizer report\n",
             runs);
  dprintf (tap, "%s 3 - every refusal is a usage error or a clean failure (%zu wrong)\n",
           wrong ? "not ok" : "ok", wrong);
  close (tap);
  return self < 0 && !crashed && !wrong ? 0 : 1;
}
#endif
