/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-profile.h - Docker-format seccomp profiles (JSON) read into their C form
 * (host/seccomp.h), which ucb_seccomp_build compiles: below the CLI, nothing reads JSON. */
#ifndef UCB_CLI_SECCOMP_PROFILE_H
#define UCB_CLI_SECCOMP_PROFILE_H

#include "core/error.h"
#include "host/seccomp.h"

/* Read `file` ("docker": the embedded one) once, before the run.  A bad profile is a usage
 * error naming the file and the JSON location ("syscalls[3].action"). */
int ucb_seccomp_profile_read (const char *file, struct ucb_seccomp_profile **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_seccomp_profile_free (struct ucb_seccomp_profile **p);

#endif
