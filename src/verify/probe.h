/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h - the probe harness of the verify cases: run a function as a given uid (optionally in
 * a user namespace of its own) in a child of its own, and bring back what it observed.
 *
 * Protocol (one SOCK_SEQPACKET pair per probe, one struct ucb_probe_msg per datagram, as the
 * spawn protocol does for containers):
 *  1. ucb_probe_start() forks; the child dies with us (PR_SET_PDEATHSIG), blocks SIGRTMIN if
 *     asked, unshares what it must make with our privileges (a private IPC namespace of
 *     init_user_ns), becomes `uid` (host/userns.c), sets the soft limit, enters its user
 *     namespace and sets the soft limit inside.  With a range map, the child unshares and sends
 * MAPS; the parent writes the maps (ranges need a writer with CAP_SETUID outside) and answers GO;
 * the child becomes uid/gid 0 inside.
 *  2. The function runs.  It may send REPORTs (ucb_probe_report) and wait for ORDERs
 *     (ucb_probe_await), so that the case process can act between its steps.
 *  3. The function's return sends DONE with its values, or ERROR {code, status, msg} (the wire
 *     form of its ucb_error_t); the child then _exits.
 *  The parent turns ERROR into a ucb_error_t named after the probe; a child that is killed, or
 *  exits without DONE or ERROR, becomes an error saying so.  Helpers the probe forks with
 *  ucb_vfork() drop the probe's socket, so its end is seen when the probe ends. */
#ifndef UCB_PROBE_H
#define UCB_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"

#define UCB_PROBE_NVAL 32

/* What crosses the socket each way: values (indexed as the case names them) and an errno. */
struct ucb_probe_out
{
  int64_t v[UCB_PROBE_NVAL];
  int errnum;
};

/* What the child is before the function runs.  Zero fields change nothing. */
struct ucb_probe_spec
{
  const char *what;   /* names the probe in errors ("the probe" when NULL) */
  int unshare;        /* CLONE_NEW* flags unshared first, with our privileges (not a user ns) */
  int ipc;            /* > 0: an fd of an IPC namespace entered first (setns), with our
                       * privileges: tasks of other uids and user namespaces share its objects */
  uid_t uid;          /* become uid/gid `uid` (0: stay as we are) */
  uid_t ruid;         /* or only real uid `ruid`, euid 0 (root's capabilities kept): charged to
                       * ruid's counter (set_cred_ucounts keys ucounts by the real uid) */
  bool block_rt;      /* block SIGRTMIN first (before the uid change: no signal is lost) */
  int resource;       /* the rlimit that `soft` and `soft_inside` set */
  rlim_t soft;        /* its soft limit before the namespace (0: unchanged) */
  int userns;         /* 0, or CLONE_NEWUSER | other CLONE_NEW*: a namespace of its own */
  uid_t map_first;    /* with map_width: 0..map_width-1 inside are map_first.. outside */
  unsigned map_width; /* 0: 0 inside is the probe's own uid (written by itself) */
  rlim_t soft_inside; /* soft limit inside (0: unchanged; RLIM_INFINITY: the hard limit) */
  bool execs;         /* the function may execve: a program that runs and exits 0 ends it */
};

/* soft or soft_inside: a soft limit of 0 (0 itself leaves the limit as it is). */
#define UCB_PROBE_SOFT_0 ((rlim_t) -2)

/* The function a probe runs: fills `out`; returns 0, or < 0 with `err` set. */
typedef int (*ucb_probe_fn) (void *arg, struct ucb_probe_out *out, ucb_error_t *err);

/* A running probe, seen from the case process. */
struct ucb_probe
{
  pid_t pid;
  int fd;
  int status; /* its wait status, once reaped */
  bool execs;
  char name[96];
};
#define UCB_PROBE_NONE                                                                             \
  {                                                                                                \
    .pid = -1, .fd = -1                                                                            \
  }

/* Start, run to the end, reap: *out holds the function's values. */
int ucb_probe_run (const struct ucb_probe_spec *spec, ucb_probe_fn fn, void *arg,
                   struct ucb_probe_out *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

int ucb_probe_start (struct ucb_probe *p, const struct ucb_probe_spec *spec, ucb_probe_fn fn,
                     void *arg, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Start, and wait for its first REPORT (in *out, unless NULL): it is ready.  On failure it is
 * killed. */
int ucb_probe_start_report (struct ucb_probe *p, const struct ucb_probe_spec *spec, ucb_probe_fn fn,
                            void *arg, struct ucb_probe_out *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The probe's next REPORT, in *out; its error when it failed or ended instead. */
int ucb_probe_next (struct ucb_probe *p, struct ucb_probe_out *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Send an ORDER (ucb_probe_await gets it). */
int ucb_probe_order (struct ucb_probe *p, const struct ucb_probe_out *order, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Wait for the end (REPORTs are skipped), reap: *out (may be NULL) holds the values.  Returns
 * 0, or 1 when the probe (spec.execs) became a program that exited 0 (*out untouched). */
int ucb_probe_finish (struct ucb_probe *p, struct ucb_probe_out *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* ucb_probe_run while an observer (ucb_vobserver) of `uid` lives: its pid is put in
 * *observer before the probe starts, so `arg` may point there. */
int ucb_probe_run_observed (uid_t uid, pid_t *observer, const struct ucb_probe_spec *spec,
                            ucb_probe_fn fn, void *arg, struct ucb_probe_out *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Kill and reap (an error path, or a probe that sleeps until killed); safe when not started. */
void ucb_probe_kill (struct ucb_probe *p);

/* In the probe's function: send a REPORT; wait for an ORDER (an error if the case is gone). */
int ucb_probe_report (const struct ucb_probe_out *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_probe_await (struct ucb_probe_out *order, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* Set the soft limit, keeping the hard one; RLIM_INFINITY for "soft = hard". */
int ucb_vsoft (int resource, rlim_t soft, ucb_error_t *err) __attribute__ ((warn_unused_result));
/* The progress of the running case, where verify.c, deciding whether the case is stuck, sees
 * it (in memory shared with the case process and its probes): each message from a probe counts,
 * as does each observation recorded.  NULL outside a case. */
extern volatile uint64_t *ucb_vprogress_at;
void ucb_vprogress (void);

/* For the tests only: a kernel that over-admits, faked.  While set, every soft limit that
 * ucb_vsoft sets (the probes' own limits, and so the snapshots of the namespaces they create)
 * is the hard one, so that the cases' bounds are thousands and their counts run to the caps. */
extern bool ucb_vsoft_loose;

/* Fork a helper that dies with us and does not hold our probe's socket; 0 in the child. */
pid_t ucb_vfork (void);
/* Wait for a helper; its exit status (or 128 + signal), -1 on error. */
int ucb_vwait (pid_t pid);

/* An observer: a probe that sleeps as `uid` in our namespace, started once it runs as `uid`
 * (before that its SigQ is root's counter).  Its SigQ shows (ns, uid)'s counter.  End it with
 * ucb_probe_kill. */
int ucb_vobserver (struct ucb_probe *p, uid_t uid, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
