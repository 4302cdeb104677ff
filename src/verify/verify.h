/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.h - `ucbench verify limits`: hierarchy-enforcement cases as plug-ins, their
 * observations, and the verdict, kept apart so that a verdict can be tested on faked
 * observations. */
#ifndef UCB_VERIFY_H
#define UCB_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "host/rlimit.h"
#include "verify/bugs.h"

enum ucb_verdict
{
  UCB_VERDICT_PASS,
  UCB_VERDICT_FAIL,
  UCB_VERDICT_SKIP,
  UCB_VERDICT_ERROR,     /* the harness itself failed */
  UCB_VERDICT_KNOWN_BUG, /* the kernel behaves as a known, documented bug */
};

/* How an observation is compared, and the class its mismatch is named by (ucb_vjudge(), the one
 * place that names it): over-admission, early denial, leak, underflow, pinned, wrong errno; a
 * plain "mismatch" only where none of them is true (EXACT). */
enum ucb_vkind
{
  UCB_VITEM_ADMITTED,       /* units admitted under a bound, or a SigQ reading of what sends were
                             * charged: more = over-admission (a limit bypass, a security failure),
                             * fewer = early denial (a regression) */
  UCB_VITEM_ERRNO,          /* the errno of a call: 0 where a refusal was due = over-admission, a
                             * refusal where 0 was due = early denial, another one = wrong errno */
  UCB_VITEM_COUNTER,        /* a counter reading (SigQ) of what is charged, e.g. 0 after the drain:
                             * more = leak (a release or a refusal did not return what was charged),
                             * fewer = underflow (the count fell below what is charged) */
  UCB_VITEM_EXACT,          /* any other value that must match: mismatch */
  UCB_VITEM_READMITTED,     /* units admitted again after a release: fewer = leak (the release did
                             * not return what was charged), more = over-admission */
  UCB_VITEM_ERRNO_RELEASED, /* the errno of a charge a release made room for: a refusal = leak,
                             * else as ERRNO */
  UCB_VITEM_REFUSED,        /* of attempts that must all be refused, those refused with the errno:
                             * fewer = wrong errno (an admitted one is a count of its own, named
                             * over-admission first) */
  UCB_VITEM_PINNED, /* the user namespaces a room allows once the tasks that used it are gone:
                     * fewer = pinned (that many outlive their tasks; ucb_vitem.what says which
                     * and where), more = over-admission (a count put below what lives) */
};

#define UCB_VITEMS_MAX 24
#define UCB_VNAME_MAX 48
#define UCB_VDETAIL_MAX 512
#define UCB_VWHAT_MAX 128

struct ucb_vitem
{
  char name[UCB_VNAME_MAX];
  enum ucb_vkind kind;
  long long expected;
  long long observed;
  /* A value the kernel gives when it has known bug `bug` (ULIM-19); valid if set. */
  bool has_bug_value;
  long long bug_value;
  enum ucb_vbug bug;
  /* A count made with at most `tries` attempts (0: not such a count), more than expected:
   * observed == tries means every attempt was admitted, so the kernel's true count is
   * unknown and reads "> tries - 1" (the case's stated cap), never as a count. */
  long long tries;
  /* PINNED: which namespaces the room counts, and where ("of round 1's own-level agent (its N2
   * and N1: ...)"), for the verdict; "" when unknown. */
  char what[UCB_VWHAT_MAX];
};

/* Filled by a case's run() in a forked child: lives in shared memory, so it must be flat. */
struct ucb_vresult
{
  size_t n;
  struct ucb_vitem items[UCB_VITEMS_MAX];
  char skip[UCB_VDETAIL_MAX];  /* non-empty: the case cannot run here, and why */
  char error[UCB_VDETAIL_MAX]; /* non-empty: the harness failed */
  uint64_t progress;           /* steps taken (probe.h ucb_vprogress): a case without any for
                                * ucb_vcase_idle_s is stuck */
};

/* What the cases need to know about the running kernel (expectations depend on it). */
struct ucb_kernel
{
  unsigned major, minor, patch;
  bool cap_sys_resource; /* raising a hard limit possible */
};

struct ucb_vcase;

struct ucb_vctx
{
  const struct ucb_vcase *c; /* the case being run (a generic cell reads its rlimit and cell) */
  const struct ucb_kernel *kernel;
  uid_t uid_base; /* fresh uids for this case: uid_base .. uid_base + 99 */
  struct ucb_vresult *res;
};

/* The property matrix (docs/verify.md "The matrix"): a case covers one or more cells, each a
 * level of the ucounts chain and a property checked there; the rlimit is the case's. */
