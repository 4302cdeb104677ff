/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model-ranges.c - the ranges, enums, patterns and lengths of docs/ucbench-result.schema.json
 * (minimum, maximum, exclusiveMinimum, enum, pattern, propertyNames, minLength, maxLength) as
 * one table that mirrors its $defs, and the walk that checks a whole document against it before
 * the loader (model.c) reads a field: a document the schema rejects for one is refused by every
 * reader alike, whether or not that reader uses the field, and no string reaches a writer longer
 * or odder than the schema allows (a host name in every KCIDB test, a workload in an LKP key).
 * tests/integration/reader-ranges.py derives its cases from the schema, so a rule added there
 * and not here fails it. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/model-fields.h"

enum rule_kind
{
  R_NUM,  /* a number in [lo, hi] ((lo, hi] when lo_open); anything else is not its business */
  R_WORD, /* a string among words */
  R_OBJ,  /* an object: its rules are sub */
  R_STR,  /* a string of [min_len, max_len] characters (max_len -1: any) matching pattern */
  R_NAME, /* each member's name (the rule's key "*") matches pattern: propertyNames */
};

struct rule
{
  const char *key; /* the member; "*" each member; NULL ends a table */
  enum rule_kind kind;
  bool items; /* the member is an array: the rule holds of each item */
  double lo, hi;
  bool lo_open;
  const char *const *words;
  const struct rule *sub;
  const char *pattern; /* NULL: none */
  long min_len, max_len;
};

/* Of a type other than the rule's (null, "unlimited", "auto"), a value is left to the typed
 * readers and to the schema's other branches: only ranges are checked here. */
#define RULE(k, kind, items, lo, hi, lo_open, words, sub)                                          \
  {                                                                                                \
    k, kind, items, lo, hi, lo_open, words, sub, NULL, 0, -1                                       \
  }
#define STRING(k, items, pat, min, max)                                                            \
  {                                                                                                \
    k, R_STR, items, 0, 0, false, NULL, NULL, pat, min, max                                        \
  }
#define AT_LEAST(k, m) RULE (k, R_NUM, false, m, INFINITY, false, NULL, NULL)
#define EACH_AT_LEAST(k, m) RULE (k, R_NUM, true, m, INFINITY, false, NULL, NULL)
#define BETWEEN(k, m, M) RULE (k, R_NUM, false, m, M, false, NULL, NULL)
#define ABOVE(k, m, M) RULE (k, R_NUM, false, m, M, true, NULL, NULL)
#define ONE_OF(k, w) RULE (k, R_WORD, false, 0, 0, false, w, NULL)
#define EACH_ONE_OF(k, w) RULE (k, R_WORD, true, 0, 0, false, w, NULL)
#define OBJECT(k, s) RULE (k, R_OBJ, false, 0, 0, false, NULL, s)
#define EACH(k, s) RULE (k, R_OBJ, true, 0, 0, false, NULL, s)
#define MATCHES(k, pat) STRING (k, false, pat, 0, -1)
#define EACH_MATCHES(k, pat, min, max) STRING (k, true, pat, min, max)
#define NAMES_MATCH(pat)                                                                           \
  {                                                                                                \
    "*", R_NAME, false, 0, 0, false, NULL, NULL, pat, 0, -1                                        \
  }
#define END RULE (NULL, R_NUM, false, 0, 0, false, NULL, NULL)

/* ---- the patterns, as the schema spells them ------------------------------------------------ */

#define P_START_TIME "^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?$"
#define P_KERNEL "^[0-9]+\\.[0-9]+\\.[0-9]+$"
#define P_ERRNO "^(E[A-Z0-9]+|errno -?[0-9]+|other)$"
#define P_WORKLOAD "^[A-Za-z_][A-Za-z0-9_]*$"
#define P_OWNER "^(shared|distinct|root|self|[0-9]+|[0-9]+-[0-9]+)$"
#define P_OWNERS "^(shared|distinct|root|self|[0-9]+|[0-9]+-[0-9]+)$"
#define P_ISOLATE "^(user(,ipc)?(,pid)?(,mnt)?(,uts)?(,net)?)?$"
#define P_ISOLATE_RUN "^user(,ipc)?(,pid)?(,mnt)?(,uts)?(,net)?$"
#define P_CASE_ID "^[A-Z]+-[0-9]+$"
#define P_KEBAB "^[a-z0-9]+(-[a-z0-9]+)*$"
#define P_PROPERTY "^P[1-9]$"
#define P_URL "^https://"
#define UTSNAME_MAX 64 /* a uname() field: HOST_NAME_MAX, and what the schema says of each */
#define OWNER_MAX 21   /* "4294967294-4294967294" */

