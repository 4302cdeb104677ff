/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errnames.h - errno values by their symbolic names ("EPERM"), as documents and messages give
 * them. */
#ifndef UCB_ERRNAMES_H
#define UCB_ERRNAMES_H

#include <stddef.h>

/* Room for "errno -2147483648". */
#define UCB_ERRNO_NAME_MAX 24

/* "EPERM" rather than a translated sentence: dashboards match on it.  A value glibc has no
 * name for is "errno N", written into `buf`; the result is `buf` or a static string. */
const char *ucb_errno_name (int e, char buf[UCB_ERRNO_NAME_MAX]);

#endif