enum ucb_vlevel
{
  UCB_VLEVEL_NONE,        /* not an rlimit level (ULIM-20: the non-rlimit ucounts) */
  UCB_VLEVEL_OWN,         /* level 0: the task's own (user ns, ruid) object, its soft limit */
  UCB_VLEVEL_PARENT,      /* level 1: bound by the snapshot of the namespace below it */
  UCB_VLEVEL_GRANDPARENT, /* level >= 2 */
};

enum ucb_vprop
{
  UCB_VPROP_NONE,
  UCB_VPROP_P1, /* exact bound: n charges succeed, the n+1st is refused with the errno */
  UCB_VPROP_P2, /* a refusal has no side effects */
  UCB_VPROP_P3, /* release restores (rounds, a holder's exit) */
  UCB_VPROP_P4, /* unlimited is unlimited */
  UCB_VPROP_P5, /* levels are independent */
  UCB_VPROP_P6, /* owners are separate */
  UCB_VPROP_P7, /* exemptions and overrides */
  UCB_VPROP_P8, /* exact under concurrency: racing charges and releases lose no update */
  UCB_VPROP_P9, /* nothing pinned: what a scenario made is freed after it ends */
};
#define UCB_VPROPS 10

#define UCB_VCELLS_MAX 4
struct ucb_vcell
{
  enum ucb_vlevel level; /* {0, 0}: no cell (the end of the list) */
  enum ucb_vprop prop;
};

const char *ucb_vlevel_name (enum ucb_vlevel l); /* "own", "parent", "grandparent", "none" */
const char *ucb_vprop_name (enum ucb_vprop p);   /* "P1" ... "P9", "none" */
/* How many cells `c` lists (the first is its primary one). */
size_t ucb_vcase_ncells (const struct ucb_vcase *c);

struct ucb_vcase
{
  const char *id;      /* "ULIM-01" */
  const char *name;    /* "sigpending-own-level" */
  const char *title;   /* one line */
  enum ucb_rl rlimit;  /* UCB_RL_SIGPENDING, ..., or UCB_RL_NONE */
  const char *checks;  /* the kernel behaviour, in kernel terms (functions, commits) */
  const char *depends; /* the kernel versions and commits its expectation depends on */
  /* What the case needs of ucbench, checked before it runs (ucb_vcase_unmet): the
   * capabilities in ucbench's effective set (UCB_VCAP bits) besides UCB_VNEEDS_PROBES, which
   * every case needs, and with `needs_init_root` uid 0 of the initial user namespace (the
   * kernel's capable() checks are made there: root of a child namespace does not pass them).
   * A case that lacks any of it is SKIP, naming it. */
  uint64_t needs_caps;
  bool needs_init_root;
  /* Runs in a forked child as root, in a process group of its own; records observations
   * with ucb_vobserve().  Returns 0, or < 0 with `err` set (a harness error). */
  int (*run) (struct ucb_vctx *ctx, ucb_error_t *err);
  /* The matrix cells it covers, the primary one first (see enum ucb_vprop). */
  struct ucb_vcell cells[UCB_VCELLS_MAX];
};

#define UCB_VCAP(cap) (1ull << (cap))
/* What every case needs (ucb_vcase_unmet adds it to needs_caps): becoming its fresh uids
 * (setgroups, setresgid, setresuid; writing the id maps of its containers) and killing its probes,
 * which run as those uids, when it ends or times out. */
#define UCB_VNEEDS_PROBES (UCB_VCAP (CAP_SETUID) | UCB_VCAP (CAP_SETGID) | UCB_VCAP (CAP_KILL))

/* Whether `c` lacks something it needs, given the effective capabilities `have` (UCB_VCAP
 * bits) and whether we are uid 0 of the initial user namespace: then `why` says what
 * ("needs CAP_SETUID, CAP_SETGID (run as root)").  Pure: the unit tests feed it fakes. */
bool ucb_vcase_unmet (const struct ucb_vcase *c, uint64_t have, bool init_root, char *why,
                      size_t whylen);

/* Record one observation (from a case's run()). */
void ucb_vobserve (struct ucb_vresult *r, const char *name, enum ucb_vkind kind, long long expected,
                   long long observed);
/* A count of admissions made with at most `tries` attempts (see ucb_vitem.tries). */
void ucb_vobserve_count (struct ucb_vresult *r, const char *name, enum ucb_vkind kind,
                         long long expected, long long observed, long long tries);
/* Record a count made with at most `tries` attempts (0: not a capped count) and the errno that
 * ended it ("fill then check errno"); a NULL name records nothing for it. */
void ucb_vobserve_fill (struct ucb_vresult *r, const char *name, enum ucb_vkind kind,
                        long long expected, long long count, long long tries,
                        const char *errno_name, long long errno_expected, long long errnum);
