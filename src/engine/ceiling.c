/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ceiling.c - how many containers this host allows: the arithmetic over the readings of
 * ceiling-read.c, and run's refusal of a point above it (docs/architecture.md, "The host's
 * ceiling"). */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/ceiling.h"
#include "engine/owner.h"
#include "engine/soft-limits.h"
#include "engine/spawn.h"
#include "engine/sweep.h"
#include "engine/workload.h"

/* The kernel reuses no pid below RESERVED_PIDS once pid numbers wrap (kernel/pid.c). */
#define RESERVED_PIDS 300
/* ucbench's own files beside the containers' sync sockets (cmd-run.c's ensure_fds). */
#define OWN_FILES 64

static const int ns_flags[UCB_CEIL_NS]
    = { 0, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWNET };

const char *
ucb_bound_name (enum ucb_bound b)
{
  static const char *const ns[UCB_CEIL_NS]
      = { "user.max_user_namespaces", "user.max_ipc_namespaces", "user.max_pid_namespaces",
          "user.max_mnt_namespaces",  "user.max_uts_namespaces", "user.max_net_namespaces" };
  static const char *const other[] = { "kernel.pid_max", "kernel.threads-max", "RLIMIT_NPROC",
                                       "pids.max",       "RLIMIT_NOFILE",      "memory" };

  if (b < UCB_BOUND_PID_MAX)
    return ns[b];
  return b < UCB_BOUNDS ? other[b - UCB_BOUND_PID_MAX] : "?";
}

unsigned
ucb_ceiling_tasks (const struct ucb_ceiling_shape *s)
{
  return ucb_container_processes (s->depth, s->tasks, s->threads,
                                  s->depth > 0 ? s->clone_flags : 0);
}

static uint64_t
sub0 (uint64_t a, uint64_t b)
{
  return a == UCB_CEIL_NONE ? UCB_CEIL_NONE : a > b ? a - b : 0;
}

static uint64_t
mul_sat (uint64_t a, uint64_t b)
{
  return b && a > UCB_CEIL_NONE / b ? UCB_CEIL_NONE : a * b;
}

/* Containers that share one owner uid when there are n. */
static uint64_t
per_uid (const struct ucb_ceiling_shape *s, uint64_t n)
{
  if (s->uids == 1)
    return n;
  if (s->uids == 0)
    return n ? 1 : 0;
  return (n + s->uids - 1) / s->uids;
}

/* A count the kernel keeps per owner uid: `room` left for the uid, `per` a container. */
static uint64_t
per_uid_allows (const struct ucb_ceiling_shape *s, uint64_t room, uint64_t per)
{
  uint64_t each;

  if (room == UCB_CEIL_NONE || per == 0)
    return UCB_CEIL_NONE;
  each = room / per;
  if (s->uids == 1)
    return each;
  if (s->uids == 0)
    return each ? UCB_CEIL_NONE : 0;
  return mul_sat (each, s->uids);
}

static uint64_t
total_allows (uint64_t room, uint64_t per)
{
  return room == UCB_CEIL_NONE || per == 0 ? UCB_CEIL_NONE : room / per;
}

/* Whether an owner-uid process forks (RLIMIT_NPROC is checked at fork only): not when the
 * owner itself unshares and is the one task (spawn.c, ucb_spec_owner_is_task). */
static bool
owner_forks (const struct ucb_ceiling_shape *s)
{
  return !(s->depth == 1 && s->tasks == 1 && !s->threads && !(s->clone_flags & CLONE_NEWPID));
}

void
ucb_ceiling_of (const struct ucb_ceiling_host *h, const struct ucb_ceiling_shape *s,
                struct ucb_ceiling *c)
{
  uint64_t p = ucb_ceiling_tasks (s);

