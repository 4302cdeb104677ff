/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - cleanup attributes, ownership transfer and small I/O helpers. */
#ifndef UCB_UTIL_H
#define UCB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "core/error.h"

void ucb_cleanup_freep (void *p);
void ucb_cleanup_closep (int *fd);
void ucb_cleanup_filep (FILE **f);
void ucb_cleanup_pidp (pid_t *pid);

#define cleanup_free __attribute__ ((cleanup (ucb_cleanup_freep)))
#define cleanup_close __attribute__ ((cleanup (ucb_cleanup_closep)))
#define cleanup_file __attribute__ ((cleanup (ucb_cleanup_filep)))
/* SIGKILL and reap the child unless ownership was handed over (steal_pid). */
#define cleanup_pid __attribute__ ((cleanup (ucb_cleanup_pidp)))

/* Hand ownership to the caller: returns the value and clears the variable, so that its cleanup
 * has nothing left to free.  One way for every kind: a pointer, an fd (left -1), a child (left 0:
 * reaped here or someone else's to reap), a struct (left zeroed: an empty list).  Through the
 * variable's address, which is also what lets the static analyzer (`make analyze`) see the
 * clearing as used: it does not model the cleanup attribute. */
#define steal_pointer(pp)                                                                          \
  ({                                                                                               \
    __typeof__ (*(pp)) _ptr = *(pp);                                                               \
    *(pp) = NULL;                                                                                  \
    _ptr;                                                                                          \
  })
#define steal_struct(sp)                                                                           \
  ({                                                                                               \
    __typeof__ (*(sp)) _st = *(sp);                                                                \
    memset ((sp), 0, sizeof *(sp));                                                                \
    _st;                                                                                           \
  })
static inline int
steal_fd (int *fd)
{
  int r = *fd;
  *fd = -1;
  return r;
}
static inline pid_t
steal_pid (pid_t *pid)
{
  pid_t r = *pid;
  *pid = 0;
  return r;
}

#define UCB_ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

void *xcalloc (size_t n, size_t size);
void *xrealloc (void *p, size_t size);
char *xstrdup (const char *s);
char *xstrndup (const char *s, size_t n);
char *xasprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Read a whole (small) file into a NUL-terminated buffer; trailing newline stripped. */
int ucb_read_file (const char *path, char **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The file's contents as ucb_read_file gives them, or NULL where it cannot be read (a file that
 * may be absent, where the reason does not matter). */
char *ucb_read_file_or_null (const char *path);
/* Same, relative to a directory fd. */
int ucb_read_file_at (int dirfd, const char *path, char **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
int ucb_write_file_at (int dirfd, const char *path, const char *data, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* write()/read() the whole buffer, retrying on EINTR; -1 with errno on failure. */
ssize_t ucb_write_all (int fd, const void *buf, size_t len);

/* Strict unsigned integer parse: whole string, base 10, no sign, within [min, max]. */
int ucb_parse_u64 (const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Strict non-negative decimal (seconds, "1.5"): whole string, finite, within [min, max]. */
int ucb_parse_seconds (const char *s, double min, double max, double *out);

/* The index of `name` among names[0..n) (NULL entries never match), or -1: the parse of a value
 * whose names are a table indexed by its enum. */
int ucb_name_index (const char *const *names, size_t n, const char *name);

/* Write `s` escaped for XML/HTML text and attribute values (SVG, HTML, JUnit): markup as
 * references, what XML 1.0 forbids even as a reference replaced (C0 controls but tab and
 * newline as `?`; U+FFFE, U+FFFF and every byte that is no valid UTF-8, a surrogate's among
 * them, as U+FFFD).  NULL writes nothing. */
void ucb_xml_puts (FILE *f, const char *s);
/* Write `s` as ucb_escape_controls() escapes it: one line of a line-based format (the text
 * tables, TAP, KTAP, LKP, CSV), whatever the document said.  NULL writes nothing. */
void ucb_line_puts (FILE *f, const char *s);

/* Clock `c` in nanoseconds; 0 when it cannot be read (a thread clock of a gone thread). */
uint64_t ucb_clock_ns (clockid_t c);
/* Monotonic clock in nanoseconds. */
uint64_t ucb_now_ns (void);

#endif
