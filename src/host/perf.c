/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf.c - hardware and software counters per task with perf_event_open (--perf).
 *
 * ucbench opens the counters itself, on each task's tid, from outside the container: inside a
 * user namespace perf_event_paranoid applies with no capability (perfmon_capable() asks the
 * initial namespace), so a task could count only its user-space half, and the ops measured
 * here are nearly all kernel work. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "core/errnames.h"
#include "core/util.h"
#include "host/perf.h"

#define PMU_DIR "/sys/bus/event_source/devices/cpu"

static const char *const names[UCB_PERF_NEVENTS] = {
  [UCB_PERF_CYCLES] = "cycles",
  [UCB_PERF_INSTRUCTIONS] = "instructions",
  [UCB_PERF_CACHE_MISSES] = "cache_misses",
  [UCB_PERF_HITM] = "hitm",
  [UCB_PERF_CONTEXT_SWITCHES] = "context_switches",
  [UCB_PERF_CPU_MIGRATIONS] = "cpu_migrations",
};

const char *
ucb_perf_event_name (enum ucb_perf_event e)
{
  return (unsigned) e < UCB_PERF_NEVENTS ? names[e] : "?";
}

static bool
is_hardware (enum ucb_perf_event e)
{
  return e == UCB_PERF_CYCLES || e == UCB_PERF_INSTRUCTIONS || e == UCB_PERF_CACHE_MISSES
         || e == UCB_PERF_HITM;
}

