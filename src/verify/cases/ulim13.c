/* ulim13.c - ULIM-13: RLIMIT_NPROC, same-owner containers share the parent level; distinct
 * owners are isolated.
 *
 * Same owner: containers A and B are both created by U with soft NPROC 10 (rlimit_max 10 each)
 * and raise their soft limit inside.  Both chains end in the one object (init_user_ns, U)
 * (ns->ucounts = inc_user_namespaces(parent, creator euid)), which is_rlimit_overlimit checks
 * against each namespace's snapshot (59ec71575ab4).  A and its 5 children hold 6; B itself is
 * the 7th, so B forks 3 (10 - 6 - 1) and then gets EAGAIN; while B is full A cannot fork either;
 * once B is gone A forks 4 (10 - 6).  Distinct owners U1 and U2, each creating a container with
 * soft 10: while U1's container holds 9 children, U2's still forks 9. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define MAXKIDS 64

/* Become `uid` and enter a container created with soft NPROC 10, soft raised inside. */
static void
enter_container (uid_t uid)
{
  ucb_error_t e = NULL;

  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_NPROC, 10, &e) < 0 || ucb_vuserns (0, &e) < 0
      || ucb_vsoft (RLIMIT_NPROC, RLIM_INFINITY, &e) < 0)
    _exit (1);
}

/* Gates of one helper: `to` from run() to it, `from` back. */
struct helper
{
  struct ucb_vgate to, from;
  pid_t pid;
};

#define HELPER_NONE                                                                                \
  {                                                                                                \
    .to = { { -1, -1 } }, .from = { { -1, -1 } }, .pid = -1                                        \
  }

/* Same owner, container A: 5 children; on the 1st post from run() (B full) one fork; on the 2nd
 * (B gone) fork until refused. */
static void
container_a (struct ucb_vresult *r, uid_t uid, struct helper *h)
{
  pid_t kids[MAXKIDS];
  long held, more;
  int refused, blocked;

  enter_container (uid);
  held = ucb_vfork_sleepers (kids, 5, &refused);
  ucb_vobserve (r, "A: children forked of 5", UCB_VITEM_ADMITTED, 5, held);
  ucb_vgate_post (&h->from);
  if (!ucb_vgate_wait (&h->to))
    _exit (1);
  more = ucb_vfork_sleepers (kids + held, 1, &blocked);
  ucb_vkill_reap (kids + held, more);
  ucb_vobserve (r, "A: fork while B is full", UCB_VITEM_ERRNO, EAGAIN, blocked);
  ucb_vgate_post (&h->from);
  if (!ucb_vgate_wait (&h->to))
    _exit (1);
  more = ucb_vfork_sleepers (kids + held, MAXKIDS - held, &refused);
  ucb_vkill_reap (kids, held + more);
  ucb_vobserve (r, "A: more children once B is gone", UCB_VITEM_ADMITTED, 4, more);
  ucb_vobserve (r, "A: errno at the shared bound", UCB_VITEM_ERRNO, EAGAIN, refused);
  _exit (0);
}