  for (int k = 0; k < UCB_CEIL_NS; k++)
    {
      /* Every level's user namespace, and the innermost one's others, are charged to the
       * owner uid in the initial namespace (the ucounts chain). */
      uint64_t per = k == UCB_NS_USER                                 ? s->depth
                     : s->depth > 0 && (s->clone_flags & ns_flags[k]) ? 1
                                                                      : 0;
      c->allows[k] = per_uid_allows (s, sub0 (h->ns_max[k], h->ns_used[k]), per);
    }
  c->allows[UCB_BOUND_PID_MAX]
      = total_allows (sub0 (h->pid_max, RESERVED_PIDS + h->threads_used + 1), p);
  c->allows[UCB_BOUND_THREADS_MAX] = total_allows (sub0 (h->threads_max, h->threads_used + 1), p);
  c->allows[UCB_BOUND_NPROC] = s->nproc_exempt || !owner_forks (s)
                                   ? UCB_CEIL_NONE
                                   : per_uid_allows (s, sub0 (s->nproc, h->nproc_used), p);
  c->allows[UCB_BOUND_PIDS_CGROUP] = total_allows (sub0 (h->pids_room, 1), p);
  c->allows[UCB_BOUND_NOFILE] = total_allows (sub0 (h->nofile_hard, OWN_FILES), 1);
  c->allows[UCB_BOUND_MEMORY] = total_allows (h->mem_room, mul_sat (p, h->task_bytes));
  c->containers = UCB_CEIL_NONE;
  c->limit = UCB_BOUND_PID_MAX;
  for (int b = 0; b < UCB_BOUNDS; b++)
    if (c->allows[b] < c->containers)
      {
        c->containers = c->allows[b];
        c->limit = (enum ucb_bound) b;
      }
}

/* The value a limit needs for n containers, or "N" when no count is asked about (n == 0). */
struct val
{
  char s[24];
};

static struct val
need (uint64_t n, uint64_t v)
{
  struct val r;

  if (n == 0)
    snprintf (r.s, sizeof r.s, "N");
  else
    snprintf (r.s, sizeof r.s, "%llu", (unsigned long long) v);
  return r;
}

static char *
ns_why (const struct ucb_ceiling_host *h, const struct ucb_ceiling_shape *s, enum ucb_bound b,
        uint64_t n)
{
  uint64_t per = b == UCB_BOUND_NS + UCB_NS_USER ? s->depth : 1;

  return xasprintf ("%s is %llu (%llu in use by the owner uid, %llu a container); raise it: "
                    "sysctl -w %s=%s",
                    ucb_bound_name (b), (unsigned long long) h->ns_max[b],
                    (unsigned long long) h->ns_used[b], (unsigned long long) per,
                    ucb_bound_name (b), need (n, h->ns_used[b] + per_uid (s, n) * per).s);
}

char *
ucb_ceiling_why (const struct ucb_ceiling_host *h, const struct ucb_ceiling_shape *s,
                 enum ucb_bound b, uint64_t n)
{
  uint64_t p = ucb_ceiling_tasks (s), used = h->threads_used;
  uint64_t owner = h->nproc_used + per_uid (s, n) * p;

  switch ((int) b)
    {
    case UCB_BOUND_PID_MAX:
      return xasprintf ("kernel.pid_max is %llu (%llu tasks running, %llu a container, %d "
                        "reserved); raise it: sysctl -w kernel.pid_max=%s (4194304 at most)",
                        (unsigned long long) h->pid_max, (unsigned long long) used,
                        (unsigned long long) p, RESERVED_PIDS,
                        need (n, RESERVED_PIDS + used + 2 + n * p).s);
    case UCB_BOUND_THREADS_MAX:
      return xasprintf ("kernel.threads-max is %llu (%llu tasks running, %llu a container); "
                        "raise it: sysctl -w kernel.threads-max=%s",
                        (unsigned long long) h->threads_max, (unsigned long long) used,
                        (unsigned long long) p, need (n, used + 2 + n * p).s);
    case UCB_BOUND_NPROC:
      return xasprintf ("RLIMIT_NPROC of the owner uid is %llu (%llu of its tasks running, %llu "
                        "a container); raise it: ulimit -u %s, or --limit NPROC=%s",
                        (unsigned long long) s->nproc, (unsigned long long) h->nproc_used,
                        (unsigned long long) p, need (n, owner).s, need (n, owner).s);
    case UCB_BOUND_PIDS_CGROUP:
      return xasprintf ("the pids cgroup %s has room for %llu tasks (%llu a container); raise "
                        "its pids.max by %s",
                        h->pids_dir, (unsigned long long) h->pids_room, (unsigned long long) p,
                        need (n, sub0 (n * p + 1, h->pids_room)).s);
    case UCB_BOUND_NOFILE:
      return xasprintf ("RLIMIT_NOFILE's hard limit is %llu (one file a container, %d for "
                        "ucbench); raise it: ulimit -Hn %s (as root)",
                        (unsigned long long) h->nofile_hard, OWN_FILES, need (n, n + OWN_FILES).s);
    case UCB_BOUND_MEMORY:
      return xasprintf ("%s leaves %llu MiB, about %llu KiB a container (estimated); free "
                        "memory",
                        h->mem_source, (unsigned long long) (h->mem_room >> 20),
                        (unsigned long long) ((p * h->task_bytes) >> 10));
    default:
      return ns_why (h, s, b, n);
    }
}