/* The generic events: type and config of each but HITM. */
static const struct
{
  uint32_t type;
  uint64_t config;
} events[UCB_PERF_NEVENTS] = {
  [UCB_PERF_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
  [UCB_PERF_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
  [UCB_PERF_CACHE_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
  [UCB_PERF_CONTEXT_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
  [UCB_PERF_CPU_MIGRATIONS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

static void
attr_for (const struct ucb_perf_probe *p, enum ucb_perf_event e, struct perf_event_attr *a)
{
  memset (a, 0, sizeof *a);
  a->size = sizeof *a;
  a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a->exclude_hv = 1;
  if (e == UCB_PERF_HITM) /* the event this CPU's PMU has, found by the probe */
    {
      a->type = p->hitm_type;
      a->config = p->hitm_config;
    }
  else if ((unsigned) e < UCB_PERF_NEVENTS)
    {
      a->type = events[e].type;
      a->config = events[e].config;
    }
}

static int
perf_open (struct perf_event_attr *a, pid_t pid)
{
  return (int) syscall (SYS_perf_event_open, a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void
explain (char *buf, size_t len, int e, int paranoid)
{
  switch (e)
    {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      {
        char name[UCB_ERRNO_NAME_MAX];
        snprintf (buf, len, "not supported by this CPU's PMU (%s)", ucb_errno_name (e, name));
      }
      break;
    case EACCES:
    case EPERM:
      snprintf (buf, len,
                "not permitted: kernel.perf_event_paranoid is %d and CAP_PERFMON is missing "
                "(run as root or set kernel.perf_event_paranoid to 1 or less)",
                paranoid);
      break;
    default:
      snprintf (buf, len, "perf_event_open: %s", strerror (e));
      break;
    }
}

/* Set the bits of `value` into *config as the PMU's format file for `term` says
 * ("config:0-7", "config:8-15,21"); only the `config` word is supported. */
static int
apply_format (const char *term, unsigned long long value, unsigned long long *config)
{
  cleanup_free char *path = xasprintf (PMU_DIR "/format/%s", term);
  cleanup_free char *fmt = ucb_read_file_or_null (path);
  char *p;
  unsigned bit = 0;

  if (fmt == NULL || strncmp (fmt, "config:", 7) != 0)
    return -1;
  p = fmt + 7;
  while (*p)
    {
      unsigned lo, hi;
      int used = 0;
      if (sscanf (p, "%u-%u%n", &lo, &hi, &used) == 2 && used > 0)
        ;
      else if (sscanf (p, "%u%n", &lo, &used) == 1 && used > 0)
        hi = lo;
      else
        return -1;
      if (hi < lo || hi > 63)
        return -1;
      for (unsigned b = lo; b <= hi; b++, bit++)
        if (value & (1ull << bit))
          *config |= 1ull << b;
      p += used;
      if (*p == ',')
        p++;
    }
  return 0;
}

/* The PMU's own alias for a HITM event (Intel's mem_load_l3_hit_retired.xsnp_hitm family are
 * listed by some PMUs as events/<name>); AMD and virtual PMUs have none. */
static bool
find_hitm (struct ucb_perf_probe *p)
{
  DIR *d = opendir (PMU_DIR "/events");
  struct dirent *de;
  bool found = false;

  while (d && !found && (de = readdir (d)) != NULL)
    {
      cleanup_free char *path = NULL, *spec = NULL, *lower = xstrdup (de->d_name);
      unsigned long long config = 0;
      bool ok = true;
      char *save = NULL;

      for (char *c = lower; *c; c++)
        *c = (char) tolower ((unsigned char) *c);
      if (strstr (lower, "hitm") == NULL)
        continue;
      path = xasprintf (PMU_DIR "/events/%s", de->d_name);
      spec = ucb_read_file_or_null (path);
      if (spec == NULL)
        continue;
      for (char *t = strtok_r (spec, ",", &save); t && ok; t = strtok_r (NULL, ",", &save))
        {
          char *eq = strchr (t, '=');
          unsigned long long v = 1;
          if (eq)
            {
              *eq = '\0';
              v = strtoull (eq + 1, NULL, 0);
            }
          ok = apply_format (t, v, &config) == 0;
        }
      if (ok)
        {
          cleanup_free char *type = ucb_read_file_or_null (PMU_DIR "/type");
          if (type == NULL)
            break;
          p->hitm_type = (unsigned) strtoul (type, NULL, 10);
          p->hitm_config = config;
          snprintf (p->hitm_alias, sizeof p->hitm_alias, "%.63s", de->d_name);
          found = true;
        }
    }
  if (d)
    closedir (d);
  return found;
}

void
ucb_perf_probe (struct ucb_perf_probe *p)
{
  cleanup_free char *par = ucb_read_file_or_null ("/proc/sys/kernel/perf_event_paranoid");
  bool pmu = access (PMU_DIR, F_OK) == 0;

  memset (p, 0, sizeof *p);
  p->paranoid = par ? atoi (par) : -99;
  for (int e = 0; e < UCB_PERF_NEVENTS; e++)
    {
      struct perf_event_attr a;
      int fd;

      if (e == UCB_PERF_HITM && !(pmu && find_hitm (p)))
        {
          snprintf (p->reason[e], sizeof p->reason[e], "%s",
                    pmu ? "the CPU's PMU lists no HITM event alias in " PMU_DIR "/events"
                        : "no hardware PMU");
          continue;
        }
      attr_for (p, (enum ucb_perf_event) e, &a);
      fd = perf_open (&a, 0);
      if (fd < 0)
        {
          explain (p->reason[e], sizeof p->reason[e], errno, p->paranoid);
          if (is_hardware ((enum ucb_perf_event) e) && !pmu)
            snprintf (p->reason[e], sizeof p->reason[e],
                      "no hardware PMU (" PMU_DIR " is missing: a virtual machine without a "
                      "virtual PMU?)");
          continue;
        }
      close (fd);
      p->available[e] = true;
      p->hardware |= is_hardware ((enum ucb_perf_event) e);
    }
  if (!p->hardware)
    snprintf (p->hardware_reason, sizeof p->hardware_reason, "%s", p->reason[UCB_PERF_CYCLES]);
}

int
ucb_perf_open (struct ucb_perf_set *s, const struct ucb_perf_probe *p, const pid_t *tids,
               size_t ntids, ucb_error_t *err)
{
  memset (s, 0, sizeof *s);
  s->ntids = ntids;
  s->fd = xcalloc (ntids * UCB_PERF_NEVENTS + 1, sizeof *s->fd);
  for (size_t i = 0; i < ntids * UCB_PERF_NEVENTS; i++)
    s->fd[i] = -1;
  for (int e = 0; e < UCB_PERF_NEVENTS; e++)
    for (size_t t = 0; t < ntids && p->available[e] && s->reason[e][0] == '\0'; t++)
      {
        struct perf_event_attr a;
        int fd;

        attr_for (p, (enum ucb_perf_event) e, &a);
        fd = perf_open (&a, tids[t]);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE))
          {
            int en = errno;
            ucb_perf_close (s);
            return ucb_make_error (err, en, "perf_event_open for task %d (raise `ulimit -n`)",
                                   (int) tids[t]);
          }
        if (fd < 0)
          {
            /* One refusal makes the sum meaningless: count this event on no task. */
            explain (s->reason[e], sizeof s->reason[e], errno, p->paranoid);
            for (size_t k = 0; k < t; k++)
              {
                close (s->fd[k * UCB_PERF_NEVENTS + (size_t) e]);
                s->fd[k * UCB_PERF_NEVENTS + (size_t) e] = -1;
              }
            break;
          }
        s->fd[t * UCB_PERF_NEVENTS + (size_t) e] = fd;
      }
  return 0;
}

void
ucb_perf_read (const struct ucb_perf_set *s, double sums[UCB_PERF_NEVENTS])
{
  for (int e = 0; e < UCB_PERF_NEVENTS; e++)
    {
      double sum = 0;
      bool any = false;

      for (size_t t = 0; t < s->ntids; t++)
        {
          int fd = s->fd[t * UCB_PERF_NEVENTS + (size_t) e];
          uint64_t v[3]; /* value, time enabled, time running */

          if (fd < 0)
            continue;
          if (read (fd, v, sizeof v) != (ssize_t) sizeof v)
            continue; /* the task is gone: it has nothing more to count */
          any = true;
          /* Multiplexed counters ran part of the time: scale as perf stat does. */
          sum += v[2] > 0 && v[2] < v[1] ? (double) v[0] * (double) v[1] / (double) v[2]
                                         : (double) v[0];
        }
      sums[e] = any ? sum : NAN;
    }
}

void
ucb_perf_close (struct ucb_perf_set *s)
{
  for (size_t i = 0; s->fd && i < s->ntids * UCB_PERF_NEVENTS; i++)
    if (s->fd[i] >= 0)
      close (s->fd[i]);
  free (s->fd);
  s->fd = NULL;
  s->ntids = 0;
}

pid_t *
ucb_perf_threads_of (pid_t pid, size_t *n)
{
  char path[64];
  DIR *d;
  struct dirent *de;
  pid_t *v = NULL;

  *n = 0;
  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  d = opendir (path);
  while (d && (de = readdir (d)) != NULL)
    {
      long tid = strtol (de->d_name, NULL, 10);
      if (tid <= 0 || tid == pid)
        continue;
      v = xrealloc (v, (*n + 1) * sizeof *v);
      v[(*n)++] = (pid_t) tid;
    }
  if (d)
    closedir (d);
  return v;
}
