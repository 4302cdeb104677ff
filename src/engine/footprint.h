/* SPDX-License-Identifier: GPL-2.0-or-later */
/* footprint.h - what a container and ucbench itself hold in memory, for the document. */
#ifndef UCB_FOOTPRINT_H
#define UCB_FOOTPRINT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ucb_footprint
{
  uint64_t kib;       /* private pages and page tables of the container's processes */
  unsigned processes; /* how many were read (0: none could be) */
};

/* One container: every process from its task processes (`task_pid`, threads repeated) up to
 * its owner, each one's Private_Clean + Private_Dirty (smaps_rollup) + VmPTE. */
void ucb_container_footprint (pid_t owner, const pid_t *task_pid, size_t ntasks,
                              struct ucb_footprint *out);
/* ucbench's own peak resident set so far, KiB (VmHWM); 0 when unknown. */
uint64_t ucb_peak_rss_kib (void);

#endif
