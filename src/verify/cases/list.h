/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list.h - every hand-written verify case, once (docs/verify.md: a section for each); verify.c
 * adds the generic cells of cases/matrix-cells.c (ULIM-12, ULIM-21 ... ULIM-87) and sorts by id.
 * ULIM-07 is gone: its cells are ULIM-21, 22 and 25's, and verify.c lets its id select them. */
#define UCB_VCASES(X)                                                                              \
  X (ulim01)                                                                                       \
  X (ulim02)                                                                                       \
  X (ulim03)                                                                                       \
  X (ulim04)                                                                                       \
  X (ulim05)                                                                                       \
  X (ulim06)                                                                                       \
  X (ulim08)                                                                                       \
  X (ulim09)                                                                                       \
  X (ulim10)                                                                                       \
  X (ulim11)                                                                                       \
  X (ulim13)                                                                                       \
  X (ulim14)                                                                                       \
  X (ulim15)                                                                                       \
  X (ulim16)                                                                                       \
  X (ulim17)                                                                                       \
  X (ulim18)                                                                                       \
  X (ulim19)                                                                                       \
  X (ulim20)
