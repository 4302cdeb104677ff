/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify-release-task.c - P3 by other hands for SIGPENDING and NPROC
 * (src/verify/cells-release-task.c) notices a kernel whose release by the other uid goes wrong:
 * the operations are sabotaged in userspace where uid 1 of the agent's namespace (its thread or
 * its children) makes them, as a kernel mutant would act there (a take that leaves the signal
 * charged, a charge past the bound, a reference kept on the namespace, a fork refused while
 * nothing is charged), or where uid 0 forks once more than its bound after the reaping, and the
 * cell must `fail` with the class of what went wrong in its verdict line (leak, over-admission,
 * pinned), while the real operations pass at every level.  Needs root and user namespaces
 * (`ok 1 # SKIP why` without them). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "core/util.h"
#include "host/userns.h"
#include "verify/cells.h"
#include "verify/probe.h"
#include "verify/rlimit-ops.h"
#include "verify/verify.h"
#include "uid-claim.h"

/* This program's uids (uid-claim.h), 100 per case run; each test at its own offset. */
#define TASK_UIDS(off) test_uids (2103300000u, 100000, (off))

/* Root, and user namespaces can be made here (the cases run in them). */
static bool
can_run_cases (void)
{
  return geteuid () == 0 && ucb_userns_probe () == 0;
}

static const struct ucb_rlops *sig = &ucb_rlops[UCB_RL_SIGPENDING];
static const struct ucb_rlops *nproc = &ucb_rlops[UCB_RL_NPROC];

/* The hands of the other uid: uid 1 of the agent's namespace (getuid is the calling thread's). */
static bool
other_hands (void)
{
  return getuid () == 1;
}

/* uid 1 takes a signal without taking it: it stays charged to its receiver. */
static void
release_by_other_forgets (struct ucb_rlheld *h)
{
  if (other_hands () && h->n > 0)
    h->n--;
  else
    sig->release (h);
}

/* uid 1's charge frees a queued signal behind the books: its bound never binds. */
static int
charge_by_other_past_bound (struct ucb_rlheld *h, bool big)
{
  int e = sig->charge (h, big);
  sigset_t set;
  struct timespec zero = { 0, 0 };

  if (e == 0 && other_hands ())
    {
      sigemptyset (&set);
      sigaddset (&set, SIGRTMIN);
      sigtimedwait (&set, NULL, &zero);
    }
  return e;
}

/* The case process's socket pair: what an agent sends into pins[1] waits in pins[0] until the
 * case ends (test-verify-pin.c). */
static int pins[2] = { -1, -1 };

/* uid 1's first release keeps a reference on the namespace (a put_ucounts forgotten there). */
static void
release_by_other_pins (struct ucb_rlheld *h)
{
  static bool pinned;

  if (other_hands () && !pinned)
    {
      int fd = open ("/proc/thread-self/ns/user", O_RDONLY | O_CLOEXEC);
      char byte = 'p';
      struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
      union
      {
        struct cmsghdr align;
        char buf[CMSG_SPACE (sizeof (int))];
      } u;
      struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf
      };
      struct cmsghdr *c = CMSG_FIRSTHDR (&m);

      pinned = true;
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (c), &fd, sizeof fd);
      if (fd < 0 || sendmsg (pins[1], &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
        printf ("# pin: %s\n", strerror (errno));
      if (fd >= 0)
        close (fd);
    }
  sig->release (h);
}

/* uid 1's forks are refused: its count reads as charged with tasks that are gone. */
static int
fork_by_other_refused (struct ucb_rlheld *h, bool big)
{
  return other_hands () ? EAGAIN : nproc->charge (h, big);
}

/* uid 0's first refusal: one of its children reaped behind the books, and the fork tried again
 * (one more than the bound, as a count driven below what is charged admits). */
static int
fork_by_reaper_past_bound (struct ucb_rlheld *h, bool big)
{
  static bool done;
  int e = nproc->charge (h, big);

  if (e == EAGAIN && getuid () == 0 && h->n > 0 && !done)
    {
      pid_t pid = (pid_t) h->id[h->n - 1];

      done = true;
      kill (pid, SIGKILL);
      ucb_vwait (pid);
      e = nproc->charge (h, big);
    }
  return e;
}

static struct ucb_rlops sabotaged;
static enum ucb_vlevel level;

static int
run_sabotaged (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int r;

  if (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pins) < 0)
    return ucb_make_error (err, errno, "socketpair");
  ucb_vcell_check_reset ();
  r = ucb_vcell_p3_other_task (ctx, &sabotaged, level, err);
  close (pins[0]);
  close (pins[1]);
  return r;
}

