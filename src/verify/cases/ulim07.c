/* ulim07.c - ULIM-07: no charge leaks after repeated refusals.
 *
 * A container of U created with soft SIGPENDING 5, raised inside, does 300 rounds of {queue
 * SIGRTMIN until refused, drain}: every round exactly 5 then EAGAIN, and afterwards its SigQ and
 * an observer's (U in the initial namespace) read 0.  The refusal comes from the level-1 check
 * in inc_rlimit_get_ucounts, whose unwind must undo the failing level too (432dc0654c61, v6.12-rc7;
 * without it, 5.15 .. 6.12-rc6 unless backported, each refusal leaked one unit of the parent
 * counter and the headroom shrank round by round).  Repeated with own soft 5 inside (the same
 * level-1 refusal) and, to cover the other unwind, with a container created with soft 10 and own
 * soft 5 inside: there the level-0 check in sig_get_ucounts refuses and dec_rlimit_put_ucounts
 * undoes every level.  The expectation is the fixed behaviour on every kernel: a kernel older
 * than 6.12 may or may not carry the backport, which uname cannot tell, so an unfixed one fails. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define ROUNDS 300

static const struct
{
  const char *label;
  rlim_t created, inside; /* soft at unshare, own soft inside (RLIM_INFINITY: raised) */
} phases[] = {
  { "raised inside", 5, RLIM_INFINITY },
  { "own soft 5 inside", 5, 5 },
  { "created 10, own 5", 10, 5 },
};

static void
probe (struct ucb_vresult *r, uid_t uid, pid_t obs, size_t p)
{
  ucb_error_t e = NULL;
  long min = -1, max = -1, refused_eagain = 0, q, qo;
  char name[UCB_VNAME_MAX];

  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, phases[p].created, &e) < 0
      || ucb_vuserns (0, &e) < 0 || ucb_vsoft (RLIMIT_SIGPENDING, phases[p].inside, &e) < 0)
    _exit (1);
  for (int round = 0; round < ROUNDS; round++)
    {
      int refused;
      long n = ucb_vfill_rt (1000, &refused);

      if (min < 0 || n < min)
        min = n;
      if (n > max)
        max = n;
      refused_eagain += refused == EAGAIN;
      ucb_vdrain_rt ();
    }
  q = ucb_vsigq (getpid ());
  qo = ucb_vsigq (obs);
  snprintf (name, sizeof name, "%s: fewest queued in a round", phases[p].label);
  ucb_vobserve (r, name, UCB_VITEM_ADMITTED, 5, min);
  snprintf (name, sizeof name, "%s: most queued in a round", phases[p].label);
  ucb_vobserve (r, name, UCB_VITEM_ADMITTED, 5, max);
  snprintf (name, sizeof name, "%s: rounds ended by EAGAIN", phases[p].label);
  ucb_vobserve (r, name, UCB_VITEM_EXACT, ROUNDS, refused_eagain);
  snprintf (name, sizeof name, "%s: SigQ inside at the end", phases[p].label);
  ucb_vobserve (r, name, UCB_VITEM_COUNTER, 0, q);
  snprintf (name, sizeof name, "%s: observer SigQ at the end", phases[p].label);
  ucb_vobserve (r, name, UCB_VITEM_COUNTER, 0, qo);
  _exit (0);
}

static int
ulim07_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  for (size_t p = 0; p < sizeof phases / sizeof phases[0]; p++)
    {
      uid_t uid = ctx->uid_base + (uid_t) p;
      pid_t obs = ucb_vobserver (uid);
      pid_t pid;
      int status;

      if (obs < 0)
        return ucb_make_error (err, errno, "fork observer");
      pid = ucb_vfork ();
      if (pid == 0)
        probe (ctx->res, uid, obs, p);
      status = pid > 0 ? ucb_vwait (pid) : -1;
      kill (obs, SIGKILL);
      ucb_vwait (obs);
      if (pid < 0)
        return ucb_make_error (err, errno, "fork");
      if (status != 0)
        return ucb_make_error (err, 0, "the probe as uid %u failed (%s)", (unsigned) uid,
                               phases[p].label);
    }
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim07 = {
  .id = "ULIM-07",
  .name = "sigpending-no-leak",
  .title = "SIGPENDING: 300 refused fills leave every level's counter intact",
  .rlimit = "SIGPENDING",
  .depends
  = "432dc0654c61 (6.12-rc7, backported to stable): without it headroom shrinks every round",
  .checks = "inc_rlimit_get_ucounts unwind of the failing level (432dc0654c61); "
            "sig_get_ucounts level-0 refusal -> dec_rlimit_put_ucounts over all levels",
  .run = ulim07_run,
};
