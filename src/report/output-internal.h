/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output-internal.h - what output.c (the place, the check, the write, the errors) and
 * output-temp.c (the atomic replacement of a regular file: errno, no error values) share;
 * nothing else includes it. */
#ifndef UCB_OUTPUT_INTERNAL_H
#define UCB_OUTPUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Where --output leads: the entry `name` of the directory `dirfd`, once every link is
 * followed. */
struct ucb_output_place
{
  const char *path; /* as given */
  char *link;       /* the last link's target as it reads, for messages; NULL: no link */
  int dirfd;        /* O_PATH */
  char *at;         /* what dirfd was reached as, for messages */
  int hops;         /* links followed so far, in the directories and at the end */
  struct stat dir;
  char *name;
  bool exists; /* st: the entry itself, not followed */
  struct stat st;
  bool magic; /* a link in /proc (/dev/stdout is /proc/self/fd/1): only the kernel follows it */
  bool usage; /* errors are the user's to fix: found by the check, before anything was done */
};

/* Open a temporary in p's directory: unnamed (*named NULL) where the filesystem can, else
 * named NAME.ucbench-tmp-PID-N; -1 with errno on failure. */
int ucb_output_open_temp (const struct ucb_output_place *p, char **named);
/* The bytes into a temporary next to p's entry, then in its place; -1 with errno on failure,
 * and *what the step that failed when not the write itself. */
int ucb_output_write_atomic (const struct ucb_output_place *p, const char *buf, size_t len,
                             const char **what) __attribute__ ((warn_unused_result));

#endif
