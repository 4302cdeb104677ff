/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-interrupt.c - the interrupt flag: the first SIGINT/SIGTERM/SIGHUP is only noted (the
 * command then writes what it finished), a second one ends the process at once with the
 * signal's default action.  Each case runs in a child, which the signals may end. */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/process.h"
#include "../tap.h"

/* Fork; the child installs the handlers (deferred: `defer`), raises `sig` `times` times and
 * exits 10 + what ucb_interrupted() said (0 or the signal) when it survives. */
static int
child_status (int sig, int times, bool defer)
{
  pid_t pid = fork ();
  int status = -1;

  if (pid == 0)
    {
      struct ucb_interrupt_saved saved;
      ucb_install_interrupt_handlers ();
      if (defer)
        ucb_interrupts_defer (&saved);
      for (int i = 0; i < times; i++)
        raise (sig);
      _exit (10 + ucb_interrupted ());
    }
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return -1;
  return status;
}

static void
test_first_noted (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    for (int defer = 0; defer < 2; defer++)
      {
        int st = child_status (sigs[i], 1, defer);
        tap_check (WIFEXITED (st));
        tap_check_int (WEXITSTATUS (st), ==, 10 + sigs[i]);
      }
  tap_check_int (WEXITSTATUS (child_status (SIGINT, 0, false)), ==, 10);
}

static void
test_second_ends (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    for (int defer = 0; defer < 2; defer++)
      {
        int st = child_status (sigs[i], 2, defer);
        tap_check (WIFSIGNALED (st));
        if (WIFSIGNALED (st))
          tap_check_int (WTERMSIG (st), ==, sigs[i]);
      }
}

static const struct tap_test tests[] = {
  { "the first signal is only noted (sweep and deferred handlers)", test_first_noted },
  { "a second signal ends the process at once with its default action", test_second_ends },
};

TAP_MAIN (tests)
