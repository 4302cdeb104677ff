/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.h - the workload plug-in contract and the registry. */
#ifndef UCB_WORKLOAD_H
#define UCB_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "engine/measure.h"
#include "host/rlimit.h"

/* Outcome taxonomy (stress-ng's EXIT_* idea): a refused charge is data, not a crash. */
enum ucb_result
{
  UCB_OK = 0,
  UCB_FAIL,        /* the workload cannot continue */
  UCB_SKIP,        /* not applicable here */
  UCB_NO_RESOURCE, /* a kernel limit refused the resource */
};

/* What a workload sees inside its task.  Only the harness touches `slot` layout; the
 * workload reports each op through ucb_op_done()/ucb_op_failed(). */
struct ucb_wctx
{
  struct ucb_slot *slot;
  void *priv; /* workload state from setup(): malloc'd, freed by the harness after teardown() */
  unsigned container;
  unsigned task;       /* index within the container */
  unsigned tasks;      /* tasks per container */
  bool threads;        /* tasks are threads of one process (else one process each) */
  unsigned long runid; /* unique per ucbench run and point: for names of kernel objects */
};

/* Count one completed op: a plain single-writer increment (will-it-scale's method).  The
 * relaxed atomic store keeps it a plain `mov`, but stops the compiler from caching the
 * counter in a register across the syscall. */
static inline void
ucb_op_done (struct ucb_wctx *ctx)
{
  uint64_t v = __atomic_load_n (&ctx->slot->ops, __ATOMIC_RELAXED);
  __atomic_store_n (&ctx->slot->ops, v + 1, __ATOMIC_RELAXED);
}

/* Count one failed op (not work), by errno.  Off the fast path: only refusals pay. */
void ucb_op_failed (struct ucb_wctx *ctx, int errnum);

/* Count one op by its outcome: 0 = done, an errno = failed (a refused charge: the loop goes
 * on). */
static inline void
ucb_op_count (struct ucb_wctx *ctx, int errnum)
{
  if (errnum != 0)
    ucb_op_failed (ctx, errnum);
  else
    ucb_op_done (ctx);
}

/* Finish an op whose charge was taken, by the result of releasing it: 0 = released, the op
 * counts; an errno = the charge may still be held, so every later op would measure something
 * else: the op failed and the workload must stop (UCB_FAIL). */
static inline enum ucb_result
ucb_op_release (struct ucb_wctx *ctx, int errnum)
{
  ucb_op_count (ctx, errnum);
  return errnum != 0 ? UCB_FAIL : UCB_OK;
}

/* Finish a fork-like op whose result was `pid`: a refusal (pid < 0, errno set) is a failed
 * op; otherwise reap the child (only then is its NPROC charge gone: zombies stay charged) and
 * count the op.  UCB_FAIL when the child cannot be waited for (SIGCHLD ignored, ECHILD): then
 * nobody knows when the charge goes, so the workload must stop. */
enum ucb_result ucb_op_child (struct ucb_wctx *ctx, pid_t pid);

/* The op of most rlimit workloads: take a charge, then release it.  take() returns 0 or the
 * errno of the refusal (a failed op; the loop goes on) and leaves in *held what release()
 * needs; release() returns 0 or an errno (see ucb_op_release: the workload stops).  Always
 * inlined with constant functions, so the measured loop makes no indirect call. */
static inline __attribute__ ((always_inline)) enum ucb_result
ucb_charge_loop (struct ucb_wctx *ctx, uint64_t iters, int (*take) (struct ucb_wctx *, uintptr_t *),
                 int (*release) (struct ucb_wctx *, uintptr_t))
{
  for (uint64_t i = 0; i < iters; i++)
    {
      uintptr_t held = 0;
      int e = take (ctx, &held);

      if (e != 0)
        {
          ucb_op_failed (ctx, e);
          continue;
        }
      if (ucb_op_release (ctx, release (ctx, held)) != UCB_OK)
        return UCB_FAIL;
    }
  return UCB_OK;
}

/* The op of the fork-like workloads: spawn() a child that exits at once (its return is the pid,
 * or -1 with errno for a refusal), then ucb_op_child() reaps and counts it. */
static inline __attribute__ ((always_inline)) enum ucb_result
ucb_child_loop (struct ucb_wctx *ctx, uint64_t iters, pid_t (*spawn) (struct ucb_wctx *))
{
  for (uint64_t i = 0; i < iters; i++)
    if (ucb_op_child (ctx, spawn (ctx)) != UCB_OK)
      return UCB_FAIL;
  return UCB_OK;
}

/* Install `fn` as the SA_SIGINFO handler of `sig` (named `name` in the error), no signal
 * masked while it runs: the setup() of a workload whose op is a signal delivery. */
int ucb_op_handler (int sig, const char *name, void (*fn) (int, siginfo_t *, void *),
                    ucb_error_t *err) __attribute__ ((warn_unused_result));

struct ucb_workload
{
  const char *name;
  const char *summary; /* one line for `ucbench list` */
  const char *op;      /* what exactly one op is */
  const char *locks;   /* global kernel locks also taken, so nobody blames ucounts for them */
  unsigned rlimits;    /* UCB_RLIM_* charged by one op (UCB_RLIM_NONE: a control) */
  /* Units of that rlimit one task holds at its peak (signals, bytes, tasks): what
   * --headroom near leaves free per task. */
  uint64_t peak;
  /* Creates named IPC objects (queues): runs only with a private IPC namespace per
   * container, whose teardown guarantees they cannot outlive the run. */
  bool needs_ipc_ns;
  uint64_t batch; /* ops between stop-flag checks; 0 = harness default */
  /* Non-NULL: listed, never run (stress-ng's unimplemented_reason). */
  const char *unsupported_reason;

  /* setup(): acquire resources inside the container, before the start barrier. */
  int (*setup) (struct ucb_wctx *ctx, ucb_error_t *err);
  /* loop(): `iters` attempts of the op, nothing else; timing is the harness's job. */
  enum ucb_result (*loop) (struct ucb_wctx *ctx, uint64_t iters);
  /* teardown(): release what setup() took besides the memory of `priv` (the harness frees
   * it afterwards), as far as setup() got; `priv` may be NULL.  May be NULL. */
  void (*teardown) (struct ucb_wctx *ctx);
};

/* The ucount one op charges, as `list` and the JSON name it: "SIGPENDING", ..., "none". */
const char *ucb_workload_counter (const struct ucb_workload *w);

/* The registry, in the order of src/workloads/list.h, NULL-terminated. */
extern const struct ucb_workload *const ucb_workloads[];
const struct ucb_workload *ucb_workload_find (const char *name);

#endif
