/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-needs.c - what a profile must let through for the container machinery itself, and
 * the names it gives that libseccomp does not know.
 *
 * After the container init loads the filter, ucbench's own code still runs in the container:
 * the init starts, pins and reaps its tasks, each task reports READY on the sync socket and
 * waits on the start barrier, and every process ends with exit_group.  These calls (found with
 * `strace -f` after the seccomp() call, every workload, tasks as processes and as threads,
 * depth 0 and 1) are ucbench's, not the workload's: a profile written for an application
 * cannot know them.  So, under a default action that blocks them:
 *  - a call the profile does not name is added as SCMP_ACT_ALLOW, and one stderr line lists
 *    them (the measured filter is the profile plus those rules: `bpf_insns` counts them,
 *    `rules` stays the profile's);
 *  - a call the profile names is left as the profile says (Docker's own answers clone3 with
 *    ENOSYS, and glibc falls back to clone), except the three without which a container can
 *    neither report nor end (exit_group, exit, sendto): an unconditional rule that blocks one
 *    of them is refused, naming them, since ucbench must not override an explicit rule and the
 *    container could only die without a word (or, under ASan, hang until the ready timeout);
 *    any other call the profile blocks unconditionally is kept (it may be what is measured,
 *    getppid under ERRNO) and named in a warning. */
#include "config.h"

#ifdef HAVE_SECCOMP
#include <stdio.h>
#include <string.h>

#include <seccomp.h>

#include "core/util.h"
#include "host/seccomp-size.h"

enum
{
  USED,      /* blocked by a rule of the profile: a warning */
  ESSENTIAL, /* blocked by a rule of the profile: refused */
  FALLBACK,  /* blocked by a rule of the profile: glibc copes (ENOSYS), no word */
};

static const struct
{
  const char *name;
  int kind;
} machinery[UCB_SECCOMP_MACHINERY_MAX] = {
  { "exit_group", ESSENTIAL },
  { "exit", ESSENTIAL },
  { "sendto", ESSENTIAL }, /* send(): READY and ERROR on the sync socket */
  { "poll", USED },        /* the start barrier; ppoll where there is no poll */
  { "ppoll", USED },
  { "prctl", USED }, /* PR_SET_NAME, PR_SET_PDEATHSIG */
  { "getpid", USED },
  { "getppid", USED },    /* the parent-death check */
  { "clone", USED },      /* tasks as processes */
  { "clone3", FALLBACK }, /* tasks as threads (glibc falls back to clone on ENOSYS) */
  { "wait4", USED },      /* the init reaps its tasks */
  { "set_robust_list", USED },
  { "rseq", FALLBACK },
  { "futex", USED }, /* pthread_join */
  { "mmap", USED },  /* thread stacks */
  { "munmap", USED },
  { "mprotect", USED },
  { "madvise", USED },
  { "rt_sigaction", USED },
  { "rt_sigprocmask", USED },
  { "rt_sigreturn", USED },
  { "restart_syscall", USED },
  { "sched_setaffinity", USED }, /* --pin */
  { "sched_getaffinity", USED }, /* a sanitizer build's pthread_create */
  { "getrusage", USED },
  { "clock_gettime", USED }, /* where the vDSO falls back to the syscall */
  { "sigaltstack", USED },   /* a sanitizer build's fork interceptor */
  { "gettid", USED },
};

static bool
allows (uint32_t action)
{
  return action == SCMP_ACT_ALLOW || action == SCMP_ACT_LOG;
}

void
ucb_seccomp_check_name (struct ucb_seccomp_check *c, const char *name, int nr, uint32_t action,
                        size_t nargs)
{
  if (nr == __NR_SCMP_ERROR)
    {
      size_t len = strlen (c->unknown);
      /* One line: the first names that fit, then an ellipsis (and no name after it). */
      if (c->nunknown++ == 0)
        snprintf (c->unknown, sizeof c->unknown, "%.*s", (int) sizeof c->unknown - 8, name);
      else if (len >= 5 && strcmp (c->unknown + len - 5, ", ...") == 0)
        ;
      else if (len + strlen (name) + 8 < sizeof c->unknown)
        snprintf (c->unknown + len, sizeof c->unknown - len, ", %s", name);
      else
        snprintf (c->unknown + len, sizeof c->unknown - len, ", ...");
      return;
    }
  for (size_t i = 0; i < UCB_ARRAY_SIZE (machinery) && machinery[i].name; i++)
    if (strcmp (machinery[i].name, name) == 0)
      {
        /* Blocked for good only by an unconditional rule; one with arguments lets some
         * calls through, as Docker's clone rule does. */
        if (!allows (action) && nargs == 0)
          c->state[i] = UCB_SECCOMP_BLOCKED;
        else if (c->state[i] != UCB_SECCOMP_BLOCKED)
          c->state[i] = UCB_SECCOMP_NAMED;
      }
}

/* "a, b, c" of the machinery calls in state `s` of kind `kind` (-1: any). */
static size_t
list_calls (const struct ucb_seccomp_check *c, int s, int kind, char *buf, size_t len)
{
  size_t n = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < UCB_ARRAY_SIZE (machinery) && machinery[i].name; i++)
    if (c->state[i] == s && (kind < 0 || machinery[i].kind == kind)
        && seccomp_syscall_resolve_name (machinery[i].name) != __NR_SCMP_ERROR)
      {
        size_t at = strlen (buf);
        snprintf (buf + at, len - at, "%s%s", n++ ? ", " : "", machinery[i].name);
      }
  return n;
}

