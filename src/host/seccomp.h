/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.h - container seccomp profiles (Docker's JSON format, read by the caller's reader):
 * build once, load per container. */
#ifndef UCB_SECCOMP_H
#define UCB_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* What building a profile did, for the result document. */
struct ucb_seccomp_stats
{
  char profile[64];        /* "docker" or the file's basename */
  char default_action[32]; /* e.g. "SCMP_ACT_ERRNO" */
  int default_errno;       /* errno of an SCMP_ACT_ERRNO (or _TRACE) default; 0 otherwise */
  unsigned entries;        /* syscalls[] entries of the profile */
  unsigned entries_used;
  unsigned entries_skipped; /* excluded by includes/excludes (caps, arches, minKernel) */
  unsigned names;           /* syscall names in the used entries */
  unsigned names_unknown;   /* of those, not a system call libseccomp knows on this arch */
  unsigned rules;           /* seccomp_rule_add calls that succeeded */
  unsigned arches;          /* architectures in the filter (native + archMap subArchitectures) */
  int optimize;             /* SCMP_FLTATR_CTL_OPTIMIZE level used (1 or 2) */
  unsigned bpf_insns;       /* size of the exported BPF program, in instructions */
};

/* A built filter: owns the libseccomp context.  Opaque. */
struct ucb_seccomp;

struct ucb_seccomp_opts;
/* The profile's reader, handed down by the caller (the CLI's ucb_seccomp_profile_read,
 * cli/seccomp-profile.h): the profile is JSON, which host/ does not read.  It reads the profile
 * of `o` into a new filter context (a scmp_filter_ctx) at `optimize`, fills in every field of
 * `st` but bpf_insns, and sets `*min_insns` to the fewest BPF instructions its program can
 * have; a bad profile is a usage error naming the file and the JSON location.  It calls
 * ucb_seccomp_check_name and ucb_seccomp_check_finish (below) and seccomp-size.h. */
typedef int (*ucb_seccomp_read_fn) (const struct ucb_seccomp_opts *o, int optimize, void **ctx,
                                    struct ucb_seccomp_stats *st, unsigned *min_insns,
                                    ucb_error_t *err);

struct ucb_seccomp_opts
{
  const char *profile;      /* "docker" (embedded) or a path to a Docker-format JSON profile */
  int optimize;             /* 1 (libseccomp default; 0 means 1) or 2 (binary tree) */
  const int *caps;          /* capabilities the container keeps (CAP_* numbers), for */
  size_t ncaps;             /*   includes.caps / excludes.caps */
  ucb_seccomp_read_fn read; /* reads `profile`; NULL is an internal error */
};

/* Read the profile (with `o->read`) and compile the filter, once, in the parent, before any
 * container exists.
 * A bad profile is a usage error that names the file and the JSON location
 * ("syscalls[3].action"); so is one whose program the kernel would refuse for its size (over
 * BPF_MAXINSNS instructions), found from its rules before compiling where they tell.  `st` may
 * be NULL. */
int ucb_seccomp_build (const struct ucb_seccomp_opts *o, struct ucb_seccomp **out,
                       struct ucb_seccomp_stats *st, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* Install the filter in the calling thread; in the process to confine (a forked child, before
 * it starts threads).  The program compiled by ucb_seccomp_build, installed as seccomp_load()
 * does with libseccomp's defaults (NO_NEW_PRIVS first, no filter flags), without compiling it
 * again.  `load_ns` (may be NULL) gets the time that took. */
int ucb_seccomp_load (const struct ucb_seccomp *s, uint64_t *load_ns, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* Release the filter and set `*s` to NULL.  Safe on NULL. */
void ucb_seccomp_free (struct ucb_seccomp **s);
#define cleanup_seccomp __attribute__ ((cleanup (ucb_seccomp_free)))

/* The profile of the filter this process built or inherited (set by ucb_seccomp_build, cleared
 * by ucb_seccomp_free): what every container init loads before its tasks start, so that a
 * container that dies can be said to have died under it.  NULL when there is none. */
const char *ucb_seccomp_active (void);

/* For the profile's reader (cli/seccomp-profile.c), defined in seccomp-needs.c: what the
 * profile says about the calls the container machinery makes after the filter is loaded, and
 * the names libseccomp does not know. */
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
 * needs to report and end; allow (in `ctx`, a scmp_filter_ctx) the machinery's calls the
 * default action would block, saying so on stderr. */
int ucb_seccomp_check_finish (struct ucb_seccomp_check *c, void *ctx, uint32_t default_action,
                              const char *file, struct ucb_seccomp_stats *st, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
