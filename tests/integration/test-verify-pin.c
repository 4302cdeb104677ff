/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify-pin.c - P9 (nothing pinned, src/verify/cells-pin.c) notices a kernel that pins a
 * user namespace: the SIGPENDING operations are sabotaged in userspace the way a kernel mutant
 * that forgets a put_ucounts would act (a refusal, a release or a holder's exit that keeps a
 * reference on the agent's user namespace), and the cell must turn `fail`, while the real
 * operations pass, 5 runs in a row.  The reference kept is an fd of the agent's
 * /proc/self/ns/user sent (SCM_RIGHTS) into a socket of the case process, where it stays
 * unread until the case ends: no process is left behind, the namespace outlives the round
 * as a pinned one does.  Needs root and user namespaces (`ok 1 # SKIP why` without them). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../tap.h"
#include "host/userns.h"
#include "verify/cells.h"
#include "verify/rlimit-ops.h"
#include "verify/verify.h"
#include "uid-claim.h"

/* This program's uids (uid-claim.h), 100 per case run; each test at its own offset. */
#define PIN_UIDS(off) test_uids (2103200000u, 100000, (off))

/* Root, and user namespaces can be made here (the cases run in them). */
static bool
can_run_cases (void)
{
  return geteuid () == 0 && ucb_userns_probe () == 0;
}

static const struct ucb_rlops *real = &ucb_rlops[UCB_RL_SIGPENDING];

/* The case process's socket pair: an agent (forked from it) sends into pins[1]; what it sent
 * waits in pins[0] until the case process ends. */
static int pins[2] = { -1, -1 };

/* Keep a reference on our user namespace where the case process holds it. */
static void
pin_userns (void)
{
  int fd = open ("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
  char byte = 'p';
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  union
  {
    struct cmsghdr align;
    char buf[CMSG_SPACE (sizeof (int))];
  } u;
  struct msghdr m
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c = CMSG_FIRSTHDR (&m);

  if (fd < 0)
    return;
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  if (sendmsg (pins[1], &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
    fprintf (stderr, "# pin: sendmsg: %s\n", strerror (errno));
  close (fd);
}

/* A refusal that keeps a reference (mqueue_get_inode's refusal without put_ucounts). */
static int
charge_refusal_pins (struct ucb_rlheld *h, bool big)
{
  int e = real->charge (h, big);

  if (e == EAGAIN)
    pin_userns ();
  return e;
}

/* A release that keeps one (user_shm_unlock without put_ucounts). */
static void
release_pins (struct ucb_rlheld *h)
{
  real->release (h);
  pin_userns ();
}

/* A holder's exit that keeps one (a cred leaked on the exit path). */
static void
exit_pins (struct ucb_rlheld *h)
{
  pin_userns ();
  real->for_exit (h);
}

static struct ucb_rlops sabotaged;

static int
run_sabotaged (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int r;

  if (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pins) < 0)
    return ucb_make_error (err, errno, "socketpair");
  ucb_vcell_check_reset ();
  r = ucb_vcell_p9 (ctx, &sabotaged, err);
  close (pins[0]);
  close (pins[1]);
  return r;
}

static const struct ucb_vcase fake = {
  .id = "TEST-1",
  .name = "sabotaged",
  .title = "sabotaged SIGPENDING operations",
  .rlimit = UCB_RL_SIGPENDING,
  .checks = "",
  .depends = "",
  .run = run_sabotaged,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P9 } },
};

/* The verdict of P9 with the operations `ops`. */
static enum ucb_verdict
verdict (const struct ucb_rlops *ops, uid_t base, char *why, double *took)
{
  struct ucb_kernel k;
  struct ucb_vrun v;
  ucb_error_t err = NULL;

  sabotaged = *ops;
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

static void
test_sabotage_fails (void)
{
  struct ucb_rlops refusal = *real, release = *real, holder = *real;
  char why[UCB_VDETAIL_MAX];
  uid_t base = PIN_UIDS (0);
  struct
  {
    const struct ucb_rlops *ops;
    const char *what;
  } runs[] = {
    { &refusal, "a refusal that keeps a reference" },
    { &release, "a release that keeps a reference" },
    { &holder, "a holder's exit that keeps a reference" },
  };

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  refusal.charge = charge_refusal_pins;
  release.release = release_pins;
  holder.for_exit = exit_pins;
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
    {
      double took = 0;
      enum ucb_verdict got = verdict (runs[i].ops, base + (uid_t) i * 100, why, &took);

      printf ("# %s: %s (%s), %.2f s\n", runs[i].what, ucb_verdict_name (got), why, took);
      tap_check_int (got, ==, UCB_VERDICT_FAIL);
      /* Named as what it is, with the namespaces kept and the reference that keeps them. */
      tap_check (strstr (why, ": pinned: ") != NULL && strstr (why, "not put") != NULL);
    }
}

static void
test_real_passes (void)
{
  char why[UCB_VDETAIL_MAX];
  uid_t base = PIN_UIDS (1000);

  if (!can_run_cases ())
    {
      tap_skip ("needs root and user namespaces to run the cells");
      return;
    }
  for (int i = 0; i < 5; i++)
    {
      double took = 0;
      enum ucb_verdict got = verdict (real, base + (uid_t) i * 100, why, &took);

      if (got != UCB_VERDICT_PASS)
        printf ("# real operations, run %d: %s (%s)\n", i + 1, ucb_verdict_name (got), why);
      else
        printf ("# real operations, run %d: pass, %.2f s\n", i + 1, took);
      tap_check_int (got, ==, UCB_VERDICT_PASS);
    }
}

static const struct tap_test tests[] = {
  { "operations that keep a user namespace referenced fail P9", test_sabotage_fails },
  { "the real operations pass P9, 5 runs in a row", test_real_passes },
};

TAP_MAIN (tests)
