/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-ceiling.c - the host's container ceiling from fake readings: each bound alone sets it
 * (namespaces per owner uid and level, pid_max less the running tasks and the reserved pids,
 * threads-max, RLIMIT_NPROC only where an owner-uid process forks and not for uid 0, the pids
 * cgroup, RLIMIT_NOFILE, memory), distinct owners and uid ranges, and the refusal's words. */
#include "config.h"

#include <sched.h>
#include <stdlib.h>

#include "../tap.h"
#include "core/util.h"
#include "engine/ceiling.h"

/* A host where nothing bounds: each test lowers what it tests. */
static struct ucb_ceiling_host
roomy (void)
{
  struct ucb_ceiling_host h = { 0 };

  for (int k = 0; k < UCB_CEIL_NS; k++)
    h.ns_max[k] = UCB_CEIL_NONE;
  h.pid_max = h.threads_max = h.pids_room = h.nofile_hard = h.mem_room = UCB_CEIL_NONE;
  h.nproc_soft = UCB_CEIL_NONE;
  h.task_bytes = 100 << 10;
  return h;
}

/* `run -w getppid --owner shared`: depth 1, one task, user and IPC namespaces. */
static struct ucb_ceiling_shape
shared1 (void)
{
  return (struct ucb_ceiling_shape){
    .depth = 1, .tasks = 1, .clone_flags = CLONE_NEWIPC, .uids = 1, .nproc = UCB_CEIL_NONE
  };
}

static struct ucb_ceiling
of (const struct ucb_ceiling_host *h, const struct ucb_ceiling_shape *s)
{
  struct ucb_ceiling c;

  ucb_ceiling_of (h, s, &c);
  return c;
}

static void
test_nothing_bounds (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();

  h.mem_room = UCB_CEIL_NONE;
  tap_check (of (&h, &s).containers == UCB_CEIL_NONE);
}

static void
test_namespaces (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();
  struct ucb_ceiling c;

  h.ns_max[UCB_NS_USER] = 96369;
  h.ns_used[UCB_NS_USER] = 369;
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 96000);
  tap_check_int (c.limit, ==, UCB_BOUND_NS + UCB_NS_USER);
  tap_check_str (ucb_bound_name (c.limit), "user.max_user_namespaces");
  /* every level is a user namespace charged to the owner uid */
  s.depth = 3;
  tap_check_int (of (&h, &s).containers, ==, 32000);
  /* distinct owners: each uid has one container's worth */
  s.uids = 0;
  tap_check (of (&h, &s).allows[UCB_BOUND_NS + UCB_NS_USER] == UCB_CEIL_NONE);
  h.ns_used[UCB_NS_USER] = 96367; /* 2 left: not the 3 levels of one container */
  tap_check_int (of (&h, &s).containers, ==, 0);
  /* a range of 10 uids: containers go round-robin */
  s = shared1 ();
  s.uids = 10;
  h.ns_used[UCB_NS_USER] = 96359;
  tap_check_int (of (&h, &s).containers, ==, 100);
  /* the IPC namespace only where --isolate asks for it, and not at depth 0 */
  h = roomy ();
  h.ns_max[UCB_NS_IPC] = 50;
  s = shared1 ();
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 50);
  tap_check_str (ucb_bound_name (c.limit), "user.max_ipc_namespaces");
  s.clone_flags = 0;
  tap_check (of (&h, &s).allows[UCB_BOUND_NS + UCB_NS_IPC] == UCB_CEIL_NONE);
  s.clone_flags = CLONE_NEWIPC;
  s.depth = 0;
  tap_check (of (&h, &s).allows[UCB_BOUND_NS + UCB_NS_IPC] == UCB_CEIL_NONE);
  tap_check (of (&h, &s).allows[UCB_BOUND_NS + UCB_NS_USER] == UCB_CEIL_NONE);
}

static void
test_pids_and_threads (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();
  struct ucb_ceiling c;

  /* 32768 - 300 reserved - 143 running - 1 spawner, one task a container */
  h.pid_max = 32768;
  h.threads_used = 143;
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 32324);
  tap_check_str (ucb_bound_name (c.limit), "kernel.pid_max");
  /* two tasks as processes: owner, init and 2 tasks at depth 1 */
  s.tasks = 2;
  tap_check_int (ucb_ceiling_tasks (&s), ==, 4);
  tap_check_int (of (&h, &s).containers, ==, 32324 / 4);
  /* a pid namespace: owner, init and task */
  s = shared1 ();
  s.clone_flags |= CLONE_NEWPID;
  tap_check_int (of (&h, &s).containers, ==, 32324 / 3);
  h = roomy ();
  h.threads_max = 1000;
  h.threads_used = 99;
  s = shared1 ();
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 900);
  tap_check_str (ucb_bound_name (c.limit), "kernel.threads-max");
  h.threads_used = 5000; /* more running than the maximum: no room at all */
  tap_check_int (of (&h, &s).containers, ==, 0);
}

