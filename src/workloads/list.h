/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list.h - every workload, once.  Adding a workload: one file in src/workloads/ plus one line
 * here (see docs/adding-a-workload.md). */
#define UCB_WORKLOADS(X)                                                                           \
  X (signal)                                                                                       \
  X (sigqueue)                                                                                     \
  X (timer)                                                                                        \
  X (systrap)                                                                                      \
  X (mqueue)                                                                                       \
  X (shmlock)                                                                                      \
  X (fork)                                                                                         \
  X (vfork)                                                                                        \
  X (thread)                                                                                       \
  X (getppid)
