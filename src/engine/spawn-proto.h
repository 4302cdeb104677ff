/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn-proto.h - the sync-socket messages between a container and ucbench (private). */
#ifndef UCB_SPAWN_PROTO_H
#define UCB_SPAWN_PROTO_H

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
/* The owner process of one container (protocol step 2 on): never returns. */
__attribute__ ((noreturn)) void ucb_owner_main (const struct ucb_task_env *env, pid_t parent,
                                                ucb_task_main_fn fn, void *arg);

#endif
