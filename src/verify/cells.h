/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells.h - the generic cells of the property matrix (docs/verify.md "The matrix"): one
 * runner per property, parameterized by the rlimit (rlimit-ops.h) and the level, so that a new cell
 * is a table entry (src/verify/cases/matrix-cells.c), not a copied case. */
#ifndef UCB_CELLS_H
#define UCB_CELLS_H

#include "verify/rlagent.h"
#include "verify/rlimit-ops.h"
#include "verify/verify.h"

/* ---- shared by the runners (cells.c, cells-unlimited-levels.c) ---- */

/* The bound unit counts: N at the level checked, N + X at a looser level above it, M a
 * tighter own limit set later, K further attempts after a refusal, R fill/drain rounds. */
enum
{
  CELL_N = 4,
  CELL_X = 3,
  CELL_M = 3,
  CELL_K = 8,
  CELL_R = 8,
};

/* An expectation on an intended kernel and on a stock one (they differ only where a known
 * bug is in the way: MEMLOCK's parent bounds, ULIM-19). */
struct ucb_vexpect
{
  long want, bug;
};

struct ucb_vexpect ucb_vexpect (long want, long bug);
struct ucb_vexpect ucb_vexpect_add (struct ucb_vexpect a, long d); /* + d, at least 0 */
/* a - b + d, each at least 0 */
struct ucb_vexpect ucb_vexpect_sub (struct ucb_vexpect a, struct ucb_vexpect b, long d);
struct ucb_vexpect ucb_vexpect_min (struct ucb_vexpect a, struct ucb_vexpect b);
/* What one agent can charge under `bound`: it holds ops->self units by being alive (NPROC:
 * the task itself). */
struct ucb_vexpect ucb_vagent_room (const struct ucb_rlops *ops, struct ucb_vexpect bound);
/* The bound a parent level gets from a creator whose soft limit was ops->snap(units). */
struct ucb_vexpect ucb_vsnap_bound (const struct ucb_rlops *ops, long units);
/* Record an observation expected as `e`.  Where e.want != e.bug, the first such observation
 * is a known-bug one (intended e.want, the bug's e.bug) and decides which kernel this is:
 * every later one is expected as that kernel's value only.  ucb_vcell_check_reset() starts a cell.
 */
void ucb_vcell_check (struct ucb_vresult *r, const char *name, enum ucb_vkind kind,
                      struct ucb_vexpect e, long observed);
/* The same for the count of a fill (admitted, capped at the fill's tries: "> cap"). */
void ucb_vcell_check_fill (struct ucb_vresult *r, const char *name, struct ucb_vexpect e,
                           const struct ucb_rlans *fill);
/* The same for a count of at most `tries` attempts (a fill's, kept by the caller). */
void ucb_vcell_check_count (struct ucb_vresult *r, const char *name, struct ucb_vexpect e,
                            long count, long tries);
/* The same for a fill after a release (READMITTED: fewer is a leak). */
void ucb_vcell_check_refill (struct ucb_vresult *r, const char *name, struct ucb_vexpect e,
                             const struct ucb_rlans *fill);
void ucb_vcell_check_reset (void);

/* Whether the cell's counts differ between the intended kernel and a stock one (MEMLOCK's
 * snapshot bounds, ULIM-19's units bug).  Then ucb_vcell_which_kernel() tells them apart first,
 * on its own: the known bug's count under a 4-byte parent bound (intended 0 pages, stock 4),
 * made with another uid and a finite own limit, so that a second bug in the cell's own counts
 * cannot offset the known one into a pass. */
bool ucb_vcell_tells_kernels (const struct ucb_rlops *ops, enum ucb_vlevel level,
                              enum ucb_vprop prop);
