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
#include <sys/socket.h>
#include <unistd.h>

#include "../verify.h"
#include "../vprobe.h"

/* A task of U (in the initial namespace, or in a container of its own) driven over a socket
 * pair, so that only run() records observations. */
struct agent
{
  pid_t pid;
  int fd; /* our end of a SOCK_SEQPACKET pair: orders out, answers in */
};

struct order
{
  char op; /* 'f' queue up to n SIGRTMIN, 'd' drain, 'q' drain and exit; 'r' ready */
  int errnum;
  long n;
};

/* One message each way; MSG_NOSIGNAL: a dead peer is an error, not SIGPIPE. */
static bool
send_order (int fd, const struct order *o)
{
  ssize_t n;

  do
    n = send (fd, o, sizeof *o, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof *o;
}

static bool
recv_order (int fd, struct order *o)
{
  ssize_t n;

  do
    n = recv (fd, o, sizeof *o, 0);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof *o;
}

static void
agent_main (uid_t uid, rlim_t soft, bool container, int fd)
{
  ucb_error_t e = NULL;
  struct order o = { .op = 'r' };
  sigset_t rt;

  sigemptyset (&rt);
  sigaddset (&rt, SIGRTMIN);
  if (sigprocmask (SIG_BLOCK, &rt, NULL) < 0 || ucb_vbecome (uid, &e) < 0
      || ucb_vsoft (RLIMIT_SIGPENDING, soft, &e) < 0)
    _exit (1);
  if (container
      && (ucb_vuserns (0, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, RLIM_INFINITY, &e) < 0))
    _exit (1);
  while (send_order (fd, &o) && recv_order (fd, &o) && o.op != 'q')
    {
      o.errnum = 0;
      o.n = o.op == 'f' ? ucb_vfill_rt (o.n, &o.errnum) : ucb_vdrain_rt ();
    }
  ucb_vdrain_rt ();
  _exit (0);
}

static int
agent_start (struct agent *a, uid_t uid, rlim_t soft, bool container, ucb_error_t *err)
{
  struct order o;
  int sp[2];

  a->pid = -1;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
    return ucb_make_error (err, errno, "socketpair");
  a->pid = ucb_vfork ();
  if (a->pid == 0)
    {
      close (sp[0]);
      agent_main (uid, soft, container, sp[1]);
    }
  close (sp[1]);
  a->fd = sp[0];
  if (a->pid < 0)
    {
      int e = errno;
      close (a->fd);
      return ucb_make_error (err, e, "fork");
    }
  if (!recv_order (a->fd, &o) || o.op != 'r')
    return ucb_make_error (err, 0, "a task of uid %u did not start", (unsigned) uid);
  return 0;
}

/* Queue up to `max` ('f') or drain ('d'); the count, *errnum the refusal's errno; -1: gone. */
static long
agent_do (struct agent *a, char op, long max, int *errnum)
{
  struct order o = { .op = op, .n = max };

  if (!send_order (a->fd, &o) || !recv_order (a->fd, &o))
    return -1;
  *errnum = o.errnum;
  return o.n;
}

/* Drain, exit, reap; with `kill_it` (an error path) just kill it.  Its exit status. */
static int
agent_stop (struct agent *a, bool kill_it)
{
  struct order o = { .op = 'q' };
  int status;

  if (a->pid <= 0)
    return -1;
  if (kill_it || !send_order (a->fd, &o))
    kill (a->pid, SIGKILL);
  close (a->fd);
  status = ucb_vwait (a->pid);
  a->pid = -1;
  return status;
}

static int
probe (struct ucb_vresult *r, struct agent *h, struct agent *c, ucb_error_t *err)
{
  int eh = 0, ec = 0, eh2 = 0, ec2 = 0, ec3 = 0, ed = 0;
  long nh, nc, qh, qc, nh2, qh2, nc2, dh, nc3, dc, qh0, qc0;

  nh = agent_do (h, 'f', 8, &eh);
  nc = agent_do (c, 'f', 1000, &ec);
  qh = ucb_vsigq (h->pid);
  qc = ucb_vsigq (c->pid);
  nh2 = agent_do (h, 'f', 5000, &eh2);
  qh2 = ucb_vsigq (h->pid);
  nc2 = agent_do (c, 'f', 1000, &ec2);
  dh = agent_do (h, 'd', 0, &ed);
  nc3 = agent_do (c, 'f', 1000, &ec3);
  dc = agent_do (c, 'd', 0, &ed);
  if (nh < 0 || nc < 0 || nh2 < 0 || nc2 < 0 || dh < 0 || nc3 < 0 || dc < 0)
    return ucb_make_error (err, 0, "the host task or the container failed");
  qh0 = ucb_vsigq (h->pid);
  qc0 = ucb_vsigq (c->pid);
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
  struct agent h = { .pid = -1 }, c = { .pid = -1 };
  int ret = -1, sh, sc;

  if (agent_start (&h, ctx->uid_base, 1000, false, err) == 0
      && agent_start (&c, ctx->uid_base, 10, true, err) == 0)
    ret = probe (ctx->res, &h, &c, err);
  sh = agent_stop (&h, ret < 0);
  sc = agent_stop (&c, ret < 0);
  if (ret < 0)
    return ret;
  if (sh != 0 || sc != 0)
    return ucb_make_error (err, 0, "a task of uid %u failed (host %d, container %d)",
                           (unsigned) ctx->uid_base, sh, sc);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim06 = {
  .id = "ULIM-06",
  .name = "sigpending-host-owner",
  .title = "SIGPENDING: the owner's host tasks consume its containers' headroom",
  .rlimit = "SIGPENDING",
  .depends = "5.16-rc7+: before 59ec71575ab4 the container was not bound by host usage",
  .checks = "(init_user_ns, U) is the host task's level 0 and the container's level 1 "
            "(ns->ucounts); inc_rlimit_get_ucounts vs rlimit_max (59ec71575ab4)",
  .run = ulim06_run,
};
