/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ceiling-read.c - the readings behind ceiling.c: sysctls, what the owner uids hold now (a walk
 * of /proc), the pids and memory cgroups ucbench runs in, and the memory a container costs.
 * A reading that cannot be had bounds nothing (UCB_CEIL_NONE): the kernel still refuses. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/ceiling.h"
#include "host/cgroup/layout.h"
#include "host/users.h"

/* Kernel objects and private pages of one container task beyond its page tables and kernel
 * stack: slab (task, mm, mappings, credentials, its namespaces) and copy-on-write pages,
 * measured as 75 KiB at 2,048 containers of --isolate user,ipc (docs/performance.md). */
#define TASK_OTHER_BYTES (80u << 10)

static const char *const ns_files[UCB_CEIL_NS] = { "user", "ipc", "pid", "mnt", "uts", "net" };
static const int ns_clone[UCB_CEIL_NS]
    = { 0, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWNET };

static uint64_t
read_u64 (const char *path)
{
  cleanup_free char *s = ucb_read_file_or_null (path);
  uint64_t v;

  return s && ucb_parse_u64 (s, 0, UINT64_MAX - 1, &v) == 0 ? v : UCB_CEIL_NONE;
}

/* The number after `key` in a "Key:  value" file such as /proc/meminfo (UCB_CEIL_NONE). */
static uint64_t
field_u64 (const char *text, const char *key)
{
  const char *p = text ? strstr (text, key) : NULL;

  return p ? strtoull (p + strlen (key), NULL, 10) : UCB_CEIL_NONE;
}

/* ---- what the owner uids hold: tasks and namespaces ---------------------------------------- */

struct ns_rec
{
  int kind;
  uint64_t ino;
  pid_t pid; /* a process in it: where it can be opened */
  uid_t uid; /* the owner uid in the initial namespace it is charged to */
};

struct walk
{
  uid_t lo, hi;
  uint64_t self_ino[UCB_CEIL_NS];
  struct ns_rec *ns;
  size_t nns, cap;
  uid_t *task_uid; /* one entry per task (thread) of an owner uid */
  size_t ntask, task_cap;
};

static void
push_ns (struct walk *w, int kind, uint64_t ino, pid_t pid, uid_t uid)
{
  if (w->nns == w->cap)
    {
      w->cap = w->cap ? 2 * w->cap : 256;
      w->ns = xrealloc (w->ns, w->cap * sizeof *w->ns);
    }
  w->ns[w->nns++] = (struct ns_rec){ kind, ino, pid, uid };
}

static void
push_tasks (struct walk *w, uid_t uid, unsigned long n)
{
  for (unsigned long i = 0; i < n; i++)
    {
      if (w->ntask == w->task_cap)
        {
          w->task_cap = w->task_cap ? 2 * w->task_cap : 256;
          w->task_uid = xrealloc (w->task_uid, w->task_cap * sizeof *w->task_uid);
        }
      w->task_uid[w->ntask++] = uid;
    }
}

static int
cmp_ns (const void *a, const void *b)
{
  const struct ns_rec *x = a, *y = b;

  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static uint64_t
ino_of (int fd)
{
  struct stat st;

  return fstat (fd, &st) == 0 ? (uint64_t) st.st_ino : 0;
}

/* The uid that user namespace `fd` (consumed) is charged to in ours: the owner of its ancestor
 * just below ours, every level of the chain recorded as charged to it too.  Namespaces owned
 * by ours directly (a root process's) are put down to uid 0, their likely creator. */
static uid_t
charged_uid (struct walk *w, int fd, pid_t pid)
{
  uint64_t chain[64];
  size_t n = 0;
  uid_t uid = 0;

  while (fd >= 0 && n < UCB_ARRAY_SIZE (chain))
    {
      uint64_t ino = ino_of (fd);
      int parent;

      if (ino == w->self_ino[UCB_NS_USER])
        break;
      chain[n++] = ino;
      parent = ioctl (fd, NS_GET_PARENT);
      if (parent >= 0 && ino_of (parent) == w->self_ino[UCB_NS_USER])
        {
          uid_t u;
          if (ioctl (fd, NS_GET_OWNER_UID, &u) == 0)
            uid = u;
        }
      close (fd);
      fd = parent;
    }
  if (fd >= 0)
    close (fd);
  for (size_t i = 0; i < n; i++)
    push_ns (w, UCB_NS_USER, chain[i], pid, uid);
  return uid;
}

/* Every namespace of the kinds asked for, once, with the uid it is charged to. */
static void
resolve_ns (struct walk *w)
{
  size_t n0;

  if (w->nns > 1) /* none: no array at all (qsort's NULL is undefined) */
    qsort (w->ns, w->nns, sizeof *w->ns, cmp_ns);
  n0 = w->nns;
  for (size_t i = 0; i < n0; i++)
    {
      char path[64];
      int fd, owner;
      uid_t uid;

      if (i > 0 && cmp_ns (&w->ns[i - 1], &w->ns[i]) == 0)
        {
          w->ns[i].uid = w->ns[i - 1].uid;
          continue;
        }
      snprintf (path, sizeof path, "/proc/%d/ns/%s", (int) w->ns[i].pid, ns_files[w->ns[i].kind]);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ino_of (fd) != w->ns[i].ino)
        {
          w->ns[i].uid = (uid_t) -1; /* gone meanwhile */
          if (fd >= 0)
            close (fd);
          continue;
        }
      /* charged_uid() adds to w->ns: no pointer into it across the call. */
      if (w->ns[i].kind == UCB_NS_USER)
        uid = charged_uid (w, fd, w->ns[i].pid);
      else
        {
          owner = ioctl (fd, NS_GET_USERNS);
          close (fd);
          uid = owner >= 0 ? charged_uid (w, owner, w->ns[i].pid) : (uid_t) -1;
        }
      w->ns[i].uid = uid;
    }
  /* The chains added user namespaces that may repeat the walk's: once each. */
  if (w->nns > 1) /* none: no array at all (qsort's NULL is undefined) */
    qsort (w->ns, w->nns, sizeof *w->ns, cmp_ns);
}

