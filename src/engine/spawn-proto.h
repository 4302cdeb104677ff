/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn-proto.h - the sync-socket messages between a container and ucbench (private). */
#ifndef UCB_SPAWN_PROTO_H
#define UCB_SPAWN_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"
#include "engine/spawn.h"

enum
{
  UCB_MSG_READY = 1,
  UCB_MSG_ERROR = 2,
  /* Spawner to ucbench: container `task` has owner `pid`; its sync socket rides along
   * (SCM_RIGHTS).  An ERROR from the spawner names the container in `task`. */
  UCB_MSG_SPAWNED = 3,
};

struct ucb_sync_msg
{
  uint32_t type;
  uint32_t task;
  int32_t pid;
  uint32_t reserved;
  struct ucb_wire_error err;
};

/* Shared by spawn.c and spawner.c only. */
/* Close every fd >= 3 except the `n` in `keep` (sorted in place). */
void ucb_close_all_but (int *keep, size_t n);
/* What the spawner knows before it forks, so that no owner asks again: in a fresh child each
 * first call costs page faults (copy-on-write, and code the fork did not map), which were most
 * of a container's setup. */
struct ucb_owner_creds
{
  uid_t ruid, euid, suid; /* the spawner's, which every owner starts with */
  gid_t rgid, egid, sgid;
  bool no_groups;  /* no supplementary groups: setgroups(0) has nothing to drop */
  bool limits_set; /* the specs' soft limits are the spawner's own already (inherited) */
};
/* The owner process of one container (protocol step 2 on): never returns. */
__attribute__ ((noreturn)) void ucb_owner_main (const struct ucb_task_env *env, pid_t parent,
                                                const struct ucb_owner_creds *cr,
                                                ucb_task_main_fn fn, void *arg);
/* The spawner's side: its credentials, its supplementary groups dropped when it may (it only
 * forks), and the soft limits of specs[0..n) set once when they are all the same. */
void ucb_owner_creds_init (struct ucb_owner_creds *cr, const struct ucb_container_spec *specs,
                           size_t n);

#endif
