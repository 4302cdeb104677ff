/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.h - what `ucbench run` runs, independent of argv: the sweep's axes, the limits, the
 * placement and what runtimes add.  The CLI fills it (cli/options.c); the engine reads it. */
#ifndef UCB_PLAN_H
#define UCB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/lists.h"
#include "host/caps.h"
#include "host/rlimit.h"
#include "host/seccomp.h"
#include "host/users.h"

struct ucb_workload;

/* No host runs more tasks than the kernel has pids (PID_MAX_LIMIT on 64 bits): a bound on what
 * the options take; the host's own ceiling is read before the first container (ceiling.h). */
#define UCB_KERNEL_MAX_PIDS 4194304u
#define UCB_MAX_DEPTH 32
#define UCB_MAX_REPEAT 1000
#define UCB_MAX_TASKS 1024 /* per container */
/* Default owner uids: far above any distribution's user, subuid (100000+) or systemd
 * dynamic-user (61184-65519) range, and below 2^31 where some tools turn uids negative (and
 * where Podman's `containers:2147483647:2147483648` subordinate range starts).  Checked anyway
 * (ucb_uid_range_conflict), and passed over when taken or held (ucb_uids_claim). */
#define UCB_DEFAULT_UID_BASE 2100000000u

enum ucb_owner_kind
{
  UCB_OWNER_SHARED,   /* one owner uid for all containers (Docker-like) */
  UCB_OWNER_DISTINCT, /* one owner uid per container */
  UCB_OWNER_ROOT,     /* owner uid 0 (rootful runtimes) */
  UCB_OWNER_UID,      /* an explicit uid for all containers */
  UCB_OWNER_RANGE,    /* an explicit range, assigned round-robin */
  UCB_OWNER_SELF,     /* the caller's own uid (what an unprivileged user can do) */
};

struct ucb_owner_mode
{
  enum ucb_owner_kind kind;
  uint32_t lo, hi; /* UID: lo == hi; RANGE: lo..hi inclusive */
};

enum ucb_pin_mode
{
  UCB_PIN_AUTO, /* one task per allowed CPU, round-robin in CPU-number order */
  UCB_PIN_NONE,
  UCB_PIN_LIST,
  UCB_PIN_SPREAD,  /* one task per L3 domain round-robin, physical cores before SMT siblings */
  UCB_PIN_COMPACT, /* fill an L3 domain before the next */
  UCB_PIN_L3,      /* compact, and results grouped by the number of L3 domains spanned */
};

/* How containers are made beyond their namespaces: what runtimes add (cgroups, seccomp,
 * capabilities) and what ucbench observes (hardware counters).  Parsed in options-runtime.c. */
struct ucb_runtime_options
{
  bool cgroup;         /* --cgroup: one cgroup per container */
  char *cgroup_parent; /* --cgroup=PARENT, NULL = the cgroup ucbench runs in */
  bool cpuset;         /* --cpuset: the container's CPUs in its cgroup */
  uint64_t pids_max;   /* --pids-max, 0 = not set */
  char **cgroup_set;   /* --cgroup-set FILE=VALUE, in order */
  size_t n_cgroup_set;
  char *seccomp;        /* --seccomp: NULL = none, "docker" or a profile file */
  int seccomp_optimize; /* --seccomp-optimize 1|2 */
  /* `seccomp` read (by the CLI: it is JSON) before the run, for ucb_seccomp_build. */
  const struct ucb_seccomp_profile *seccomp_profile;
  struct ucb_caps caps; /* --caps */
  bool perf;            /* --perf */
};

enum ucb_headroom
{
  UCB_HEADROOM_HOST, /* the limits ucbench was started with */
  UCB_HEADROOM_NEAR, /* the workload's counter reaches its limit exactly at the peak */
  UCB_HEADROOM_FAR,  /* soft = hard: as far from the limit as this host allows */
};

