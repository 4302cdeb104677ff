/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-verify-release.c - P3 by other hands for the IPC rlimits (src/verify/cells-release-ipc.c)
 * notices a kernel that uncharges the wrong task: the MSGQUEUE and MEMLOCK operations are
 * sabotaged in userspace after a hand-over alone (cells.h ucb_vcell_hand), as such a kernel
 * would act, and the cell must turn `fail` naming the class, while the real operations pass:
 *  - the creator keeps one unit charged once it gave one away (its count stays high): leak;
 *  - a releaser admits one past its bound once it ended another's charge (its count went
 *    below zero): over-admission;
 *  - the same uid's releaser keeps a reference on its user namespace: pinned;
 *  - the unit left to the namespace's teardown outlives it: the keeper's refill, a leak.
 * A kept reference is an fd (the namespace, or the queue) sent (SCM_RIGHTS) into a socket of
 * the case process, where it stays unread until the case ends: nothing is left behind.
 * Needs root and user namespaces (`ok 1 # SKIP why` without them). */
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
#define RELEASE_UIDS(off) test_uids (2103400000u, 100000, (off))

static bool
can_run_cases (void)
{
  return geteuid () == 0 && ucb_userns_probe () == 0;
}

static const struct ucb_rlops *real;
static struct ucb_rlops sabotaged;
static enum ucb_vlevel level;

/* The case process's socket pair: an agent (forked from it) sends into keep[1]; what it sent
 * waits in keep[0] until the case process ends. */
static int keep[2] = { -1, -1 };

static void
keep_fd (int fd)
{
  char byte = 'k';
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  union
  {
    struct cmsghdr align;
    char buf[CMSG_SPACE (sizeof (int))];
  } u;
  struct msghdr m
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c = CMSG_FIRSTHDR (&m);

  memset (&u, 0, sizeof u);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (c), &fd, sizeof fd);
  if (sendmsg (keep[1], &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
    printf ("# keep: sendmsg: %s\n", strerror (errno));
}

/* Once the creator gave a unit away, its next charge also takes one kept off the books: the
 * creator's count one high for as long as it lives (the charge that stayed with it). */
static int
charge_stays_with_creator (struct ucb_rlheld *h, bool big)
{
  static bool done;
  int e = real->charge (h, big);

  if (e == 0 && ucb_vcell_hand == UCB_VHAND_GAVE && !done)
    {
      done = true;
      h->n--; /* held, forgotten */
      e = real->charge (h, big);
    }
  return e;
}

/* Once a releaser ended another's unit, its first refusal is an admission (a count below zero
 * admits one more); the entry it books releases nothing. */
static int
charge_over_after_end (struct ucb_rlheld *h, bool big)
{
  static bool done;
  int e = real->charge (h, big);

  if (e == real->refusal && ucb_vcell_hand == UCB_VHAND_ENDED && !done && h->n < UCB_RL_HELD_MAX)
    {
      done = true;
      h->big[h->n] = big;
      h->id[h->n] = -1;
      h->name[h->n] = -1;
      h->n++;
      return 0;
    }
  return e;
}

/* Once a releaser ended another's unit, its releases keep a reference on its user namespace. */
static void
release_pins_after_end (struct ucb_rlheld *h)
{
  static bool done;
  int fd;

  real->release (h);
  if (ucb_vcell_hand == UCB_VHAND_ENDED && !done
      && (fd = open ("/proc/self/ns/user", O_RDONLY | O_CLOEXEC)) >= 0)
    {
      done = true;
      keep_fd (fd);
      close (fd);
    }
}

/* The unit left to the teardown stays charged past it: its queue kept open elsewhere. */
static int
charge_outlives_teardown (struct ucb_rlheld *h, bool big)
{
  int e = real->charge (h, big);

  if (e == 0 && ucb_vcell_hand == UCB_VHAND_LEFT)
    keep_fd (h->id[h->n - 1]);
  return e;
}

static int
run_other_hands (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int r;

  if (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, keep) < 0)
    return ucb_make_error (err, errno, "socketpair");
  ucb_vcell_check_reset ();
  /* As cases/matrix-cells.c runs a cell: which kernel first, where the counts tell them apart. */
  if (ucb_vcell_tells_kernels (&sabotaged, level, UCB_VPROP_P3)
      && ucb_vcell_which_kernel (ctx, &sabotaged, err) < 0)
    r = -1;
  else
    r = ucb_vcell_p3_other_ipc (ctx, &sabotaged, level, err);
  close (keep[0]);
  close (keep[1]);
  return r;
}

static const struct ucb_vcase fake = {
  .id = "TEST-1",
  .name = "sabotaged",
  .title = "sabotaged IPC operations, released by other hands",
  .rlimit = UCB_RL_MSGQUEUE,
  .checks = "",
  .depends = "",
  .run = run_other_hands,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P3 } },
};

