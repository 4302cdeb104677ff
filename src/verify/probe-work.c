/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe-work.c - what the verify probes do inside (kernel-ucounts.md §4 conventions). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "host/userns.h"
#include "verify/probe-work.h"

static int
block_rt (void)
{
  sigset_t set;

  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN);
  return sigprocmask (SIG_BLOCK, &set, NULL);
}

long
ucb_vfill_rt (long max, int *errnum)
{
  union sigval v = { .sival_int = 0 };
  long n = 0;

  *errnum = 0;
  if (block_rt () < 0)
    {
      *errnum = errno;
      return 0;
    }
  while (n < max)
    {
      if (sigqueue (getpid (), SIGRTMIN, v) < 0)
        {
          *errnum = errno;
          break;
        }
      n++;
    }
  return n;
}

long
ucb_vdrain_rt (void)
{
  sigset_t set;
  struct timespec zero = { 0, 0 };
  long n = 0;

  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN);
  while (sigtimedwait (&set, NULL, &zero) >= 0)
    n++;
  return n;
}

long
ucb_vsigq (pid_t pid)
{
  char path[64], line[256];
  cleanup_file FILE *f = NULL;
  long q = -1;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  f = fopen (path, "re");
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "SigQ: %ld/", &q) == 1)
      break;
  return q;
}

int
ucb_vcap_effective (pid_t pid, int cap)
{
  char path[64], line[256];
  cleanup_file FILE *f = NULL;
  unsigned long long eff;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  f = fopen (path, "re");
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "CapEff: %llx", &eff) == 1)
      return (int) ((eff >> cap) & 1);
  return -1;
}

long
ucb_vkids_fork (struct ucb_vkids *k, long max, int *refused, ucb_error_t *err)
{
  long n = 0;

  *refused = 0;
  if (k->n + max > k->size)
    {
      pid_t *grown = realloc (k->pid, (size_t) (k->n + max) * sizeof *grown);
      if (grown == NULL)
        return ucb_make_error (err, errno, "room for %ld children", k->n + max);
      k->pid = grown;
      k->size = k->n + max;
    }
  while (n < max)
    {
      pid_t pid = ucb_vfork ();
      if (pid < 0)
        {
          *refused = errno;
          break;
        }
      if (pid == 0)
        for (;;)
          pause ();
      k->pid[k->n++] = pid;
      n++;
    }
  return n;
}

void
ucb_vkids_release (struct ucb_vkids *k)
{
  for (long i = 0; i < k->n; i++)
    kill (k->pid[i], SIGKILL);
  for (long i = 0; i < k->n; i++)
    ucb_vwait (k->pid[i]);
  k->n = 0;
}

void
ucb_vkids_free (struct ucb_vkids *k)
{
  ucb_vkids_release (k);
  free (k->pid);
  k->pid = NULL;
  k->size = 0;
}

long
ucb_vfork_count (long max, int *refused, ucb_error_t *err)
{
  struct ucb_vkids k = UCB_VKIDS_NONE;
  long n = ucb_vkids_fork (&k, max, refused, err);

  ucb_vkids_free (&k);
  return n;
}

long
ucb_vfill_drain_rt (long max, int *refused, ucb_error_t *err)
{
  long n = ucb_vfill_rt (max, refused);

  (void) err;
  ucb_vdrain_rt ();
  return n;
}

long
ucb_vmq_fill (const char *tag, long maxmsg, long msgsize, long max, int *refused)
{
  struct mq_attr attr = { .mq_maxmsg = maxmsg, .mq_msgsize = msgsize };
  char name[64];
  long n = 0;

  *refused = 0;
  for (; n < max; n++)
    {
      mqd_t q;
      snprintf (name, sizeof name, "/%s.%ld", tag, n);
      q = mq_open (name, O_CREAT | O_EXCL | O_RDWR, 0600, maxmsg ? &attr : NULL);
      if (q == (mqd_t) -1)
        {
          *refused = errno;
          break;
        }
      mq_close (q);
    }
  return n;
}

void
ucb_vmq_drop (const char *tag, long n)
{
  char name[64];

  for (long i = 0; i < n; i++)
    {
      snprintf (name, sizeof name, "/%s.%ld", tag, i);
      mq_unlink (name);
    }
}

int
ucb_vshm_segs (int *ids, int n, size_t size, ucb_error_t *err)
{
  for (int i = 0; i < n; i++)
    ids[i] = -1;
  for (int i = 0; i < n; i++)
    if ((ids[i] = shmget (IPC_PRIVATE, size, IPC_CREAT | 0600)) < 0)
      {
        int e = errno;
        ucb_vshm_rmid_all (ids, i);
        return ucb_make_error (err, e, "shmget(%zu B)", size);
      }
  return 0;
}

