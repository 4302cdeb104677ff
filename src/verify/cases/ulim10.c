/* ulim10.c - ULIM-10: no capability bypasses RLIMIT_SIGPENDING; a root-owned container.
 *
 * __send_signal_locked and sig_get_ucounts have no capable() check.  (a) A task with ruid U and
 * euid 0 (setresuid(U, 0, 0) as root keeps the effective capabilities, CAP_SYS_ADMIN included;
 * CAP_SYS_RESOURCE too where the bounding set has it, and the source has no check for that
 * either) and soft SIGPENDING 5 queues 5 RT signals, then EAGAIN.  The charge goes to its real
 * uid's object (set_cred_ucounts: alloc_ucounts(user_ns, ruid), a55d07294f1e): its SigQ and an
 * observer's (U, no capabilities) read 5, and 0 after the drain.  (b) Root creates a container
 * (uid_map "0 0 1") with soft 5 and raises its soft limit inside: the level-1 object is
 * init_ucounts, (init_user_ns, 0), shared with every root task of the host: the signals pending
 * there (root's timers, other rootful containers; §2.1 "root noise", 0..4 seen) take part of the
 * 5.  Root's SigQ is that counter: read before, while full and after the drain, it must show
 * exactly the container's signals on top of a steady host-root count h (retried until h held
 * still; one try only below 6.12, where without 432dc0654c61 every refusal at level 1 leaks a
 * unit of host root's counter for good), and the container queues exactly 5 - h (0 if h >= 5),
 * then EAGAIN.  Its own SigQ equals that count, and 0 after the drain. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/vprobe.h"

#define CAP_SYS_ADMIN_BIT 21
#define ATTEMPTS 20

/* Whether `bit` is in our effective capabilities (CapEff of /proc/self/status). */
static int
has_cap (int bit)
{
  cleanup_file FILE *f = fopen ("/proc/self/status", "re");
  unsigned long long eff = 0;
  char line[256];

  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "CapEff: %llx", &eff) == 1)
      break;
  return (int) ((eff >> bit) & 1);
}

static void
euid0 (struct ucb_vresult *r, uid_t uid, pid_t obs)
{
  ucb_error_t e = NULL;
  int refused, admin;
  long n, q, qo, q0;

  if (ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0 || setresuid (uid, 0, 0) < 0)
    _exit (1);
  admin = has_cap (CAP_SYS_ADMIN_BIT);
  n = ucb_vfill_rt (100, &refused);
  q = ucb_vsigq (getpid ());
  qo = ucb_vsigq (obs);
  ucb_vdrain_rt ();
  q0 = ucb_vsigq (obs);
  ucb_vobserve (r, "ruid U/euid 0: CAP_SYS_ADMIN effective", UCB_VITEM_EXACT, 1, admin);
  ucb_vobserve (r, "ruid U/euid 0: queued at soft 5", UCB_VITEM_ADMITTED, 5, n);
  ucb_vobserve (r, "ruid U/euid 0: errno of the 6th", UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vobserve (r, "ruid U/euid 0: its SigQ", UCB_VITEM_COUNTER, 5, q);
  ucb_vobserve (r, "ruid U/euid 0: observer U SigQ", UCB_VITEM_COUNTER, 5, qo);
  ucb_vobserve (r, "ruid U/euid 0: observer SigQ after drain", UCB_VITEM_COUNTER, 0, q0);
  _exit (0);
}

static void
root_container (struct ucb_vresult *r, pid_t root, int attempts)
{
  ucb_error_t e = NULL;
  int refused = 0, tries = 0;
  long n = -1, q = -1, noise = -1, q0;
  bool steady = false;

  if (ucb_vsoft (RLIMIT_SIGPENDING, 5, &e) < 0 || ucb_vuserns (0, &e) < 0
      || ucb_vsoft (RLIMIT_SIGPENDING, RLIM_INFINITY, &e) < 0)
    _exit (1);
  /* Host-root pending signals (timers of root tasks...) share the bound: measure them before,
   * with, and after our fill, and retry until they held still. */
  while (!steady && tries++ < attempts)
    {
      long before = ucb_vsigq (root), with, after;

      n = ucb_vfill_rt (1000, &refused);
      q = ucb_vsigq (getpid ());
      with = ucb_vsigq (root);
      ucb_vdrain_rt ();
      after = ucb_vsigq (root);
      noise = before;
      steady = before >= 0 && after == before && with == before + n;
    }
  q0 = ucb_vsigq (getpid ());
  ucb_vobserve (r, "root container: root SigQ = host + queued", UCB_VITEM_EXACT, 1, steady);
  ucb_vobserve (r, "root container: queued = 5 - host-root", UCB_VITEM_ADMITTED,
                noise < 5 ? 5 - noise : 0, n);
  ucb_vobserve (r, "root container: errno at the bound", UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vobserve (r, "root container: SigQ inside = queued", UCB_VITEM_COUNTER, n, q);
  ucb_vobserve (r, "root container: SigQ inside after drain", UCB_VITEM_COUNTER, 0, q0);
  _exit (0);
}

static int
ulim10_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  const struct ucb_kernel *k = ctx->kernel;
  /* Without 432dc0654c61 each refusal at level 1 leaks a unit of host root's counter: try once. */
  bool leak_fixed = k->major > 6 || (k->major == 6 && k->minor >= 12);
  pid_t obs = ucb_vobserver (ctx->uid_base);
  pid_t pid;
  int status;

  if (obs < 0)
    return ucb_make_error (err, errno, "fork observer");
  pid = ucb_vfork ();
  if (pid == 0)
    euid0 (ctx->res, ctx->uid_base, obs);
  status = pid > 0 ? ucb_vwait (pid) : -1;
  kill (obs, SIGKILL);
  ucb_vwait (obs);
  if (status != 0)
    return ucb_make_error (err, 0, "the ruid %u/euid 0 probe failed", (unsigned) ctx->uid_base);
  pid = ucb_vfork ();
  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    root_container (ctx->res, getppid (), leak_fixed ? ATTEMPTS : 1);
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the root-owned container probe failed");
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim10 = {
  .id = "ULIM-10",
  .name = "sigpending-no-cap-bypass",
  .title = "SIGPENDING: capabilities bypass nothing; a root-owned container shares init_ucounts",
  .rlimit = "SIGPENDING",
  .depends = "ucounts (5.14+): no capability check on the SIGPENDING path",
  .checks = "no capable() in __send_signal_locked/sig_get_ucounts; charge to the ruid "
            "(a55d07294f1e); root container: level 1 = init_ucounts vs rlimit_max",
  .run = ulim10_run,
};