/* The shape of point `pt` on this host, with the soft RLIMIT_NPROC its owners will have. */
static int
point_shape (const struct ucb_plan *o, const struct ucb_point *pt, struct ucb_ceiling_shape *s,
             ucb_error_t *err)
{
  struct ucb_point_limits pl;

  if (ucb_limits_for_point (o, pt, &pl, err) < 0)
    return -1;
  *s = (struct ucb_ceiling_shape){
    .depth = pt->depth,
    .tasks = pt->tasks,
    .threads = pt->threads,
    .clone_flags = pt->depth > 0 ? pt->isolate : 0,
    .uids = pt->owner.kind == UCB_OWNER_DISTINCT ? 0
            : pt->owner.kind == UCB_OWNER_RANGE  ? (uint64_t) pt->owner.hi - pt->owner.lo + 1
                                                 : 1,
    .nproc_exempt = ucb_owner_uid (&pt->owner, o->uid_base, 0) == 0,
    .nproc = pl.l[UCB_RL_NPROC].soft,
  };
  return 0;
}

static int
refuse (const struct ucb_plan *o, const struct ucb_point *pt, const struct ucb_ceiling_host *h,
        const struct ucb_ceiling_shape *s, const struct ucb_ceiling *c, ucb_error_t *err)
{
  cleanup_free char *owner = ucb_owner_mode_name (&pt->owner);
  cleanup_free char *why = ucb_ceiling_why (h, s, c->limit, pt->containers);

  (void) o;
  return ucb_usage_error (err,
                          "container count `%u` is more than this host allows: %llu at most with "
                          "--owner %s, depth %u, %u task%s a container, set by %s: %s",
                          pt->containers, (unsigned long long) c->containers, owner, pt->depth,
                          pt->tasks, pt->tasks == 1 ? "" : "s", ucb_bound_name (c->limit), why);
}

/* The owner uids mode `m` uses for up to `n` containers. */
static void
owner_range (const struct ucb_plan *o, const struct ucb_owner_mode *m, unsigned n, uid_t *lo,
             uid_t *hi)
{
  *lo = ucb_owner_uid (m, o->uid_base, 0);
  *hi = m->kind == UCB_OWNER_DISTINCT ? ucb_owner_uid (m, o->uid_base, n - 1)
        : m->kind == UCB_OWNER_RANGE  ? m->hi
                                      : *lo;
}

int
ucb_ceiling_check (const struct ucb_plan *o, ucb_error_t *err)
{
  unsigned most = 1;
  size_t total = ucb_sweep_size (o);

  for (size_t i = 0; i < o->n_containers; i++)
    most = o->containers[i] > most ? o->containers[i] : most;
  for (size_t m = 0; m < o->n_owners; m++)
    {
      struct ucb_ceiling_host h;
      uid_t lo, hi;

      owner_range (o, &o->owners[m], most, &lo, &hi);
      ucb_ceiling_read (&h, lo, hi, o->isolate);
      for (size_t k = 0; k < total; k++)
        {
          struct ucb_ceiling_shape s;
          struct ucb_ceiling c;
          struct ucb_point pt;

          ucb_sweep_point (o, k, &pt);
          if (pt.repeat > 1 || pt.owner.kind != o->owners[m].kind || pt.owner.lo != o->owners[m].lo
              || pt.owner.hi != o->owners[m].hi || pt.workload->unsupported_reason)
            continue;
          if (point_shape (o, &pt, &s, err) < 0)
            return -1;
          ucb_ceiling_of (&h, &s, &c);
          if (pt.containers > c.containers)
            return refuse (o, &pt, &h, &s, &c, err);
        }
    }
  return 0;
}

void
ucb_ceiling_default (struct ucb_ceiling_host *h, struct ucb_ceiling_shape *s, struct ucb_ceiling *c)
{
  ucb_ceiling_read (h, UCB_DEFAULT_UID_BASE, UCB_DEFAULT_UID_BASE, UCB_ISOLATE_DEFAULT_FLAGS);
  *s = (struct ucb_ceiling_shape){ .depth = 1,
                                   .tasks = 1,
                                   .clone_flags = UCB_ISOLATE_DEFAULT_FLAGS,
                                   .uids = 1,
                                   .nproc = h->nproc_soft };
  ucb_ceiling_of (h, s, c);
}
