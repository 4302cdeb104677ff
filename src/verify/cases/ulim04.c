/* ulim04.c - ULIM-04: sibling containers of the same owner share the parent level.
 *
 * Two containers A and B created by the same uid U share ns->ucounts = (init_user_ns, U)
 * (create_user_ns -> inc_user_namespaces(parent, owner euid)), so inc_rlimit_get_ucounts charges
 * one level-1 counter for both, each bounded by its own namespace's rlimit_max (59ec71575ab4;
 * before it, v5.14..5.16-rc6, siblings did not share and this case reports over-admission).
 * Both created with soft SIGPENDING 10 and raised inside: A holds 6, B queues 4 then EAGAIN;
 * an observer sleeping as U in the initial namespace reads 10 and B's own SigQ reads 4 (its
 * level 0 is (B, 0)); A drains, B queues 6 more.  Asymmetric: A created with 10 holds 8, B
 * created with 20 queues 12; the shared counter (20) is then above A's bound, so A queues 0. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

/* Symmetric variant: both created with 10. */
static int
symmetric (struct ucb_vresult *r, struct ucb_vagent *a, struct ucb_vagent *b, pid_t obs,
           ucb_error_t *err)
{
  int ea, eb, ed, eb2;
  long na, nb, q, qb, drained, nb2, q2, q0;

  na = ucb_vagent_do (a, 'f', 6, &ea, err);
  nb = ucb_vagent_do (b, 'f', 1000, &eb, err);
  q = ucb_vsigq (obs);
  qb = ucb_vsigq (b->p.pid);
  drained = ucb_vagent_do (a, 'd', 0, &ed, err);
  nb2 = ucb_vagent_do (b, 'f', 1000, &eb2, err);
  q2 = ucb_vsigq (obs);
  if (ucb_vagent_do (b, 'd', 0, &ed, err) < 0)
    return ucb_error_wrap (err, "10/10");
  q0 = ucb_vsigq (obs);
  ucb_vobserve (r, "10/10: queued in A (created with 10)", UCB_VITEM_EXACT, 6, na);
  ucb_vobserve (r, "10/10: queued in B while A holds 6", UCB_VITEM_ADMITTED, 4, nb);
  ucb_vobserve (r, "10/10: errno at the shared bound", UCB_VITEM_ERRNO, EAGAIN, eb);
  ucb_vobserve (r, "10/10: observer SigQ (shared level 1)", UCB_VITEM_COUNTER, 10, q);
  ucb_vobserve (r, "10/10: SigQ inside B (its level 0)", UCB_VITEM_COUNTER, 4, qb);
  ucb_vobserve (r, "10/10: drained from A", UCB_VITEM_EXACT, 6, drained);
  ucb_vobserve (r, "10/10: queued in B after A drained", UCB_VITEM_ADMITTED, 6, nb2);
  ucb_vobserve (r, "10/10: errno at the bound again", UCB_VITEM_ERRNO, EAGAIN, eb2);
  ucb_vobserve (r, "10/10: observer SigQ with B full", UCB_VITEM_COUNTER, 10, q2);
  ucb_vobserve (r, "10/10: observer SigQ after the drains", UCB_VITEM_COUNTER, 0, q0);
  return 0;
}

/* Asymmetric variant: A created with 10, B with 20. */
static int
asymmetric (struct ucb_vresult *r, struct ucb_vagent *a, struct ucb_vagent *b, pid_t obs,
            ucb_error_t *err)
{
  int ea, eb, ea2, ed;
  long na, nb, q, na2, q0;

  na = ucb_vagent_do (a, 'f', 8, &ea, err);
  nb = ucb_vagent_do (b, 'f', 1000, &eb, err);
  q = ucb_vsigq (obs);
  na2 = ucb_vagent_do (a, 'f', 1000, &ea2, err);
  ucb_vagent_do (a, 'd', 0, &ed, err);
  if (ucb_vagent_do (b, 'd', 0, &ed, err) < 0)
    return ucb_error_wrap (err, "10/20");
  q0 = ucb_vsigq (obs);
  ucb_vobserve (r, "10/20: queued in A (created with 10)", UCB_VITEM_EXACT, 8, na);
  ucb_vobserve (r, "10/20: queued in B (created with 20)", UCB_VITEM_ADMITTED, 12, nb);
  ucb_vobserve (r, "10/20: errno at B's bound", UCB_VITEM_ERRNO, EAGAIN, eb);
  ucb_vobserve (r, "10/20: observer SigQ (shared level 1)", UCB_VITEM_COUNTER, 20, q);
  ucb_vobserve (r, "10/20: queued in A, shared 20 above its 10", UCB_VITEM_ADMITTED, 0, na2);
  ucb_vobserve (r, "10/20: errno in A over its bound", UCB_VITEM_ERRNO, EAGAIN, ea2);
  ucb_vobserve (r, "10/20: observer SigQ after the drains", UCB_VITEM_COUNTER, 0, q0);
  return 0;
}

static int
ulim04_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  static const rlim_t created[2][2] = { { 10, 10 }, { 10, 20 } };

  for (int v = 0; v < 2; v++)
    {
      uid_t uid = ctx->uid_base + (uid_t) v;
      struct ucb_vagent a = UCB_VAGENT_NONE, b = UCB_VAGENT_NONE;
      struct ucb_probe obs = UCB_PROBE_NONE;

      if (ucb_vobserver (&obs, uid, err) < 0)
        return -1;
      if (ucb_vagent_start (&a, "container A", uid, created[v][0], true, err) == 0
          && ucb_vagent_start (&b, "container B", uid, created[v][1], true, err) == 0)
        (void) (v == 0 ? symmetric (ctx->res, &a, &b, obs.pid, err)
                       : asymmetric (ctx->res, &a, &b, obs.pid, err));
      ucb_vagent_stop (&a, err);
      ucb_vagent_stop (&b, err);
      ucb_probe_kill (&obs);
      if (*err)
        return -1;
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim04 = {
  .id = "ULIM-04",
  .name = "sigpending-shared-owner",
  .title = "SIGPENDING: sibling containers of one owner share the parent-level counter",
  .rlimit = "SIGPENDING",
  .depends = "5.16-rc7+: before 59ec71575ab4 siblings did not share the parent level",
  .checks = "ns->ucounts = (parent ns, creator euid) shared by siblings; inc_rlimit_get_ucounts "
            "level 1 vs each child's rlimit_max (59ec71575ab4)",
  .needs_caps = UCB_VNEEDS_PROBES,
  .run = ulim04_run,
  .cells = { { UCB_VLEVEL_PARENT, UCB_VPROP_P6 }, { UCB_VLEVEL_PARENT, UCB_VPROP_P5 } },
};
