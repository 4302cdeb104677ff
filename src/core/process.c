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

static void
on_interrupt (int sig)
{
  interrupted_by = sig;
}

void
ucb_install_interrupt_handlers (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigemptyset (&sa.sa_mask);
  /* No SA_RESTART: sleeps and waits return EINTR so the run loop notices at once. */
  for (size_t i = 0; i < UCB_ARRAY_SIZE (sigs); i++)
    sigaction (sigs[i], &sa, NULL);
}

void
ucb_restore_interrupt_handlers (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  for (size_t i = 0; i < UCB_ARRAY_SIZE (sigs); i++)
    signal (sigs[i], SIG_DFL);
}

int
ucb_interrupted (void)
{
  return interrupted_by;
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