/* The most entries any one uid in lo..hi has among v[0..n) (sorted here). */
static uint64_t
most_per_uid (uid_t *v, size_t n, uid_t lo, uid_t hi)
{
  uint64_t most = 0, run = 0;

  if (n == 0)
    return 0;
  if (n > 1)
    qsort (v, n, sizeof *v, ucb_cmp_uid);
  for (size_t i = 0; i < n; i++)
    {
      run = i > 0 && v[i] == v[i - 1] ? run + 1 : 1;
      if (v[i] >= lo && v[i] <= hi && run > most)
        most = run;
    }
  return most;
}

static void
walk_process (struct walk *w, pid_t pid, int kinds)
{
  char path[64];
  cleanup_free char *status = NULL;
  uint64_t uid, threads;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  status = ucb_read_file_or_null (path);
  uid = field_u64 (status, "\nUid:");
  threads = field_u64 (status, "\nThreads:");
  if (uid != UCB_CEIL_NONE && uid >= w->lo && uid <= w->hi && threads != UCB_CEIL_NONE)
    push_tasks (w, (uid_t) uid, (unsigned long) threads);
  for (int k = 0; k < UCB_CEIL_NS; k++)
    {
      struct stat st;
      if (!(kinds & (1 << k)))
        continue;
      snprintf (path, sizeof path, "/proc/%d/ns/%s", (int) pid, ns_files[k]);
      if (stat (path, &st) == 0 && (uint64_t) st.st_ino != w->self_ino[k])
        push_ns (w, k, (uint64_t) st.st_ino, pid, 0);
    }
}

static void
owner_use (struct ucb_ceiling_host *h, uid_t lo, uid_t hi, int kinds)
{
  struct walk w = { .lo = lo, .hi = hi };
  cleanup_free uid_t *uids = NULL;
  DIR *d = opendir ("/proc");
  struct dirent *e;

  for (int k = 0; k < UCB_CEIL_NS; k++)
    {
      char path[64];
      struct stat st;
      snprintf (path, sizeof path, "/proc/self/ns/%s", ns_files[k]);
      w.self_ino[k] = stat (path, &st) == 0 ? (uint64_t) st.st_ino : 0;
    }
  while (d && (e = readdir (d)) != NULL)
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
      walk_process (&w, (pid_t) atoi (e->d_name), kinds);
  if (d)
    closedir (d);
  h->nproc_used = most_per_uid (w.task_uid, w.ntask, lo, hi);
  resolve_ns (&w);
  uids = xcalloc (w.nns + 1, sizeof *uids);
  for (int k = 0; k < UCB_CEIL_NS; k++)
    {
      size_t n = 0;
      for (size_t i = 0; i < w.nns; i++)
        if (w.ns[i].kind == k && (i == 0 || cmp_ns (&w.ns[i - 1], &w.ns[i]) != 0))
          uids[n++] = w.ns[i].uid;
      h->ns_used[k] = most_per_uid (uids, n, lo, hi);
    }
  free (w.ns);
  free (w.task_uid);
}

/* ---- cgroups: the least room along ucbench's own cgroup and its ancestors ------------------ */

