/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-reader.h - private to seccomp-profile.c and seccomp-fields.c (with libseccomp only):
 * one Docker-format profile being read into a libseccomp filter context (the size of its
 * program: host/seccomp-size.h; what it must let through: host/seccomp.h). */
#ifndef UCB_SECCOMP_READER_H
#define UCB_SECCOMP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <seccomp.h>

#include "core/error.h"
#include "host/seccomp-size.h"
#include "host/seccomp.h"

#define UCB_SECCOMP_LOC_MAX 96 /* "syscalls[123].includes.arches[4]" and the like */

/* Capability names of includes/excludes that libcap does not know: no container holds them
 * (as in Docker), said once, on one warning line, since they are a typo or a capability newer
 * than this libcap. */
struct ucb_seccomp_names
{
  unsigned n;
  char list[256]; /* "CAP_A, CAP_B" (cut with ", ..." to stay one line) */
};

struct ucb_seccomp_reader
{
  const char *file; /* the path, or "docker" */
  const struct ucb_seccomp_opts *o;
  uint32_t native;         /* SCMP_ARCH_* value */
  const char *native_name; /* its SCMP_ARCH_ name, or NULL */
  unsigned kmaj, kmin;     /* running kernel, "6.12" of uname's release */
  bool kernel_known;
  scmp_filter_ctx ctx;
  uint32_t default_action;
  struct ucb_seccomp_stats *st;
  struct ucb_seccomp_check check;
  struct ucb_seccomp_size size;
  struct ucb_seccomp_names *caps_unknown; /* written while reading (the reader is const there) */
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
/* `o[key]` as a libseccomp action; `errno_key` holds its errno (ERRNO) or message (TRACE). */
int ucb_seccomp_parse_action (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                              const char *key, const char *errno_key, uint32_t *action,
                              const char **name, int *e, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* One includes or excludes object, read and evaluated.  `*any` / `*all`: whether some / every
 * condition it names holds for this container, host and kernel; a condition it does not name
 * counts as holding for `all` and not for `any`. */
int ucb_seccomp_eval_filter (const struct ucb_seccomp_reader *r, json_t *e, const char *parent,
                             const char *key, bool *any, bool *all, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
