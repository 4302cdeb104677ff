/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-size.h - for seccomp.c, seccomp-size.c and the profile's reader
 * (cli/seccomp-profile.c), with libseccomp only: the size of a profile's BPF program against the
 * kernel's limit, and its compilation.  No JSON: the reader's own header is
 * cli/seccomp-reader.h. */
#ifndef UCB_SECCOMP_SIZE_H
#define UCB_SECCOMP_SIZE_H

#include <stdbool.h>
#include <stddef.h>

#include <seccomp.h>

#include "core/error.h"

/* What the rules of a profile need of a BPF program at least, known before libseccomp compiles
 * them (which takes time superlinear in the program's size).  Private to seccomp-size.c. */
struct ucb_seccomp_size
{
  struct ucb_seccomp_rule *rules; /* the rules with conditions, as libseccomp compares them */
  size_t n, cap;
  int *uncond; /* the calls with a rule without conditions */
  size_t nuncond;
};

/* seccomp-size.c: one rule added to the filter for call `nr` (native; pseudo numbers below 0
 * are no call of this architecture), with its `n` comparisons. */
void ucb_seccomp_size_rule (struct ucb_seccomp_size *z, int nr, const struct scmp_arg_cmp *cmp,
                            size_t n);
/* The fewest instructions a program of those rules can have. */
unsigned ucb_seccomp_size_min (struct ucb_seccomp_size *z);
void ucb_seccomp_size_free (struct ucb_seccomp_size *z);
/* A program of `insns` instructions (`compiled`, or at least that many) over the kernel's
 * limit: a usage error naming the file, the size, the limit and what to change. */
int ucb_seccomp_size_check (const char *file, unsigned insns, bool compiled, unsigned arches,
                            ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Compile the filter of `ctx` (a scmp_filter_ctx) into a new program of `*len` instructions. */
struct sock_filter;
int ucb_seccomp_compile (void *ctx, struct sock_filter **prog, unsigned *len, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