/* ---- the enums ------------------------------------------------------------------------------ */

static const char *const counter_words[]
    = { "SIGPENDING", "MSGQUEUE", "MEMLOCK", "NPROC", "none", NULL };
static const char *const rlimit_words[] = { "SIGPENDING", "MSGQUEUE", "MEMLOCK", "NPROC", NULL };
static const char *const mode_words[] = { "process", "thread", NULL };
static const char *const status_words[] = { "ok", "skipped", NULL };
static const char *const source_words[]
    = { "host", "limit", "headroom near", "headroom far", NULL };
static const char *const judged_words[] = { "interval", "window", NULL };
static const char *const headroom_words[] = { "host", "near", "far", NULL };
static const char *const pin_words[] = { "auto", "none", "list", "spread", "compact", "l3", NULL };
static const char *const l3_source_words[] = { "cache", "package", "none", NULL };
static const char *const format_words[] = { "text", "json", "csv", NULL };
static const char *const layout_words[] = { "legacy", "hybrid", "unified", NULL };
static const char *const backend_words[] = { "libcgroup", "cgroupfs", NULL };
static const char *const caps_words[] = { "keep", "drop", "list", NULL };
static const char *const level_words[] = { "own", "parent", "grandparent", "none", NULL };
static const char *const verdict_words[] = { "pass", "fail", "skip", "error", "known-bug", NULL };
static const char *const seccomp_words[]
    = { "available", "unavailable (built --without-seccomp)", NULL };
static const char *const cgroup_words[]
    = { "available", "unavailable (built --without-cgroup)", NULL };
static const char *const contrast_words[] = { "penalty",
                                              "shared faster",
                                              "none",
                                              "inconclusive",
                                              "inconclusive (1 repeat)",
                                              "inconclusive (contended)",
                                              "inconclusive (metrics disagree)",
                                              NULL };
static const char *const where_words[] = { "qemu-tcg", "qemu-kvm", "host", NULL };
static const char *const accel_words[] = { "tcg", "kvm", NULL };

/* ---- $defs ---------------------------------------------------------------------------------- */

static const struct rule failed_by_errno[] = { AT_LEAST ("*", 0), NAMES_MATCH (P_ERRNO), END };

/* limit_value: an integer >= 0 or "unlimited". */
static const struct rule host_rlimit[] = { AT_LEAST ("soft", 0), AT_LEAST ("hard", 0), END };

static const struct rule sample[] = {
  AT_LEAST ("t", 0),
  AT_LEAST ("dt", 0),
  AT_LEAST ("ops", 0),
  AT_LEAST ("ops_per_s", 0),
  AT_LEAST ("failed_ops", 0),
  AT_LEAST ("cpu_share", 0),
  END,
};

static const struct rule perf_per_op[] = {
  AT_LEAST ("cycles_per_op", 0),
  AT_LEAST ("instructions_per_op", 0),
  AT_LEAST ("cache_misses_per_op", 0),
  AT_LEAST ("hitm_per_op", 0),
  AT_LEAST ("context_switches_per_op", 0),
  AT_LEAST ("cpu_migrations_per_op", 0),
  END,
};

static const struct rule task[] = {
  AT_LEAST ("index", 0),
  AT_LEAST ("cpu", 0),
  AT_LEAST ("pid", 1),
  AT_LEAST ("ops", 0),
  AT_LEAST ("rate_ops_per_s", 0),
  AT_LEAST ("cpu_ns_per_op", 0),
  AT_LEAST ("cpu_utilization", 0),
  AT_LEAST ("failed_ops", 0),
  EACH ("samples", sample),
  AT_LEAST ("core", 0),
  AT_LEAST ("l3", 0),
  AT_LEAST ("node", 0),
  END,
};