static void
test_nproc (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();
  struct ucb_ceiling c;

  s.nproc = 1000;
  h.nproc_used = 10;
  /* the owner unshares and is the task: no owner-uid fork, which is where NPROC is checked */
  tap_check (of (&h, &s).allows[UCB_BOUND_NPROC] == UCB_CEIL_NONE);
  s.depth = 2; /* owner, level 1, level 2 (the task) */
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 330);
  tap_check_str (ucb_bound_name (c.limit), "RLIMIT_NPROC");
  s.nproc_exempt = true; /* owner root */
  tap_check (of (&h, &s).allows[UCB_BOUND_NPROC] == UCB_CEIL_NONE);
  s.nproc_exempt = false;
  s.uids = 0; /* distinct: 3 tasks per uid fit in the 990 left */
  tap_check (of (&h, &s).allows[UCB_BOUND_NPROC] == UCB_CEIL_NONE);
  s.nproc = 11;
  tap_check_int (of (&h, &s).containers, ==, 0);
  s.uids = 1;
  s.nproc = UCB_CEIL_NONE;
  tap_check (of (&h, &s).allows[UCB_BOUND_NPROC] == UCB_CEIL_NONE);
}

static void
test_cgroup_files_memory (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();
  struct ucb_ceiling c;

  h.pids_room = 1001;
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 1000);
  tap_check_str (ucb_bound_name (c.limit), "pids.max");
  h = roomy ();
  h.nofile_hard = 20000;
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 19936);
  tap_check_str (ucb_bound_name (c.limit), "RLIMIT_NOFILE");
  h = roomy ();
  h.mem_room = 1000ull << 20; /* 1000 MiB at 100 KiB a task */
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 10240);
  tap_check_str (ucb_bound_name (c.limit), "memory");
  s.depth = 2; /* owner, level 1, the task: three processes a container */
  tap_check_int (of (&h, &s).containers, ==, 10240 / 3);
}

static void
test_least_wins (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();
  struct ucb_ceiling c;

  h.ns_max[UCB_NS_USER] = 96369;
  h.pid_max = 32768;
  h.threads_used = 143;
  h.nofile_hard = 20000;
  h.mem_room = 23ull << 30;
  c = of (&h, &s);
  tap_check_int (c.containers, ==, 19936);
  tap_check_int (c.allows[UCB_BOUND_PID_MAX], ==, 32324);
  tap_check_int (c.allows[UCB_BOUND_NS + UCB_NS_USER], ==, 96369);
  tap_check_str (ucb_bound_name (c.limit), "RLIMIT_NOFILE");
}

static void
test_why (void)
{
  struct ucb_ceiling_host h = roomy ();
  struct ucb_ceiling_shape s = shared1 ();
  cleanup_free char *pid = NULL, *ns = NULL, *files = NULL;

  h.pid_max = 32768;
  h.threads_used = 143;
  h.ns_max[UCB_NS_USER] = 96369;
  h.ns_used[UCB_NS_USER] = 369;
  h.nofile_hard = 20000;
  pid = ucb_ceiling_why (&h, &s, UCB_BOUND_PID_MAX, 200000);
  tap_check_str (pid, "kernel.pid_max is 32768 (143 tasks running, 1 a container, 300 reserved); "
                      "raise it: sysctl -w kernel.pid_max=200445 (4194304 at most)");
  ns = ucb_ceiling_why (&h, &s, UCB_BOUND_NS + UCB_NS_USER, 200000);
  tap_check_str (ns, "user.max_user_namespaces is 96369 (369 in use by the owner uid, 1 a "
                     "container); raise it: sysctl -w user.max_user_namespaces=200369");
  files = ucb_ceiling_why (&h, &s, UCB_BOUND_NOFILE, 200000);
  tap_check_str (files, "RLIMIT_NOFILE's hard limit is 20000 (one file a container, 64 for "
                        "ucbench); raise it: ulimit -Hn 200064 (as root)");
  free (pid);
  pid = ucb_ceiling_why (&h, &s, UCB_BOUND_PID_MAX, 0); /* no count asked about: `info` */
  tap_check_str (pid, "kernel.pid_max is 32768 (143 tasks running, 1 a container, 300 reserved); "
                      "raise it: sysctl -w kernel.pid_max=N (4194304 at most)");
  /* the raised value is enough: fed back, it allows the count asked for */
  h.pid_max = 200445;
  h.nofile_hard = 200064;
  h.ns_max[UCB_NS_USER] = 200369;
  tap_check_int (of (&h, &s).containers, ==, 200000);
}

static const struct tap_test tests[] = {
  { "a host with no bound allows any count", test_nothing_bounds },
  { "namespaces: per owner uid, per level, only the kinds --isolate makes", test_namespaces },
  { "pid_max and threads-max: less the running tasks, the reserved pids, the spawner",
    test_pids_and_threads },
  { "RLIMIT_NPROC: only where an owner-uid process forks, never for uid 0", test_nproc },
  { "the pids cgroup, RLIMIT_NOFILE and memory", test_cgroup_files_memory },
  { "the least bound sets the ceiling", test_least_wins },
  { "the refusal names the reading and the value that would fit", test_why },
};

TAP_MAIN (tests)
