/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ulim11.c - ULIM-11: RLIMIT_NPROC at the own level: threads count, zombies count.
 *
 * Fresh uid U in the initial namespace with soft NPROC 5: the process itself is one task, so 4
 * children fork and the 5th fork fails with EAGAIN (copy_creds charges first, then
 * is_rlimit_overlimit in copy_process: total <= limit; before 8f2f9c4d82f2 the kernel allowed
 * limit + 1); pthread_create fails with EAGAIN too.  After the children are reaped, 4 fit
 * again.  With soft 3 and two unreaped zombies the next fork fails: only release_task
 * uncharges; once they are reaped it succeeds.
 *
 * Every fork count goes on until refused, up to the safety cap (probe-work.h): cap + 1 reads
 * "> cap", a bypass, never a count. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/probe-work.h"
#include "verify/rlimit-ops.h"

static void *
noop (void *p)
{
  return p;
}

enum
{
  FORKED,
  REFUSED,
  THREAD,
  AGAIN,
  ZOMBIES,
  REAPED,
};

/* A fork whose child exits at once: 0 or the fork's errno; the child is reaped. */
static int
fork_exit (void)
{
  pid_t pid = fork ();

  if (pid == 0)
    _exit (0);
  if (pid < 0)
    return errno;
  waitpid (pid, NULL, 0);
  return 0;
}

/* Children at the limit, a thread at the limit, the same count after reaping. */
_Static_assert(UCB_VTRIES (4) <= UCB_RL_HELD_MAX, "the children fit the held table");
static void
at_the_limit (struct ucb_probe_out *o)
{
  const struct ucb_rlops *nproc = &ucb_rlops[UCB_RL_NPROC];
  struct ucb_rlheld kids = { .n = 0 };
  int refused;
  pthread_t t;

  o->v[FORKED] = ucb_rlops_fill (nproc, &kids, UCB_VTRIES (4), false, &refused);
  o->v[REFUSED] = refused;
  o->v[THREAD] = pthread_create (&t, NULL, noop, NULL);
  if (o->v[THREAD] == 0)
    pthread_join (t, NULL);
  ucb_rlops_release (nproc, &kids, -1);
  o->v[AGAIN] = ucb_rlops_count (nproc, NULL, UCB_VTRIES (4), &refused);
}

static int
probe (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  pid_t z[2];

  (void) arg;
  at_the_limit (o);
  /* Zombies stay charged until reaped. */
  if (ucb_vsoft (RLIMIT_NPROC, 3, err) < 0)
    return -1;
  for (int i = 0; i < 2; i++)
    {
      z[i] = fork ();
      if (z[i] == 0)
        _exit (0);
    }
  /* Until both are zombies: exited, not reaped (WNOWAIT), whatever the load. */
  for (int i = 0; i < 2; i++)
    {
      siginfo_t si;
      while (z[i] > 0 && waitid (P_PID, (id_t) z[i], &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    }
  o->v[ZOMBIES] = fork_exit ();
  for (int i = 0; i < 2; i++)
    if (z[i] > 0)
      waitpid (z[i], NULL, 0);
  o->v[REAPED] = fork_exit ();
  return 0;
}

static int
ulim11_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .uid = ctx->uid_base, .resource = RLIMIT_NPROC, .soft = 5 };
  struct ucb_vresult *r = ctx->res;
  struct ucb_probe_out o;

  if (ucb_probe_run (&spec, probe, NULL, &o, err) < 0)
    return -1;
  ucb_vobserve_fill (r, "children forked at soft NPROC 5", UCB_VITEM_ADMITTED, 4, o.v[FORKED],
                     UCB_VTRIES (4), "errno of the 5th fork", EAGAIN, o.v[REFUSED]);
  ucb_vobserve (r, "pthread_create at the limit", UCB_VITEM_ERRNO, EAGAIN, o.v[THREAD]);
  ucb_vobserve_count (r, "children forked after reaping", UCB_VITEM_READMITTED, 4, o.v[AGAIN],
                      UCB_VTRIES (4));
  ucb_vobserve (r, "fork with 2 zombies at soft NPROC 3", UCB_VITEM_ERRNO, EAGAIN, o.v[ZOMBIES]);
  ucb_vobserve (r, "fork after the zombies are reaped", UCB_VITEM_ERRNO_RELEASED, 0, o.v[REAPED]);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim11 = {
  .id = "ULIM-11",
  .name = "nproc-own-level",
  .title = "NPROC: limit - 1 children, threads count, zombies count until reaped",
  .rlimit = UCB_RL_NPROC,
  .depends = "limit + 1 children before 8f2f9c4d82f2 (5.17-rc5)",
  .checks = "copy_creds inc_rlimit_ucounts + is_rlimit_overlimit in copy_process (8f2f9c4d82f2); "
            "release_task uncharge",
  .run = ulim11_run,
  .cells = { { UCB_VLEVEL_OWN, UCB_VPROP_P1 } },
};