/* Beyond the schema (its stats give no range), as the loader always refused: a negative spread
 * is no spread. */
static const struct rule container_stats[] = { AT_LEAST ("stddev", 0), END };
static const struct rule container_cgroup[] = { AT_LEAST ("index", 0), END };

static const struct rule container[] = {
  AT_LEAST ("index", 0),
  AT_LEAST ("owner_uid", 0),
  AT_LEAST ("depth", 0),
  EACH_AT_LEAST ("cpus", 0),
  AT_LEAST ("task_pid", 1),
  AT_LEAST ("task_uid", 0),
  AT_LEAST ("userns_inode", 1),
  AT_LEAST ("ops", 0),
  AT_LEAST ("rate_ops_per_s", 0),
  OBJECT ("ops_per_s", container_stats),
  AT_LEAST ("cpu_ns_per_op", 0),
  AT_LEAST ("cpu_utilization", 0),
  AT_LEAST ("failed_ops", 0),
  OBJECT ("failed_by_errno", failed_by_errno),
  MATCHES ("last_errno", P_ERRNO),
  EACH ("samples", sample),
  EACH ("tasks", task),
  OBJECT ("cgroup", container_cgroup),
  AT_LEAST ("seccomp_load_us", 0),
  OBJECT ("perf", perf_per_op),
  END,
};

static const struct rule limit[] = {
  AT_LEAST ("soft", 0),
  AT_LEAST ("hard", 0),
  ONE_OF ("source", source_words),
  EACH_AT_LEAST ("rlimit_max", 0),
  END,
};

static const struct rule limits[] = {
  OBJECT ("SIGPENDING", limit),
  OBJECT ("MSGQUEUE", limit),
  OBJECT ("MEMLOCK", limit),
  OBJECT ("NPROC", limit),
  END,
};

static const struct rule summary[] = {
  AT_LEAST ("total_ops_per_s", 0),
  AT_LEAST ("per_container_ops", 0),
  AT_LEAST ("per_task_ops", 0),
  AT_LEAST ("scalability", 0),
  BETWEEN ("fairness", 0, 1),
  AT_LEAST ("cv", 0),
  AT_LEAST ("cpu_ns_per_op", 0),
  AT_LEAST ("failed_ops", 0),
  OBJECT ("failed_by_errno", failed_by_errno),
  AT_LEAST ("min_container_ops", 0),
  AT_LEAST ("max_container_ops", 0),
  AT_LEAST ("idle_pct", 0),
  AT_LEAST ("steal_pct", 0),
  OBJECT ("perf", perf_per_op),
  END,
};

static const struct rule placement[] = {
  AT_LEAST ("cpus", 0),
  AT_LEAST ("cores", 0),
  AT_LEAST ("l3_domains", 0),
  AT_LEAST ("nodes", 0),
  END,
};

/* steal_pct_max and idle_pct_min: at most 100 beyond the schema (percent, 0-100, as it says
 * in words), as the loader always refused. */
static const struct rule contention[] = {
  ABOVE ("threshold", 0, 1),
  ABOVE ("fair_share", 0, 1),
  AT_LEAST ("tasks_per_cpu", 0),
  ONE_OF ("judged_over", judged_words),
  AT_LEAST ("samples", 0),
  AT_LEAST ("contended_samples", 0),
  AT_LEAST ("starved_containers", 0),
  AT_LEAST ("unjudged_samples", 0),
  AT_LEAST ("kernel_clock_tasks", 0),
  AT_LEAST ("starved_min_ops", 1),
  AT_LEAST ("window_needed_s", 0),
  AT_LEAST ("cpu_share_median", 0),
  AT_LEAST ("cpu_share_min", 0),
  AT_LEAST ("nivcsw", 0),
  BETWEEN ("steal_pct_max", 0, 100),
  BETWEEN ("idle_pct_min", 0, 100),
  AT_LEAST ("late_readings", 0),
  AT_LEAST ("late_max_s", 0),
  END,
};

