/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.c - the workload registry, expanded from src/workloads/list.h. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/resource.h>

#include "core/util.h"
#include "engine/workload.h"
#include "workloads/list.h"

#define UCB_DECLARE(name) extern const struct ucb_workload ucb_workload_##name;
UCB_WORKLOADS (UCB_DECLARE)
#undef UCB_DECLARE

#define UCB_ENTRY(name) &ucb_workload_##name,
const struct ucb_workload *const ucb_workloads[] = { UCB_WORKLOADS (UCB_ENTRY) NULL };
#undef UCB_ENTRY

const struct ucb_workload *
ucb_workload_find (const char *name)
{
  for (size_t i = 0; ucb_workloads[i]; i++)
    if (strcmp (ucb_workloads[i]->name, name) == 0)
      return ucb_workloads[i];
  return NULL;
}

void
ucb_op_failed (struct ucb_wctx *ctx, int errnum)
{
  struct ucb_slot *s = ctx->slot;
  struct ucb_errno_count *e = NULL;

  __atomic_store_n (&s->fails, s->fails + 1, __ATOMIC_RELAXED);
  __atomic_store_n (&s->last_errno, errnum, __ATOMIC_RELAXED);
  for (size_t i = 0; i < UCB_SLOT_ERRNOS - 1 && e == NULL; i++)
    if (s->errs[i].err == errnum || s->errs[i].err == 0)
      e = &s->errs[i];
  if (e == NULL)
    {
      e = &s->errs[UCB_SLOT_ERRNOS - 1];
      errnum = UCB_ERRNO_OTHER;
    }
  /* The count before the errno: a reader that sees the errno sees a count that belongs to it. */
  __atomic_store_n (&e->count, e->count + 1, __ATOMIC_RELAXED);
  __atomic_store_n (&e->err, errnum, __ATOMIC_RELEASE);
}

enum ucb_result
ucb_op_child (struct ucb_wctx *ctx, pid_t pid)
{
  if (pid < 0)
    {
      ucb_op_failed (ctx, errno); /* copy_process() refused the charge: no child exists */
      return UCB_OK;
    }
  while (waitpid (pid, NULL, 0) < 0)
    if (errno != EINTR)
      {
        ucb_op_failed (ctx, errno);
        return UCB_FAIL;
      }
  ucb_op_done (ctx);
  return UCB_OK;
}

int
ucb_op_handler (int sig, const char *name, void (*fn) (int, siginfo_t *, void *), ucb_error_t *err)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset (&sa.sa_mask);
  if (sigaction (sig, &sa, NULL) < 0)
    return ucb_make_error (err, errno, "sigaction %s", name);
  return 0;
}

const char *
ucb_workload_counter (const struct ucb_workload *w)
{
  return ucb_rl_name (ucb_rl_first (w->rlimits));
}