long
ucb_vshm_lock_fill (const int *ids, long n, int *refused)
{
  long k = 0;

  *refused = 0;
  for (; k < n; k++)
    if (shmctl (ids[k], SHM_LOCK, NULL) < 0)
      {
        *refused = errno;
        break;
      }
  return k;
}

void
ucb_vshm_rmid_all (const int *ids, int n)
{
  for (int i = 0; i < n; i++)
    if (ids[i] >= 0)
      shmctl (ids[i], IPC_RMID, NULL);
}

int
ucb_vrounds (int rounds, ucb_vcount_fn count, long max, struct ucb_vrange *out, ucb_error_t *err)
{
  out->lo = out->hi = -1;
  out->eagain = out->rounds = 0;
  for (int round = 0; round < rounds; round++)
    {
      int refused;
      long n = count (max, &refused, err);

      if (n < 0)
        return -1;
      ucb_vprogress ();
      if (out->lo < 0 || n < out->lo)
        out->lo = n;
      if (n > out->hi)
        out->hi = n;
      out->eagain += refused == EAGAIN;
      out->rounds++;
      /* A round that took all `max` was not refused: the kernel over-admits, and every
       * further round to the cap would only spend time that an emulated kernel lacks. */
      if (n >= max && refused == 0)
        break;
    }
  return 0;
}

/* The exemptions concern uid 0 of init_user_ns and its capabilities: we must be it. */
bool
ucb_vroot_of_init_userns (void)
{
  cleanup_free char *map = NULL;
  ucb_error_t e = NULL;
  unsigned long inside, outside, count;

  if (geteuid () != 0 || getuid () != 0)
    return false;
  if (ucb_read_file ("/proc/self/uid_map", &map, &e) < 0)
    {
      ucb_error_free (&e);
      return false;
    }
  return sscanf (map, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 && outside == 0
         && count == 4294967295UL;
}

/* ---- user namespaces ---- */

int
ucb_vuserns_sysctl (ino_t outer, const char *file, long long value, ucb_error_t *err)
{
  char path[128], val[32];
  struct stat st;

  if (stat ("/proc/self/ns/user", &st) < 0)
    return ucb_make_error (err, errno, "stat /proc/self/ns/user");
  if (st.st_ino == outer)
    return ucb_make_error (err, 0, "still in the host's user namespace");
  snprintf (path, sizeof path, "/proc/sys/user/%s", file);
  snprintf (val, sizeof val, "%lld\n", value);
  return ucb_write_file_at (AT_FDCWD, path, val, err);
}

int
ucb_vuserns_join (int fd, ucb_error_t *err)
{
  if (setns (fd, CLONE_NEWUSER) < 0)
    return ucb_make_error (err, errno, "setns(%d, CLONE_NEWUSER)", fd);
  return 0;
}

/* unshare(CLONE_NEWUSER | extra_flags), a refusal with ENOSPC retried until `deadline`: 0 or
 * the errno. */
static int
unshare_user (int extra_flags, uint64_t deadline)
{
  while (unshare (CLONE_NEWUSER | extra_flags) < 0)
    {
      if (errno != ENOSPC || ucb_now_ns () >= deadline)
        return errno;
      nanosleep (&(struct timespec){ 0, 1000000 }, NULL);
    }
  return 0;
}

int
ucb_vuserns_enter (int extra_flags, uint64_t wait_ns, ucb_error_t *err)
{
  /* As ucb_userns_enter: our ids outside, read before they are unmapped. */
  uid_t uid = geteuid ();
  gid_t gid = getegid ();
  int e = unshare_user (extra_flags, ucb_now_ns () + wait_ns);

  if (e)
    return ucb_make_error (err, e, "unshare(CLONE_NEWUSER%s)", extra_flags ? "|..." : "");
  return ucb_userns_write_maps (0, uid, gid, 1, true, err);
}

int
ucb_vnest (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  const struct ucb_vnest *n = arg;
  uint64_t deadline = ucb_now_ns () + n->wait_ns;
  long count = 0;

  if (n->join > 0 && ucb_vuserns_join (n->join, err) < 0)
    return -1;
  o->errnum = 0;
  while (count < n->max)
    {
      uid_t uid = geteuid ();
      gid_t gid = getegid ();
      int e = unshare_user (0, count < n->want ? deadline : 0);

      if (e)
        {
          o->errnum = e; /* the refusal, whatever it is: an observation, not an error */
          break;
        }
      if (ucb_userns_write_maps (0, uid, gid, 1, true, err) < 0)
        return ucb_error_wrap (err, "user namespace %ld of the count", count + 1);
      count++;
    }
  o->v[0] = count;
  return 0;
}
