/* ulim14.c - ULIM-14: RLIMIT_NPROC exemptions: real kuid 0 and CAP_SYS_ADMIN in init_user_ns,
 * not a container root with a non-zero kuid.
 *
 * copy_process refuses a fork whose is_rlimit_overlimit(task_ucounts(p), NPROC, ...) is true
 * unless p->real_cred->user == INIT_USER or the forking task has capable(CAP_SYS_RESOURCE) or
 * capable(CAP_SYS_ADMIN) (both in init_user_ns).  (a) ruid 0 with soft = hard = 1 and its
 * effective capabilities dropped: 20 forks succeed (INIT_USER alone exempts).  (b) root in a
 * container of its own (map `0 0 1`) with soft 1: 20 forks succeed (kuid 0 in any namespace, no
 * capability in init_user_ns there).  (c) ruid U / euid 0 (setresuid(U, 0, 0) keeps
 * CAP_SYS_ADMIN) with soft 2: 10 forks succeed; after setresuid(U, U, U) drops the capabilities
 * the next fork gets EAGAIN (U holds 11 tasks).  (d) a root-created container whose maps
 * (written by the parent, as ranges need) send 0..49 inside to U..U+49 outside; the child
 * becomes uid 0 inside (kuid U, full capabilities in its namespace only) with soft 2: 1 child,
 * then EAGAIN (level 0 (ns, U) against the own soft limit; rlimit_max[NPROC] of a root-created
 * namespace is infinite, enforced_nproc_rlimit, 0ac983f51203). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/vprobe.h"

#define MAXKIDS 64
#define MAP_FIRST 10 /* the range container maps 0.. inside to uid_base + 10 .. */
#define MAP_WIDTH 50

/* Clear the effective capability set (permitted kept): capable() then fails everywhere. */
static int
drop_effective_caps (void)
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

  if (syscall (SYS_capget, &hdr, data) < 0)
    return -1;
  for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
    data[i].effective = 0;
  return (int) syscall (SYS_capset, &hdr, data);
}

static bool
has_effective_cap (int cap)
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

  return syscall (SYS_capget, &hdr, data) == 0
         && (data[CAP_TO_INDEX (cap)].effective & CAP_TO_MASK (cap)) != 0;
}

/* (a) ruid 0, soft = hard = 1, no effective capability. */
static void
sub_root (struct ucb_vresult *r)
{
  struct rlimit one = { 1, 1 };
  pid_t kids[MAXKIDS];
  int refused;
  long n;

  if (setrlimit (RLIMIT_NPROC, &one) < 0 || drop_effective_caps () < 0)
    _exit (1);
  n = ucb_vfork_sleepers (kids, 20, &refused);
  ucb_vkill_reap (kids, n);
  ucb_vobserve (r, "(a) ruid 0, soft=hard 1: forks of 20", UCB_VITEM_ADMITTED, 20, n);
  _exit (0);
}

/* (b) root's own container, map `0 0 1`, soft 1. */
static void
sub_root_container (struct ucb_vresult *r)
{
  ucb_error_t e = NULL;
  pid_t kids[MAXKIDS];
  int refused;
  long n;

  if (ucb_vsoft (RLIMIT_NPROC, 1, &e) < 0 || ucb_vuserns (0, &e) < 0)
    _exit (1);
  n = ucb_vfork_sleepers (kids, 20, &refused);
  ucb_vkill_reap (kids, n);
  ucb_vobserve (r, "(b) root container, soft 1: forks of 20", UCB_VITEM_ADMITTED, 20, n);
  _exit (0);
}

/* (c) ruid U / euid 0 with soft 2: CAP_SYS_ADMIN exempts, until the euid is dropped. */
static void
sub_cap_admin (struct ucb_vresult *r, uid_t uid)
{
  ucb_error_t e = NULL;
  pid_t kids[MAXKIDS];
  int refused, after;
  long n, more;

  if (setresuid (uid, 0, 0) < 0 || prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0
      || ucb_vsoft (RLIMIT_NPROC, 2, &e) < 0)
    _exit (1);
  n = ucb_vfork_sleepers (kids, 10, &refused);
  if (setresuid (uid, uid, uid) < 0 || prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    {
      ucb_vkill_reap (kids, n);
      _exit (1);
    }
  more = ucb_vfork_sleepers (kids + n, 1, &after);
  ucb_vkill_reap (kids, n + more);
  ucb_vobserve (r, "(c) ruid U/euid 0, soft 2: forks of 10", UCB_VITEM_ADMITTED, 10, n);
  ucb_vobserve (r, "(c) fork after dropping euid 0", UCB_VITEM_ERRNO, EAGAIN, after);
  _exit (0);
}

static int
probes (struct ucb_vctx *ctx, ucb_error_t *err)
{
  static const char *const what[] = { "(a) ruid 0", "(b) root container", "(c) ruid U/euid 0" };
  pid_t pid;

  if (!ucb_vroot_of_init_userns ())
    {
      ucb_vskip (ctx->res, "needs uid 0 of the initial user namespace");
      return 0;
    }
  if (!has_effective_cap (CAP_SYS_ADMIN))
    {
      ucb_vskip (ctx->res, "sub-check (c) needs CAP_SYS_ADMIN");
      return 0;
    }
  for (int sub = 0; sub < 3; sub++)
    {
      pid = ucb_vfork ();
      if (pid < 0)
        return ucb_make_error (err, errno, "fork");
      if (pid == 0)
        {
          if (sub == 0)
            sub_root (ctx->res);
          else if (sub == 1)
            sub_root_container (ctx->res);
          sub_cap_admin (ctx->res, ctx->uid_base);
        }
      if (ucb_vwait (pid) != 0)
        return ucb_make_error (err, 0, "the probe %s failed", what[sub]);
    }

  /* (d) container root with kuid U */
  pid = ucb_vfork_range_container (ctx->uid_base + MAP_FIRST, MAP_WIDTH, 0, err);
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      ucb_error_t e = NULL;
      pid_t kids[MAXKIDS];
      int refused;
      long n;

      if (ucb_vsoft (RLIMIT_NPROC, 2, &e) < 0)
        _exit (1);
      n = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
      ucb_vkill_reap (kids, n);
      ucb_vobserve (ctx->res, "(d) container root kuid U, soft 2", UCB_VITEM_ADMITTED, 1, n);
      ucb_vobserve (ctx->res, "(d) errno of the 2nd fork", UCB_VITEM_ERRNO, EAGAIN, refused);
      _exit (0);
    }
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe (d) as container root (uid %u) failed",
                           (unsigned) (ctx->uid_base + MAP_FIRST));
  return 0;
}

static int
ulim14_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  int ret = probes (ctx, err);

  ucb_vreap_all ();
  return ret;
}

const struct ucb_vcase ucb_vcase_ulim14 = {
  .id = "ULIM-14",
  .name = "nproc-exemptions",
  .title = "NPROC: real kuid 0 and CAP_SYS_ADMIN exempt; a container root with kuid U does not",
  .rlimit = "NPROC",
  .depends = "a55d07294f1e (5.17): ucounts keyed by the real uid",
  .checks = "copy_process: real_cred->user != INIT_USER && !capable(CAP_SYS_RESOURCE) && "
            "!capable(CAP_SYS_ADMIN) (init_user_ns); enforced_nproc_rlimit (0ac983f51203)",
  .run = ulim14_run,
};
