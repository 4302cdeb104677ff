/* ulim05.c - ULIM-05: containers of distinct owners do not share a counter.
 *
 * Container A (owner U1) and container B (owner U2), each created with soft SIGPENDING 10 and
 * raised inside: while A holds 10 queued signals, B still queues 10.  Their level-1 objects are
 * (init_user_ns, U1) and (init_user_ns, U2): nothing in common (the isolation Jann Horn
 * suggested runtimes use; contrast ULIM-04, same owner). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

/* Fill a container of `uid`; with a gate, hold the signals until released. */
static void
container (struct ucb_vresult *r, uid_t uid, const char *name, struct ucb_vgate *full,
           struct ucb_vgate *release)
{
  ucb_error_t e = NULL;
  int refused;
  long n;

  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, 10, &e) < 0
      || ucb_vuserns (0, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, RLIM_INFINITY, &e) < 0)
    _exit (1);
  n = ucb_vfill_rt (1000, &refused);
  ucb_vobserve (r, name, UCB_VITEM_ADMITTED, 10, n);
  if (full)
    {
      ucb_vgate_post (full);
      ucb_vgate_wait (release);
    }
  ucb_vdrain_rt ();
  _exit (0);
}

static int
ulim05_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_vgate full, release;
  pid_t a, b;
  int sa, sb;

  if (ucb_vgate_open (&full, err) < 0)
    return -1;
  if (ucb_vgate_open (&release, err) < 0)
    {
      ucb_vgate_close (&full);
      return -1;
    }
  a = ucb_vfork ();
  if (a == 0)
    container (ctx->res, ctx->uid_base, "queued in A (owner U1)", &full, &release);
  if (a < 0 || !ucb_vgate_wait (&full))
    {
      ucb_vgate_close (&full);
      ucb_vgate_close (&release);
      return ucb_make_error (err, errno, "container A did not fill");
    }
  b = ucb_vfork ();
  if (b == 0)
    container (ctx->res, ctx->uid_base + 1, "queued in B (owner U2) while A is full", NULL, NULL);
  sb = b > 0 ? ucb_vwait (b) : -1;
  ucb_vgate_post (&release);
  sa = ucb_vwait (a);
  ucb_vgate_close (&full);
  ucb_vgate_close (&release);
  if (sa != 0 || sb != 0)
    return ucb_make_error (err, 0, "a container probe failed (A %d, B %d)", sa, sb);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim05 = {
  .id = "ULIM-05",
  .name = "sigpending-distinct-owners",
  .title = "SIGPENDING: containers of distinct owners each get their full limit",
  .rlimit = "SIGPENDING",
  .depends = "ucounts (5.14+)",
  .checks = "ns->ucounts = (parent ns, creator euid): distinct owners, distinct level-1 counters",
  .run = ulim05_run,
};
