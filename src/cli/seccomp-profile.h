/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-profile.h - the reader of Docker-format seccomp profiles (JSON input), which the CLI
 * hands to host/seccomp.c's ucb_seccomp_build (struct ucb_seccomp_opts.read): below the CLI,
 * nothing reads JSON. */
#ifndef UCB_CLI_SECCOMP_PROFILE_H
#define UCB_CLI_SECCOMP_PROFILE_H

#include "core/error.h"
#include "host/seccomp.h"

/* A ucb_seccomp_read_fn, defined with libseccomp only: read the profile of `o` ("docker", the
 * embedded one, or a file) into a new filter context (a scmp_filter_ctx) at `optimize`, and
 * fill in every field of `st` but bpf_insns; `*min_insns`: the fewest BPF instructions its
 * program can have.  A bad profile is a usage error naming the file and the JSON location. */
int ucb_seccomp_profile_read (const struct ucb_seccomp_opts *o, int optimize, void **ctx,
                              struct ucb_seccomp_stats *st, unsigned *min_insns, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