static const struct rule canary[] = {
  EACH_AT_LEAST ("cpus", 0),
  ABOVE ("before", 0, INFINITY),
  ABOVE ("after", 0, INFINITY),
  ABOVE ("before_wall", 0, INFINITY),
  ABOVE ("after_wall", 0, INFINITY),
  ABOVE ("threshold_pct", 0, INFINITY),
  END,
};

static const struct rule host_sample[] = {
  AT_LEAST ("t", 0),
  AT_LEAST ("idle_pct", 0),
  AT_LEAST ("steal_pct", 0),
  END,
};

static const struct rule charges[] = {
  ONE_OF ("counter", counter_words),
  EACH_ONE_OF ("rlimits", rlimit_words),
  END,
};

static const struct rule memory[] = {
  AT_LEAST ("container_kib", 0),
  AT_LEAST ("container_processes", 0),
  AT_LEAST ("ucbench_peak_rss_kib", 0),
  END,
};

static const struct rule result[] = {
  STRING ("workload", false, P_WORKLOAD, 1, 64),
  STRING ("owner", false, P_OWNER, 0, OWNER_MAX),
  MATCHES ("isolate", P_ISOLATE),
  ONE_OF ("counter", counter_words),
  OBJECT ("charges", charges),
  AT_LEAST ("containers", 1),
  AT_LEAST ("depth", 0),
  AT_LEAST ("tasks", 1),
  ONE_OF ("mode", mode_words),
  AT_LEAST ("repeat", 1),
  ONE_OF ("status", status_words),
  EACH ("per_container", container),
  OBJECT ("summary", summary),
  OBJECT ("limits", limits),
  AT_LEAST ("setup_s", 0),
  AT_LEAST ("teardown_s", 0),
  OBJECT ("memory", memory),
  AT_LEAST ("measured_s", 0),
  OBJECT ("placement", placement),
  OBJECT ("contention", contention),
  OBJECT ("canary", canary),
  EACH ("host_samples", host_sample),
  END,
};

/* ---- run_config: config in a run document --------------------------------------------------- */

static const struct rule topology_map[] = {
  AT_LEAST ("cpu", 0),
  AT_LEAST ("package", 0),
  AT_LEAST ("core", 0),
  AT_LEAST ("smt", 0),
  AT_LEAST ("l3", 0),
  AT_LEAST ("node", 0),
  END,
};

static const struct rule topology[] = {
  ONE_OF ("l3_source", l3_source_words),
  AT_LEAST ("cpus", 0),
  AT_LEAST ("cores", 0),
  AT_LEAST ("l3_domains", 0),
  AT_LEAST ("nodes", 0),
  EACH ("map", topology_map),
  END,
};

static const struct rule pin[] = {
  ONE_OF ("mode", pin_words),
  EACH_AT_LEAST ("cpus", 0),
  EACH_AT_LEAST ("allowed", 0),
  OBJECT ("topology", topology),
  END,
};

/* version: the enum [1, 2] of an integer. */
static const struct rule hierarchy[] = {
  BETWEEN ("version", 1, 2),
  ONE_OF ("backend", backend_words),
  END,
};

static const struct rule runtime_cgroup[] = {
  ONE_OF ("layout", layout_words),
  AT_LEAST ("pid", 1),
  AT_LEAST ("pids_max", 1),
  EACH ("hierarchies", hierarchy),
  END,
};

static const struct rule runtime_seccomp[] = {
  AT_LEAST ("entries", 0),         AT_LEAST ("entries_used", 0),
  AT_LEAST ("entries_skipped", 0), AT_LEAST ("names", 0),
  AT_LEAST ("names_unknown", 0),   AT_LEAST ("rules", 0),
  AT_LEAST ("arches", 0),          AT_LEAST ("optimize", 1),
  AT_LEAST ("bpf_insns", 0),       END,
};

static const struct rule runtime_caps[] = { ONE_OF ("mode", caps_words), END };

