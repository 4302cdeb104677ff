/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells-pin.c - the generic matrix cell P9 nothing pinned (cells.h, docs/verify.md "P9").
 *
 * A struct ucounts holds a reference on its user namespace (alloc_ucounts: get_user_ns), and a
 * user namespace stays counted in UCOUNT_USER_NAMESPACES of its creator until free_user_ns.  A
 * refusal or release path that forgets a put_ucounts keeps every rlimit count exact but pins
 * the namespace for ever: seen as a count of user namespaces.  The agents make their
 * namespaces in a room: R, a user namespace of the cell's uid U whose root set R's
 * max_user_namespaces to ROOM_ALLOWS; everything made below it counts at (R, U).  After each
 * round, once its tasks are gone, R must allow ROOM_ALLOWS again (within 10 s: the release is
 * asynchronous).  R itself is made in a frame F that allows R and R's allowance, ROOM_ALLOWS
 * + 1: once the room is closed, F must allow all of it again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "host/userns.h"
#include "verify/cells.h"
#include "verify/probe-work.h"

enum
{
  /* What one round holds at once: the own-level agent's two namespaces, then the holder's and
   * the sibling's one each (a phase waits for the last one's to be freed). */
  ROOM_ALLOWS = UCB_VROOM_ALLOWS,
  /* More rounds than the room allows: a namespace pinned per round would exhaust it. */
  ROUNDS = ROOM_ALLOWS + 1,
};

#define MAX_USERNS "max_user_namespaces"

/* The room maker, as U in F (its spec): F's maximum, then R made and its maximum, each
 * reported so that the case process opens it (/proc/PID/ns/user). */
static int
make_room (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  ino_t outer = *(const ino_t *) arg;

  if (ucb_vuserns_sysctl (outer, MAX_USERNS, ROOM_ALLOWS + 1, err) < 0
      || ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0)
    return ucb_error_wrap (err, "the frame");
  if (ucb_userns_enter (0, err) < 0 || ucb_vuserns_sysctl (outer, MAX_USERNS, ROOM_ALLOWS, err) < 0
      || ucb_probe_report (o, err) < 0 || ucb_probe_await (NULL, err) < 0)
    return ucb_error_wrap (err, "the room");
  return 0;
}

int
ucb_vopen_userns (pid_t pid, int *fd, ucb_error_t *err)
{
  char path[64];

  snprintf (path, sizeof path, "/proc/%d/ns/user", (int) pid);
  *fd = open (path, O_RDONLY | O_CLOEXEC);
  if (*fd == 0)
    {
      *fd = fcntl (0, F_DUPFD_CLOEXEC, 1);
      close (0);
    }
  if (*fd < 0)
    return ucb_make_error (err, errno, "open %s", path);
  return 0;
}