int
ucb_seccomp_check_finish (struct ucb_seccomp_check *c, scmp_filter_ctx ctx, uint32_t default_action,
                          const char *file, struct ucb_seccomp_stats *st, ucb_error_t *err)
{
  cleanup_free char *shown = ucb_escape_controls (file); /* a warning is one line too */
  char names[512];
  size_t n;

  /* The built-in profile is ours: its names unknown to an older libseccomp are expected. */
  if (c->nunknown && strcmp (file, "docker") != 0)
    {
      cleanup_free char *unknown = ucb_escape_controls (c->unknown);
      fprintf (stderr, "ucbench: warning: %u unknown syscall names in %s: %s (ignored)\n",
               c->nunknown, shown, unknown);
    }
  n = list_calls (c, UCB_SECCOMP_BLOCKED, ESSENTIAL, names, sizeof names);
  if (n)
    return ucb_usage_error (err,
                            "seccomp profile `%s`: blocks %s, which every container process "
                            "needs after loading the filter (to report to ucbench and to end): "
                            "allow %s",
                            file, names, n > 1 ? "them" : "it");
  /* The profile's own choice, which may be what is measured (getppid under ERRNO): kept,
   * but a failure it causes in the machinery will not name it. */
  if (list_calls (c, UCB_SECCOMP_BLOCKED, USED, names, sizeof names))
    fprintf (stderr,
             "ucbench: warning: seccomp profile %s blocks %s, which the container machinery "
             "makes after loading it: containers may fail\n",
             shown, names);
  if (allows (default_action))
    return 0;
  n = list_calls (c, UCB_SECCOMP_UNNAMED, -1, names, sizeof names);
  for (size_t i = 0; i < UCB_ARRAY_SIZE (machinery) && machinery[i].name; i++)
    {
      int nr = seccomp_syscall_resolve_name (machinery[i].name);
      int rc;
      if (c->state[i] != UCB_SECCOMP_UNNAMED || nr == __NR_SCMP_ERROR)
        continue;
      rc = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, nr, 0);
      if (rc < 0)
        return ucb_make_error (err, -rc, "seccomp profile `%s`: allow %s", file, machinery[i].name);
    }
  if (n)
    fprintf (stderr,
             "ucbench: seccomp profile %s: allowing %zu calls the container machinery makes "
             "after loading it, which its default action %s blocks: %s\n",
             shown, n, st->default_action, names);
  return 0;
}

#endif /* HAVE_SECCOMP */