static struct ucb_vcase fake = {
  .id = "TEST-1",
  .name = "sabotaged",
  .title = "sabotaged SIGPENDING or NPROC operations",
  .checks = "",
  .depends = "",
  .run = run_sabotaged,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P3 } },
};

static enum ucb_verdict
verdict (const struct ucb_rlops *ops, enum ucb_vlevel l, uid_t base, char *why, double *took)
{
  struct ucb_kernel k;
  struct ucb_vrun v;
  ucb_error_t err = NULL;

  sabotaged = *ops;
  level = l;
  fake.rlimit = ops->rl;
  fake.cells[0].level = l;
  if (ucb_kernel_probe (&k, &err) < 0)
    {
      ucb_error_free (&err);
      return UCB_VERDICT_ERROR;
    }
  ucb_verify_run (&fake, base, &k, &v);
  snprintf (why, UCB_VDETAIL_MAX, "%s", v.why);
  *took = v.duration_s;
  return v.verdict;
}

struct run
{
  const struct ucb_rlops *ops;
  enum ucb_verdict want;
  const char *word; /* in the verdict line */
  const char *what;
};

static void
check_runs (const struct run *runs, size_t n, enum ucb_vlevel l, uid_t base)
{
  for (size_t i = 0; i < n; i++)
    {
      char why[UCB_VDETAIL_MAX];
      double took = 0;
      enum ucb_verdict got = verdict (runs[i].ops, l, base + (uid_t) i * 100, why, &took);
      bool named = strstr (why, runs[i].word) != NULL;

      printf ("# %s, %s level: %s (%s), %.2f s\n", runs[i].what, ucb_vlevel_name (l),
              ucb_verdict_name (got), why, took);
      tap_check_int (got, ==, runs[i].want);
      tap_check (named);
    }
}

static const enum ucb_vlevel levels[]
    = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };

static void
test_sigpending (void)
{
  struct ucb_rlops forgets = *sig, past = *sig;
  uid_t base = TASK_UIDS (0);

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  forgets.release = release_by_other_forgets;
  past.charge = charge_by_other_past_bound;
  for (size_t l = 0; l < UCB_ARRAY_SIZE (levels); l++, base += 1000)
    {
      const struct run runs[] = {
        { sig, UCB_VERDICT_PASS, "", "real SIGPENDING operations" },
        { &forgets, UCB_VERDICT_FAIL, ": leak", "uid 1 takes uid 0's signals, they stay charged" },
        { &past, UCB_VERDICT_FAIL, ": over-admission", "uid 1's charges pass its bound" },
      };
      check_runs (runs, UCB_ARRAY_SIZE (runs), levels[l], base);
    }
}

/* A namespace pinned is counted after up to 10 s (the room waits for an asynchronous free):
 * at the own level only. */
static void
test_sigpending_pinned (void)
{
  struct ucb_rlops pins_ns = *sig;
  const struct run runs[] = {
    { &pins_ns, UCB_VERDICT_FAIL, ": pinned: ", "uid 1's take keeps a namespace reference" },
  };

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  pins_ns.release = release_by_other_pins;
  check_runs (runs, UCB_ARRAY_SIZE (runs), UCB_VLEVEL_OWN, TASK_UIDS (4000));
}

static void
test_nproc (void)
{
  struct ucb_rlops refused = *nproc, past = *nproc;
  uid_t base = TASK_UIDS (10000);

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  refused.charge = fork_by_other_refused;
  past.charge = fork_by_reaper_past_bound;
  for (size_t l = 0; l < UCB_ARRAY_SIZE (levels); l++, base += 1000)
    {
      const struct run runs[] = {
        { nproc, UCB_VERDICT_PASS, "", "real NPROC operations" },
        { &refused, UCB_VERDICT_FAIL, ": leak", "uid 1's forks refused after the reaping" },
        { &past, UCB_VERDICT_FAIL, ": over-admission", "uid 0 forks past its bound" },
      };
      check_runs (runs, UCB_ARRAY_SIZE (runs), levels[l], base);
    }
}

static const struct tap_test tests[] = {
  { "SIGPENDING by other hands: a leak and a bound passed fail, named; real passes",
    test_sigpending },
  { "SIGPENDING by other hands: a namespace pinned by uid 1 fails, named", test_sigpending_pinned },
  { "NPROC by other hands: a leak and a bound passed fail, named; real passes", test_nproc },
};

TAP_MAIN (tests)
