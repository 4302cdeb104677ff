/* SPDX-License-Identifier: GPL-2.0-or-later */
/* caps.h - the capabilities a container keeps (--caps), applied the way runtimes do. */
#ifndef UCB_CAPS_H
#define UCB_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

enum ucb_caps_mode
{
  UCB_CAPS_KEEP, /* nothing changed: the full set a new user namespace gives its creator */
  UCB_CAPS_DROP, /* Docker's default set */
  UCB_CAPS_LIST, /* the user's list */
};

struct ucb_caps
{
  enum ucb_caps_mode mode;
  int *keep; /* CAP_* numbers, sorted, unique (DROP: Docker's set) */
  size_t nkeep;
};

/* "keep", "drop" or a list "chown,net_raw,CAP_KILL" ("none" = the empty list). */
int ucb_caps_parse (const char *s, struct ucb_caps *c, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_caps_free (struct ucb_caps *c);
/* "cap_chown,cap_kill" (libcap's names); "" for none. */
char *ucb_caps_names (const int *caps, size_t n);
/* The caller's effective set, bit CAP_x for each held (in its own user namespace); 0 when
 * it cannot be read. */
uint64_t ucb_caps_effective (void);

/* Drop every bounding-set capability not in `keep`.  Needs CAP_SETPCAP (in the caller's user
 * namespace) only for capabilities still in the set. */
int ucb_caps_bound (const int *keep, size_t n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The whole sequence, in the process that starts the tasks: bounding set (first: dropping from
 * it needs CAP_SETPCAP, which the next steps may drop), ambient reset,
 * permitted/effective/inheritable = keep (what is held of it),
 * then no-new-privs.  Seccomp comes after, and only then the tasks. */
int ucb_caps_apply (const int *keep, size_t n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

/* For `ucbench info`: libcap's text and IAB forms of the caller's sets, and the capabilities
 * ucbench could use that the caller lacks, with what each one's absence disables. */
struct ucb_caps_missing
{
  char *name;           /* libcap's name ("cap_sys_resource") */
  const char *disables; /* a static sentence */
};
struct ucb_caps_probe
{
  char *text; /* cap_to_text of the caller's sets; NULL when they cannot be read */
  char *iab;  /* cap_iab_to_text; "" when it cannot be read */
  struct ucb_caps_missing *missing;
  size_t nmissing;
};
void ucb_caps_probe (struct ucb_caps_probe *p);
void ucb_caps_probe_free (struct ucb_caps_probe *p);

#endif
