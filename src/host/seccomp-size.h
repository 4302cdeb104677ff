/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-size.h - private to host/seccomp*.c, with libseccomp only: a profile's rules into a
 * filter context, what it must let through, the size of its BPF program against the kernel's
 * limit, and its compilation. */
#ifndef UCB_SECCOMP_SIZE_H
#define UCB_SECCOMP_SIZE_H

#include <stdbool.h>
#include <stddef.h>

#include <seccomp.h>

#include "core/error.h"
#include "host/seccomp.h"

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

/* seccomp-rules.c: the profile of `o` into a new filter context at `optimize`: its
 * architectures, the entries that apply to this container, host and kernel, and the calls of
 * the machinery (below); every field of `st` but bpf_insns; `*min_insns`: the fewest BPF
 * instructions its program can have. */
int ucb_seccomp_rules (const struct ucb_seccomp_opts *o, int optimize, scmp_filter_ctx *ctx,
                       struct ucb_seccomp_stats *st, unsigned *min_insns, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* seccomp-needs.c: what the profile says about the calls the container machinery makes after the
 * filter is loaded, and the names libseccomp does not know. */
#define UCB_SECCOMP_MACHINERY_MAX 32
enum
{
  UCB_SECCOMP_UNNAMED, /* the default action decides */
  UCB_SECCOMP_NAMED,   /* a rule allows it, or blocks it only for some arguments */
  UCB_SECCOMP_BLOCKED, /* an unconditional rule blocks it */
};
struct ucb_seccomp_check
{
  unsigned char state[UCB_SECCOMP_MACHINERY_MAX];
  unsigned nunknown;
  char unknown[320]; /* "a, b, c" (cut with ", ..." to stay one line) */
};
/* One name of a used syscalls[] entry, with its libseccomp number (__NR_SCMP_ERROR: unknown),
 * the entry's action and its number of argument conditions. */
void ucb_seccomp_check_name (struct ucb_seccomp_check *c, const char *name, int nr, uint32_t action,
                             size_t nargs);
/* After the last entry: warn of unknown names; refuse a rule that blocks what every container
 * needs to report and end; allow (in `ctx`) the machinery's calls the default action would
 * block, saying so on stderr. */
int ucb_seccomp_check_finish (struct ucb_seccomp_check *c, scmp_filter_ctx ctx,
                              uint32_t default_action, const char *file,
                              struct ucb_seccomp_stats *st, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
