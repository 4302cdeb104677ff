/* workload.c - the workload registry, expanded from src/workloads/list.h. */
#include "config.h"

#include <string.h>

#include "workload.h"
#include "util.h"
#include "workloads/list.h"

#define UCB_DECLARE(name) extern const struct ucb_workload ucb_workload_##name;
UCB_WORKLOADS (UCB_DECLARE)
#undef UCB_DECLARE

#define UCB_ENTRY(name) &ucb_workload_##name,
const struct ucb_workload *const ucb_workloads[] = { UCB_WORKLOADS (UCB_ENTRY) NULL };
#undef UCB_ENTRY

const struct ucb_workload *
ucb_workload_find (const char *name)
{
  for (size_t i = 0; ucb_workloads[i]; i++)
    if (strcmp (ucb_workloads[i]->name, name) == 0)
      return ucb_workloads[i];
  return NULL;
}

size_t
ucb_workload_count (void)
{
  return UCB_ARRAY_SIZE (ucb_workloads) - 1;
}