static const struct rule runtime[] = {
  OBJECT ("cgroup", runtime_cgroup),
  OBJECT ("seccomp", runtime_seccomp),
  OBJECT ("caps", runtime_caps),
  END,
};

/* limits: integers >= 0 or "unlimited", under any rlimit name. */
static const struct rule config_limits[] = { AT_LEAST ("*", 0), END };

static const struct rule run_config[] = {
  EACH_MATCHES ("workloads", P_WORKLOAD, 1, 64),
  EACH_MATCHES ("owners", P_OWNERS, 0, OWNER_MAX),
  MATCHES ("isolate", P_ISOLATE_RUN),
  EACH_AT_LEAST ("containers", 1),
  EACH_AT_LEAST ("depths", 0),
  EACH_AT_LEAST ("tasks", 1),
  ONE_OF ("mode", mode_words),
  OBJECT ("limits", config_limits),
  ONE_OF ("headroom", headroom_words),
  ABOVE ("duration_s", 0, INFINITY),
  AT_LEAST ("warmup_s", 0),
  ABOVE ("interval_s", 0, INFINITY),
  AT_LEAST ("repeat", 1), /* or "auto" */
  ABOVE ("precision_pct", 0, 100),
  ABOVE ("max_time_s", 0, INFINITY),
  ABOVE ("contention_threshold", 0, 1),
  AT_LEAST ("uid_base", 0),
  OBJECT ("pin", pin),
  ONE_OF ("format", format_words),
  OBJECT ("runtime", runtime),
  END,
};

/* ---- verify[], host, run, the tables of --pin l3, --repeat auto, owner contrast ------------- */

static const struct rule cell[]
    = { ONE_OF ("level", level_words), MATCHES ("property", P_PROPERTY), END };
static const struct rule known_bug[] = { MATCHES ("id", P_KEBAB), MATCHES ("url", P_URL), END };
static const struct rule capped[] = { AT_LEAST ("*", 0), END };

static const struct rule verify_entry[] = {
  MATCHES ("id", P_CASE_ID),
  MATCHES ("name", P_KEBAB),
  MATCHES ("property", P_PROPERTY),
  OBJECT ("known_bug", known_bug),
  ONE_OF ("rlimit", counter_words),
  ONE_OF ("level", level_words),
  EACH ("cells", cell),
  ONE_OF ("status", verdict_words),
  OBJECT ("capped", capped),
  AT_LEAST ("duration_s", 0),
  END,
};

static const struct rule capabilities[] = { AT_LEAST ("uid", 0), AT_LEAST ("euid", 0), END };

static const struct rule host_rlimits[] = {
  OBJECT ("SIGPENDING", host_rlimit), OBJECT ("MSGQUEUE", host_rlimit),
  OBJECT ("MEMLOCK", host_rlimit),    OBJECT ("NPROC", host_rlimit),
  OBJECT ("NOFILE", host_rlimit),     END,
};

static const struct rule features[] = {
  ONE_OF ("seccomp", seccomp_words),
  ONE_OF ("cgroup", cgroup_words),
  END,
};

static const struct rule kernel[] = {
  STRING ("release", false, NULL, 0, UTSNAME_MAX),
  STRING ("version", false, NULL, 0, UTSNAME_MAX),
  END,
};

static const char *const bound_words[] = { "user.max_user_namespaces",
                                           "user.max_ipc_namespaces",
                                           "user.max_pid_namespaces",
                                           "user.max_mnt_namespaces",
                                           "user.max_uts_namespaces",
                                           "user.max_net_namespaces",
                                           "kernel.pid_max",
                                           "kernel.threads-max",
                                           "RLIMIT_NPROC",
                                           "pids.max",
                                           "RLIMIT_NOFILE",
                                           "memory",
                                           NULL };

/* containers: or "unlimited" (a string: never checked here) */
static const struct rule ceiling[] = {
  AT_LEAST ("containers", 0),
  ONE_OF ("limit", bound_words),
  AT_LEAST ("task_bytes", 0),
  OBJECT ("bounds", capped),
  END,
};

