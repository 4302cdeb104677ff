/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errnames.c - errno values by their symbolic names. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/errnames.h"

const char *
ucb_errno_name (int e, char buf[UCB_ERRNO_NAME_MAX])
{
  const char *n = strerrorname_np (e);

  if (n)
    return n;
  snprintf (buf, UCB_ERRNO_NAME_MAX, "errno %d", e);
  return buf;
}
