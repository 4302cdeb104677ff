/* SPDX-License-Identifier: GPL-2.0-or-later */
/* process.c - process-wide plumbing: the interrupt flag every wait loop checks, and the child
 * subreaper that lets ucbench reap every descendant it made. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "core/process.h"
#include "core/util.h"

/* ---- interrupt handling ------------------------------------------------------------------ */

static volatile sig_atomic_t interrupted_by;
static const int interrupt_sigs[] = { SIGINT, SIGTERM, SIGHUP };

/* The first signal is noted: the command ends what it can (the finished points written out)
 * and then exits 128+N.  A second one means "now": the default action, at once (what outlives
 * us is cleaned up as after a SIGKILL: death signals, the cgroup janitor, stale temporaries). */
static void
on_interrupt (int sig)
{
  if (interrupted_by != 0)
    {
      signal (sig, SIG_DFL);
      raise (sig); /* blocked while we run: delivered, with SIG_DFL, when we return */
      return;
    }
  interrupted_by = sig;
}

/* The signals of interrupt_sigs only set the flag; what was there before into `old` (or not). */
static void
catch_interrupts (int flags, struct sigaction *old)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sa.sa_flags = flags;
  sigemptyset (&sa.sa_mask);
  for (size_t i = 0; i < UCB_ARRAY_SIZE (interrupt_sigs); i++)
    sigaction (interrupt_sigs[i], &sa, old ? &old[i] : NULL);
}

void
ucb_install_interrupt_handlers (void)
{
  /* No SA_RESTART: sleeps and waits return EINTR so the run loop notices at once. */
  catch_interrupts (0, NULL);
}

void
ucb_restore_interrupt_handlers (void)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (interrupt_sigs); i++)
    signal (interrupt_sigs[i], SIG_DFL);
}

void
ucb_interrupts_defer (struct ucb_interrupt_saved *saved)
{
  _Static_assert(UCB_ARRAY_SIZE (interrupt_sigs) == UCB_ARRAY_SIZE (saved->old),
                 "one saved disposition per signal");
  /* SA_RESTART: a write to a pipe goes on after the signal instead of failing with EINTR. */
  catch_interrupts (SA_RESTART, saved->old);
}

void
ucb_interrupts_resume (const struct ucb_interrupt_saved *saved)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (interrupt_sigs); i++)
    sigaction (interrupt_sigs[i], &saved->old[i], NULL);
}

int
ucb_interrupted (void)
{
  return interrupted_by;
}

int
ucb_interrupted_status (int r, const char *done, ucb_error_t *err)
{
  int sig = interrupted_by;

  if (sig == 0)
    return r;
  if (r == 0)
    ucb_make_error (err, EINTR, "interrupted by signal %d%s", sig, done);
  if (*err)
    (*err)->status = 128 + sig;
  return -1;
}

int
ucb_become_subreaper (ucb_error_t *err)
{
  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
    return ucb_make_error (err, errno, "prctl(PR_SET_CHILD_SUBREAPER)");
  return 0;
}

int
ucb_arm_pdeathsig (pid_t expected_parent, const char *parent_name, ucb_error_t *err)
{
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    return ucb_make_error (err, errno, "prctl(PR_SET_PDEATHSIG)");
  /* The parent may have died before the prctl: then nobody would ever send the signal. */
  if (getppid () != expected_parent)
    return ucb_make_error (err, 0, "%s exited during setup", parent_name);
  return 0;
}
