/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn.c - with spawner.c the only caller of clone(): owner processes, nested user namespaces,
 * id maps and the child side of the sync protocol (fleet.c has the parent side).
 *
 * Protocol, per point (parent = ucbench, single-threaded while spawning):
 *  0. The parent forks one spawner, which leads the process group of every container and forks
 *     the owners at SCHED_FIFO, so that no fork copies ucbench's thousands of sockets and the
 *     point's result table (dropped in the spawner), and ucbench only waits meanwhile.
 *  1. Per container the spawner makes a SOCK_SEQPACKET|SOCK_CLOEXEC socketpair and clones the
 *     owner with CLONE_PARENT: a child of ucbench, which reaps it and whose death its
 *     PR_SET_PDEATHSIG follows; then it sends ucbench the owner's pid and its end of the socket
 *     (SCM_RIGHTS).  The owner stays in the spawner's group, so one kill reaches every container.
 *  2. The owner process closes every inherited fd except its sync socket and the start
 *     barrier, runs the spec's owner_hook with ucbench's credentials (joining its cgroup, so
 *     every later process starts inside), drops to the owner uid (setgroups(0), setresgid,
 *     setresuid), marks itself dumpable and re-arms PR_SET_PDEATHSIG (a credential change
 *     clears it).
 *  3. For each nesting level: raw clone(CLONE_NEWUSER|SIGCHLD).  The child writes its own
 *     `setgroups` = deny, `gid_map` and `uid_map` (inside 0 -> the one id its creator has: the
 *     owner's at level 1, 0 deeper; no privilege needed and no round trip).  The creator stays
 *     as a waiting parent, so the death of any ancestor reaches every descendant through
 *     PR_SET_PDEATHSIG.  At depth 1 with one task process and no new pid namespace, the owner
 *     unshare()s the namespaces itself instead and is the init and the task: one process.
 *  4. The innermost process, the container's init, runs the spec's init_hook (capabilities,
 *     no-new-privs, seccomp: inherited by every task), then starts the tasks (with one task
 *     process, it is the task), each of which runs the task function, which sends READY
 *     {task, pid} (the parent reads pid and uid from SCM_CREDENTIALS, translated to its
 *     namespaces) and then blocks on the start barrier: a pipe the parent writes one byte to,
 *     never read, so POLLIN stays set and every task starts together.
 *  5. Any failure in any process of the container is sent as ERROR {code, status, msg} on the
 *     same socket, and that process _exits; the parent turns it into a normal ucb_error_t.
 *  Teardown: after the final reading the parent kills the spawner's process group with SIGKILL
 *  (nothing is measured any more, so no task need see a stop flag) and reaps the owners, the
 *  spawner and the orphans; PR_SET_PDEATHSIG covers the case where the parent itself is
 *  SIGKILLed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "core/lists.h"
#include "core/process.h"
#include "core/util.h"
#include "engine/spawn-proto.h"
#include "engine/spawn.h"
#include "host/seccomp.h"
#include "host/userns.h"

/* ---- child side -------------------------------------------------------------------------- */

static void
send_error (int sync_fd, ucb_error_t *err)
{
  struct ucb_sync_msg m;

  memset (&m, 0, sizeof m);
  m.type = UCB_MSG_ERROR;
  ucb_error_to_wire (err, &m.err);
  (void) send (sync_fd, &m, sizeof m, MSG_NOSIGNAL);
  ucb_error_free (err);
}

/* The child's only way out: report and _exit (it has no caller to return to). */
__attribute__ ((noreturn)) static void
child_fail_noreturn (int sync_fd, ucb_error_t *err)
{
  send_error (sync_fd, err);
  _exit (UCB_EXIT_FAILURE);
}

int
ucb_task_ready (const struct ucb_task_env *env, unsigned task, ucb_error_t *err)
{
  struct ucb_sync_msg m;

  memset (&m, 0, sizeof m);
  m.type = UCB_MSG_READY;
  m.task = task;
  m.pid = (int32_t) getpid ();
  if (send (env->sync_fd, &m, sizeof m, MSG_NOSIGNAL) < 0)
    return ucb_make_error (err, errno, "send READY");
  return 0;
}

int
ucb_task_wait_start (const struct ucb_task_env *env, ucb_error_t *err)
{
  struct pollfd p = { .fd = env->start_fd, .events = POLLIN };

  for (;;)
    {
      int r = poll (&p, 1, -1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ucb_make_error (err, errno, "poll start barrier");
      /* POLLHUP alone: the parent closed the barrier without releasing it. */
      if (!(p.revents & POLLIN))
        return ucb_make_error (err, 0, "start barrier closed before the start");
      return 0;
    }
}

/* Close every fd >= 3 except `keep`: siblings' sockets and the parent's files must not
 * leak into containers. */
void
ucb_close_all_but (int *keep, size_t n)
{
  unsigned lo = 3;

  /* An insertion sort of a few fds: qsort's first use in a fresh child is four page faults. */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--)
      {
        int t = keep[j];
        keep[j] = keep[j - 1];
        keep[j - 1] = t;
      }
  for (size_t i = 0; i < n; i++)
    {
      if (keep[i] < (int) lo)
        continue;
      if ((unsigned) keep[i] > lo)
        syscall (SYS_close_range, lo, (unsigned) keep[i] - 1, 0);
      lo = (unsigned) keep[i] + 1;
    }
  syscall (SYS_close_range, lo, ~0u, 0);
}

/* "<prefix><n>\n" into buf (room for 32): no stdio, whose first use in a fresh child is page
 * faults over several pages of its code and data. */
static const char *
number_after (char *buf, const char *prefix, unsigned long n, const char *suffix)
{
  char digits[24];
  size_t k = 0, len = strlen (prefix);

  do
    digits[k++] = (char) ('0' + n % 10);
  while ((n /= 10) != 0);
  memcpy (buf, prefix, len);
  while (k > 0)
    buf[len++] = digits[--k];
  strcpy (buf + len, suffix);
  return buf;
}

/* Name processes so `ps` shows what they are: ucb-owner3, ucb-ns1, ucb-task3. */
static void
set_name (const char *prefix, unsigned a)
{
  char name[32];

  number_after (name, prefix, a, "");
  name[15] = '\0'; /* TASK_COMM_LEN */
  prctl (PR_SET_NAME, name, 0, 0, 0);
}

/* A task that the filter killed (SIGSYS) or that crashed says nothing itself: its waiting
 * parent says it, naming the profile when one is loaded. */
static void
report_task_signal (int sync_fd, int status)
{
  ucb_error_t err = NULL;
  const char *sig;

  if (!WIFSIGNALED (status) || WTERMSIG (status) == SIGKILL || !ucb_seccomp_active ())
    return;
  sig = sigabbrev_np (WTERMSIG (status));
  ucb_make_error (&err, 0,
                  "a task was killed by SIG%s after loading the seccomp profile %s: the "
                  "profile may block a call the task needs",
                  sig ? sig : "?", ucb_seccomp_active ());
  send_error (sync_fd, &err);
}

/* Wait for `pid` and exit the way it did: intermediate levels only keep the chain alive.  The
 * creator of a container whose one task is its init (task_is_init) reports that task's death
 * by a signal, as the init would. */
__attribute__ ((noreturn)) static void
wait_and_exit_like (const struct ucb_task_env *env, pid_t pid, bool child_is_task)
{
  int status;

  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      _exit (UCB_EXIT_FAILURE);
  if (child_is_task)
    report_task_signal (env->sync_fd, status);
  if (WIFEXITED (status))
    _exit (WEXITSTATUS (status));
  _exit (128 + WTERMSIG (status));
}

/* Pin the calling task (process or thread) to its CPU, if it has one. */
static int
pin_self (const struct ucb_container_spec *spec, unsigned task, ucb_error_t *err)
{
  cpu_set_t set;

  if (spec->task_cpus == NULL || spec->task_cpus[task] < 0)
    return 0;
  CPU_ZERO (&set);
  CPU_SET (spec->task_cpus[task], &set);
  if (syscall (SYS_sched_setaffinity, 0, sizeof set, &set) < 0) /* as set_owner_ids() */
    return ucb_make_error (err, errno, "sched_setaffinity(CPU %d) for task %u",
                           spec->task_cpus[task], task);
  return 0;
}

/* One task in the calling process: pinned, named, runs `fn`, exits with its status. */
__attribute__ ((noreturn)) static void
run_task (const struct ucb_task_env *env, unsigned task, ucb_task_main_fn fn, void *arg)
{
  ucb_error_t err = NULL;
  int r;

  if (pin_self (env->spec, task, &err) < 0)
    child_fail_noreturn (env->sync_fd, &err);
  set_name ("ucb-task", env->spec->index);
  r = fn (arg, env, task, &err);
  if (r < 0)
    child_fail_noreturn (env->sync_fd, &err);
  _exit (r);
}

/* One task as a process: dies with the container init. */
__attribute__ ((noreturn)) static void
task_process (const struct ucb_task_env *env, pid_t init, unsigned task, ucb_task_main_fn fn,
              void *arg)
{
  ucb_error_t err = NULL;

  if (ucb_arm_pdeathsig (init, "parent", &err) < 0)
    child_fail_noreturn (env->sync_fd, &err);
  run_task (env, task, fn, arg);
}

/* A container of one task process needs no init of its own: the innermost level runs the task
 * itself, one fork and one process fewer per container (at thousands of containers, the forks
 * are most of the setup).  Not in a new pid namespace, where the task would be its pid 1 (which
 * the kernel shields from its own signals), nor at depth 0, where it would be the owner. */
static bool
one_task_init (unsigned depth, unsigned tasks, bool threads, int clone_flags)
{
  return !threads && tasks == 1 && depth > 0 && !(clone_flags & CLONE_NEWPID);
}

static bool
task_is_init (const struct ucb_container_spec *spec)
{
  return one_task_init (spec->depth, spec->tasks, spec->threads, spec->clone_flags);
}

bool
ucb_spec_owner_is_task (const struct ucb_container_spec *spec)
{
  return task_is_init (spec) && spec->depth == 1;
}

unsigned
ucb_container_processes (unsigned depth, unsigned tasks, bool threads, int clone_flags)
{
  /* The owner, depth - 1 levels and the init (at depth 0 the owner is the init), its tasks;
   * the task is the init, and at depth 1 the owner too, when one_task_init. */
  if (one_task_init (depth, tasks, threads, clone_flags))
    return depth == 1 ? 1 : depth + 1;
  return (depth ? depth + 1 : 1) + tasks;
}

struct task_thread
{
  const struct ucb_task_env *env;
  ucb_task_main_fn fn;
  void *arg;
  unsigned task;
  int status;
  pthread_t tid;
};

static void *
task_thread_main (void *p)
{
  struct task_thread *t = p;
  ucb_error_t err = NULL;

  set_name ("ucb-task", t->env->spec->index);
  t->status = pin_self (t->env->spec, t->task, &err);
  if (t->status == 0)
    t->status = t->fn (t->arg, t->env, t->task, &err);
  if (t->status < 0)
    send_error (t->env->sync_fd, &err); /* the thread cannot _exit: init reports the status */
  return NULL;
}

/* The container's init: the innermost process.  It starts the tasks (processes or threads),
 * waits for all of them and exits 0 only if every task did. */
__attribute__ ((noreturn)) static void
container_main (const struct ucb_task_env *env, ucb_task_main_fn fn, void *arg)
{
  const struct ucb_container_spec *spec = env->spec;
  ucb_error_t err = NULL;
  int failed = 0;

  if (!task_is_init (spec)) /* else the task names itself at once */
    set_name ("ucb-init", spec->index);
  if (spec->init_hook && spec->init_hook (spec->hook_arg, spec, &err) < 0)
    {
      ucb_error_wrap (&err, "container %u init", spec->index);
      child_fail_noreturn (env->sync_fd, &err);
    }
  if (task_is_init (spec))
    run_task (env, 0, fn, arg);
  if (spec->threads)
    {
      cleanup_free struct task_thread *t = xcalloc (spec->tasks, sizeof *t);
      unsigned started = 0;

      for (; started < spec->tasks; started++)
        {
          int e;
          t[started] = (struct task_thread){ .env = env, .fn = fn, .arg = arg, .task = started };
          e = pthread_create (&t[started].tid, NULL, task_thread_main, &t[started]);
          if (e != 0)
            {
              ucb_make_error (&err, e, "pthread_create for task %u", started);
              send_error (env->sync_fd, &err);
              failed = 1;
              break;
            }
        }
      for (unsigned i = 0; i < started; i++)
        {
          pthread_join (t[i].tid, NULL);
          failed |= t[i].status != 0;
        }
      _exit (failed ? UCB_EXIT_FAILURE : 0);
    }
  else
    {
      pid_t self = getpid ();
      unsigned started = 0;
      int status;

      for (; started < spec->tasks; started++)
        {
          pid_t pid = fork ();
          if (pid == 0)
            task_process (env, self, started, fn, arg);
          if (pid < 0)
            {
              int e = errno;
              const char *hint = ucb_clone_hint (e);
              if (hint)
                ucb_make_error (&err, 0, "fork for task %u: %s; %s", started, strerror (e), hint);
              else
                ucb_make_error (&err, e, "fork for task %u", started);
              send_error (env->sync_fd, &err);
              failed = 1;
              break;
            }
        }
      /* Reap every task (and, as pid 1 of a pid namespace, every orphan). */
      for (;;)
        {
          pid_t pid = waitpid (-1, &status, 0);
          if (pid < 0 && errno == EINTR)
            continue;
          if (pid < 0)
            break;
          failed |= !WIFEXITED (status) || WEXITSTATUS (status) != 0;
          report_task_signal (env->sync_fd, status);
        }
      _exit (failed ? UCB_EXIT_FAILURE : 0);
    }
}

/* Build levels `level`..depth below the calling process, then become the container init.
 * Each new level writes its own id maps: one id, mapped to the one its creator has (which the
 * kernel lets a namespace's first process map without privilege), so no creator has to write
 * them and release the child: no round trip per level. */
__attribute__ ((noreturn)) static void
build_level (const struct ucb_task_env *env, unsigned level, uid_t map_uid, gid_t map_gid,
             ucb_task_main_fn fn, void *arg)
{
  const struct ucb_container_spec *spec = env->spec;
  ucb_error_t err = NULL;
  pid_t self = getpid ();
  pid_t child;
  /* The innermost level also gets the container's other namespaces, owned by its userns. */
  int flags = CLONE_NEWUSER | (level == spec->depth ? spec->clone_flags : 0);

  if (level > spec->depth)
    container_main (env, fn, arg);

  child = (pid_t) syscall (SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
  if (child < 0)
    {
      int e = errno;
      const char *hint = ucb_clone_hint (e);
      if (hint)
        ucb_make_error (&err, 0, "clone(CLONE_NEWUSER%s) for nesting level %u: %s; %s",
                        flags != CLONE_NEWUSER ? "|..." : "", level, strerror (e), hint);
      else
        ucb_make_error (&err, e, "clone(CLONE_NEWUSER%s) for nesting level %u",
                        flags != CLONE_NEWUSER ? "|..." : "", level);
      child_fail_noreturn (env->sync_fd, &err);
    }
  if (child == 0)
    {
      /* In a new pid namespace our parent is outside it: getppid() reads 0. */
      if (ucb_arm_pdeathsig ((flags & CLONE_NEWPID) ? 0 : self, "parent", &err) < 0)
        child_fail_noreturn (env->sync_fd, &err);
      if (ucb_userns_write_maps (0, map_uid, map_gid, 1, true, &err) < 0)
        {
          ucb_error_wrap (&err, "nesting level %u", level);
          child_fail_noreturn (env->sync_fd, &err);
        }
      set_name ("ucb-ns", level);
      /* Inside, we are uid 0 and map our children's 0 to it. */
      build_level (env, level + 1, 0, 0, fn, arg);
    }
  wait_and_exit_like (env, child, level == spec->depth && task_is_init (spec));
}

static bool
already_owner (const struct ucb_container_spec *spec, const struct ucb_owner_creds *cr)
{
  return cr->ruid == spec->owner_uid && cr->euid == cr->ruid && cr->suid == cr->ruid
         && cr->rgid == spec->owner_gid && cr->egid == cr->rgid && cr->sgid == cr->rgid;
}

/* The --limit soft limits, set as the owner before any namespace exists: the creator's soft
 * limit at clone() becomes the namespace's rlimit_max, and every descendant inherits it. */
static int
apply_limits (const struct ucb_container_spec *spec, ucb_error_t *err)
{
  for (size_t i = 0; i < spec->nlimits; i++)
    {
      struct rlimit rl;
      if (getrlimit (spec->limits[i].resource, &rl) < 0)
        return ucb_make_error (err, errno, "getrlimit(%s)", spec->limits[i].name);
      rl.rlim_cur = spec->limits[i].soft;
      if (setrlimit (spec->limits[i].resource, &rl) < 0)
        return ucb_make_error (err, errno, "setrlimit(%s, soft %llu, hard %llu)",
                               spec->limits[i].name, (unsigned long long) rl.rlim_cur,
                               (unsigned long long) rl.rlim_max);
    }
  return 0;
}

/* ucb_userns_become() less the setgroups(0) the spawner did for every owner.  The system calls
 * themselves: the process is single-threaded, so glibc's wrappers (which would change every
 * thread's ids) add only the page faults of their code. */
static int
set_owner_ids (uid_t uid, gid_t gid, ucb_error_t *err)
{
  if (syscall (SYS_setresgid, gid, gid, gid) < 0)
    return ucb_make_error (err, errno, "setresgid(%u)", (unsigned) gid);
  if (syscall (SYS_setresuid, uid, uid, uid) < 0)
    return ucb_make_error (err, errno, "setresuid(%u)", (unsigned) uid);
  if (prctl (PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
    return ucb_make_error (err, errno, "prctl(PR_SET_DUMPABLE)");
  return 0;
}

/* `arm`: re-arm the parent-death signal the credential change cleared (an owner that is its
 * task arms it once, at the end of its setup). */
static int
become_owner (const struct ucb_container_spec *spec, const struct ucb_owner_creds *cr, pid_t parent,
              bool arm, ucb_error_t *err)
{
  if (!cr->limits_set && apply_limits (spec, err) < 0)
    return -1;
  /* Already the owner (an unprivileged user running containers of its own): nothing to
   * change, and no privilege to change it with. */
  if (already_owner (spec, cr))
    return 0;
  if (cr->no_groups ? set_owner_ids (spec->owner_uid, spec->owner_gid, err) < 0
                    : ucb_userns_become (spec->owner_uid, spec->owner_gid, err) < 0)
    return -1;
  return arm ? ucb_arm_pdeathsig (parent, "parent", err) : 0;
}

/* Our own one-id maps, as ucb_userns_write_maps (0, uid, gid, 1, true) writes them, without
 * its allocations and formatted printing (page faults in a fresh child). */
static int
write_own_maps (uid_t uid, gid_t gid, ucb_error_t *err)
{
  static const char *const file[3]
      = { "/proc/self/setgroups", "/proc/self/gid_map", "/proc/self/uid_map" };
  char gmap[32], umap[32];
  const char *text[3]
      = { "deny", number_after (gmap, "0 ", gid, " 1\n"), number_after (umap, "0 ", uid, " 1\n") };

  for (int i = 0; i < 3; i++)
    {
      size_t len = strlen (text[i]);
      int fd = open (file[i], O_WRONLY | O_CLOEXEC), e;
      ssize_t n;

      if (fd < 0 && i == 0 && errno == ENOENT) /* before Linux 3.19 */
        continue;
      if (fd < 0)
        return ucb_make_error (err, errno, "open `%s`", file[i]);
      n = write (fd, text[i], len);
      e = errno;
      close (fd);
      if (n != (ssize_t) len)
        return ucb_make_error (err, n < 0 ? e : EIO, "write `%.*s` to `%s`", (int) len - 1, text[i],
                               file[i]);
    }
  return 0;
}

/* Depth 1, one task: the owner enters the container's namespaces itself (unshare, then its own
 * maps) and runs the task, so a container is one fork, as in the bare loop.  The namespaces
 * are the same as a clone() would make: owned by the owner uid, its soft limits recorded. */
__attribute__ ((noreturn)) static void
owner_becomes_task (const struct ucb_task_env *env, pid_t parent, ucb_task_main_fn fn, void *arg)
{
  const struct ucb_container_spec *spec = env->spec;
  int flags = CLONE_NEWUSER | spec->clone_flags;
  ucb_error_t err = NULL;

  if (unshare (flags) < 0)
    {
      int e = errno;
      const char *hint = ucb_clone_hint (e);
      if (hint)
        ucb_make_error (&err, 0, "unshare(CLONE_NEWUSER%s) for nesting level 1: %s; %s",
                        flags != CLONE_NEWUSER ? "|..." : "", strerror (e), hint);
      else
        ucb_make_error (&err, e, "unshare(CLONE_NEWUSER%s) for nesting level 1",
                        flags != CLONE_NEWUSER ? "|..." : "");
      child_fail_noreturn (env->sync_fd, &err);
    }
  if (write_own_maps (spec->owner_uid, spec->owner_gid, &err) < 0)
    {
      ucb_error_wrap (&err, "nesting level 1");
      child_fail_noreturn (env->sync_fd, &err);
    }
  /* Armed once, here: the credential changes cleared it, and a parent that died before the
   * prctl is found by its check (the owner then exits). */
  if (ucb_arm_pdeathsig (parent, "parent", &err) < 0)
    child_fail_noreturn (env->sync_fd, &err);
  container_main (env, fn, arg);
}

void
ucb_owner_main (const struct ucb_task_env *env, pid_t parent, const struct ucb_owner_creds *cr,
                ucb_task_main_fn fn, void *arg)
{
  ucb_error_t err = NULL;
  int keep[2] = { env->sync_fd, env->start_fd };
  /* The owner that is its task (one process a container) does the least: it arms the
   * parent-death signal once its credentials are final, and names itself as the task. */
  bool is_task = ucb_spec_owner_is_task (env->spec);

  ucb_close_all_but (keep, 2);
  if (!is_task && ucb_arm_pdeathsig (parent, "parent", &err) < 0)
    child_fail_noreturn (env->sync_fd, &err);
  /* The spawner's process group and signal dispositions are already ours. */
  if (!is_task)
    set_name ("ucb-owner", env->spec->index);
  if (env->spec->owner_hook && env->spec->owner_hook (env->spec->hook_arg, env->spec, &err) < 0)
    {
      ucb_error_wrap (&err, "container %u owner", env->spec->index);
      child_fail_noreturn (env->sync_fd, &err);
    }
  if (become_owner (env->spec, cr, parent, !is_task, &err) < 0)
    {
      ucb_error_wrap (&err, "owner uid %u", (unsigned) env->spec->owner_uid);
      child_fail_noreturn (env->sync_fd, &err);
    }
  if (is_task)
    owner_becomes_task (env, parent, fn, arg);
  build_level (env, 1, env->spec->owner_uid, env->spec->owner_gid, fn, arg);
}

void
ucb_owner_creds_init (struct ucb_owner_creds *cr, const struct ucb_container_spec *specs, size_t n)
{
  bool same = n > 0;

  memset (cr, 0, sizeof *cr);
  (void) getresuid (&cr->ruid, &cr->euid, &cr->suid);
  (void) getresgid (&cr->rgid, &cr->egid, &cr->sgid);
  /* The spawner needs no groups (it forks; an owner_hook runs on its capabilities). */
  cr->no_groups = getgroups (0, NULL) == 0 || setgroups (0, NULL) == 0;
  for (size_t i = 1; i < n; i++)
    same = same && specs[i].limits == specs[0].limits && specs[i].nlimits == specs[0].nlimits;
  /* Only as uid 0, which RLIMIT_NPROC does not hold back: a lower NPROC soft limit would
   * otherwise refuse the spawner's own forks, which the owners' was applied after. */
  cr->limits_set = same && cr->ruid == 0 && apply_limits (&specs[0], NULL) == 0;
}
