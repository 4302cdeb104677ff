/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.h - container seccomp profiles (Docker's format, read from JSON by the CLI): build
 * once, load per container. */
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

/* A Docker-format profile in C: its JSON read and checked for form by the CLI
 * (cli/seccomp-profile.h), its meaning on this host (calls, architectures, capabilities,
 * kernel) left to ucb_seccomp_build.  Indices are those of the JSON arrays, for the locations
 * of what only the build can refuse ("syscalls[3].names[1]"). */
enum ucb_seccomp_act
{
  UCB_SCMP_ALLOW,
  UCB_SCMP_ERRNO,
  UCB_SCMP_KILL,
  UCB_SCMP_KILL_THREAD,
  UCB_SCMP_KILL_PROCESS,
  UCB_SCMP_TRAP,
  UCB_SCMP_LOG,
  UCB_SCMP_TRACE,
  UCB_SCMP_ACTS
};
extern const char *const ucb_seccomp_acts[UCB_SCMP_ACTS]; /* "SCMP_ACT_ALLOW", ... */
/* Comparisons in libseccomp's order (enum scmp_compare); [0] is none. */
#define UCB_SCMP_CMPS 8
extern const char *const ucb_seccomp_cmps[UCB_SCMP_CMPS]; /* NULL, "SCMP_CMP_NE", ... */
#define UCB_SCMP_ARCHES 23
extern const char *const ucb_seccomp_arches[UCB_SCMP_ARCHES]; /* "SCMP_ARCH_X86", ... */

struct ucb_seccomp_action
{
  enum ucb_seccomp_act act;
  int e; /* errno of ERRNO, message of TRACE; 0 otherwise */
};
struct ucb_seccomp_cond /* includes or excludes */
{
  char **caps; /* capability names, as written */
  size_t ncaps;
  unsigned *arches; /* ucb_seccomp_arches indices */
  size_t narches;
  unsigned kmaj, kmin; /* minKernel; 0.0: none */
};
struct ucb_seccomp_arg
{
  unsigned index, op;  /* op: ucb_seccomp_cmps index */
  uint64_t value, two; /* MASKED_EQ: value is the mask, two the datum (OCI) */
};
struct ucb_seccomp_entry
{
  char **names; /* `names`, or the one `name` (then `single`) */
  size_t nnames;
  bool single;
  struct ucb_seccomp_action action;
  struct ucb_seccomp_arg *args;
  size_t nargs;
  struct ucb_seccomp_cond inc, exc;
};
struct ucb_seccomp_archmap
{
  unsigned arch, *subs; /* ucb_seccomp_arches indices */
  size_t nsubs;
};
struct ucb_seccomp_profile
{
  char *file; /* "docker" or the path */
  struct ucb_seccomp_action def;
  struct ucb_seccomp_archmap *map; /* archMap */
  size_t nmap;
  unsigned *arches; /* `architectures` */
  size_t narches;
  struct ucb_seccomp_entry *calls;
  size_t ncalls;
};

struct ucb_seccomp_opts
{
  const struct ucb_seccomp_profile *profile; /* NULL is an internal error */
  int optimize;    /* 1 (libseccomp default; 0 means 1) or 2 (binary tree) */
  const int *caps; /* capabilities the container keeps (CAP_* numbers), for */
  size_t ncaps;    /*   includes.caps / excludes.caps */
};

/* Compile the profile into the filter, once, in the parent, before any container exists.
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

#endif