/* Directories from ucbench's cgroup of hierarchy `ctrl` (NULL: cgroup2) up to the mount. */
static void
cgroup_room (const char *ctrl, const char *max_file, const char *cur_file, const char *free_key,
             uint64_t *room, char *where, size_t where_len)
{
  cleanup_free char *path = ucb_cgroup_path_of (getpid (), ctrl);
  cleanup_free char *mp = NULL, *root = NULL;
  const char *v2 = ucb_cg_v2_mount (ucb_cgroup_detect ());
  size_t rl;

  if (path == NULL || (ctrl == NULL && v2 == NULL)
      || !ucb_cg_find_mount (ctrl ? NULL : v2, ctrl, &mp, &root))
    return;
  rl = strcmp (root, "/") == 0 ? 0 : strlen (root);
  if (strncmp (path, root, rl) != 0)
    return;
  for (char *rel = path + rl;;)
    {
      cleanup_free char *dir = xasprintf ("%s%s", mp, rel);
      cleanup_free char *fmax = xasprintf ("%s/%s", dir, max_file);
      cleanup_free char *fcur = xasprintf ("%s/%s", dir, cur_file);
      uint64_t max = read_u64 (fmax), cur = read_u64 (fcur);
      char *slash = strrchr (rel, '/');

      /* Inactive page cache is counted as used, and would be reclaimed first. */
      if (free_key && max != UCB_CEIL_NONE && cur != UCB_CEIL_NONE)
        {
          cleanup_free char *fstat_ = xasprintf ("%s/memory.stat", dir);
          cleanup_free char *stat = ucb_read_file_or_null (fstat_);
          uint64_t inactive = field_u64 (stat, free_key);
          if (inactive != UCB_CEIL_NONE && inactive < cur)
            cur -= inactive;
        }

      /* v1 memory says "no limit" with a huge number (PAGE_COUNTER_MAX pages). */
      if (max != UCB_CEIL_NONE && max < (1ull << 60) && cur != UCB_CEIL_NONE
          && (max > cur ? max - cur : 0) < *room)
        {
          *room = max > cur ? max - cur : 0;
          snprintf (where, where_len, "%s", dir);
        }
      if (slash == NULL || *rel == '\0')
        break;
      *slash = '\0';
    }
}

/* ---- the host ------------------------------------------------------------------------------- */

static void
memory (struct ucb_ceiling_host *h)
{
  cleanup_free char *mi = ucb_read_file_or_null ("/proc/meminfo");
  cleanup_free char *self = ucb_read_file_or_null ("/proc/self/status");
  uint64_t avail = field_u64 (mi, "MemAvailable:"), stack = field_u64 (mi, "KernelStack:");
  uint64_t pte = field_u64 (self, "VmPTE:");

  h->mem_room = avail == UCB_CEIL_NONE ? UCB_CEIL_NONE : avail << 10;
  snprintf (h->mem_source, sizeof h->mem_source, "MemAvailable");
  cgroup_room ("memory", "memory.limit_in_bytes", "memory.usage_in_bytes", "\ntotal_inactive_file ",
               &h->mem_room, h->mem_source, sizeof h->mem_source);
  cgroup_room (NULL, "memory.max", "memory.current", "\ninactive_file ", &h->mem_room,
               h->mem_source, sizeof h->mem_source);
  /* A fork copies at most ucbench's page tables; a kernel stack as the host's tasks have. */
  h->task_bytes = TASK_OTHER_BYTES;
  if (pte != UCB_CEIL_NONE)
    h->task_bytes += pte << 10;
  if (stack != UCB_CEIL_NONE && h->threads_used > 0 && h->threads_used != UCB_CEIL_NONE)
    h->task_bytes += (stack << 10) / h->threads_used;
}

void
ucb_ceiling_read (struct ucb_ceiling_host *h, uid_t lo, uid_t hi, int ns_flags)
{
  cleanup_free char *load = ucb_read_file_or_null ("/proc/loadavg");
  const char *slash = load ? strchr (load, '/') : NULL;
  struct rlimit rl;
  int kinds = 1 << UCB_NS_USER;

  memset (h, 0, sizeof *h);
  for (int k = 0; k < UCB_CEIL_NS; k++)
    {
      char path[64];
      snprintf (path, sizeof path, "/proc/sys/user/max_%s_namespaces", ns_files[k]);
      h->ns_max[k] = read_u64 (path);
      if (ns_clone[k] & ns_flags)
        kinds |= 1 << k;
    }
  h->pid_max = read_u64 ("/proc/sys/kernel/pid_max");
  h->threads_max = read_u64 ("/proc/sys/kernel/threads-max");
  h->threads_used = slash ? strtoull (slash + 1, NULL, 10) : 0;
  h->nproc_soft = getrlimit (RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                      ? (uint64_t) rl.rlim_cur
                      : UCB_CEIL_NONE;
  h->nofile_hard = getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY
                       ? (uint64_t) rl.rlim_max
                       : UCB_CEIL_NONE;
  h->pids_room = UCB_CEIL_NONE;
  cgroup_room ("pids", "pids.max", "pids.current", NULL, &h->pids_room, h->pids_dir,
               sizeof h->pids_dir);
  cgroup_room (NULL, "pids.max", "pids.current", NULL, &h->pids_room, h->pids_dir,
               sizeof h->pids_dir);
  owner_use (h, lo, hi, kinds);
  memory (h);
}
