/* vprobe.c - what the verify probes do inside (kernel-ucounts.md §4 conventions). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "verify/vprobe.h"

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

long
ucb_vfork_sleepers (pid_t *kids, long max, int *refused)
{
  long n = 0;

  *refused = 0;
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
      kids[n++] = pid;
    }
  return n;
}

void
ucb_vkill_reap (pid_t *kids, long n)
{
  for (long i = 0; i < n; i++)
    kill (kids[i], SIGKILL);
  for (long i = 0; i < n; i++)
    ucb_vwait (kids[i]);
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

/* ---- agents: a container or host task holding RT signals, driven by orders ---- */

enum
{
  OP,    /* order: 'f' queue up to COUNT SIGRTMIN, 'd' drain, 'q' drain and end */
  COUNT, /* order: at most; answer: how many */
};

static int
agent_main (void *arg, struct ucb_probe_out *o, ucb_error_t *err)
{
  (void) arg;
  for (;;)
    {
      /* The first report says it is ready; every next one answers an order. */
      if (ucb_probe_report (o, err) < 0 || ucb_probe_await (o, err) < 0)
        return -1;
      if (o->v[OP] == 'q')
        break;
      o->errnum = 0;
      o->v[COUNT]
          = o->v[OP] == 'f' ? ucb_vfill_rt ((long) o->v[COUNT], &o->errnum) : ucb_vdrain_rt ();
    }
  ucb_vdrain_rt ();
  return 0;
}

int
ucb_vagent_start (struct ucb_vagent *a, const char *what, uid_t uid, rlim_t soft, bool container,
                  ucb_error_t *err)
{
  struct ucb_probe_spec spec = {
    .what = what,
    .uid = uid,
    .block_rt = true,
    .resource = RLIMIT_SIGPENDING,
    .soft = soft,
    .userns = container ? CLONE_NEWUSER : 0,
    .soft_inside = container ? RLIM_INFINITY : 0,
  };
  struct ucb_probe_out ready;

  if (ucb_probe_start (&a->p, &spec, agent_main, NULL, err) < 0)
    return -1;
  if (ucb_probe_next (&a->p, &ready, err) < 0)
    {
      ucb_probe_kill (&a->p);
      return -1;
    }
  return 0;
}

long
ucb_vagent_do (struct ucb_vagent *a, char op, long max, int *errnum, ucb_error_t *err)
{
  struct ucb_probe_out o;

  *errnum = 0;
  if (*err)
    return -1;
  memset (&o, 0, sizeof o);
  o.v[OP] = op;
  o.v[COUNT] = max;
  if (ucb_probe_order (&a->p, &o, err) < 0 || ucb_probe_next (&a->p, &o, err) < 0)
    return -1;
  *errnum = o.errnum;
  return (long) o.v[COUNT];
}

int
ucb_vagent_stop (struct ucb_vagent *a, ucb_error_t *err)
{
  struct ucb_probe_out o;

  if (a->p.fd < 0)
    return 0; /* never started */
  if (*err)
    {
      ucb_probe_kill (&a->p);
      return -1;
    }
  memset (&o, 0, sizeof o);
  o.v[OP] = 'q';
  if (ucb_probe_order (&a->p, &o, err) < 0)
    {
      ucb_probe_kill (&a->p);
      return -1;
    }
  return ucb_probe_finish (&a->p, NULL, err);
}
