/* vprobe.h - the probe kit of the verify cases: become a uid, set soft limits, enter a user
 * namespace, fill a counter until the kernel refuses, read SigQ. */
#ifndef UCB_VPROBE_H
#define UCB_VPROBE_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "error.h"

/* setgroups(0), setresgid/setresuid(uid), PR_SET_DUMPABLE: as a container owner does. */
int ucb_vbecome (uid_t uid, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Set the soft limit, keeping the hard one; RLIM_INFINITY/-1 for "soft = hard". */
int ucb_vsoft (int resource, rlim_t soft, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* unshare(CLONE_NEWUSER | extra) and map 0 inside to our ids outside (a "container"). */
int ucb_vuserns (int extra_flags, ucb_error_t *err) __attribute__ ((warn_unused_result));

/* Fork a helper that dies with us; 0 in the child. */
pid_t ucb_vfork (void);
/* Wait for a helper; its exit status (or 128 + signal), -1 on error. */
int ucb_vwait (pid_t pid);
/* A process that sleeps as `uid` in our namespace: its SigQ shows (ns, uid)'s counter. */
pid_t ucb_vobserver (uid_t uid);

/* Queue SIGRTMIN to ourselves (blocked) until refused; returns how many were queued and
 * sets *errnum to the refusal's errno (0 if `max` was reached first). */
long ucb_vfill_rt (long max, int *errnum);
/* Take every queued SIGRTMIN; returns how many. */
long ucb_vdrain_rt (void);
/* SigQ of a process: the level-0 SIGPENDING counter of its (user ns, uid); -1 if unreadable. */
long ucb_vsigq (pid_t pid);

/* A pipe-based handshake between helpers: one byte each way. */
struct ucb_vgate
{
  int fd[2];
};
int ucb_vgate_open (struct ucb_vgate *g, ucb_error_t *err) __attribute__ ((warn_unused_result));
void ucb_vgate_post (struct ucb_vgate *g);
bool ucb_vgate_wait (struct ucb_vgate *g);
void ucb_vgate_close (struct ucb_vgate *g);

#endif