/* The frame F and the room R in it, as fds of the case process (cells.h). */
int
ucb_vroom_open (struct ucb_vctx *ctx, struct ucb_vroom *r, ucb_error_t *err)
{
  struct ucb_probe_spec spec
      = { .what = "the room maker", .uid = ctx->uid_base, .userns = CLONE_NEWUSER };
  struct ucb_probe p = UCB_PROBE_NONE;
  struct ucb_probe_out o = { 0 };
  struct stat st;

  if (stat ("/proc/self/ns/user", &st) < 0)
    return ucb_make_error (err, errno, "stat /proc/self/ns/user");
  if (ucb_probe_start_report (&p, &spec, make_room, &st.st_ino, NULL, err) < 0)
    return -1;
  if (ucb_vopen_userns (p.pid, &r->frame, err) < 0 || ucb_probe_order (&p, &o, err) < 0
      || ucb_probe_next (&p, &o, err) < 0 || ucb_vopen_userns (p.pid, &r->room, err) < 0
      || ucb_probe_order (&p, &o, err) < 0 || ucb_probe_finish (&p, NULL, err) < 0)
    {
      ucb_probe_kill (&p);
      return -1;
    }
  return 0;
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* Between the phases no probe lives: every child left is an orphan of a stopped agent (its
 * SIGPENDING watcher in N1, rlagent.c), killed with it.  A zombie holds its cred, and with it
 * its user namespace: reap them all (until ECHILD), for at most 2 s. */
static int
reap_orphans (ucb_error_t *err)
{
  uint64_t deadline = ucb_now_ns () + UCB_VUSERNS_FREED_NS;

  for (;;)
    {
      pid_t r = waitpid (-1, NULL, WNOHANG);

      if (r > 0 || (r < 0 && errno == EINTR))
        continue;
      if (r < 0)
        return errno == ECHILD ? 0 : ucb_make_error (err, errno, "waitpid");
      if (ucb_now_ns () >= deadline)
        return ucb_make_error (err, 0, "the orphans of the agents were not gone within 2 s");
      nanosleep (&(struct timespec){ 0, 1000000 }, NULL);
    }
}

/* How many nested user namespaces U may make in the namespace of `fd` once it allows `want`
 * again, waited for up to 10 s (*errnum: the refusal after them); -1 with `err` set. */
static long
allows (struct ucb_vctx *ctx, int fd, long want, int *errnum, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the count of user namespaces", .uid = ctx->uid_base };
  struct ucb_vnest n
      = { .join = fd, .want = want, .max = want + 1, .wait_ns = UCB_VUSERNS_FREED_NS };
  struct ucb_probe_out o;

  if (reap_orphans (err) < 0 || ucb_probe_run (&spec, ucb_vnest, &n, &o, err) < 0)
    return -1;
  *errnum = o.errnum;
  return (long) o.v[0];
}

/* Refusals seen with the rlimit's errno, at each level, over the rounds; and the attempts
 * admitted past a bound, of how many. */
struct pin_tally
{
  long own, parent, admitted, tries;
};

/* The own level: O at depth 2 below R (N1, N2 made with the hard limit), own soft N: fill until
 * refused, release everything; then the own limit at what O holds by being alive, K attempts,
 * each refused while O holds nothing (SIGPENDING: every level goes 0 -> 1 -> 0, a get_ucounts
 * and its put in the unwind; NPROC: a new cred dropped at each refused fork). */
static void
round_own (struct ucb_vctx *ctx, const struct ucb_rlops *ops, int room, struct pin_tally *t,
           ucb_error_t *err)
{
  struct ucb_rlplace pl = {
    .depth = 2, .snap = { UCB_RL_HARD, UCB_RL_HARD }, .own = ops->soft (CELL_N), .room = room
  };
  struct ucb_rlagent a = UCB_RLAGENT_NONE;
  struct ucb_rlans f, rel, none;
  long full = ucb_vagent_room (ops, ucb_vexpect (CELL_N, CELL_N)).want;

  if (ucb_rlagent_start (&a, ops, "the own-level agent", ctx->uid_base, &pl, err) < 0)
    return;
  ucb_rlagent_fill_all (&a, &f, err);
  ucb_rlagent_release (&a, -1, &rel, err);
  ucb_rlagent_soft (&a, ops->soft (ops->self), &rel, err);
  ucb_rlagent_try (&a, CELL_K, ops->refusal, &none, err);
  if (ucb_rlagent_stop (&a, err) == 0)
    {
      t->own += (f.errnum == ops->refusal) + none.refused;
      t->admitted += (f.count > full ? f.count - full : 0) + none.count;
      t->tries += (f.tries > full ? f.tries - full : 0) + CELL_K;
    }
}

/* The parent level: the holder H and the sibling S at depth 1 below R, each namespace made
 * with soft N, so that (R, U) is bound by N for both.  H fills it; S, own limit the hard one
 * and holding nothing (NPROC: itself), is refused K times at the parent level, its own level
 * going 0 -> 1 -> 0 in each unwind.  H then exits holding everything. */
static void
round_parent (struct ucb_vctx *ctx, const struct ucb_rlops *ops, int room, struct pin_tally *t,
              ucb_error_t *err)
{
  struct ucb_rlplace pl
      = { .depth = 1, .snap = { ops->snap (CELL_N) }, .own = UCB_RL_HARD, .room = room };
  struct ucb_rlagent h = UCB_RLAGENT_NONE, s = UCB_RLAGENT_NONE;
  struct ucb_rlans f, tried;

  if (ucb_rlagent_start (&s, ops, "the sibling", ctx->uid_base, &pl, err) == 0
      && ucb_rlagent_start (&h, ops, "the holder", ctx->uid_base, &pl, err) == 0
      && ucb_rlagent_fill_all (&h, &f, err) == 0
      && ucb_rlagent_try (&s, CELL_K, ops->refusal, &tried, err) == 0)
    {
      t->parent += tried.refused;
      t->admitted += tried.count;
      t->tries += CELL_K;
      ucb_rlagent_exit_holding (&h, err);
    }
  ucb_rlagent_stop (&h, err);
  ucb_rlagent_stop (&s, err);
}

/* Which user namespaces a count short by `pinned` after a phase of round `k` shows, and the
 * reference that keeps them (cells.h): the own-level agent made N1 and N2 below the room (N2 holds
 * N1), the holder and the sibling an N1 each. */
static void
pinned_what (char *what, size_t len, int k, bool parent, long pinned)
{
  if (parent)
    snprintf (what, len,
              "of round %d's parent-level agents (%s N1: a reference on (N1, U) not put)", k,
              pinned == 1 ? "the holder's or the sibling's" : "the holder's and the sibling's");
  else if (pinned == 1)
    snprintf (what, len, "of round %d's own-level agent (its N1: a reference on (N1, U) not put)",
              k);
  else
    snprintf (what, len,
              "of round %d's own-level agent (its N2 and N1 above it: a reference on (N2, U) not "
              "put)",
              k);
}

/* One phase of round `k`, then the count of what the room allows once its tasks are gone.
 * False when the room was left short (pinned), which is recorded: as the count; where the phase
 * could not make its namespaces even after 10 s (pinned before it), as the count then, and as
 * the ENOSPC if by then nothing was left (a release slower than 10 s). */
static bool
phase (struct ucb_vctx *ctx, const struct ucb_rlops *ops, int room, int k, bool parent,
       struct pin_tally *t, ucb_error_t *err)
{
  const char *level = parent ? "parent" : "own";
  char name[64], what[UCB_VWHAT_MAX]; /* the names fit UCB_VNAME_MAX: fewer than 10 rounds */
  bool refused;
  int errnum;
  long n;

  if (reap_orphans (err) < 0)
    return false;
  (parent ? round_parent : round_own) (ctx, ops, room, t, err);
  refused = *err && (*err)->code == ENOSPC;
  if (refused)
    ucb_error_free (err);
  if (*err || (n = allows (ctx, room, ROOM_ALLOWS, &errnum, err)) < 0)
    return false;
  snprintf (name, sizeof name, "user namespaces after round %d's %s level", k, level);
  if (refused)
    snprintf (what, sizeof what, "of earlier phases (round %d's %s-level agents could make none)",
              k, level);
  else
    pinned_what (what, sizeof what, k, parent, ROOM_ALLOWS - n);
  ucb_vobserve_pinned (ctx->res, name, what, ROOM_ALLOWS, n, ROOM_ALLOWS + 1);
  if (refused && n == ROOM_ALLOWS)
    {
      snprintf (name, sizeof name, "errno making round %d's %s-level namespaces", k, level);
      ucb_vobserve (ctx->res, name, UCB_VITEM_ERRNO, 0, ENOSPC);
    }
  return n == ROOM_ALLOWS && !refused;
}

/* The rounds; they stop at the first phase that left the room short.  True when none did. */
static bool
rounds (struct ucb_vctx *ctx, const struct ucb_rlops *ops, const struct ucb_vroom *r,
        ucb_error_t *err)
{
  struct pin_tally t = { 0, 0, 0, 0 };
  int errnum, k = 0;
  long n = allows (ctx, r->room, ROOM_ALLOWS, &errnum, err);
  bool clean = n == ROOM_ALLOWS;

  if (n < 0)
    return false;
  /* Before any round nothing can be pinned in the fresh room: a count short is its bound's. */
  ucb_vobserve_fill (ctx->res, "user namespaces the room allows first", UCB_VITEM_ADMITTED,
                     ROOM_ALLOWS, n, ROOM_ALLOWS + 1, "errno past the room's allowance", ENOSPC,
                     errnum);
  while (clean && k < ROUNDS)
    {
      struct pin_tally one = { 0, 0, 0, 0 };

      clean = phase (ctx, ops, r->room, k + 1, false, &one, err)
              && phase (ctx, ops, r->room, k + 1, true, &one, err);
      /* Complete rounds only: one stopped by a pin has said why. */
      if (clean)
        {
          k++;
          t.own += one.own;
          t.parent += one.parent;
          t.admitted += one.admitted;
          t.tries += one.tries;
        }
    }
  if (*err)
    return false;
  /* The admissions first: an attempt admitted is over-admission, not a wrong errno. */
  ucb_vobserve_count (ctx->res, "admitted past the bounds in the rounds", UCB_VITEM_ADMITTED, 0,
                      t.admitted, t.tries);
  ucb_vobserve (ctx->res, "own-level refusals with the errno", UCB_VITEM_REFUSED, k * (1 + CELL_K),
                t.own);
  ucb_vobserve (ctx->res, "parent-level refusals with the errno", UCB_VITEM_REFUSED, k * CELL_K,
                t.parent);
  return clean;
}

int
ucb_vcell_p9 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, ucb_error_t *err)
{
  struct ucb_vroom r = { -1, -1 };
  bool clean = ucb_vroom_open (ctx, &r, err) == 0 && rounds (ctx, ops, &r, err);
  int errnum;
  long n;

  /* Closed, the room must go with all it held: then the frame allows all of it again.  Not
   * counted after a round left the room short: what pins a namespace in it pins it too. */
  close_fd (&r.room);
  if (clean && (n = allows (ctx, r.frame, ROOM_ALLOWS + 1, &errnum, err)) >= 0)
    ucb_vobserve_pinned (ctx->res, "user namespaces the frame allows, room closed",
                         "of the closed room (R, or one it held: a reference on (R, U) not put)",
                         ROOM_ALLOWS + 1, n, ROOM_ALLOWS + 2);
  close_fd (&r.frame);
  return *err ? -1 : 0;
}

/* ---- the room for other cells (cells.h) ---- */

long
ucb_vroom_allows (struct ucb_vctx *ctx, const struct ucb_vroom *room, ucb_error_t *err)
{
  int errnum;

  return allows (ctx, room->room, ROOM_ALLOWS, &errnum, err);
}

void
ucb_vroom_close (struct ucb_vroom *room)
{
  close_fd (&room->room);
  close_fd (&room->frame);
}
