/* options.h - `ucbench run` options, parsed into a struct and passed down (no globals). */
#ifndef UCB_OPTIONS_H
#define UCB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <sys/types.h>

#include "error.h"

struct ucb_workload;

#define UCB_MAX_CONTAINERS 4096
#define UCB_MAX_DEPTH 32
#define UCB_MAX_REPEAT 1000
#define UCB_MAX_CPUS 4096
#define UCB_MAX_TASKS 1024        /* per container */
#define UCB_MAX_TOTAL_TASKS 16384 /* containers x tasks of one point */
/* Default owner uids: far above any distribution's user, subuid (100000+) or systemd
 * dynamic-user (61184-65519) range, and below 2^31 where some tools turn uids negative. */
#define UCB_DEFAULT_UID_BASE 2100000000u
#define UCB_MAX_UID 4294967294u

enum ucb_owner_kind
{
  UCB_OWNER_SHARED,   /* one owner uid for all containers (Docker-like) */
  UCB_OWNER_DISTINCT, /* one owner uid per container */
  UCB_OWNER_ROOT,     /* owner uid 0 (rootful runtimes) */
  UCB_OWNER_UID,      /* an explicit uid for all containers */
  UCB_OWNER_RANGE,    /* an explicit range, assigned round-robin */
};

struct ucb_owner_mode
{
  enum ucb_owner_kind kind;
  uint32_t lo, hi; /* UID: lo == hi; RANGE: lo..hi inclusive */
};

enum ucb_pin_mode
{
  UCB_PIN_AUTO, /* one task per allowed CPU, round-robin */
  UCB_PIN_NONE,
  UCB_PIN_LIST,
};

enum ucb_headroom
{
  UCB_HEADROOM_HOST, /* the limits ucbench was started with */
  UCB_HEADROOM_NEAR, /* the workload's counter reaches its limit exactly at the peak */
  UCB_HEADROOM_FAR,  /* soft = hard: as far from the limit as this host allows */
};

/* --limit: a soft limit for one of the four ucounts rlimits (index: log2 of UCB_RLIM_*). */
#define UCB_NLIMITS 4
#define UCB_LIMIT_UNLIMITED UINT64_MAX
struct ucb_limit
{
  bool set;
  uint64_t value; /* UCB_LIMIT_UNLIMITED for "unlimited" */
};

/* --isolate: namespaces besides the user namespace (CLONE_NEW* flags). */
#define UCB_ISOLATE_DEFAULT_FLAGS CLONE_NEWIPC

enum ucb_format
{
  UCB_FORMAT_TEXT,
  UCB_FORMAT_JSON,
};

struct ucb_run_options
{
  const struct ucb_workload **workloads;
  size_t n_workloads;
  unsigned *containers;
  size_t n_containers;
  struct ucb_owner_mode *owners;
  size_t n_owners;
  unsigned *depths;
  size_t n_depths;
  unsigned *tasks; /* tasks per container (a sweep axis) */
  size_t n_tasks;
  bool threads; /* tasks are threads of one process per container */
  struct ucb_limit limits[UCB_NLIMITS];
  enum ucb_headroom headroom;
  int isolate;        /* CLONE_NEW* flags besides CLONE_NEWUSER */
  bool isolate_given; /* explicit --isolate (else the default, which depth 0 drops) */
  double duration, warmup, interval; /* seconds */
  unsigned repeat;
  enum ucb_pin_mode pin;
  int *pin_cpus;
  size_t n_pin_cpus;
  uint32_t uid_base;
  char *output;
  enum ucb_format format;
  bool quiet;
  bool help;     /* -h/--help was given: print ucb_run_usage and do nothing else */
  bool progress; /* resolved: stderr is a terminal and not --quiet */
};

/* Parse `ucbench run` arguments (argv[0] is "run").  Defaults are filled for everything not
 * given; `ncpus` sizes the default container sweep (1, ncpus, 2*ncpus).  Usage errors carry
 * exit status 2. */
int ucb_run_options_parse (struct ucb_run_options *o, int argc, char **argv, unsigned ncpus,
                           ucb_error_t *err) __attribute__ ((warn_unused_result));
void ucb_run_options_free (struct ucb_run_options *o);

/* List parsers, exposed for the unit tests. */
int ucb_parse_uint_list (const char *s, unsigned min, unsigned max, unsigned **out, size_t *n,
                         const char *what, ucb_error_t *err) __attribute__ ((warn_unused_result));
int ucb_parse_cpu_list (const char *s, int **out, size_t *n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_parse_owner_list (const char *s, struct ucb_owner_mode **out, size_t *n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* "shared", "distinct", "root", "1000" or "1000-1010". */
char *ucb_owner_mode_name (const struct ucb_owner_mode *m);
int ucb_parse_limits (const char *s, struct ucb_limit *limits, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_parse_isolate (const char *s, int *flags, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* "ipc,pid" for CLONE_NEWIPC|CLONE_NEWPID ("" for none), in --isolate order. */
char *ucb_isolate_name (int flags);
/* Canonical "0-3,8" form of a sorted CPU list. */
char *ucb_format_cpu_list (const int *cpus, size_t n);

/* Shared by every subcommand's parser. */
int ucb_parse_format (const char *arg, enum ucb_format *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The usage error for getopt_long's ':' (missing value) or '?' (unknown option) result. */
int ucb_getopt_error (int c, char **argv, ucb_error_t *err) __attribute__ ((warn_unused_result));

extern const char ucb_run_usage[];

#endif
