/* vprobe.h - what the verify probes do inside: fill a counter until the kernel refuses, read
 * SigQ, fork sleepers; and agents, probes that fill or drain on order (probe.h runs them). */
#ifndef UCB_VPROBE_H
#define UCB_VPROBE_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "verify/probe.h"

/* Queue SIGRTMIN to ourselves (blocked) until refused; returns how many were queued and
 * sets *errnum to the refusal's errno (0 if `max` was reached first). */
long ucb_vfill_rt (long max, int *errnum);
/* Take every queued SIGRTMIN; returns how many. */
long ucb_vdrain_rt (void);
/* SigQ of a process: the level-0 SIGPENDING counter of its (user ns, uid); -1 if unreadable. */
long ucb_vsigq (pid_t pid);

/* Fork up to `max` children that sleep until killed, until the kernel refuses (NPROC):
 * returns how many, their pids in kids[], the refusal's errno in *refused (0 if none). */
long ucb_vfork_sleepers (pid_t *kids, long max, int *refused);
/* Kill and reap them: only release_task (in wait) uncharges NPROC. */
void ucb_vkill_reap (pid_t *kids, long n);
/* Are we uid 0 of the initial user namespace (the NPROC exemptions are about it)? */
bool ucb_vroot_of_init_userns (void);

/* An agent: a probe that blocks SIGRTMIN, becomes `uid` with soft SIGPENDING `soft` and,
 * with `container`, creates a user namespace and raises its soft limit inside to the hard one;
 * then fills or drains on order, so that only the case records.  `what` names it in errors. */
struct ucb_vagent
{
  struct ucb_probe p;
};
#define UCB_VAGENT_NONE                                                                            \
  {                                                                                                \
    .p = UCB_PROBE_NONE                                                                            \
  }
int ucb_vagent_start (struct ucb_vagent *a, const char *what, uid_t uid, rlim_t soft,
                      bool container, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* op 'f': queue up to `max` SIGRTMIN; 'd': drain.  The count; *errnum the refusal's errno;
 * -1 with `err` set when the agent failed.  Once `err` is set, does nothing and returns -1:
 * a sequence of orders is checked once, at its end, with the first error. */
long ucb_vagent_do (struct ucb_vagent *a, char op, long max, int *errnum, ucb_error_t *err);
/* Drain, end, reap; its error if it failed.  With `err` already set (an error path) just kill
 * it. */
int ucb_vagent_stop (struct ucb_vagent *a, ucb_error_t *err);

#endif