/* cgroup_layout: the enum has null too (null is not a string: never checked). */
static const struct rule host[] = {
  STRING ("hostname", false, NULL, 0, UTSNAME_MAX),
  STRING ("arch", false, NULL, 0, UTSNAME_MAX),
  OBJECT ("kernel", kernel),
  AT_LEAST ("cpus_online", 1),
  AT_LEAST ("cpus_allowed", 0),
  AT_LEAST ("threads_per_core", 1),
  AT_LEAST ("l3_domains", 1),
  AT_LEAST ("numa_nodes", 0),
  AT_LEAST ("memory_bytes", 0),
  ONE_OF ("cgroup_layout", layout_words),
  OBJECT ("capabilities", capabilities),
  OBJECT ("rlimits", host_rlimits),
  OBJECT ("features", features),
  OBJECT ("ceiling", ceiling),
  END,
};

static const struct rule interrupted[] = {
  BETWEEN ("signal", 1, 64),
  AT_LEAST ("points_finished", 0),
  AT_LEAST ("points_planned", 0),
  END,
};

static const struct rule run[] = {
  MATCHES ("start_time", P_START_TIME),
  AT_LEAST ("duration_s", 0),
  AT_LEAST ("peak_rss_kib", 0),
  OBJECT ("interrupted", interrupted),
  END,
};

static const struct rule l3_row[] = {
  AT_LEAST ("depth", 0),
  AT_LEAST ("tasks", 0),
  AT_LEAST ("containers", 0),
  AT_LEAST ("repeat", 0),
  AT_LEAST ("l3_domains", 0),
  AT_LEAST ("cores", 0),
  AT_LEAST ("cpus", 0),
  AT_LEAST ("per_container_ops", 0),
  AT_LEAST ("scaling_efficiency_pct", 0),
  END,
};

static const struct rule precision_row[] = {
  AT_LEAST ("depth", 0),       AT_LEAST ("tasks", 1),
  ONE_OF ("mode", mode_words), AT_LEAST ("containers", 1),
  AT_LEAST ("repeats", 1),     AT_LEAST ("repeats_counted", 0),
  AT_LEAST ("ci_pct", 0),      END,
};

static const struct rule contrast_side[] = {
  AT_LEAST ("median_ops_per_s", 0), AT_LEAST ("median_cpu_ns_per_op", 0), AT_LEAST ("cv_pct", 0),
  AT_LEAST ("repeats_used", 0),     AT_LEAST ("repeats_left_out", 0),     END,
};

static const struct rule contrast_cpu[] = {
  AT_LEAST ("ratio", 0),
  AT_LEAST ("ci_low", 0),
  AT_LEAST ("ci_high", 0),
  END,
};

static const struct rule contrast_row[] = {
  AT_LEAST ("depth", 0),
  AT_LEAST ("tasks", 1),
  ONE_OF ("mode", mode_words),
  AT_LEAST ("containers", 1),
  OBJECT ("shared", contrast_side),
  OBJECT ("distinct", contrast_side),
  AT_LEAST ("n_shared", 0),
  AT_LEAST ("n_distinct", 0),
  AT_LEAST ("ratio", 0),
  AT_LEAST ("ci_low", 0),
  AT_LEAST ("ci_high", 0),
  AT_LEAST ("df", 0),
  AT_LEAST ("threshold_pct", 0),
  AT_LEAST ("p_beyond", 0),
  AT_LEAST ("p_beyond_adj", 0),
  AT_LEAST ("p_inside", 0),
  AT_LEAST ("p_inside_adj", 0),
  OBJECT ("cpu_ns_per_op", contrast_cpu),
  ONE_OF ("verdict", contrast_words),
  AT_LEAST ("needed", 1),
  END,
};

static const struct rule kernel_matrix[]
    = { ONE_OF ("where", where_words), ONE_OF ("accel", accel_words), END };

static const struct rule tool[] = { STRING ("version", false, NULL, 1, -1), END };

