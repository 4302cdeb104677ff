/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c - observations, verdicts and the case registry of `ucbench verify`. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "host/caps.h"
#include "host/users.h"
#include "verify/cases/list.h"
#include "verify/verify.h"
#include "verify/probe-work.h"

#define UCB_DECLARE(name) extern const struct ucb_vcase ucb_vcase_##name;
UCB_VCASES (UCB_DECLARE)
#undef UCB_DECLARE

#define UCB_ENTRY(name) &ucb_vcase_##name,
static const struct ucb_vcase *const hand[] = { UCB_VCASES (UCB_ENTRY) NULL };
#undef UCB_ENTRY

#define GENERIC_MAX (UCB_RLS * 3 * UCB_VPROPS)
const struct ucb_vcase *ucb_vcases[UCB_ARRAY_SIZE (hand) + GENERIC_MAX];

static int
by_id (const void *a, const void *b) /* ULIM-9 before ULIM-10 */
{
  return strverscmp ((*(const struct ucb_vcase *const *) a)->id,
                     (*(const struct ucb_vcase *const *) b)->id);
}

/* Before main: every user of the registry finds it whole. */
static __attribute__ ((constructor)) void
make_registry (void)
{
  size_t n = UCB_ARRAY_SIZE (hand) - 1;

  memcpy (ucb_vcases, hand, n * sizeof *hand);
  n += ucb_vcells_make (hand, ucb_vcases + n, GENERIC_MAX);
  qsort (ucb_vcases, n, sizeof *ucb_vcases, by_id);
}

const struct ucb_vcase *
ucb_vcase_find (const char *id)
{
  for (size_t i = 0; ucb_vcases[i]; i++)
    if (strcasecmp (ucb_vcases[i]->id, id) == 0 || strcmp (ucb_vcases[i]->name, id) == 0)
      return ucb_vcases[i];
  return NULL;
}

/* Hand-written cases that re-tested cells the generic rows cover (and caught no mutant those
 * rows missed) became those rows; their ids and names still select them. */
static const struct
{
  const char *id, *name; /* the former case's; id NULL: the id lives on as a row's own */
  const char *rows[4];   /* the rows that now check its cells */
} formerly[] = {
  { "ULIM-07", "sigpending-no-leak", { "ULIM-21", "ULIM-22", "ULIM-25" } },
  { NULL, "nproc-parent-bound", { "ULIM-12" } },
};

static bool
is_row_of (const struct ucb_vcase *c, size_t f)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (formerly[f].rows) && formerly[f].rows[i]; i++)
    if (strcmp (formerly[f].rows[i], c->id) == 0)
      return true;
  return false;
}

bool
ucb_vcase_answers (const struct ucb_vcase *c, const char *arg)
{
  if (strcasecmp (c->id, arg) == 0 || strcmp (c->name, arg) == 0)
    return true;
  for (size_t f = 0; f < UCB_ARRAY_SIZE (formerly); f++)
    if (((formerly[f].id && strcasecmp (formerly[f].id, arg) == 0)
         || strcmp (formerly[f].name, arg) == 0)
        && is_row_of (c, f))
      return true;
  return false;
}

const char *
ucb_vcase_formerly (const struct ucb_vcase *c)
{
  static char text[128];

  text[0] = '\0';
  for (size_t f = 0; f < UCB_ARRAY_SIZE (formerly); f++)
    if (is_row_of (c, f))
      snprintf (text + strlen (text), sizeof text - strlen (text), "%s%s%s%s", *text ? ", " : "",
                formerly[f].id ? formerly[f].id : "", formerly[f].id ? " " : "", formerly[f].name);
  return *text ? text : NULL;
}

const char *
ucb_vlevel_name (enum ucb_vlevel l)
{
  static const char *const names[] = { "none", "own", "parent", "grandparent" };
  return (size_t) l < UCB_ARRAY_SIZE (names) ? names[l] : "none";
}

