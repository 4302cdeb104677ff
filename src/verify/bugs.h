/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugs.h - the known kernel bugs that `ucbench verify` recognises: a known-bug verdict names
 * one, so that every output (TAP, the JSON document and the exporters reading it) says which
 * bug, and KCIDB files one issue per bug rather than one per case that saw it. */
#ifndef UCB_BUGS_H
#define UCB_BUGS_H

/* An index into ucb_vbugs: flat, so that it crosses the shared memory of a case's child. */
enum ucb_vbug
{
  UCB_VBUG_NONE,
  UCB_VBUG_MEMLOCK_UNITS,       /* ULIM-19 and MEMLOCK's parent and grandparent cells */
  UCB_VBUG_SIGPENDING_OVERRIDE, /* ULIM-08's container part */
  UCB_VBUG_N,
};

struct ucb_vbug_info
{
  const char *id;        /* stable, [a-z0-9-]: KCIDB's issue id and LAVA's name carry it */
  const char *title;     /* one line */
  const char *reference; /* the commit or report that introduced or fixed it; no parentheses */
  const char *url;       /* a page for it, for consumers that link (LAVA, KCIDB) */
};

/* By enum ucb_vbug; [UCB_VBUG_NONE] has NULL fields. */
extern const struct ucb_vbug_info ucb_vbugs[UCB_VBUG_N];

#endif
