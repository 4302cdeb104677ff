/* fuzz-docload.c - fuzz the readers of result documents: the loader, compare, export (every
 * format) and plot get arbitrary bytes as a document; none may crash, hang or leak, and every
 * refusal must be a usage error (exit status 2) or a clean result.
 *
 * Built two ways: with -fsanitize=fuzzer (clang; `make fuzz`), LLVMFuzzerTestOneInput is the
 * libFuzzer entry point.  Otherwise a small driver (the `make check` test) mutates the example
 * documents for a few seconds (bit flips, truncation, byte insertion and deletion, splices)
 * and prints TAP. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int
main (int argc, char **argv)
{
  const char *srcdir = getenv ("top_srcdir");
  double seconds = argc > 1 ? atof (argv[1]) : 3.0;
  cleanup_free char *p1 = xasprintf ("%s/examples/run-small.json", srcdir ? srcdir : ".");
  cleanup_free char *p2 = xasprintf ("%s/examples/verify-small.json", srcdir ? srcdir : ".");
  size_t l1 = 0, l2 = 0, runs = 0;
  cleanup_free char *d1 = slurp (p1, &l1);
  cleanup_free char *d2 = slurp (p2, &l2);
  uint64_t end;
  int tap;

  snprintf (doc_path, sizeof doc_path, "/tmp/ucb-fuzz-%d.json", (int) getpid ());
  snprintf (out_path, sizeof out_path, "/tmp/ucb-fuzz-%d.out", (int) getpid ());
  printf ("TAP version 13\n1..2\n");
  fflush (stdout);
  /* The commands print to stdout: keep the TAP on the real one, send theirs to /dev/null. */
  tap = dup (STDOUT_FILENO);
  if (d1 == NULL || d2 == NULL || tap < 0 || freopen ("/dev/null", "w", stdout) == NULL)
    {
      fprintf (stderr, "cannot read the example documents under %s\n", srcdir);
      return 1;
    }
  end = ucb_now_ns () + (uint64_t) (seconds * 1e9);
  LLVMFuzzerTestOneInput ((const uint8_t *) d1, l1);
  LLVMFuzzerTestOneInput ((const uint8_t *) d2, l2);
  while (ucb_now_ns () < end)
    {
      size_t cap = (l1 > l2 ? l1 : l2) + 4096, len;
      uint8_t *buf = xcalloc (cap, 1);
      bool first = next () % 2;
      const char *src = first ? d1 : d2;

      len = first ? l1 : l2;
      memcpy (buf, src, len);
      len = mutate (buf, len, cap, (const uint8_t *) (first ? d2 : d1), first ? l2 : l1);
      LLVMFuzzerTestOneInput (buf, len);
      free (buf);
      runs++;
    }
  unlink (doc_path);
  dprintf (tap, "ok 1 - %zu mutated documents through compare, export and plot, no crash\n", runs);
  dprintf (tap, "%s 2 - every refusal is a usage error or a clean failure\n",
           bad_status ? "not ok" : "ok");
  close (tap);
  return bad_status ? 1 : 0;
}
#endif
