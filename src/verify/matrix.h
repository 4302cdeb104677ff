/* SPDX-License-Identifier: GPL-2.0-or-later */
/* matrix.h - the property matrix of `ucbench verify` as text (docs/verify.md "The matrix"):
 * which cases cover each (rlimit, level, property) cell (--list), and the verdicts of a run
 * as an rlimit x property table (the end of the TAP output).  Pure: the unit tests render
 * fakes. */
#ifndef UCB_MATRIX_H
#define UCB_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verify/verify.h"

/* The rows: the four rlimits, then UCB_RL_NONE (the non-rlimit ucounts of ULIM-20). */
#define UCB_VMATRIX_ROWS (UCB_RL_NONE + 1)

/* Whether case `c` covers (rlimit, level, property). */
bool ucb_vcase_covers (const struct ucb_vcase *c, enum ucb_rl rlimit, enum ucb_vlevel level,
                       enum ucb_vprop prop);

/* The cases of the NULL-terminated `cases` covering each cell, by number ("01,03"), one block
 * per rlimit: a row per level, a column per property. */
void ucb_vmatrix_list (FILE *f, const struct ucb_vcase *const *cases);

/* The verdicts of `n` runs as TAP comments: a row per rlimit, a column per property, each a
 * symbol per level (own, parent, grandparent): the worst verdict of the cases run for that
 * cell (fail, error, known-bug, pass, skip), '.' where none ran. */
void ucb_vmatrix_verdicts (FILE *f, const struct ucb_vrun *v, size_t n);

#endif
