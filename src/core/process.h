/* SPDX-License-Identifier: GPL-2.0-or-later */
/* process.h - the interrupt flag and the child subreaper, for every command that forks. */
#ifndef UCB_PROCESS_H
#define UCB_PROCESS_H

#include <signal.h>
#include <sys/types.h>

#include "core/error.h"

/* SIGINT/SIGTERM/SIGHUP set a flag instead of killing us, so every exit path cleans up. */
void ucb_install_interrupt_handlers (void);
void ucb_restore_interrupt_handlers (void);
/* The signal number that interrupted us, or 0. */
int ucb_interrupted (void);
/* How a command ends once its work is done (`r`: 0 or < 0 with `err` set): as it was without
 * a signal; after one, -1 with exit status 128 + N, and when the work had succeeded the error
 * "interrupted by signal N" followed by `done` (what was finished first, e.g. ": the output
 * was written first"; "" for nothing). */
int ucb_interrupted_status (int r, const char *done, ucb_error_t *err);
/* For a section that must finish rather than stop (writing the document): SIGINT/SIGTERM/SIGHUP
 * only set the flag (with SA_RESTART) whatever was installed; `saved` holds the dispositions
 * before, for ucb_interrupts_resume().  The caller checks ucb_interrupted() afterwards. */
struct ucb_interrupt_saved
{
  struct sigaction old[3];
};
void ucb_interrupts_defer (struct ucb_interrupt_saved *saved);
void ucb_interrupts_resume (const struct ucb_interrupt_saved *saved);

/* Make orphaned descendants our children (PR_SET_CHILD_SUBREAPER), so that the fleet can
 * reap every process it made, not only the owners. */
int ucb_become_subreaper (ucb_error_t *err) __attribute__ ((warn_unused_result));

/* Die with our parent (SIGKILL), and check it is still `expected_parent`; a credential change
 * clears the setting, so it is armed again after every one.  The error names `parent_name`. */
int ucb_arm_pdeathsig (pid_t expected_parent, const char *parent_name, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
