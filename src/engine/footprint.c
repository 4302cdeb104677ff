/* SPDX-License-Identifier: GPL-2.0-or-later */
/* footprint.c - what a container and ucbench itself hold in memory (docs/json.md, `memory`):
 * read from /proc for one container at the end of its window, which costs well under a
 * millisecond whatever the number of containers. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "engine/footprint.h"

/* The number after `key` in a "Key:  N kB" file; 0 when absent. */
static uint64_t
kib_of (const char *text, const char *key)
{
  const char *p = text ? strstr (text, key) : NULL;

  return p ? strtoull (p + strlen (key), NULL, 10) : 0;
}

/* One process: its private memory into *kib, and its parent; false when it cannot be read. */
static bool
process_kib (pid_t pid, uint64_t *kib, pid_t *parent)
{
  char path[64];
  cleanup_free char *rollup = NULL, *status = NULL;

  snprintf (path, sizeof path, "/proc/%d/smaps_rollup", (int) pid);
  rollup = ucb_read_file_or_null (path);
  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  status = ucb_read_file_or_null (path);
  *parent = 0;
  if (rollup == NULL || status == NULL)
    return false;
  *kib += kib_of (rollup, "\nPrivate_Clean:") + kib_of (rollup, "\nPrivate_Dirty:")
          + kib_of (status, "\nVmPTE:");
  *parent = (pid_t) kib_of (status, "\nPPid:");
  return true;
}

void
ucb_container_footprint (pid_t owner, const pid_t *task_pid, size_t ntasks,
                         struct ucb_footprint *out)
{
  size_t cap = ntasks + 64, nseen = 0;
  cleanup_free pid_t *seen = xcalloc (cap, sizeof *seen);
  pid_t self = getpid ();

  memset (out, 0, sizeof *out);
  for (size_t t = 0; t < ntasks; t++)
    /* Up from each task to the owner, each process once: the levels and the init are the
     * tasks' ancestors (a chain at most UCB_MAX_DEPTH + 2 long). */
    for (pid_t p = task_pid[t], parent; p > 0 && p != self && nseen < cap; p = parent)
      {
        bool known = false;
        for (size_t i = 0; i < nseen && !known; i++)
          known = seen[i] == p;
        if (known)
          break;
        seen[nseen++] = p;
        if (process_kib (p, &out->kib, &parent))
          out->processes++;
        if (p == owner)
          break;
      }
}

uint64_t
ucb_peak_rss_kib (void)
{
  /* VmHWM, not getrusage's ru_maxrss: that one keeps the peak of the process before its exec
   * (a large parent's, copied by the fork that started ucbench). */
  cleanup_free char *status = ucb_read_file_or_null ("/proc/self/status");

  return kib_of (status, "\nVmHWM:");
}
