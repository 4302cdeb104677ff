/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugs.c - the known kernel bugs (bugs.h).  The references are the kernel's own commits, as
 * docs/verify.md, docs/ulim19-fix.md and the fix's Fixes: tag name them. */
#include "config.h"

#include "verify/bugs.h"

const struct ucb_vbug_info ucb_vbugs[UCB_VBUG_N] = {
  [UCB_VBUG_MEMLOCK_UNITS] = {
    "memlock-units",
    "MEMLOCK: a user namespace's parent bound is kept in bytes and compared with a page counter",
    /* docs/ulim19-fix.md: present since the conversion, in every version read (7.0-rc). */
    "since d7c9e99aee48 in v5.14, not fixed upstream: docs/ulim19-fix.md proposes a fix",
    "https://git.kernel.org/torvalds/c/d7c9e99aee48",
  },
  [UCB_VBUG_SIGPENDING_OVERRIDE] = {
    "sigpending-override",
    "SIGPENDING: a signal sent with override_rlimit is still refused at the parent levels",
    /* 9e05e5c7ee87's Fixes: tag names d64696905554; 432dc0654c61 (the refusal's leak) came in
     * the same stable updates (docs/verify.md, ULIM-08). */
    "CVE-2024-50271, since d64696905554 in v5.14, fixed by 9e05e5c7ee87 in v6.12-rc7 and "
    "6.1.117",
    "https://www.cve.org/CVERecord?id=CVE-2024-50271",
  },
};
