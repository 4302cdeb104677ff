/* ulim15.c - ULIM-15: RLIMIT_NPROC, a root-created namespace has rlimit_max = infinity; set*uid
 * only flags, execve refuses.
 *
 * (a) root with soft NPROC 3 creates a user namespace whose maps (written by the parent, as
 * ranges need) send 0..49 inside to U..U+49 outside; the child becomes uid 0 inside (kuid U, not
 * exempt) and sets soft 50.  create_user_ns stored enforced_nproc_rlimit() = RLIM_INFINITY, not
 * the creator's 3, because the creator had uid 0 in init_user_ns (0ac983f51203): level 1, the
 * host root's busy object (init_user_ns, 0), is not bounded, and only the own soft limit counts:
 * 49 children, then EAGAIN.  (b) root with soft 2 calls setresuid(V, V, V) while V already has 2
 * tasks: flag_nproc_exceeded (c923a8e7edb0) tests is_rlimit_overlimit on V's object *before*
 * commit_creds moves the caller's charge there (2 > 2 is false), so setresuid succeeds and so
 * does the following execve; with 3 tasks the test is true, PF_NPROC_EXCEEDED is set,
 * setresuid still succeeds, and do_execveat_common refuses with EAGAIN (V now holds 4 > 2). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/vprobe.h"

#define MAXKIDS 64
#define MAP_FIRST 10 /* the range container maps 0.. inside to uid_base + 10 .. */
#define MAP_WIDTH 50
#define V_OFFSET 1 /* (b): V = uid_base + 1 */
#define TRUE_PATH "/bin/true"

/* (b) One child: soft 2, setresuid(V, V, V), execv(TRUE_PATH).  Reports the setresuid errno
 * and the execve errno (0: the program ran; -1: not attempted) through a close-on-exec pipe. */
static int
setuid_then_exec (uid_t v, int *su_errno, int *exec_errno, ucb_error_t *err)
{
  int report[2], got[2] = { -1, -1 };
  size_t have = 0;
  pid_t pid;

  if (pipe2 (report, O_CLOEXEC) < 0)
    return ucb_make_error (err, errno, "pipe");
  pid = ucb_vfork ();
  if (pid < 0)
    {
      close (report[0]);
      close (report[1]);
      return ucb_make_error (err, errno, "fork");
    }
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      char *const argv[] = { (char *) TRUE_PATH, NULL };
      int res[2] = { 0, -1 };

      close (report[0]);
      if (ucb_vsoft (RLIMIT_NPROC, 2, &e) < 0 || setgroups (0, NULL) < 0 || setresgid (v, v, v) < 0)
        _exit (1);
      if (setresuid (v, v, v) < 0)
        res[0] = errno;
      if (ucb_write_all (report[1], &res[0], sizeof res[0]) < 0)
        _exit (1);
      if (res[0] == 0)
        {
          execv (TRUE_PATH, argv);
          res[1] = errno;
        }
      (void) !ucb_write_all (report[1], &res[1], sizeof res[1]);
      _exit (0);
    }
  close (report[1]);
  for (;;)
    {
      ssize_t n = read (report[0], (char *) got + have, sizeof got - have);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      have += (size_t) n;
    }
  close (report[0]);
  if (ucb_vwait (pid) != 0 || have < sizeof got[0])
    return ucb_make_error (err, 0, "the setresuid/execve probe failed");
  *su_errno = got[0];
  /* EOF after the setresuid report: the pipe closed on a successful exec */
  *exec_errno = have == sizeof got ? got[1] : 0;
  return 0;
}

static int
sub_execve (struct ucb_vctx *ctx, ucb_error_t *err)
{
  uid_t v = ctx->uid_base + V_OFFSET;
  pid_t obs[3] = { -1, -1, -1 };
  int su, ex, ret = 0;

  for (int i = 0; i < 2; i++)
    if ((obs[i] = ucb_vobserver (v)) < 0)
      {
        ret = ucb_make_error (err, errno, "fork a task of V");
        goto out;
      }
  if ((ret = setuid_then_exec (v, &su, &ex, err)) < 0)
    goto out;
  ucb_vobserve (ctx->res, "(b) setresuid(V), V has 2 tasks", UCB_VITEM_ERRNO, 0, su);
  ucb_vobserve (ctx->res, "(b) execve, V had 2 tasks", UCB_VITEM_ERRNO, 0, ex);
  if ((obs[2] = ucb_vobserver (v)) < 0)
    {
      ret = ucb_make_error (err, errno, "fork a task of V");
      goto out;
    }
  if ((ret = setuid_then_exec (v, &su, &ex, err)) < 0)
    goto out;
  ucb_vobserve (ctx->res, "(b) setresuid(V), V has 3 tasks", UCB_VITEM_ERRNO, 0, su);
  ucb_vobserve (ctx->res, "(b) execve, V had 3 tasks", UCB_VITEM_ERRNO, EAGAIN, ex);
out:
  for (int i = 0; i < 3; i++)
    if (obs[i] > 0)
      kill (obs[i], SIGKILL);
  for (int i = 0; i < 3; i++)
    if (obs[i] > 0)
      ucb_vwait (obs[i]);
  return ret;
}

static int
probes (struct ucb_vctx *ctx, ucb_error_t *err)
{
  pid_t pid;

  if (!ucb_vroot_of_init_userns ())
    {
      ucb_vskip (ctx->res, "needs uid 0 of the initial user namespace");
      return 0;
    }
  if (access (TRUE_PATH, X_OK) < 0)
    {
      ucb_vskip (ctx->res, "%s is missing: sub-check (b) needs a program to execve", TRUE_PATH);
      return 0;
    }

  /* (a) root-created container, creator soft 3, own soft 50 as kuid U */
  pid = ucb_vfork_range_container (ctx->uid_base + MAP_FIRST, MAP_WIDTH, 3, err);
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      pid_t kids[MAXKIDS];
      int refused;
      long n;

      if (ucb_vsoft (RLIMIT_NPROC, 50, &e) < 0)
        _exit (1);
      n = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
      ucb_vkill_reap (kids, n);
      ucb_vobserve (ctx->res, "(a) root-created ns (creator soft 3), own 50", UCB_VITEM_ADMITTED,
                    49, n);
      ucb_vobserve (ctx->res, "(a) errno at the own limit", UCB_VITEM_ERRNO, EAGAIN, refused);
      _exit (0);
    }
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe (a) as container root (uid %u) failed",
                           (unsigned) (ctx->uid_base + MAP_FIRST));

  return sub_execve (ctx, err);
}

static int
ulim15_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int ret = probes (ctx, err);

  ucb_vreap_all ();
  return ret;
}

const struct ucb_vcase ucb_vcase_ulim15 = {
  .id = "ULIM-15",
  .name = "nproc-root-creator-setuid",
  .title = "NPROC: a root-created namespace is unbounded at level 1; set*uid flags, execve refuses",
  .rlimit = "NPROC",
  .depends = "0ac983f51203 (5.17): enforced_nproc_rlimit; execve check of PF_NPROC_EXCEEDED",
  .checks = "create_user_ns enforced_nproc_rlimit = RLIM_INFINITY for a root creator "
            "(0ac983f51203); flag_nproc_exceeded before the charge moves (c923a8e7edb0), "
            "PF_NPROC_EXCEEDED -> EAGAIN in do_execveat_common",
  .run = ulim15_run,
};