const char *
ucb_vprop_name (enum ucb_vprop p)
{
  static const char *const names[]
      = { "none", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9" };
  return (size_t) p < UCB_ARRAY_SIZE (names) ? names[p] : "none";
}

size_t
ucb_vcase_ncells (const struct ucb_vcase *c)
{
  size_t n = 0;

  while (n < UCB_VCELLS_MAX && (c->cells[n].level || c->cells[n].prop))
    n++;
  return n;
}

int
ucb_kernel_probe (struct ucb_kernel *k, ucb_error_t *err)
{
  struct utsname u;

  memset (k, 0, sizeof *k);
  if (uname (&u) < 0)
    return ucb_make_error (err, errno, "uname");
  if (sscanf (u.release, "%u.%u.%u", &k->major, &k->minor, &k->patch) < 2)
    return ucb_make_error (err, 0, "cannot parse kernel release `%s`", u.release);
  return 0;
}

bool
ucb_vcase_unmet (const struct ucb_vcase *c, uint64_t have, bool init_root, char *why, size_t whylen)
{
  bool root = c->needs_init_root && !init_root;
  uint64_t need = c->needs_caps | UCB_VNEEDS_PROBES;
  cleanup_free char *caps = xstrdup ("");

  for (int cap = 0; cap < 64; cap++)
    if ((need & UCB_VCAP (cap)) && !(have & UCB_VCAP (cap)))
      {
        /* libcap's name, "cap_setuid", as capabilities(7) writes it: CAP_SETUID. */
        cleanup_free char *name = ucb_caps_names (&cap, 1);
        char *next = xasprintf ("%s%s%s", caps, *caps ? ", " : "", name);
        for (char *p = next; *p; p++)
          *p = (char) toupper ((unsigned char) *p);
        free (caps);
        caps = next;
      }
  if (!*caps && !root)
    return false;
  snprintf (why, whylen, "needs %s%s%s (%s)", root ? "uid 0 of the initial user namespace" : "",
            root && *caps ? " and " : "", caps,
            root        ? "run as root on the host"
            : init_root ? "run as root without dropping capabilities"
                        : "run as root");
  return true;
}

/* ---- running a case ------------------------------------------------------------------------ */

/* A case's budget: it is stopped after ucb_vcase_idle_s without progress (ucb_vprogress: an
 * observation, a message from a probe, a round), or after ucb_vcase_limit_s in all.  On the
 * host a case takes a second at most; under emulation (QEMU TCG) forks and fills are 100 times
 * slower, yet a working case never goes 30 s without a step. */
double ucb_vcase_idle_s = 30.0;
double ucb_vcase_limit_s = 300.0;

/* Count what a case left behind: live processes of its group, IPC objects of its uids. */
static size_t
count_ipc_of (uid_t lo, uid_t hi)
{
  static const char *const files[]
      = { "/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem" };
  size_t n = 0;

  for (size_t i = 0; i < UCB_ARRAY_SIZE (files); i++)
    {
      cleanup_file FILE *f = fopen (files[i], "re");
      char line[512];
      if (f == NULL || fgets (line, sizeof line, f) == NULL)
        continue;
      while (fgets (line, sizeof line, f))
        {
          /* key id perms ... uid gid cuid: the uid is the 8th field in shm, msg and sem
           * differ; compare every numeric field against the range instead. */
          char *save = NULL;
          for (char *t = strtok_r (line, " \t\n", &save); t; t = strtok_r (NULL, " \t\n", &save))
            {
              unsigned long v = strtoul (t, NULL, 10);
              if (v >= lo && v <= hi)
                {
                  n++;
                  break;
                }
            }
        }
    }
  return n;
}

/* Reap children until none is left, for at most `ns`. */
static void
reap_for (uint64_t ns)
{
  uint64_t deadline = ucb_now_ns () + ns;

  for (;;)
    {
      pid_t r = waitpid (-1, NULL, WNOHANG);
      if (r > 0)
        continue;
      if (r < 0 && errno != EINTR)
        return; /* ECHILD */
      if (ucb_now_ns () >= deadline)
        return;
      {
        struct timespec ts = { 0, 2000000 };
        nanosleep (&ts, NULL);
      }
    }
}

/* The case process: its own process group, dies with us, subreaper of its helpers. */
static __attribute__ ((noreturn)) void
case_child (const struct ucb_vcase *c, uid_t base, const struct ucb_kernel *k,
            struct ucb_vresult *res)
{
  struct ucb_vctx ctx = { .c = c, .kernel = k, .uid_base = base, .res = res };
  ucb_error_t err = NULL;

  ucb_vprogress_at = &res->progress;
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  /* Orphans of the case's helpers come back to it, inside its process group. */
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  if (c->run (&ctx, &err) < 0)
    {
      snprintf (res->error, sizeof res->error, "%s%s%s", err->msg, err->code ? ": " : "",
                err->code ? strerror (err->code) : "");
      ucb_error_free (&err);
    }
  /* Reap what has ended (orphans of killed helpers come here, as the subreaper): a zombie
   * still counts against the case's uids.  What still lives is a leak, which the parent
   * reports. */
  reap_for (200000000ull);
  _exit (0);
}

/* Whether the case, started at t0, has run out of its budget (ucb_vcase_idle_s without
 * progress, ucb_vcase_limit_s in all): then `why` says which. */
static bool
out_of_time (const struct ucb_vresult *res, uint64_t t0, uint64_t *seen, uint64_t *seen_at,
             char *why, size_t len)
{
  uint64_t now = ucb_now_ns (), p = __atomic_load_n (&res->progress, __ATOMIC_RELAXED);

  if (p != *seen)
    {
      *seen = p;
      *seen_at = now;
    }
  if ((double) (now - t0) / 1e9 >= ucb_vcase_limit_s)
    snprintf (why, len, "timed out after %g s (the limit of a case)", ucb_vcase_limit_s);
  else if ((double) (now - *seen_at) / 1e9 >= ucb_vcase_idle_s)
    snprintf (why, len, "timed out after %.1f s: no progress for %g s", (double) (now - t0) / 1e9,
              ucb_vcase_idle_s);
  else
    return false;
  return true;
}

/* How often a running case's uids are looked at for a process that is not the case's. */
#define FOREIGN_CHECK_NS 250000000ull

/* A process that is not ours with a uid of the case's range [base, base + 99] (another
 * ucbench that ignores the lock, or anything else): its signals, processes and queues count
 * against the case's limits, so what the case saw is no verdict on the kernel.  The first one
 * seen goes into `foreign` (kept once set). */
static void
look_for_foreign (uid_t base, char *foreign, size_t len)
{
  cleanup_free char *who = NULL;

  if (foreign[0] || ucb_uid_range_procs (base, base + 99, true, &who) == 0)
    return;
  snprintf (foreign, len,
            "a process that is not the case's used its uids %u-%u meanwhile (%s): its counts "
            "are not the kernel's answer to the case alone",
            (unsigned) base, (unsigned) base + 99, who);
}

/* Wait for the case process (started at t0) until it runs out of time (or an interrupt), then
 * judge how it ended and kill whatever of its group is left, looking at its uids for a process
 * not ours meanwhile (`foreign`).  True when it ran out of time. */
static bool
wait_case (pid_t pid, uint64_t t0, struct ucb_vresult *res, uid_t base, char *foreign, size_t flen)
{
  uint64_t seen = 0, seen_at = t0, looked = t0;
  char late[UCB_VDETAIL_MAX] = "";
  int status = 0;
  pid_t r;

  setpgid (pid, pid);
  while ((r = waitpid (pid, &status, WNOHANG)) == 0 && !ucb_interrupted ()
         && !out_of_time (res, t0, &seen, &seen_at, late, sizeof late))
    {
      struct timespec ts = { 0, 5000000 };
      nanosleep (&ts, NULL);
      if (ucb_now_ns () - looked >= FOREIGN_CHECK_NS)
        {
          look_for_foreign (base, foreign, flen);
          looked = ucb_now_ns ();
        }
    }
  if (r == 0)
    {
      kill (-pid, SIGKILL);
      waitpid (pid, &status, 0);
      if (ucb_interrupted ())
        snprintf (res->error, sizeof res->error, "interrupted after %.1f s",
                  (double) (ucb_now_ns () - t0) / 1e9);
      else
        snprintf (res->error, sizeof res->error, "%s", late);
    }
  if (!res->error[0] && (!WIFEXITED (status) || WEXITSTATUS (status) != 0))
    snprintf (res->error, sizeof res->error, "the case process %s %d",
              WIFSIGNALED (status) ? "was killed by signal" : "exited with status",
              WIFSIGNALED (status) ? WTERMSIG (status) : WEXITSTATUS (status));
  /* Anything still in the case's group was left behind. */
  if (kill (-pid, 0) == 0 && !res->error[0])
    snprintf (res->error, sizeof res->error, "the case left processes behind");
  kill (-pid, SIGKILL);
  /* We are a subreaper too: the killed processes come back to us, to be reaped now rather
   * than by a slow pid 1 while a repeat of the case needs their uids. */
  reap_for (2000000000ull);
  /* Ours are gone now, or (left behind) still below us: one of another is foreign. */
  look_for_foreign (base, foreign, flen);
  return r == 0 && late[0];
}

/* The verdict; a case stopped by its time limit after it had seen a violation fails with it
 * (what it recorded is final: each observation is recorded once, when seen), else errs. */
static enum ucb_verdict
judge (const struct ucb_vresult *res, bool late, char *why, size_t len)
{
  enum ucb_verdict v = ucb_vjudge (res, why, len);

  if (late && res->n > 0)
    {
      struct ucb_vresult seen = *res;
      char fail[UCB_VDETAIL_MAX];

      seen.error[0] = '\0';
      if (ucb_vjudge (&seen, fail, sizeof fail) == UCB_VERDICT_FAIL)
        {
          snprintf (why, len, "%.320s (seen before the case %.160s)", fail, res->error);
          return UCB_VERDICT_FAIL;
        }
    }
  return v;
}

void
ucb_verify_run (const struct ucb_vcase *c, uid_t base, const struct ucb_kernel *k,
                struct ucb_vrun *out)
{
  struct ucb_vresult *res
      = mmap (NULL, sizeof *res, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  uint64_t t0 = ucb_now_ns ();
  cleanup_free char *who = NULL;
  char foreign[UCB_VDETAIL_MAX] = "";
  size_t left_ipc;
  bool late = false;
  pid_t pid;

  memset (out, 0, sizeof *out);
  out->c = c;
  if (res == MAP_FAILED)
    {
      out->verdict = UCB_VERDICT_ERROR;
      snprintf (out->why, sizeof out->why, "mmap: %s", strerror (errno));
      return;
    }
  memset (res, 0, sizeof *res);
  /* Up front: a case that cannot have what it needs would fail in ways that do not say why
   * (a probe that cannot become its uid, a helper that cannot be killed). */
  if (ucb_vcase_unmet (c, ucb_caps_effective (), ucb_vroot_of_init_userns (), res->skip,
                       sizeof res->skip))
    goto judge;
  /* The rule for the whole range (accounts, groups, subordinate ids) was checked when verify
   * claimed it; processes come and go: one left behind by the case before is seen here. */
  if (ucb_uid_range_procs (base, base + 99, false, &who) > 0)
    {
      snprintf (res->error, sizeof res->error, "uid range %u-%u of the case is in use: %s",
                (unsigned) base, (unsigned) base + 99, who);
      goto judge;
    }
  /* What outlives the case process (its killed group, orphans as it ends) comes back to us,
   * to be reaped and known as ours: given to pid 1 it would be a process of the case's uids
   * that is not ours (look_for_foreign), an error on a busy host. */
  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
    {
      snprintf (res->error, sizeof res->error, "prctl(PR_SET_CHILD_SUBREAPER): %s",
                strerror (errno));
      goto judge;
    }
  fflush (NULL);
  pid = fork ();
  if (pid == 0)
    case_child (c, base, k, res);
  if (pid < 0)
    {
      snprintf (res->error, sizeof res->error, "fork: %s", strerror (errno));
      goto judge;
    }
  late = wait_case (pid, t0, res, base, foreign, sizeof foreign);
  left_ipc = count_ipc_of (base, base + 99);
  if (left_ipc && !res->error[0])
    snprintf (res->error, sizeof res->error, "the case left %zu SysV IPC objects behind", left_ipc);
judge:
  out->res = *res;
  out->verdict = judge (res, late, out->why, sizeof out->why);
  if (foreign[0]) /* whatever it saw, even a violation: an error, never a fail */
    {
      out->verdict = UCB_VERDICT_ERROR;
      snprintf (out->why, sizeof out->why, "%s", foreign);
    }
  out->duration_s = (double) (ucb_now_ns () - t0) / 1e9;
  munmap (res, sizeof *res);
}
