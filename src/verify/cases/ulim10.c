/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"
#include "verify/script.h"

/* Host root's counter is shared with every root task (a SIGCHLD pending to a root parent, a
 * root-owned container's signals): attempts are spread over up to 5 s, 10 ms apart, so that a
 * busy host (a test suite running as root beside us) still leaves a steady moment.  On a quiet
 * host the first attempt is steady. */
#define ATTEMPTS 500
#define ROOT_SOFT 5 /* the root container's soft SIGPENDING */
#define ATTEMPT_GAP_NS 10000000L

/* (a) ruid U / euid 0 (capabilities kept), soft 5, beside an observer of U. */
enum
{
  OBS,
  EUID0,
};

static const struct ucb_vactor euid0_actors[] = {
  [OBS] = { "the observer", 0, 0, 0, false, false },
  [EUID0] = { "the ruid U/euid 0 probe", 0, RLIMIT_SIGPENDING, 5, false, true },
};

static const struct ucb_vstep euid0_steps[] = {
  { EUID0, UCB_VOP_CAP, CAP_SYS_ADMIN, "ruid U/euid 0: CAP_SYS_ADMIN effective", UCB_VITEM_EXACT,
    1 },
  { EUID0, UCB_VOP_FILL, UCB_VTRIES (5), "ruid U/euid 0: queued at soft 5", UCB_VITEM_ADMITTED, 5,
    "ruid U/euid 0: errno of the 6th", EAGAIN },
  { EUID0, UCB_VOP_SIGQ, 0, "ruid U/euid 0: its SigQ", UCB_VITEM_COUNTER, 5 },
  { OBS, UCB_VOP_SIGQ, 0, "ruid U/euid 0: observer U SigQ", UCB_VITEM_COUNTER, 5 },
  { EUID0, UCB_VOP_DRAIN, 0, NULL, UCB_VITEM_EXACT, 0 },
  { OBS, UCB_VOP_SIGQ, 0, "ruid U/euid 0: observer SigQ after drain", UCB_VITEM_COUNTER, 0 },
};

enum
{
  STEADY,
  NOISE,
  C_QUEUED,
  C_SIGQ,
  C_SIGQ_DRAINED,
};

struct root_arg
{
  pid_t root;
  int attempts;
};

/* What the root container may queue beside `host` pending signals of host root's. */
static long
root_room (long host)
{
  return host < ROOT_SOFT ? ROOT_SOFT - host : 0;
}

static int
root_container (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  const struct root_arg *a = arg;
  int tries = 0;
  bool steady = false;

  (void) err;
  o->v[C_QUEUED] = o->v[C_SIGQ] = o->v[NOISE] = -1;
  /* Host-root pending signals (timers of root tasks...) share the bound: measure them before,
   * with, and after our fill, and retry until they held still. */
  while (!steady && tries++ < a->attempts)
    {
      const struct ucb_rlops *sigs = &ucb_rlops[UCB_RL_SIGPENDING];
      struct ucb_rlheld rt = { .n = 0 };
      long before, with, after, n;

      if (tries > 1)
        nanosleep (&(struct timespec){ .tv_nsec = ATTEMPT_GAP_NS }, NULL);
      before = ucb_vsigq (a->root);

      n = ucb_rlops_fill (sigs, &rt, UCB_VTRIES (ROOT_SOFT), false, &o->errnum);
      o->v[C_SIGQ] = ucb_vsigq (getpid ());
      with = ucb_vsigq (a->root);
      ucb_rlops_release (sigs, &rt, -1);
      after = ucb_vsigq (a->root);
      o->v[C_QUEUED] = n;
      o->v[NOISE] = before;
      /* Steady: nothing else moved root's counter while we filled (a root signal pending
       * for a moment takes one of our five; seen as n != 5 - before with before == after). */
      steady = before >= 0 && after == before && with == before + n && n == root_room (before);
    }
  o->v[STEADY] = steady;
  o->v[C_SIGQ_DRAINED] = ucb_vsigq (getpid ());
  return 0;
}

static int
ulim10_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  const struct ucb_kernel *k = ctx->kernel;
  /* Without 432dc0654c61 each refusal at level 1 leaks a unit of host root's counter: try once. */
  bool leak_fixed = k->major > 6 || (k->major == 6 && k->minor >= 12);
  struct ucb_probe_spec spec = { .what = "the root-owned container probe",
                                 .resource = RLIMIT_SIGPENDING,
                                 .soft = ROOT_SOFT,
                                 .userns = CLONE_NEWUSER,
                                 .soft_inside = RLIM_INFINITY,
                                 .block_rt = true /* what it queues to itself stays pending */ };
  struct root_arg a = { .root = getpid (), .attempts = leak_fixed ? ATTEMPTS : 1 };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;
  long noise;

  if (ucb_vscript (ctx, euid0_actors, UCB_ARRAY_SIZE (euid0_actors), euid0_steps,
                   UCB_ARRAY_SIZE (euid0_steps), err)
          < 0
      || ucb_probe_run (&spec, root_container, &a, &o, err) < 0)
    return -1;
  noise = (long) o.v[NOISE];
  ucb_vobserve (r, "root container: root SigQ = host + queued", UCB_VITEM_EXACT, 1, o.v[STEADY]);
  ucb_vobserve_fill (r, "root container: queued = 5 - host-root", UCB_VITEM_ADMITTED,
                     root_room (noise), o.v[C_QUEUED], UCB_VTRIES (ROOT_SOFT),
                     "root container: errno at the bound", EAGAIN, o.errnum);
  ucb_vobserve (r, "root container: SigQ inside = queued", UCB_VITEM_COUNTER, o.v[C_QUEUED],
                o.v[C_SIGQ]);
  ucb_vobserve (r, "root container: SigQ inside after drain", UCB_VITEM_COUNTER, 0,
                o.v[C_SIGQ_DRAINED]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim10 = {
  .id = "ULIM-10",
  .name = "sigpending-no-cap-bypass",
  .title = "SIGPENDING: capabilities bypass nothing; a root-owned container shares init_ucounts",
  .rlimit = UCB_RL_SIGPENDING,
  .depends = "ucounts (5.14+): no capability check on the SIGPENDING path",
  .checks = "no capable() in __send_signal_locked/sig_get_ucounts; charge to the ruid "
            "(a55d07294f1e); root container: level 1 = init_ucounts vs rlimit_max",
  /* (a) euid 0 keeps CAP_SYS_ADMIN; (b) a root-owned container: mapping uid 0 needs
   * CAP_SETFCAP (db2e718a4798, 5.12). */
  .needs_caps = UCB_VCAP (CAP_SYS_ADMIN) | UCB_VCAP (CAP_SETFCAP),
  .needs_init_root = true,
  .run = ulim10_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P7 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P7 } },
};
