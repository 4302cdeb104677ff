/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flags.h - what plot and export say of a sweep point (a group of repeats) whose numbers are
 * not clean data.  Whether a repeat is flagged, and why, is ucb_point_flags (model.h) alone, so
 * a flag the model learns reaches every output with no change here. */
#ifndef UCB_FLAGS_H
#define UCB_FLAGS_H

#include <stddef.h>

#include "report/model.h"

/* Room for every flag the model knows, each once, as a list. */
#define UCB_FLAGS_MAX (2 * UCB_POINT_FLAGS_MAX)
/* Room for ucb_flags_text. */
#define UCB_FLAGS_TEXT_MAX (UCB_FLAGS_MAX + 48)

struct ucb_flags
{
  char list[UCB_FLAGS_MAX]; /* "starved,contended": each flag of any repeat once, in the order
                             * first seen; "" when every repeat is clean */
  size_t n_flagged;         /* measured repeats with a flag */
  size_t n_measured;        /* measured repeats */
};

/* Count the measured repeat `p` into `f` (a zeroed one to start). */
void ucb_flags_add (struct ucb_flags *f, const struct ucb_doc_point *p);
/* The flags of each group of `d` over its measured repeats: d->n_groups entries (free it). */
struct ucb_flags *ucb_flags_of_groups (const struct ucb_doc *d);
/* "contended", or "contended in 1 of 3 repeats" when not every repeat is flagged; "" when
 * clean. */
void ucb_flags_text (const struct ucb_flags *f, char *buf, size_t len);

#endif