/* The verdict of the cell with `ops` (one of `rl`'s, sabotaged or not) at level `l`. */
static enum ucb_verdict
verdict (enum ucb_rl rl, const struct ucb_rlops *ops, enum ucb_vlevel l, uid_t base, char *why)
{
  struct ucb_kernel k;
  struct ucb_vrun v;
  ucb_error_t err = NULL;

  real = &ucb_rlops[rl];
  sabotaged = *ops;
  level = l;
  if (ucb_kernel_probe (&k, &err) < 0)
    {
      ucb_error_free (&err);
      return UCB_VERDICT_ERROR;
    }
  ucb_verify_run (&fake, base, &k, &v);
  snprintf (why, UCB_VDETAIL_MAX, "%s", v.why);
  return v.verdict;
}

/* `got` is `want` (real: pass, or the stock kernel's known MEMLOCK units bug), and a failure
 * names `words` (both, in its reason). */
static void
expect (const char *what, enum ucb_verdict got, enum ucb_verdict want, const char *why,
        const char *name, const char *class)
{
  bool ok = got == want || (want == UCB_VERDICT_PASS && got == UCB_VERDICT_KNOWN_BUG);

  if (want == UCB_VERDICT_FAIL)
    ok = ok && strstr (why, name) && strstr (why, class);
  if (!ok)
    printf ("# %s: %s (%s), expected %s naming `%s` and `%s`\n", what, ucb_verdict_name (got), why,
            ucb_verdict_name (want), name, class);
  else if (want == UCB_VERDICT_FAIL)
    printf ("# %s: %s\n", what, why);
  tap_check (ok);
}

static bool
ready (void)
{
  if (can_run_cases ())
    return true;
  tap_skip ("needs root and user namespaces to run the cells");
  return false;
}

/* Every IPC rlimit and level: the real operations pass; a charge that stays with the creator
 * fails its refill (leak), a releaser's count below zero its own (over-admission). */
static void
test_leak_and_underflow (void)
{
  static const enum ucb_vlevel levels[]
      = { UCB_VLEVEL_OWN, UCB_VLEVEL_PARENT, UCB_VLEVEL_GRANDPARENT };
  static const enum ucb_rl rls[] = { UCB_RL_MSGQUEUE, UCB_RL_MEMLOCK };
  uid_t base = RELEASE_UIDS (0);

  if (!ready ())
    return;
  for (size_t r = 0; r < 2; r++)
    for (size_t l = 0; l < 3; l++, base += 1000)
      {
        struct ucb_rlops stays = ucb_rlops[rls[r]], over = ucb_rlops[rls[r]];
        char what[96], why[UCB_VDETAIL_MAX];
        enum ucb_verdict got;

        if (*ucb_rlops_unsupported (&ucb_rlops[rls[r]]))
          {
            tap_skip (ucb_rlops_unsupported (&ucb_rlops[rls[r]]));
            return;
          }
        stays.charge = charge_stays_with_creator;
        over.charge = charge_over_after_end;
        snprintf (what, sizeof what, "%s at the %s level", ucb_rl_name (rls[r]),
                  ucb_vlevel_name (levels[l]));
        got = verdict (rls[r], &ucb_rlops[rls[r]], levels[l], base, why);
        expect (what, got, UCB_VERDICT_PASS, why, "", "");
        got = verdict (rls[r], &stays, levels[l], base + 100, why);
        expect (what, got, UCB_VERDICT_FAIL, why, "creator admitted after other uid's", "leak");
        got = verdict (rls[r], &over, levels[l], base + 200, why);
        expect (what, got, UCB_VERDICT_FAIL, why, "other uid admitted after its last",
                "over-admission");
      }
}

/* A user namespace of the same uid's releaser pinned: the room allows one fewer (10 s: the
 * count waits that long for a namespace freed late). */
static void
test_pinned (void)
{
  struct ucb_rlops pins = ucb_rlops[UCB_RL_MSGQUEUE];
  char why[UCB_VDETAIL_MAX];
  enum ucb_verdict got;

  if (!ready ())
    return;
  pins.release = release_pins_after_end;
  got = verdict (UCB_RL_MSGQUEUE, &pins, UCB_VLEVEL_OWN, RELEASE_UIDS (10000), why);
  expect ("a releaser's namespace pinned", got, UCB_VERDICT_FAIL, why,
          "user namespaces the room allows after", "pinned: 1 user namespace");
}

/* The queue left to the teardown outlives it: the keeper's refill stays short (10 s). */
static void
test_teardown_leak (void)
{
  struct ucb_rlops outlives = ucb_rlops[UCB_RL_MSGQUEUE];
  char why[UCB_VDETAIL_MAX];
  enum ucb_verdict got;

  if (!ready ())
    return;
  outlives.charge = charge_outlives_teardown;
  got = verdict (UCB_RL_MSGQUEUE, &outlives, UCB_VLEVEL_PARENT, RELEASE_UIDS (20000), why);
  expect ("a queue outliving its namespace", got, UCB_VERDICT_FAIL, why,
          "creator's uid admitted after IPC ns teardown", "leak");
}

static const struct tap_test tests[] = {
  { "a charge left with the creator or a releaser's count below zero fails, named",
    test_leak_and_underflow },
  { "a releaser's user namespace pinned fails, named pinned", test_pinned },
  { "a queue that outlives its namespace's teardown fails the keeper's refill",
    test_teardown_leak },
};

TAP_MAIN (tests)
