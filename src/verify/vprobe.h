/* vprobe.h - the probe kit of the verify cases: become a uid, set soft limits, enter a user
 * namespace, fill a counter until the kernel refuses, read SigQ. */
#ifndef UCB_VPROBE_H
#define UCB_VPROBE_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"

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

/* Fork up to `max` children that sleep until killed, until the kernel refuses (NPROC):
 * returns how many, their pids in kids[], the refusal's errno in *refused (0 if none). */
long ucb_vfork_sleepers (pid_t *kids, long max, int *refused);
/* Kill and reap them: only release_task (in wait) uncharges NPROC. */
void ucb_vkill_reap (pid_t *kids, long n);
/* Reap every child, waiting for each: before a case returns, so no zombie of it stays
 * charged to its uids. */
void ucb_vreap_all (void);
/* Are we uid 0 of the initial user namespace (the NPROC exemptions are about it)? */
bool ucb_vroot_of_init_userns (void);
/* A child in a user namespace created by root with range maps written from here (ranges need
 * a writer with CAP_SETUID in the parent): 0 .. width-1 inside are `first` .. outside, for uids
 * and gids; the child sets soft NPROC `creator_soft` (if non-zero) before unshare and becomes
 * uid/gid 0 inside.  Returns the pid here, 0 in the child, -1 with `err` set. */
pid_t ucb_vfork_range_container (uid_t first, unsigned width, rlim_t creator_soft,
                                 ucb_error_t *err);

/* An agent: a process that blocks SIGRTMIN, becomes `uid` with soft SIGPENDING `soft` and,
 * with `container`, creates a user namespace and raises its soft limit inside to the hard one;
 * then fills or drains on order over a SOCK_SEQPACKET pair, so that only the case records. */
struct ucb_vagent
{
  pid_t pid;
  int fd; /* our end: orders out, answers in */
};
int ucb_vagent_start (struct ucb_vagent *a, uid_t uid, rlim_t soft, bool container,
                      ucb_error_t *err) __attribute__ ((warn_unused_result));
/* op 'f': queue up to `max` SIGRTMIN; 'd': drain.  The count; *errnum the refusal's errno;
 * -1 when the agent is gone. */
long ucb_vagent_do (struct ucb_vagent *a, char op, long max, int *errnum);
/* Drain, exit, reap; with `kill_it` (an error path) just kill it.  Its exit status. */
int ucb_vagent_stop (struct ucb_vagent *a, bool kill_it);

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