static const struct rule verify_interrupted[] = {
  BETWEEN ("signal", 1, 64),
  AT_LEAST ("cases_finished", 0),
  AT_LEAST ("cases_planned", 0),
  END,
};

static const struct rule top[] = {
  OBJECT ("tool", tool),
  MATCHES ("verify_kernel", P_KERNEL),
  BETWEEN ("verify_uid_base", 0, 4294967294),
  OBJECT ("verify_interrupted", verify_interrupted),
  OBJECT ("run", run),
  OBJECT ("host", host),
  EACH ("results", result),
  EACH ("verify", verify_entry),
  EACH ("l3_scaling", l3_row),
  EACH ("precision", precision_row),
  EACH ("owner_contrast", contrast_row),
  OBJECT ("kernel_matrix", kernel_matrix),
  END,
};

/* The schema's else: config is a run's unless the document has verify[] (then it is {}). */
static const struct rule run_top[] = { OBJECT ("config", run_config), END };

/* ---- the walk ------------------------------------------------------------------------------- */

static int check_object (struct ucb_loc *l, json_t *o, const struct rule *rules, ucb_error_t *err);

/* `v`, member `key` of the object at l (item `i` of it when i >= 0), against rule `r`. */
static int
check_value (struct ucb_loc *l, const char *key, long i, json_t *v, const struct rule *r,
             ucb_error_t *err)
{
  char name[128];
  size_t at;
  int ret;

  if (i >= 0)
    snprintf (name, sizeof name, "%s[%ld]", key, i);
  else
    snprintf (name, sizeof name, "%s", key);
  switch (r->kind)
    {
    case R_NUM:
      if (!json_is_number (v))
        return 0;
      return ucb_range (l, name, json_number_value (v), r->lo, r->lo_open, r->hi, err);
    case R_STR:
      if (!json_is_string (v))
        return 0;
      /* The length first: a megabyte is named by its length, not run through the pattern. */
      if (ucb_length (l, name, json_string_value (v), r->min_len, r->max_len, err) < 0)
        return -1;
      return r->pattern ? ucb_pattern (l, name, json_string_value (v), r->pattern, false, err) : 0;
    case R_NAME:
      return ucb_pattern (l, name, key, r->pattern, true, err);
    case R_WORD:
      if (!json_is_string (v))
        return 0;
      for (const char *const *w = r->words; *w; w++)
        if (strcmp (json_string_value (v), *w) == 0)
          return 0;
      return ucb_enum (l, name, json_string_value (v), r->words, err);
    case R_OBJ:
    default:
      if (!json_is_object (v))
        return 0;
      at = ucb_loc_push (l, "%s%s", l->at[0] ? "." : "", name);
      ret = check_object (l, v, r->sub, err);
      ucb_loc_pop (l, at);
      return ret;
    }
}

static int
check_member (struct ucb_loc *l, const char *key, json_t *v, const struct rule *r, ucb_error_t *err)
{
  size_t i;
  json_t *x;

  if (!r->items)
    return check_value (l, key, -1, v, r, err);
  json_array_foreach (v, i, x)
  {
    if (check_value (l, key, (long) i, x, r, err) < 0)
      return -1;
  }
  return 0;
}

static int
check_object (struct ucb_loc *l, json_t *o, const struct rule *rules, ucb_error_t *err)
{
  for (const struct rule *r = rules; r->key; r++)
    {
      const char *key;
      json_t *v;

      if (strcmp (r->key, "*") != 0)
        {
          v = json_object_get (o, r->key);
          if (v && check_member (l, r->key, v, r, err) < 0)
            return -1;
          continue;
        }
      json_object_foreach (o, key, v)
      {
        if (check_member (l, key, v, r, err) < 0)
          return -1;
      }
    }
  return 0;
}

int
ucb_doc_check_ranges (json_t *doc, const char *name, ucb_error_t *err)
{
  struct ucb_loc l = { .name = name };

  if (!json_is_object (doc) || check_object (&l, doc, top, err) < 0)
    return json_is_object (doc) ? -1 : 0;
  if (json_object_get (doc, "verify") == NULL)
    return check_object (&l, doc, run_top, err);
  return 0;
}
