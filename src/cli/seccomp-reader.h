/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-reader.h - private to seccomp-profile.c and seccomp-fields.c: one Docker-format
 * profile being read from JSON into its C form (host/seccomp.h). */
#ifndef UCB_SECCOMP_READER_H
#define UCB_SECCOMP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/error.h"
#include "host/seccomp.h"

#define UCB_SECCOMP_LOC_MAX 96 /* "syscalls[123].includes.arches[4]" and the like */

struct ucb_seccomp_reader
{
  const char *file; /* the path, or "docker" */
};

/* seccomp-fields.c: the members of the profile's objects, each refused with the file and its
 * JSON location (a usage error) when of the wrong kind. */
__attribute__ ((format (printf, 4, 5))) int ucb_seccomp_bad (const struct ucb_seccomp_reader *r,
                                                             ucb_error_t *err, const char *loc,
                                                             const char *fmt, ...);
/* Always -1, visibly (as ucb_make_error, core/error.h). */
#define ucb_seccomp_bad(...) UCB_FAILED (ucb_seccomp_bad (__VA_ARGS__))
/* A location into `buf` (UCB_SECCOMP_LOC_MAX bytes): cut if ever deeper, never overrun. */
__attribute__ ((format (printf, 2, 3))) const char *ucb_seccomp_locf (char *buf, const char *fmt,
                                                                      ...);
/* "parent.key" ("key" at the top level) into `buf`. */
const char *ucb_seccomp_join (char *buf, const char *parent, const char *key);
int ucb_seccomp_want_object (const struct ucb_seccomp_reader *r, const json_t *v, const char *loc,
                             ucb_error_t *err) __attribute__ ((warn_unused_result));
/* Optional members (absent and null alike): NULL, or the string; an integer within [min, max]
 * (`*out` unchanged when absent); an array, each element a string if `strings`. */
int ucb_seccomp_get_string (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                            const char *key, bool required, const char **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_seccomp_get_int (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                         const char *key, long long min, long long max, bool *present,
                         long long *out, ucb_error_t *err) __attribute__ ((warn_unused_result));
int ucb_seccomp_get_array (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                           const char *key, bool strings, json_t **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* `o[key]` as an action; `errno_key` holds its errno (ERRNO) or message (TRACE). */
int ucb_seccomp_parse_action (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                              const char *key, const char *errno_key, struct ucb_seccomp_action *a,
                              ucb_error_t *err) __attribute__ ((warn_unused_result));
/* One includes or excludes object, read into `c` (all zero when absent). */
int ucb_seccomp_read_cond (const struct ucb_seccomp_reader *r, json_t *e, const char *parent,
                           const char *key, struct ucb_seccomp_cond *c, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The ucb_seccomp_arches index of an SCMP_ARCH_ name; -1 if there is no such name. */
int ucb_seccomp_arch_index (const char *name);
/* A copy of an array of strings, and its length. */
char **ucb_seccomp_strings (json_t *a, size_t *n);

#endif
