/* spawn-proto.h - the sync-socket messages between a container and ucbench (private). */
#ifndef UCB_SPAWN_PROTO_H
#define UCB_SPAWN_PROTO_H

#include <stdint.h>

#include "core/error.h"

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

#endif
