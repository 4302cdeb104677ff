/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-seccomp-size.c - a profile's BPF program against the kernel's 4096 instructions (issue 25
 * item 9): the size known from the rules counts every comparison of a rule and never exceeds
 * the compiled one (shapes that share, swap or drop comparisons, rules that cover others,
 * Docker's profile, random profiles of one and of several comparisons a rule), a profile over
 * the limit is refused with one line naming its size and the limit, before compiling when the
 * rules tell (2500 rules of two comparisons), and one under it builds. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "host/seccomp.h"

#ifdef HAVE_SECCOMP
#include <jansson.h>
#include <linux/filter.h>

#include "cli/seccomp-profile.h"
#include "host/seccomp-size.h"

/* `file` read and made into rules at `opt`, as ucb_seccomp_build does before compiling. */
static int
rules_of (const char *file, int opt, void **ctx, struct ucb_seccomp_stats *st, unsigned *min,
          ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *p = NULL;
  struct ucb_seccomp_opts o = { .optimize = opt };

  *ctx = NULL;
  memset (st, 0, sizeof *st);
  if (ucb_seccomp_profile_read (file, &p, err) < 0)
    return -1;
  o.profile = p;
  return ucb_seccomp_rules (&o, opt, ctx, st, min, err);
}

/* `file` read and built, as a run does. */
static int
build_file (const char *file, struct ucb_seccomp **s, struct ucb_seccomp_stats *st,
            ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *p = NULL;
  struct ucb_seccomp_opts o = { .optimize = 1 };

  if (ucb_seccomp_profile_read (file, &p, err) < 0)
    return -1;
  o.profile = p;
  return ucb_seccomp_build (&o, s, st, err);
}

static char path[64];

static void
remove_profile (void)
{
  unlink (path);
}

static json_t *
cmp (int index, const char *op, uint64_t value, uint64_t two)
{
  return json_pack ("{s:i, s:I, s:I, s:s}", "index", index, "value", (json_int_t) value, "valueTwo",
                    (json_int_t) two, "op", op);
}

/* A rule on `call`: `action` (an SCMP_ACT_ name; ERRNO with errno `e`), comparisons `args`
 * (stolen; NULL for none). */
static json_t *
rule (const char *call, const char *action, int e, json_t *args)
{
  json_t *r = json_pack ("{s:[s], s:s, s:i}", "names", call, "action", action, "errnoRet", e);
  if (args)
    json_object_set_new (r, "args", args);
  return r;
}

static json_t *
profile (const char *def)
{
  return json_pack ("{s:s, s:[]}", "defaultAction", def, "syscalls");
}

static void
add (json_t *doc, json_t *r)
{
  json_array_append_new (json_object_get (doc, "syscalls"), r);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* The profile's file, made once and removed at exit. */
static void
make_path (void)
{
  int fd;

  if (path[0])
    return;
  snprintf (path, sizeof path, "/tmp/ucb-test-scsize-XXXXXX");
  fd = mkstemp (path);
  if (fd < 0)
    abort ();
  close (fd);
  atexit (remove_profile);
}

/* The distinct jumps (argument, JEQ/JGT/JGE, value) of `prog` on an argument's low word: the
 * words the accumulator may hold at each jump, followed along every branch (BPF jumps go
 * forward only).  Every jump the bound counts is one of them. */
static unsigned
low_jumps (const struct sock_filter *prog, unsigned len)
{
  cleanup_free uint32_t *acc = xcalloc (len + 1, sizeof *acc); /* bit w: word w of seccomp_data */
  cleanup_free uint64_t *seen = xcalloc ((size_t) len * 6 + 1, sizeof *seen);
  size_t nseen = 0, distinct = 0;

  for (unsigned i = 0; i < len; i++)
    {
      uint16_t code = prog[i].code;
      uint32_t out = 1u << 31; /* unknown */

      if (code == (BPF_LD | BPF_W | BPF_ABS) && prog[i].k < 64)
        out = 1u << (prog[i].k / 4);
      else if (code == (BPF_ALU | BPF_AND | BPF_K))
        out = acc[i];
      if (BPF_CLASS (code) == BPF_RET)
        continue;
      if (BPF_CLASS (code) != BPF_JMP)
        {
          if (i + 1 < len)
            acc[i + 1] |= out;
          continue;
        }
      if (BPF_OP (code) == BPF_JA)
        {
          if (i + 1 + prog[i].k < len)
            acc[i + 1 + prog[i].k] |= acc[i];
          continue;
        }
      if (i + 1 + prog[i].jt < len)
        acc[i + 1 + prog[i].jt] |= acc[i];
      if (i + 1 + prog[i].jf < len)
        acc[i + 1 + prog[i].jf] |= acc[i];
      if (BPF_SRC (code) != BPF_K)
        continue;
      for (unsigned w = 4; w < 16; w += 2) /* args[0..5], low words (little-endian) */
        if (acc[i] & (1u << w))
          seen[nseen++]
              = ((uint64_t) ((w - 4) / 2) << 40) | ((uint64_t) BPF_OP (code) << 32) | prog[i].k;
    }
  qsort (seen, nseen, sizeof *seen, cmp_u64);
  for (size_t i = 0; i < nseen; i++)
    distinct += i == 0 || seen[i] != seen[i - 1];
  return (unsigned) distinct;
}

/* Read `doc` (freed) at `opt`: the fewest instructions its rules need and, compiled, its size
 * and its distinct low-word jumps (`lo`, may be NULL); 0, or -1 when libseccomp refuses the
 * rules (a conflict a random profile may have). */
static int
sizes (json_t *doc, int opt, unsigned *min, unsigned *len, unsigned *lo)
{
  struct ucb_seccomp_stats st;
  struct sock_filter *prog = NULL;
  ucb_error_t err = NULL;
  void *ctx = NULL;
  int rc;

  make_path ();
  if (json_dump_file (doc, path, 0) < 0)
    abort ();
  json_decref (doc);
  rc = rules_of (path, opt, &ctx, &st, min, &err);
  if (rc == 0)
    rc = ucb_seccomp_compile (ctx, &prog, len, &err);
  if (rc == 0 && lo)
    *lo = low_jumps (prog, *len);
  if (ctx)
    seccomp_release (ctx);
  free (prog);
  ucb_error_free (&err);
  return rc;
}

/* One EQ rule per value: the bound is the count of values, the program a little more. */
static void
test_values (void)
{
  json_t *doc = profile ("SCMP_ACT_ALLOW");
  unsigned min = 0, len = 0, lo = 0;

  for (int i = 0; i < 300; i++)
    add (doc,
         rule ("acct", "SCMP_ACT_ERRNO", 1, json_pack ("[o]", cmp (0, "SCMP_CMP_EQ", 7 + i, 0))));
  tap_check_int (sizes (doc, 1, &min, &len, &lo), ==, 0);
  tap_check_int (min, ==, 300);
  tap_check_int (lo, ==, 300);
  tap_check_int (len, >=, min);
  tap_check_int (len, <, min + 100);
  printf ("# 300 values: at least %u, compiled %u\n", min, len);
}

/* An SCMP_ACT_ERRNO rule on `call` with one comparison. */
static void
one (json_t *doc, const char *call, int index, const char *op, uint64_t value, uint64_t two)
{
  add (doc, rule (call, "SCMP_ACT_ERRNO", 1, json_pack ("[o]", cmp (index, op, value, two))));
}

/* Shapes where comparisons are shared, swapped or dropped: profile `k` of test_shapes. */
static json_t *
shape (size_t k)
{
  static const char *const calls[] = { "acct", "syslog", "chroot", "swapon", "swapoff", "vhangup" };
  static const char *const ops[] = { "SCMP_CMP_EQ", "SCMP_CMP_NE", "SCMP_CMP_GT",
                                     "SCMP_CMP_LE", "SCMP_CMP_GE", "SCMP_CMP_LT" };
  json_t *doc = profile ("SCMP_ACT_ALLOW");

  for (int i = 0; i < 40 && k == 0; i++)
    for (size_t c = 0; c < 6; c++)
      one (doc, calls[c], 1, "SCMP_CMP_EQ", 100 + (uint64_t) i, 0);
  for (int i = 0; i < 40 && k == 1; i++)
    one (doc, "acct", 1, "SCMP_CMP_EQ", ((uint64_t) i << 32) | (unsigned) (i % 5), 0);
  for (size_t c = 0; c < 6 && k == 2; c++)
    one (doc, calls[c], 0, ops[c], 9, 0);
  if (k == 3)
    {
      one (doc, "acct", 0, "SCMP_CMP_MASKED_EQ", 0, 5);
      one (doc, "syslog", 0, "SCMP_CMP_MASKED_EQ", 1ull << 40, 0);
      one (doc, "chroot", 0, "SCMP_CMP_MASKED_EQ", 0xf0, 0x13);
      one (doc, "swapon", 0, "SCMP_CMP_MASKED_EQ", 0xf0, 0x1f);
    }
  if (k == 4)
    {
      add (doc, rule ("acct", "SCMP_ACT_ERRNO", 1, NULL));
      for (int i = 0; i < 30; i++)
        add (doc, rule ("acct", "SCMP_ACT_KILL_PROCESS", 0,
                        json_pack ("[o]", cmp (0, "SCMP_CMP_EQ", 50 + (uint64_t) i, 0))));
      one (doc, "syslog", 0, "SCMP_CMP_EQ", 1, 0);
      one (doc, "syslog", 0, "SCMP_CMP_EQ", 2, 0);
    }
  if (k == 5)
    {
      add (doc,
           rule ("acct", "SCMP_ACT_ERRNO", 1,
                 json_pack ("[o,o]", cmp (3, "SCMP_CMP_EQ", 1, 0), cmp (2, "SCMP_CMP_EQ", 2, 0))));
      add (doc,
           rule ("syslog", "SCMP_ACT_ERRNO", 1,
                 json_pack ("[o,o]", cmp (1, "SCMP_CMP_EQ", 3, 0), cmp (1, "SCMP_CMP_EQ", 4, 0))));
    }
  if (k == 6) /* libseccomp drops the longer rule: a1 == 5 already decides */
    {
      one (doc, "acct", 1, "SCMP_CMP_EQ", 5, 0);
      add (doc,
           rule ("acct", "SCMP_ACT_ERRNO", 1,
                 json_pack ("[o,o]", cmp (0, "SCMP_CMP_EQ", 7, 0), cmp (1, "SCMP_CMP_EQ", 5, 0))));
    }
  for (int i = 0; i < 10 && k == 7; i++)
    add (doc, rule ("acct", "SCMP_ACT_ERRNO", 1,
                    json_pack ("[o,o]", cmp (0, "SCMP_CMP_EQ", 10 + (uint64_t) i, 0),
                               cmp (1, "SCMP_CMP_EQ", 100 + (uint64_t) i, 0))));
  return doc;
}

/* The bound stays under the program and counts what it should. */
static void
test_shapes (void)
{
  static const struct
  {
    const char *what;
    unsigned want;
  } shapes[] = {
    { "the same 40 values on 6 calls", 40 },
    { "40 values, 5 low words", 5 },
    { "EQ/NE, GT/LE, GE/LT of one value", 3 },
    { "MASKED_EQ: no mask, high mask only, masked alike", 1 },
    { "a call with a rule without conditions", 2 },
    { "every comparison of a rule; one index twice: split", 4 },
    { "a rule that a shorter one decides: none of it", 1 },
    { "10 rules of two comparisons: both of each", 20 },
  };

  for (size_t k = 0; k < UCB_ARRAY_SIZE (shapes); k++)
    {
      unsigned min = 0, len = 0, lo = 0;

      tap_check_int (sizes (shape (k), 1, &min, &len, &lo), ==, 0);
      printf ("# %s: at least %u, compiled %u with %u low-word jumps\n", shapes[k].what, min, len,
              lo);
      tap_check_int (min, ==, shapes[k].want);
      tap_check_int (min, <=, lo);
    }
}

/* Random profiles: random calls, actions, operators, indexes and values (high words too), at
 * both layouts; the bound never exceeds the program.  A rule compares one argument, or one twice
 * (split in two rules): libseccomp 2.5.4 loops for ever in seccomp_rule_add on some pairs of
 * rules that compare two (on one call, one action: a0 NE x and a1 GE y, a0 NE x and a3 LE z). */
static void
test_random (void)
{
  static const char *const calls[] = { "acct", "syslog", "chroot", "swapon", "personality" };
  static const char *const ops[]
      = { "SCMP_CMP_EQ", "SCMP_CMP_NE", "SCMP_CMP_LT",       "SCMP_CMP_LE",
          "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ" };
  static const char *const acts[]
      = { "SCMP_ACT_ERRNO", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_LOG", "SCMP_ACT_ALLOW" };
  static const uint64_t vals[] = { 0, 1, 2, 3, 0xff, 1ull << 32, (1ull << 32) | 1, 1ull << 40 };
  const char *fixed = getenv ("UCB_TEST_SEED"); /* to repeat a run */
  unsigned seed = fixed ? (unsigned) atol (fixed) : (unsigned) time (NULL), built = 0, worst = 0;

  printf ("# seed %u\n", seed);
  srand (seed);
  for (int p = 0; p < 300; p++)
    {
      json_t *doc = profile (p % 2 ? "SCMP_ACT_ALLOW" : "SCMP_ACT_ERRNO");
      int nrules = 1 + rand () % 40;
      unsigned min = 0, len = 0, lo = 0;

      for (int i = 0; i < nrules; i++)
        {
          json_t *args = json_array ();
          int nargs = rand () % 3, index = rand () % 6;
          for (int a = 0; a < nargs; a++)
            json_array_append_new (args, cmp (index, ops[rand () % 7],
                                              vals[rand () % 8] + (uint64_t) (rand () % 4),
                                              vals[rand () % 8]));
          add (doc, rule (calls[rand () % 5], acts[rand () % 4], 1 + rand () % 2, args));
        }
      if (sizes (doc, 1 + p % 3 / 2, &min, &len, &lo) < 0)
        continue;
      built++;
      tap_check_int (min, <=, lo);
      worst = min > worst ? min : worst;
    }
  printf ("# %u random profiles built, largest bound %u\n", built, worst);
  tap_check_int (built, >=, 100);
}

/* `sizes` in a child that libseccomp may hang: 1 when it ended, 0 when it was stopped. */
static int
sizes_bounded (json_t *doc, int opt, int *rc, unsigned *min, unsigned *lo)
{
  int fd[2], status;
  unsigned got[4];
  pid_t pid;

  make_path (); /* here, so that the file is removed at the end */
  if (pipe (fd) < 0 || (pid = fork ()) < 0)
    abort ();
  if (pid == 0)
    {
      close (fd[0]);
      alarm (5); /* each ends in milliseconds, but for libseccomp's endless loops */
      got[0] = (unsigned) sizes (doc, opt, &got[1], &got[2], &got[3]);
      _exit (write (fd[1], got, sizeof got) == (ssize_t) sizeof got ? 0 : 1);
    }
  close (fd[1]);
  json_decref (doc);
  status = read (fd[0], got, sizeof got) == (ssize_t) sizeof got;
  close (fd[0]);
  waitpid (pid, NULL, 0);
  *rc = (int) got[0];
  *min = got[1];
  *lo = got[3];
  return status;
}

/* Random profiles of rules that compare one to four arguments, drawn from a few comparisons an
 * argument so that rules share, extend and cover each other: the bound never exceeds the
 * program (a third of the profiles EQ and MASKED_EQ only).  libseccomp 2.5.4 loops for ever
 * adding some rules of several comparisons when one before the last is not EQ or MASKED_EQ (a
 * third of such profiles here): those are made EQ, and each profile runs in a child, stopped
 * after 5 s should another shape loop. */
static void
test_random_multi (void)
{
  static const char *const ops[]
      = { "SCMP_CMP_EQ", "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE", "SCMP_CMP_LT",
          "SCMP_CMP_LE", "SCMP_CMP_GE",        "SCMP_CMP_GT" };
  static const char *const acts[] = { "SCMP_ACT_ERRNO", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_LOG" };
  static const uint64_t vals[] = { 0, 1, 2, 0xff, 1ull << 32, (1ull << 32) | 1 };
  const char *fixed = getenv ("UCB_TEST_SEED");
  unsigned seed = fixed ? (unsigned) atol (fixed) : (unsigned) time (NULL) + 1;
  unsigned built = 0, stopped = 0, multi = 0, tight = 0;

  printf ("# seed %u\n", seed);
  srand (seed);
  for (int p = 0; p < 150; p++)
    {
      json_t *doc = profile ("SCMP_ACT_ALLOW");
      struct
      {
        int op;
        uint64_t value, two;
      } pool[4][3];
      unsigned min = 0, lo = 0;
      int rc, nrules = 2 + rand () % 20;

      for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++)
          {
            pool[a][c].op = rand () % 7;
            pool[a][c].value = vals[rand () % 6] + (uint64_t) (rand () % 3);
            pool[a][c].two = vals[rand () % 6];
          }
      for (int i = 0; i < nrules; i++)
        {
          json_t *args = json_array ();
          unsigned used = (unsigned) (1 + rand () % 15); /* which of the 4 arguments */
          for (int a = 0; a < 4; a++)
            if (used & (1u << a))
              {
                int c = rand () % 3,
                    op = p % 3 == 0 || used >> (a + 1) ? pool[a][c].op % 2 : pool[a][c].op;
                json_array_append_new (args, cmp (a, ops[op], pool[a][c].value, pool[a][c].two));
              }
          multi += json_array_size (args) > 1;
          add (doc, rule (rand () % 4 ? "acct" : "syslog", acts[rand () % 3], 1, args));
        }
      if (!sizes_bounded (doc, 1 + p % 2, &rc, &min, &lo))
        {
          stopped++;
          continue;
        }
      if (rc < 0)
        continue;
      built++;
      tap_check_int (min, <=, lo);
      tight += min + 2 >= lo;
    }
  printf ("# %u built (bound within 2 of the program's low-word jumps in %u), %u stopped "
          "(libseccomp looping), %u rules of several comparisons\n",
          built, tight, stopped, multi);
  tap_check_int (built, >=, 60);
}

static void
test_docker (void)
{
  struct ucb_seccomp_stats st;
  struct sock_filter *prog = NULL;
  ucb_error_t err = NULL;
  unsigned min = 0, len = 0;
  void *ctx = NULL;

  for (int opt = 1; opt <= 2; opt++)
    {
      tap_check_int (rules_of ("docker", opt, &ctx, &st, &min, &err), ==, 0);
      tap_check_int (ucb_seccomp_compile (ctx, &prog, &len, &err), ==, 0);
      printf ("# docker opt %d: at least %u, compiled %u with %u low-word jumps\n", opt, min, len,
              low_jumps (prog, len));
      tap_check_int (min, <=, low_jumps (prog, len));
      tap_check_int (min, >, 0);
      seccomp_release (ctx);
      free (prog);
      prog = NULL;
    }
}

/* The build: refused over the limit, with one line naming the size and the limit; the rules'
 * bound before compiling; one under the limit builds. */
static void
test_limit (void)
{
  static const struct
  {
    int rules, nargs;
    int status;
    const char *said;
  } cases[] = {
    { 4200, 1, UCB_EXIT_USAGE,
      "its rules need at least 4200 BPF instructions, over the kernel's "
      "limit of 4096 per filter (BPF_MAXINSNS): use fewer rules" },
    { 1500, 2, UCB_EXIT_USAGE, "its filter compiles to " },
    { 4000, 1, 0, NULL },
  };

  for (size_t k = 0; k < UCB_ARRAY_SIZE (cases); k++)
    {
      json_t *doc = profile ("SCMP_ACT_ALLOW");
      struct ucb_seccomp_stats st;
      struct ucb_seccomp *s = NULL;
      ucb_error_t err = NULL;
      unsigned min, len;

      for (int i = 0; i < cases[k].rules; i++)
        {
          json_t *args = json_array ();
          for (int a = 0; a < cases[k].nargs; a++)
            json_array_append_new (args, cmp (a, "SCMP_CMP_EQ", 1000 + (uint64_t) i, 0));
          add (doc, rule ("acct", "SCMP_ACT_ERRNO", 1, args));
        }
      (void) sizes (json_incref (doc), 1, &min, &len, NULL); /* writes the file */
      json_decref (doc);
      tap_check_int (build_file (path, &s, &st, &err) < 0 ? err->status : 0, ==, cases[k].status);
      if (cases[k].said)
        {
          tap_check (err && strstr (err->msg, cases[k].said) && strstr (err->msg, path)
                     && strchr (err->msg, '\n') == NULL);
          printf ("# %s\n", err ? err->msg : "(built)");
        }
      else
        tap_check (s && st.bpf_insns > 4000 && st.bpf_insns <= 4096);
      ucb_error_free (&err);
      ucb_seccomp_free (&s);
    }
}

/* Rules of two comparisons each (issue 25 item 9): 2500 over 8 calls need 5000 instructions at
 * least, known before compiling (which took 91 s before refusing them). */
static void
test_two (void)
{
  static const char *const calls[] = { "syslog", "acct",    "sethostname", "setdomainname",
                                       "swapon", "swapoff", "quotactl",    "pivot_root" };
  json_t *doc = profile ("SCMP_ACT_ALLOW");
  struct ucb_seccomp_stats st;
  struct ucb_seccomp *s = NULL;
  ucb_error_t err = NULL;
  unsigned min = 0;
  void *ctx = NULL;
  struct timespec t0, t1;

  for (int i = 0; i < 2500; i++)
    add (doc, rule (calls[i % 8], "SCMP_ACT_ERRNO", 1,
                    json_pack ("[o,o]", cmp (0, "SCMP_CMP_EQ", 1000 + (uint64_t) i, 0),
                               cmp (1, "SCMP_CMP_EQ", 1000 + (uint64_t) i, 0))));
  make_path ();
  tap_require (json_dump_file (doc, path, 0) == 0);
  json_decref (doc);
  tap_require (rules_of (path, 1, &ctx, &st, &min, &err) == 0);
  seccomp_release (ctx);
  printf ("# 2500 rules of two comparisons over 8 calls: at least %u\n", min);
  tap_check_int (min, ==, 5000);
  tap_require (min > 4096); /* else the build below compiles them, for a minute */
  clock_gettime (CLOCK_MONOTONIC, &t0);
  tap_check_int (build_file (path, &s, &st, &err) < 0 ? err->status : 0, ==, UCB_EXIT_USAGE);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  tap_check (err && strstr (err->msg, "its rules need at least 5000 BPF instructions"));
  printf ("# %s (%.2f s)\n", err ? err->msg : "(built)",
          (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9);
  ucb_error_free (&err);
  ucb_seccomp_free (&s);
}

static const struct tap_test tests[] = {
  { "one rule per value: the bound is the values", test_values },
  { "shared, swapped and dropped comparisons", test_shapes },
  { "random profiles: the bound never exceeds the program", test_random },
  { "random rules of several comparisons: the bound never exceeds the program", test_random_multi },
  { "docker profile: the bound never exceeds the program", test_docker },
  { "over 4096 instructions: refused in one line; under: built", test_limit },
  { "2500 rules of two comparisons: refused before compiling", test_two },
};

#else /* !HAVE_SECCOMP */

static void
test_nothing (void)
{
  tap_skip ("built without libseccomp");
}

static const struct tap_test tests[] = {
  { "built without libseccomp", test_nothing },
};

#endif /* HAVE_SECCOMP */

TAP_MAIN (tests)