/* Whether `it` is a count that reached its cap: its observed value then means "> cap". */
bool ucb_vitem_capped (const struct ucb_vitem *it);
/* "260" or "> 260 (the harness's cap)" (a capped count), for messages. */
const char *ucb_vitem_observed_text (const struct ucb_vitem *it, char *buf, size_t len);
/* The same, with the value a kernel with known bug `bug` gives. */
void ucb_vobserve_bug (struct ucb_vresult *r, enum ucb_vbug bug, const char *name,
                       enum ucb_vkind kind, long long expected, long long observed,
                       long long bug_value);
/* Both: a count of at most `tries` attempts, and a known bug's value. */
void ucb_vobserve_bug_count (struct ucb_vresult *r, enum ucb_vbug bug, const char *name,
                             enum ucb_vkind kind, long long expected, long long observed,
                             long long bug_value, long long tries);
/* A PINNED count of at most `tries` attempts (0: not capped); `what` as ucb_vitem.what. */
void ucb_vobserve_pinned (struct ucb_vresult *r, const char *name, const char *what,
                          long long expected, long long observed, long long tries);
void ucb_vskip (struct ucb_vresult *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* The verdict, from the observations alone (pure: the negative tests feed it fakes).  `why`
 * gets a one-line reason for anything but pass, naming the class of the mismatch (enum
 * ucb_vkind); an over-admission is named first, one seen in a count before one in an errno. */
enum ucb_verdict ucb_vjudge (const struct ucb_vresult *r, char *why, size_t whylen);
/* The known bug whose value an observation of `r` shows, the one a known-bug verdict's `why`
 * names; NULL when none (only a known-bug verdict's is meaningful). */
const struct ucb_vbug_info *ucb_vknown_bug (const struct ucb_vresult *r);
const char *ucb_verdict_name (enum ucb_verdict v);

/* The registry, NULL-terminated, in id order, made at start-up: the hand-written cases of
 * src/verify/cases/list.h and the generic cells. */
extern const struct ucb_vcase *ucb_vcases[];
/* The generic cells (cases/matrix-cells.c): a case for each (rlimit, level, property) of P1-P5,
 * P8 (P9: one per rlimit) that is no primary cell of a case of `hand` (NULL-terminated), into
 * `out`, at most `max`: how many.  ucb_vcell_ulim: a cell's stable ULIM number, 0 for none. */
size_t ucb_vcells_make (const struct ucb_vcase *const *hand, const struct ucb_vcase **out,
                        size_t max);
unsigned ucb_vcell_ulim (enum ucb_rl rl, enum ucb_vlevel level, enum ucb_vprop prop);
const struct ucb_vcase *ucb_vcase_find (const char *id);
/* Whether `arg` names `c`: its id (any case), its name, or the id or name of a former case
 * whose cells are now `c`'s (ULIM-07 sigpending-no-leak: ULIM-21, 22 and 25; nproc-parent-bound:
 * ULIM-12), so that scripts selecting the old case keep selecting what checks it. */
bool ucb_vcase_answers (const struct ucb_vcase *c, const char *arg);
/* The former ids and names `c` answers to ("ULIM-07 sigpending-no-leak"), or NULL. */
const char *ucb_vcase_formerly (const struct ucb_vcase *c);

/* One case's outcome. */
struct ucb_vrun
{
  const struct ucb_vcase *c;
  enum ucb_verdict verdict;
  char why[UCB_VDETAIL_MAX];
  struct ucb_vresult res;
  double duration_s;
  /* The case reached no verdict of its own: a signal or --fail-fast stopped verify before it
   * or cut it short (verdict SKIP, why "not run: ..."); compare says "not run", never failing. */
  bool not_run;
};

/* Run case `c` with the fresh uids `uid_base` .. `uid_base` + 99 (checked unused) in a
 * forked child of its own process group, with a timeout; anything it leaves behind (a
 * process of its group, a SysV IPC object of its uids) is an error of the case.  Needs
 * root; makes the caller a child subreaper. */
void ucb_verify_run (const struct ucb_vcase *c, uid_t uid_base, const struct ucb_kernel *k,
                     struct ucb_vrun *out);
/* A case's time: it is stopped after ucb_vcase_idle_s (30) without progress, or ucb_vcase_limit_s
 * (300) in all; one that has seen a violation by then fails with it, else errs. */
extern double ucb_vcase_idle_s, ucb_vcase_limit_s;
#define UCB_VERIFY_UID_BASE 2101000000u /* default: case i gets base + 100 i .. + 99 */

int ucb_kernel_probe (struct ucb_kernel *k, ucb_error_t *err) __attribute__ ((warn_unused_result));

#endif
