/* ulim06.c - ULIM-06: host tasks of the owner consume the headroom of its containers.
 *
 * A host task H of uid U charges level 0 (init_user_ns, U), which is the level-1 object of every
 * container U creates (ns->ucounts); inc_rlimit_get_ucounts checks it there against the
 * container's rlimit_max (59ec71575ab4; before it, v5.14..5.16-rc6, the container ignored the
 * host's charges and this case reports over-admission).  H (soft 1000) holds 8; a container C
 * created by U with soft 10 and raised inside queues 2, then EAGAIN.  H's SigQ reads 10 (8 + 2),
 * C's own SigQ 2.  H still queues 990 more (its level 0 only: 1000 - 10), C then gets 0; once H
 * drains, C gets its remaining 8.  Everything drained: both SigQs read 0. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

static int
probe (struct ucb_vresult *r, struct ucb_vagent *h, struct ucb_vagent *c, ucb_error_t *err)
{
  int eh, ec, eh2, ec2, ec3, ed;
  long nh, nc, qh, qc, nh2, qh2, nc2, dh, nc3, dc, qh0, qc0;

  nh = ucb_vagent_do (h, 'f', 8, &eh, err);
  nc = ucb_vagent_do (c, 'f', 1000, &ec, err);
  qh = ucb_vsigq (h->p.pid);
  qc = ucb_vsigq (c->p.pid);
  nh2 = ucb_vagent_do (h, 'f', 5000, &eh2, err);
  qh2 = ucb_vsigq (h->p.pid);
  nc2 = ucb_vagent_do (c, 'f', 1000, &ec2, err);
  dh = ucb_vagent_do (h, 'd', 0, &ed, err);
  nc3 = ucb_vagent_do (c, 'f', 1000, &ec3, err);
  dc = ucb_vagent_do (c, 'd', 0, &ed, err);
  if (dc < 0)
    return -1;
  qh0 = ucb_vsigq (h->p.pid);
  qc0 = ucb_vsigq (c->p.pid);
  ucb_vobserve (r, "queued by the host task (soft 1000)", UCB_VITEM_EXACT, 8, nh);
  ucb_vobserve (r, "queued in the container (created with 10)", UCB_VITEM_ADMITTED, 2, nc);
  ucb_vobserve (r, "errno at the container's parent bound", UCB_VITEM_ERRNO, EAGAIN, ec);
  ucb_vobserve (r, "host SigQ: host 8 + container 2", UCB_VITEM_COUNTER, 10, qh);
  ucb_vobserve (r, "SigQ inside the container", UCB_VITEM_COUNTER, 2, qc);
  ucb_vobserve (r, "queued by the host task after that", UCB_VITEM_ADMITTED, 990, nh2);
  ucb_vobserve (r, "errno at the host's own limit", UCB_VITEM_ERRNO, EAGAIN, eh2);
  ucb_vobserve (r, "host SigQ at its own limit", UCB_VITEM_COUNTER, 1000, qh2);
  ucb_vobserve (r, "queued in the container, host full", UCB_VITEM_ADMITTED, 0, nc2);
  ucb_vobserve (r, "errno in the container, host full", UCB_VITEM_ERRNO, EAGAIN, ec2);
  ucb_vobserve (r, "drained by the host task", UCB_VITEM_EXACT, 998, dh);
  ucb_vobserve (r, "queued in the container after the host drained", UCB_VITEM_ADMITTED, 8, nc3);
  ucb_vobserve (r, "drained in the container", UCB_VITEM_EXACT, 10, dc);
  ucb_vobserve (r, "host SigQ after the drains", UCB_VITEM_COUNTER, 0, qh0);
  ucb_vobserve (r, "SigQ inside the container after the drain", UCB_VITEM_COUNTER, 0, qc0);
  return 0;
}

static int
ulim06_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vagent h = UCB_VAGENT_NONE, c = UCB_VAGENT_NONE;

  if (ucb_vagent_start (&h, "the host task", ctx->uid_base, 1000, false, err) == 0
      && ucb_vagent_start (&c, "the container", ctx->uid_base, 10, true, err) == 0)
    (void) probe (ctx->res, &h, &c, err);
  ucb_vagent_stop (&h, err);
  ucb_vagent_stop (&c, err);
  return *err ? -1 : 0;
}

const struct ucb_vcase ucb_vcase_ulim06 = {
  .id = "ULIM-06",
  .name = "sigpending-host-owner",
  .title = "SIGPENDING: the owner's host tasks consume its containers' headroom",
  .rlimit = "SIGPENDING",
  .depends = "5.16-rc7+: before 59ec71575ab4 the container was not bound by host usage",
  .checks = "(init_user_ns, U) is the host task's level 0 and the container's level 1 "
            "(ns->ucounts); inc_rlimit_get_ucounts vs rlimit_max (59ec71575ab4)",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim06_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P5 } },
};
