/* ulim11.c - ULIM-11: RLIMIT_NPROC at the own level: threads count, zombies count.
 *
 * Fresh uid U in the initial namespace with soft NPROC 5: the process itself is one task, so 4
 * children fork and the 5th fork fails with EAGAIN (copy_creds charges first, then
 * is_rlimit_overlimit in copy_process: total <= limit; before 8f2f9c4d82f2 the kernel allowed
 * limit + 1); pthread_create fails with EAGAIN too.  After the children are reaped, 4 fit
 * again.  With soft 3 and two unreaped zombies the next fork fails: only release_task
 * uncharges; once they are reaped it succeeds. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify/verify.h"
#include "verify/vprobe.h"

#define MAXKIDS 64

static void *
noop (void *p)
{
  return p;
}

static void
probe (struct ucb_vresult *r, uid_t uid)
{
  ucb_error_t e = NULL;
  pid_t kids[MAXKIDS], z[2];
  int refused, terr;
  long n, again;
  pthread_t t;
  pid_t extra;

  if (ucb_vbecome (uid, &e) < 0 || ucb_vsoft (RLIMIT_NPROC, 5, &e) < 0)
    _exit (1);
  n = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
  terr = pthread_create (&t, NULL, noop, NULL);
  if (terr == 0)
    pthread_join (t, NULL);
  ucb_vkill_reap (kids, n);
  again = ucb_vfork_sleepers (kids, MAXKIDS, &refused);
  ucb_vkill_reap (kids, again);
  ucb_vobserve (r, "children forked at soft NPROC 5", UCB_VITEM_ADMITTED, 4, n);
  ucb_vobserve (r, "errno of the 5th fork", UCB_VITEM_ERRNO, EAGAIN, refused);
  ucb_vobserve (r, "pthread_create at the limit", UCB_VITEM_ERRNO, EAGAIN, terr);
  ucb_vobserve (r, "children forked after reaping", UCB_VITEM_ADMITTED, 4, again);

  /* Zombies stay charged until reaped. */
  if (ucb_vsoft (RLIMIT_NPROC, 3, &e) < 0)
    _exit (1);
  for (int i = 0; i < 2; i++)
    {
      z[i] = fork ();
      if (z[i] == 0)
        _exit (0);
    }
  usleep (100000); /* let both become zombies */
  extra = fork ();
  if (extra == 0)
    _exit (0);
  ucb_vobserve (r, "fork with 2 zombies at soft NPROC 3", UCB_VITEM_ERRNO, EAGAIN,
                extra < 0 ? errno : 0);
  if (extra > 0)
    waitpid (extra, NULL, 0);
  for (int i = 0; i < 2; i++)
    if (z[i] > 0)
      waitpid (z[i], NULL, 0);
  extra = fork ();
  if (extra == 0)
    _exit (0);
  ucb_vobserve (r, "fork after the zombies are reaped", UCB_VITEM_ERRNO, 0, extra < 0 ? errno : 0);
  if (extra > 0)
    waitpid (extra, NULL, 0);
  _exit (0);
}

static int
ulim11_run (struct ucb_vctx *ctx, ucb_error_t *err)
{
  pid_t pid = ucb_vfork ();

  if (pid < 0)
    return ucb_make_error (err, errno, "fork");
  if (pid == 0)
    probe (ctx->res, ctx->uid_base);
  if (ucb_vwait (pid) != 0)
    return ucb_make_error (err, 0, "the probe as uid %u failed", (unsigned) ctx->uid_base);
  return 0;
}

const struct ucb_vcase ucb_vcase_ulim11 = {
  .id = "ULIM-11",
  .name = "nproc-own-level",
  .title = "NPROC: limit - 1 children, threads count, zombies count until reaped",
  .rlimit = "NPROC",
  .depends = "limit + 1 children before 8f2f9c4d82f2 (5.17-rc5)",
  .checks = "copy_creds inc_rlimit_ucounts + is_rlimit_overlimit in copy_process (8f2f9c4d82f2); "
            "release_task uncharge",
  .run = ulim11_run,
};
