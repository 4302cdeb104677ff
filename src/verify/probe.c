/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c - the probe harness of the verify cases (the protocol is in probe.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "host/userns.h"
#include "verify/probe.h"

enum
{
  MSG_REPORT = 1, /* child -> case: values, the function goes on */
  MSG_ORDER,      /* case -> child */
  MSG_DONE,       /* child -> case: the function's values, it has ended */
  MSG_ERROR,      /* child -> case: its ucb_error_t */
  MSG_MAPS,       /* child -> case: unshared, write my range maps */
  MSG_GO,         /* case -> child: the maps are written */
};

struct ucb_probe_msg
{
  int32_t type;
  struct ucb_probe_out out;
  struct ucb_wire_error err;
};

/* In a probe's child: its end of the socket (-1 elsewhere). */
static int channel = -1;

/* ---- both sides ---------------------------------------------------------------------------- */

/* One message; MSG_NOSIGNAL: a dead peer is an error, not SIGPIPE. */
static int
send_msg (int fd, int type, const struct ucb_probe_out *out, ucb_error_t *wire)
{
  struct ucb_probe_msg m;
  ssize_t n;

  memset (&m, 0, sizeof m);
  m.type = type;
  if (out)
    m.out = *out;
  if (type == MSG_ERROR)
    ucb_error_to_wire (wire, &m.err);
  do
    n = send (fd, &m, sizeof m, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof m ? 0 : -1;
}

bool ucb_vsoft_loose;
volatile uint64_t *ucb_vprogress_at;

void
ucb_vprogress (void)
{
  if (ucb_vprogress_at)
    __atomic_add_fetch (ucb_vprogress_at, 1, __ATOMIC_RELAXED);
}

int
ucb_vsoft (int resource, rlim_t soft, ucb_error_t *err)
{
  struct rlimit rl;

  if (getrlimit (resource, &rl) < 0)
    return ucb_make_error (err, errno, "getrlimit(%d)", resource);
  rl.rlim_cur = soft == RLIM_INFINITY || ucb_vsoft_loose ? rl.rlim_max : soft;
  if (setrlimit (resource, &rl) < 0)
    return ucb_make_error (err, errno, "setrlimit(%d, soft %llu)", resource,
                           (unsigned long long) rl.rlim_cur);
  return 0;
}

/* Fork a child that dies with us (0 in it), -1 with errno. */
static pid_t
fork_dying (void)
{
  pid_t parent = getpid ();
  pid_t pid = fork ();

  if (pid == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (getppid () != parent)
        _exit (UCB_EXIT_FAILURE); /* the parent died before prctl: nobody to tell */
    }
  return pid;
}

pid_t
ucb_vfork (void)
{
  pid_t pid = fork_dying ();

  /* A helper keeps no probe socket open: the case sees the probe's end when the probe ends. */
  if (pid == 0 && channel >= 0)
    {
      close (channel);
      channel = -1;
    }
  return pid;
}

int
ucb_vwait (pid_t pid)
{
  int status;

  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* ---- the child ----------------------------------------------------------------------------- */

static int
receive (int fd, struct ucb_probe_msg *m)
{
  ssize_t n;

  do
    n = recv (fd, m, sizeof *m, 0);
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof *m ? 0 : -1;
}

int
ucb_probe_report (const struct ucb_probe_out *out, ucb_error_t *err)
{
  if (channel < 0 || send_msg (channel, MSG_REPORT, out, NULL) < 0)
    return ucb_make_error (err, errno, "report to the case process");
  return 0;
}

static int
await_type (int type, struct ucb_probe_out *order, ucb_error_t *err)
{
  struct ucb_probe_msg m;

  if (channel < 0 || receive (channel, &m) < 0)
    return ucb_make_error (err, errno, "the case process is gone");
  if (m.type != type)
    return ucb_make_error (err, 0, "internal: message %d from the case process, expected %d",
                           (int) m.type, type);
  if (order)
    *order = m.out;
  return 0;
}

int
ucb_probe_await (struct ucb_probe_out *order, ucb_error_t *err)
{
  return await_type (MSG_ORDER, order, err);
}

/* The credential change cleared the parent-death signal: re-arm it, and check the parent. */
/* A user namespace whose range maps the case process writes; we become 0 inside. */
static int
enter_range_userns (const struct ucb_probe_spec *spec, pid_t parent, ucb_error_t *err)
{
  if (unshare (spec->userns) < 0)
    return ucb_make_error (err, errno, "unshare(CLONE_NEWUSER%s)",
                           spec->userns != CLONE_NEWUSER ? "|..." : "");
  if (send_msg (channel, MSG_MAPS, NULL, NULL) < 0)
    return ucb_make_error (err, errno, "ask for the id maps");
  if (await_type (MSG_GO, NULL, err) < 0)
    return -1;
  if (ucb_userns_become (0, 0, err) < 0)
    return ucb_error_wrap (err, "uid 0 in the user namespace");
  /* getppid() is still the case process: no pid namespace of ours. */
  return ucb_arm_pdeathsig (parent, "the case process", err);
}

static rlim_t
soft_of (rlim_t spec_value)
{
  return spec_value == UCB_PROBE_SOFT_0 ? 0 : spec_value;
}

/* Real uid `ruid`, euid 0: root's capabilities stay; the credential change cleared the
 * parent-death signal. */
static int
become_ruid (uid_t ruid, pid_t parent, ucb_error_t *err)
{
  if (setresuid (ruid, 0, 0) < 0)
    return ucb_make_error (err, errno, "setresuid(%u, 0, 0)", (unsigned) ruid);
  return ucb_arm_pdeathsig (parent, "the case process", err);
}

static int
setup (const struct ucb_probe_spec *spec, pid_t parent, ucb_error_t *err)
{
  if (spec->block_rt)
    {
      sigset_t rt;
      sigemptyset (&rt);
      sigaddset (&rt, SIGRTMIN);
      if (sigprocmask (SIG_BLOCK, &rt, NULL) < 0)
        return ucb_make_error (err, errno, "sigprocmask(SIGRTMIN)");
    }
  if (spec->ipc > 0 && setns (spec->ipc, CLONE_NEWIPC) < 0)
    return ucb_make_error (err, errno, "setns(%d, CLONE_NEWIPC)", spec->ipc);
  if (spec->unshare && unshare (spec->unshare) < 0)
    return ucb_make_error (err, errno, "unshare(%#x)", (unsigned) spec->unshare);
  if (spec->uid
      && (ucb_userns_become (spec->uid, (gid_t) spec->uid, err) < 0
          || ucb_arm_pdeathsig (parent, "the case process", err) < 0))
    return -1;
  if (spec->ruid && become_ruid (spec->ruid, parent, err) < 0)
    return -1;
  if (spec->soft && ucb_vsoft (spec->resource, soft_of (spec->soft), err) < 0)
    return -1;
  if (spec->userns && spec->map_width && enter_range_userns (spec, parent, err) < 0)
    return -1;
  if (spec->userns && !spec->map_width && ucb_userns_enter (spec->userns & ~CLONE_NEWUSER, err) < 0)
    return -1;
  if (spec->soft_inside && ucb_vsoft (spec->resource, soft_of (spec->soft_inside), err) < 0)
    return ucb_error_wrap (err, "inside the user namespace");
  return 0;
}

/* The child's only way out: DONE or ERROR, then _exit (it has no caller to return to). */
__attribute__ ((noreturn)) static void
child_main (const struct ucb_probe_spec *spec, pid_t parent, ucb_probe_fn fn, void *arg)
{
  struct ucb_probe_out out;
  ucb_error_t err = NULL;

  memset (&out, 0, sizeof out);
  if (setup (spec, parent, &err) < 0 || fn (arg, &out, &err) < 0)
    {
      (void) send_msg (channel, MSG_ERROR, NULL, &err);
      _exit (UCB_EXIT_FAILURE);
    }
  _exit (send_msg (channel, MSG_DONE, &out, NULL) < 0 ? UCB_EXIT_FAILURE : 0);
}

/* ---- the case process ---------------------------------------------------------------------- */

static void
reap (struct ucb_probe *p)
{
  if (p->pid <= 0)
    return;
  while (waitpid (p->pid, &p->status, 0) < 0)
    if (errno != EINTR)
      {
        p->status = 0;
        break;
      }
  p->pid = -1;
}

/* The probe's next message: 1, or 0 when it ended without one (then it is reaped).  Helpers
 * of the probe may keep the socket open past its end: its exit is watched as well as EOF. */
static int
next_msg (struct ucb_probe *p, struct ucb_probe_msg *m)
{
  for (;;)
    {
      struct pollfd pf = { .fd = p->fd, .events = POLLIN };
      ssize_t n;
      int r;

      /* Reaped: only what it sent before it exited is left to read. */
      if (p->pid <= 0)
        return recv (p->fd, m, sizeof *m, MSG_DONTWAIT) == (ssize_t) sizeof *m;
      r = poll (&pf, 1, 20);
      if (r < 0 && errno != EINTR)
        break;
      if (r > 0)
        {
          n = recv (p->fd, m, sizeof *m, MSG_DONTWAIT);
          if (n == (ssize_t) sizeof *m)
            {
              ucb_vprogress ();
              return 1;
            }
          if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
          break; /* EOF, or not our message */
        }
      if (waitpid (p->pid, &p->status, WNOHANG) == p->pid)
        p->pid = -1;
    }
  reap (p);
  return 0;
}

/* An error for a probe that ended without a word. */
static int
ended_silently (struct ucb_probe *p, ucb_error_t *err)
{
  int st = p->status;

  if (WIFSIGNALED (st))
    return ucb_make_error (err, 0, "%s was killed by signal %d (%s)", p->name, WTERMSIG (st),
                           strsignal (WTERMSIG (st)));
  return ucb_make_error (err, 0, "%s exited with status %d without reporting", p->name,
                         WIFEXITED (st) ? WEXITSTATUS (st) : -1);
}

/* The child's error, named after the probe; the child is reaped. */
static int
child_error (struct ucb_probe *p, const struct ucb_probe_msg *m, ucb_error_t *err)
{
  ucb_error_from_wire (err, &m->err);
  reap (p);
  return ucb_error_wrap (err, "%s", p->name);
}

/* What became of a probe that does not answer: its error, or how it ended. */
static int
story (struct ucb_probe *p, ucb_error_t *err)
{
  struct ucb_probe_msg m;

  while (next_msg (p, &m))
    if (m.type == MSG_ERROR)
      return child_error (p, &m, err);
  return ended_silently (p, err);
}

static void
name_probe (struct ucb_probe *p, const struct ucb_probe_spec *spec)
{
  const char *what = spec->what ? spec->what : "the probe";

  if (spec->userns && spec->map_width)
    snprintf (p->name, sizeof p->name, "%s as container root (kuid %u)", what,
              (unsigned) spec->map_first);
  else if (spec->uid)
    snprintf (p->name, sizeof p->name, "%s as uid %u", what, (unsigned) spec->uid);
  else
    snprintf (p->name, sizeof p->name, "%s", what);
}

/* The probe's next message, which must be of `type`; else its error, or how it ended. */
static int
expect_msg (struct ucb_probe *p, int type, struct ucb_probe_msg *m, ucb_error_t *err)
{
  if (!next_msg (p, m))
    return ended_silently (p, err);
  if (m->type == MSG_ERROR)
    return child_error (p, m, err);
  if (m->type != type)
    {
      reap (p);
      return ucb_make_error (err, 0, "internal: %s sent message %d where %d was due", p->name,
                             (int) m->type, type);
    }
  return 0;
}

/* Range maps: the child has unshared and waits; we write its maps and release it. */
static int
write_range_maps (struct ucb_probe *p, const struct ucb_probe_spec *spec, ucb_error_t *err)
{
  struct ucb_probe_msg m;

  if (expect_msg (p, MSG_MAPS, &m, err) < 0)
    return -1;
  if (ucb_userns_write_maps (p->pid, spec->map_first, (gid_t) spec->map_first, spec->map_width,
                             false, err)
      < 0)
    return ucb_error_wrap (err, "%s", p->name);
  if (send_msg (p->fd, MSG_GO, NULL, NULL) < 0)
    return story (p, err);
  return 0;
}

int
ucb_probe_start (struct ucb_probe *p, const struct ucb_probe_spec *spec, ucb_probe_fn fn, void *arg,
                 ucb_error_t *err)
{
  pid_t parent = getpid ();
  int sv[2];

  p->pid = p->fd = -1;
  p->status = 0;
  p->execs = spec->execs;
  name_probe (p, spec);
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return ucb_make_error (err, errno, "socketpair for %s", p->name);
  fflush (NULL); /* no buffered output may be written twice */
  p->pid = fork_dying ();
  if (p->pid == 0)
    {
      close (sv[0]);
      if (channel >= 0)
        close (channel); /* the probe we run in */
      channel = sv[1];
      child_main (spec, parent, fn, arg);
    }
  close (sv[1]);
  if (p->pid < 0)
    {
      int e = errno;
      close (sv[0]);
      return ucb_make_error (err, e, "fork for %s", p->name);
    }
  p->fd = sv[0];
  if (spec->userns && spec->map_width && write_range_maps (p, spec, err) < 0)
    {
      ucb_probe_kill (p);
      return -1;
    }
  return 0;
}

int
ucb_probe_start_report (struct ucb_probe *p, const struct ucb_probe_spec *spec, ucb_probe_fn fn,
                        void *arg, struct ucb_probe_out *out, ucb_error_t *err)
{
  struct ucb_probe_out ready;

  if (ucb_probe_start (p, spec, fn, arg, err) < 0)
    return -1;
  if (ucb_probe_next (p, out ? out : &ready, err) < 0)
    {
      ucb_probe_kill (p);
      return -1;
    }
  return 0;
}

int
ucb_probe_next (struct ucb_probe *p, struct ucb_probe_out *out, ucb_error_t *err)
{
  struct ucb_probe_msg m;

  if (expect_msg (p, MSG_REPORT, &m, err) < 0)
    return -1;
  *out = m.out;
  return 0;
}

int
ucb_probe_order (struct ucb_probe *p, const struct ucb_probe_out *order, ucb_error_t *err)
{
  if (send_msg (p->fd, MSG_ORDER, order, NULL) < 0)
    return story (p, err);
  return 0;
}

int
ucb_probe_finish (struct ucb_probe *p, struct ucb_probe_out *out, ucb_error_t *err)
{
  struct ucb_probe_msg m;
  int r = 0;

  for (;;)
    {
      if (!next_msg (p, &m))
        {
          /* The socket is close-on-exec: a program that ran says nothing. */
          if (p->execs && WIFEXITED (p->status) && WEXITSTATUS (p->status) == 0)
            r = 1;
          else
            r = ended_silently (p, err);
          break;
        }
      if (m.type == MSG_REPORT)
        continue;
      if (m.type == MSG_ERROR)
        r = child_error (p, &m, err);
      else if (m.type != MSG_DONE)
        r = ucb_make_error (err, 0, "internal: message %d from %s", (int) m.type, p->name);
      else if (out)
        *out = m.out;
      break;
    }
  reap (p);
  if (r == 0 && !(WIFEXITED (p->status) && WEXITSTATUS (p->status) == 0))
    r = ucb_make_error (err, 0, "%s failed after its report (wait status %#x)", p->name,
                        (unsigned) p->status);
  close (p->fd);
  p->fd = -1;
  return r;
}

void
ucb_probe_kill (struct ucb_probe *p)
{
  if (p->pid > 0)
    kill (p->pid, SIGKILL);
  reap (p);
  if (p->fd >= 0)
    close (p->fd);
  p->fd = -1;
}

int
ucb_probe_run (const struct ucb_probe_spec *spec, ucb_probe_fn fn, void *arg,
               struct ucb_probe_out *out, ucb_error_t *err)
{
  struct ucb_probe p = UCB_PROBE_NONE;

  if (ucb_probe_start (&p, spec, fn, arg, err) < 0)
    return -1;
  return ucb_probe_finish (&p, out, err);
}

/* ---- observers ----------------------------------------------------------------------------- */

static int
observe_forever (void *arg, struct ucb_probe_out *out, ucb_error_t *err)
{
  (void) arg;
  if (ucb_probe_report (out, err) < 0)
    return -1;
  for (;;)
    pause ();
}

int
ucb_vobserver (struct ucb_probe *p, uid_t uid, ucb_error_t *err)
{
  struct ucb_probe_spec spec = { .what = "the observer", .uid = uid };

  return ucb_probe_start_report (p, &spec, observe_forever, NULL, NULL, err);
}

int
ucb_probe_run_observed (uid_t uid, pid_t *observer, const struct ucb_probe_spec *spec,
                        ucb_probe_fn fn, void *arg, struct ucb_probe_out *out, ucb_error_t *err)
{
  struct ucb_probe obs = UCB_PROBE_NONE;
  int r;

  if (ucb_vobserver (&obs, uid, err) < 0)
    return -1;
  *observer = obs.pid;
  r = ucb_probe_run (spec, fn, arg, out, err);
  ucb_probe_kill (&obs);
  return r;
}
