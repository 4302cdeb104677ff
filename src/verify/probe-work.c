/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe-work.c - what the verify probes do inside (kernel-ucounts.md §4 conventions). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "host/userns.h"
#include "verify/probe-work.h"

int
ucb_vcount (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  const struct ucb_vcount *c = arg;

  (void) err;
  o->v[0] = ucb_rlops_count (c->ops, c->shape, c->tries, &o->errnum);
  return 0;
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