int ucb_vcell_which_kernel (struct ucb_vctx *ctx, const struct ucb_rlops *ops, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* The place whose tightest bound is N units at `level` (own: depth 0 with own soft N; parent:
 * created with N, own soft raised; grandparent: N1 created with N, N2 with the hard limit). */
struct ucb_rlplace ucb_vcell_place (const struct ucb_rlops *ops, enum ucb_vlevel level, long n);
/* Its bound in units (the own level's, or the snapshot's). */
struct ucb_vexpect ucb_vcell_bound (const struct ucb_rlops *ops, enum ucb_vlevel level, long n);

/* An observer of the (initial namespace, uid) SIGPENDING counter: started only for
 * SIGPENDING (for NPROC it would be a task of uid); its SigQ, or -1 when none. */
int ucb_vcell_observer (const struct ucb_rlops *ops, struct ucb_probe *obs, uid_t uid,
                        ucb_error_t *err);
long ucb_vcell_sigq (const struct ucb_probe *obs);

int ucb_vcell_p1 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                  ucb_error_t *err);
int ucb_vcell_p2 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                  ucb_error_t *err);
int ucb_vcell_p3 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                  ucb_error_t *err);
int ucb_vcell_p4 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                  ucb_error_t *err);
int ucb_vcell_p5 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                  ucb_error_t *err);
/* P3 by other hands: a charge ended by a task other than the one that made it, at `level`;
 * afterwards the charger's and the releaser's counters are both exact and nothing is pinned.
 * MSGQUEUE and MEMLOCK: cells-release-ipc.c; SIGPENDING and NPROC: cells-release-task.c. */
int ucb_vcell_p3_other_ipc (struct ucb_vctx *ctx, const struct ucb_rlops *ops,
                            enum ucb_vlevel level, ucb_error_t *err);
int ucb_vcell_p3_other_task (struct ucb_vctx *ctx, const struct ucb_rlops *ops,
                             enum ucb_vlevel level, ucb_error_t *err);
/* In an agent of ucb_vcell_p3_other_ipc: its last step with a charge that another task ends.
 * For the tests only: their sabotaged operations go wrong after that step alone, as a kernel
 * that uncharges the wrong task would. */
enum ucb_vhand
{
  UCB_VHAND_NONE,
  UCB_VHAND_GAVE,  /* the creator handed a charge over */
  UCB_VHAND_ENDED, /* a releaser ended a charge that another task made */
  UCB_VHAND_LEFT,  /* the creator charged one to leave to its IPC namespace's teardown */
  UCB_VHAND_TORN,  /* the keeper fills after that teardown */
};
extern enum ucb_vhand ucb_vcell_hand;
/* P8 (cells-race.c): racing tasks of one uid lose no update. */
int ucb_vcell_p8 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, enum ucb_vlevel level,
                  ucb_error_t *err);
/* The user namespace of `pid` as an fd above 0 (0 means none in a place: ucb_rlplace.room). */
int ucb_vopen_userns (pid_t pid, int *fd, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* P9 (cells-pin.c): refusals and releases pin no user namespace. */
int ucb_vcell_p9 (struct ucb_vctx *ctx, const struct ucb_rlops *ops, ucb_error_t *err);
/* P9's room, for other cells' pin checks: a user namespace R of ctx->uid_base whose
 * max_user_namespaces is UCB_VROOM_ALLOWS, made in a frame (fds of the case process, -1: none).
 * Agents of that uid placed with `.room = room.room` make their namespaces in it; once they are
 * gone, ucb_vroom_allows() counts what R allows again (waiting up to 10 s: they are freed
 * asynchronously), -1 with `err` set. */
enum
{
  UCB_VROOM_ALLOWS = 3,
};
struct ucb_vroom
{
  int frame, room;
};
int ucb_vroom_open (struct ucb_vctx *ctx, struct ucb_vroom *room, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
long ucb_vroom_allows (struct ucb_vctx *ctx, const struct ucb_vroom *room, ucb_error_t *err);
void ucb_vroom_close (struct ucb_vroom *room);

#endif
