/* list.h - every verify case, once, in ID order (docs/verify.md has one section each). */
#define UCB_VCASES(X)                                                                              \
  X (ulim01)                                                                                       \
  X (ulim02)                                                                                       \
  X (ulim03)                                                                                       \
  X (ulim04)                                                                                       \
  X (ulim05)                                                                                       \
  X (ulim06)                                                                                       \
  X (ulim07)                                                                                       \
  X (ulim08)                                                                                       \
  X (ulim09)                                                                                       \
  X (ulim10)                                                                                       \
  X (ulim11)                                                                                       \
  X (ulim12)                                                                                       \
  X (ulim13)                                                                                       \
  X (ulim14)                                                                                       \
  X (ulim15)                                                                                       \
  X (ulim16)                                                                                       \
  X (ulim17)                                                                                       \
  X (ulim18)                                                                                       \
  X (ulim19)                                                                                       \
  X (ulim20)