/* --limit: a soft limit for one of the four ucounts rlimits (index: enum ucb_rl). */
#define UCB_LIMIT_UNLIMITED UINT64_MAX
struct ucb_limit
{
  bool set;
  uint64_t value; /* UCB_LIMIT_UNLIMITED for "unlimited" */
};

/* --isolate: namespaces besides the user namespace (CLONE_NEW* flags). */
#define UCB_ISOLATE_DEFAULT_FLAGS CLONE_NEWIPC

/* --repeat auto without --max-time: the time of this many first rounds. */
#define UCB_AUTO_MAX_ROUNDS 10

#define UCB_CONTENTION_THRESHOLD 0.9 /* default --contention-threshold */

/* What to run: every list-valued axis of the sweep and how each container is made, as resolved
 * from the command line (cli/options.c) but independent of it. */
struct ucb_plan
{
  const struct ucb_workload **workloads;
  size_t n_workloads;
  unsigned *containers;
  size_t n_containers;
  struct ucb_owner_mode *owners;
  size_t n_owners;
  unsigned *depths;
  size_t n_depths;
  unsigned *tasks; /* tasks per container (a sweep axis) */
  size_t n_tasks;
  bool threads; /* tasks are threads of one process per container */
  struct ucb_limit limits[UCB_RLS];
  enum ucb_headroom headroom;
  int isolate;        /* CLONE_NEW* flags besides CLONE_NEWUSER */
  bool isolate_given; /* explicit --isolate (else the default, which depth 0 drops) */
  double duration, warmup, interval; /* seconds */
  unsigned repeat;                   /* --repeat N; 1 with --repeat auto (each round is one) */
  bool repeat_auto;                  /* --repeat auto: round-robin rounds until precision_pct */
  double precision_pct;              /* --precision: the 95 % CI half-width to reach, percent */
  double max_time_s;                 /* --max-time, 0 = the default (UCB_AUTO_MAX_ROUNDS rounds) */
  double contention_threshold;       /* a task that should own a CPU and got less is contended */
  enum ucb_pin_mode pin;
  int *pin_cpus;
  size_t n_pin_cpus;
  uint32_t uid_base;
  bool uid_base_given; /* explicit --uid-base (else the default, which moves past a busy range) */
  bool owners_given; /* explicit --owner (else the default, which an unprivileged caller narrows) */
  struct ucb_runtime_options rt;
  /* Where one point is, for a user watching a long run (NULL: nobody): `phase` is "ready"
   * (`done` of `total` containers), "measuring" (`done` of `total` intervals) or "stopping"
   * (`total` containers).  Called at most every quarter second while containers get ready. */
  void (*on_phase) (void *arg, const char *phase, size_t done, size_t total);
  void *on_phase_arg;
};

/* "shared", "distinct", "root", "self", "1000" or "1000-1010". */
char *ucb_owner_mode_name (const struct ucb_owner_mode *m);
/* The names of the plan's enums, indexed by them, as the options take them and the document
 * records them (ucb_name_index() reads them the other way).  Sized by the last member. */
#define UCB_N_OWNER_KINDS (UCB_OWNER_SELF + 1)
extern const char *const ucb_owner_kind_names[UCB_N_OWNER_KINDS]; /* NULL: a uid or a range */
#define UCB_N_PIN_MODES (UCB_PIN_L3 + 1)
extern const char *const ucb_pin_mode_names[UCB_N_PIN_MODES];
#define UCB_N_HEADROOMS (UCB_HEADROOM_FAR + 1)
extern const char *const ucb_headroom_names[UCB_N_HEADROOMS];
/* --isolate "ipc,pid" into CLONE_NEW* flags ("user" is implied and adds none). */
int ucb_parse_isolate (const char *s, int *flags, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* "ipc,pid" for CLONE_NEWIPC|CLONE_NEWPID ("" for none), in --isolate order. */
char *ucb_isolate_name (int flags);
/* "auto", "spread", ... as --pin takes them ("list" for a CPU list); "?" for no mode. */
const char *ucb_pin_mode_name (enum ucb_pin_mode m);

#endif