/* Fill a container: fork until refused, post, hold until released. */
static void
container_fill (struct ucb_vresult *r, uid_t uid, struct helper *h, const char *who, long expect)
{
  char name[UCB_VNAME_MAX];
  pid_t kids[MAXKIDS];
  long n;
  int refused;

  enter_container (uid);
  n = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
  snprintf (name, sizeof name, "%s: children forked", who);
  ucb_vobserve (r, name, UCB_VITEM_ADMITTED, expect, n);
  snprintf (name, sizeof name, "%s: errno at the parent bound", who);
  ucb_vobserve (r, name, UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vgate_post (&h->from);
  ucb_vgate_wait (&h->to);
  ucb_vkill_reap (kids, n);
  _exit (0);
}

/* Open the gates and fork the helper: h->pid is 0 in it.  run() drops its copy of the write
 * end of `from`, so a helper that died is seen as EOF, not as the case timeout. */
static int
helper_fork (struct helper *h, ucb_error_t *err)
{
  if (ucb_vgate_open (&h->to, err) < 0)
    return -1;
  if (ucb_vgate_open (&h->from, err) < 0)
    {
      ucb_vgate_close (&h->to);
      return -1;
    }
  h->pid = ucb_vfork ();
  if (h->pid < 0)
    {
      ucb_vgate_close (&h->to);
      ucb_vgate_close (&h->from);
      return ucb_make_error (err, errno, "fork");
    }
  if (h->pid == 0)
    {
      close (h->to.fd[1]);
      close (h->from.fd[0]);
      h->to.fd[1] = h->from.fd[0] = -1;
      return 0;
    }
  /* The read end of `to` stays open here: a post to a dead helper is no SIGPIPE. */
  close (h->from.fd[1]);
  h->from.fd[1] = -1;
  return 0;
}

/* Wait for a helper (killed first when `kill_first`) and close its gates. */
static int
helper_finish (struct helper *h, bool kill_first)
{
  int st = 0;

  if (h->pid > 0)
    {
      if (kill_first)
        kill (h->pid, SIGKILL);
      st = ucb_vwait (h->pid);
    }
  h->pid = -1;
  ucb_vgate_close (&h->to);
  ucb_vgate_close (&h->from);
  return st;
}

static int
same_owner (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct helper a = HELPER_NONE, b = HELPER_NONE;
  int sa, sb;

  if (helper_fork (&a, err) < 0)
    return -1;
  if (a.pid == 0)
    container_a (ctx->res, ctx->uid_base, &a);
  if (!ucb_vgate_wait (&a.from))
    goto broken;
  if (helper_fork (&b, err) < 0)
    {
      helper_finish (&a, true);
      return -1;
    }
  if (b.pid == 0)
    container_fill (ctx->res, ctx->uid_base, &b, "B", 3);
  if (!ucb_vgate_wait (&b.from))
    goto broken;
  ucb_vgate_post (&a.to); /* A: fork while B is full */
  if (!ucb_vgate_wait (&a.from))
    goto broken;
  ucb_vgate_post (&b.to); /* B reaps its children and is reaped */
  sb = helper_finish (&b, false);
  ucb_vgate_post (&a.to); /* A: refill */
  sa = helper_finish (&a, false);
  if (sa != 0 || sb != 0)
    return ucb_make_error (err, 0, "a same-owner container failed (A %d, B %d)", sa, sb);
  return 0;
broken:
  helper_finish (&b, true);
  helper_finish (&a, true);
  return ucb_make_error (err, 0, "a same-owner container did not report");
}

static int
distinct_owners (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct helper c = HELPER_NONE, d = HELPER_NONE;
  int sc, sd;

  if (helper_fork (&c, err) < 0)
    return -1;
  if (c.pid == 0)
    container_fill (ctx->res, ctx->uid_base + 1, &c, "owner U1", 9);
  if (!ucb_vgate_wait (&c.from))
    goto broken;
  if (helper_fork (&d, err) < 0)
    {
      helper_finish (&c, true);
      return -1;
    }
  if (d.pid == 0)
    container_fill (ctx->res, ctx->uid_base + 2, &d, "owner U2 (U1 full)", 9);
  if (!ucb_vgate_wait (&d.from))
    goto broken;
  ucb_vgate_post (&d.to);
  sd = helper_finish (&d, false);
  ucb_vgate_post (&c.to);
  sc = helper_finish (&c, false);
  if (sc != 0 || sd != 0)
    return ucb_make_error (err, 0, "a distinct-owner container failed (U1 %d, U2 %d)", sc, sd);
  return 0;
broken:
  helper_finish (&d, true);
  helper_finish (&c, true);
  return ucb_make_error (err, 0, "a distinct-owner container did not report");
}

static int
probes (struct ucb_vctx *ctx, ucb_error_t *err)
{
  if (same_owner (ctx, err) < 0)
    return -1;
  return distinct_owners (ctx, err);
}

static int
ulim13_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int ret = probes (ctx, err);

  ucb_vreap_all ();
  return ret;
}

const struct ucb_vcase ucb_vcase_ulim13 = {
  .id = "ULIM-13",
  .name = "nproc-siblings",
  .title = "NPROC: same-owner containers share the parent level; distinct owners do not",
  .rlimit = "NPROC",
  .depends = "59ec71575ab4 (5.16-rc7): before it siblings did not share",
  .checks = "ns->ucounts = (parent ns, creator euid) shared by sibling namespaces; "
            "is_rlimit_overlimit level 1 vs each namespace's rlimit_max (59ec71575ab4)",
  .run = ulim13_run,
};
