/* SPDX-License-Identifier: GPL-2.0-or-later */
/* thread.c - pthread_create() a thread that returns at once, and join it.
 *
 * One op = pthread_create + the thread's return + pthread_join.  copy_creds() charges
 * RLIMIT_NPROC for threads too (CLONE_THREAD shares the cred but still counts one task at
 * every user-namespace level), copy_process() checks it and release_task() uncharges it when
 * the thread exits (the kernel reaps threads itself): exactly one charge and one uncharge.
 * The join returns at the thread's CLONE_CHILD_CLEARTID wake in exit_mm(), before its
 * release_task(), so the uncharge can land during the next op.  Also takes the global
 * tasklist_lock for writing and the pid allocator's lock. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "core/util.h"
#include "engine/workload.h"

/* The smallest stack glibc takes (16 KiB on x86_64) keeps memory management out of the op:
 * glibc caches the stacks of joined threads and reuses one of the same size, so no create
 * after the first maps anything, and an exiting thread madvise(MADV_DONTNEED)s its unused
 * stack only when more than PTHREAD_STACK_MIN of it is free (advise_stack_range): with 64 KiB
 * every op paid that madvise, under the mmap_lock all thread-mode tasks of a process share.
 * The thread only returns, so it needs no more. */
#define THREAD_STACK_SIZE PTHREAD_STACK_MIN

struct thread_state
{
  pthread_attr_t attr;
  bool attr_ok; /* attr initialised: teardown must destroy it */
};

static void *
thread_main (void *arg)
{
  return arg;
}

static int
thread_setup (struct ucb_wctx *ctx, ucb_error_t *err)
{
  struct thread_state *s = xcalloc (1, sizeof *s);
  int e;

  ctx->priv = s;
  e = pthread_attr_init (&s->attr);
  if (e != 0)
    return ucb_make_error (err, e, "pthread_attr_init");
  s->attr_ok = true;
  e = pthread_attr_setstacksize (&s->attr, THREAD_STACK_SIZE);
  if (e != 0)
    return ucb_make_error (err, e, "pthread_attr_setstacksize %zu", (size_t) THREAD_STACK_SIZE);
  return 0;
}

/* pthread_create returns the error rather than setting errno: EAGAIN at the limit. */
static int
thread_take (struct ucb_wctx *ctx, uintptr_t *held)
{
  struct thread_state *s = ctx->priv;
  pthread_t t;
  int e = pthread_create (&t, &s->attr, thread_main, NULL);

  if (e == 0)
    *held = (uintptr_t) t;
  return e;
}

/* A join cannot fail for a joinable thread of ours; if it did, the thread's charge would
 * outlive the op. */
static int
thread_release (struct ucb_wctx *ctx, uintptr_t held)
{
  (void) ctx;
  return pthread_join ((pthread_t) held, NULL);
}

static enum ucb_result
thread_loop (struct ucb_wctx *ctx, uint64_t iters)
{
  return ucb_charge_loop (ctx, iters, thread_take, thread_release);
}

static void
thread_teardown (struct ucb_wctx *ctx)
{
  struct thread_state *s = ctx->priv;

  if (s == NULL)
    return;
  if (s->attr_ok)
    pthread_attr_destroy (&s->attr);
}

const struct ucb_workload ucb_workload_thread = {
  .name = "thread",
  .summary = "pthread_create() a thread that returns at once, then pthread_join() it",
  .op = "pthread_create (PTHREAD_STACK_MIN stack) + thread return + pthread_join",
  .locks = "tasklist_lock (global, write), pid allocation (pidmap_lock)",
  .rlimits = UCB_RLIM_NPROC,
  /* The new thread plus, briefly, the joined one not yet released: with room for only one,
   * about 0.2% of creates failed with EAGAIN (6.18, 2 vCPUs); with two, none in 200000. */
  .peak = 2,
  .batch = 100,
  .setup = thread_setup,
  .loop = thread_loop,
  .teardown = thread_teardown,
};
