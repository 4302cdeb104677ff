/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.h - errors as values (crun style): code + message, wrapped with context on the way up. */
#ifndef UCB_ERROR_H
#define UCB_ERROR_H

#include <stddef.h>

/* One error: `code` is an errno value (0 when none applies), `msg` the full message with
 * context.  `status` is the process exit status the CLI uses for it: 1 for runtime failures,
 * 2 for bad usage.  Functions that can fail take `ucb_error_t *err` last and return < 0. */
struct ucb_error_s
{
  int code;
  int status;
  char *msg;
};
typedef struct ucb_error_s *ucb_error_t;

#define UCB_EXIT_FAILURE 1
#define UCB_EXIT_USAGE 2

int ucb_make_error (ucb_error_t *err, int code, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* A usage error (exit status 2); never carries an errno. */
int ucb_usage_error (ucb_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* Prefix the existing message with context: "context: old message"; not when the message
 * already starts with it ("--cgroup" before "--cgroup=X: ..." or "--cgroup needs ..."). */
int ucb_error_wrap (ucb_error_t *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* The three always return -1, and say so where they are called: `return ucb_make_error (...)`
 * then fails for the compiler and the static analyzer too (`make analyze`), which cannot see
 * into error.c. */
#define UCB_FAILED(call)                                                                           \
  ({                                                                                               \
    call;                                                                                          \
    -1;                                                                                            \
  })
#define ucb_make_error(...) UCB_FAILED (ucb_make_error (__VA_ARGS__))
#define ucb_usage_error(...) UCB_FAILED (ucb_usage_error (__VA_ARGS__))
#define ucb_error_wrap(...) UCB_FAILED (ucb_error_wrap (__VA_ARGS__))
void ucb_error_free (ucb_error_t *err);
/* Out of memory: write a fixed message (no allocation) and abort.  Here, not in util.c, so
 * that errors need nothing above them (util.c builds on errors). */
__attribute__ ((noreturn)) void ucb_oom (void);
/* The length of the valid UTF-8 sequence at `p` (1 for ASCII), 0 for none: a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short. */
size_t ucb_utf8_len (const unsigned char *p);
/* `s` fit for one line, of a terminal or of any line-based format (TAP, KTAP, LKP, CSV, the
 * text tables): its control characters as C escapes (\n, \t, \r, \x1b for the others), the
 * C1 controls U+0080..U+009F and the separators U+2028, U+2029 as the bytes of their UTF-8 form
 * (\xc2\x85, \xe2\x80\xa8), and a byte that starts no valid UTF-8 sequence as \xHH: no line
 * break that any reader knows is left (Python's str.splitlines() also breaks at \v, \f,
 * \x1c..\x1e, U+0085, U+2028 and U+2029).  Backslashes are kept, so that a string escaped
 * twice reads the same.  Every message of an error goes through it: a value quoted in one (an
 * option's, a file name, a document's string) keeps it one line.  Freshly allocated. */
char *ucb_escape_controls (const char *s);
/* Print "ucbench: msg[: strerror]" to stderr, free, and return the exit status to use. */
int ucb_error_report (ucb_error_t *err);

/* An error serialised to cross a process boundary (clone/fork).  Fixed size so it fits one
 * SOCK_SEQPACKET datagram; the message is truncated, never overrun. */
#define UCB_WIRE_MSG_MAX 480
struct ucb_wire_error
{
  int code;
  int status;
  char msg[UCB_WIRE_MSG_MAX];
};
void ucb_error_to_wire (const ucb_error_t *err, struct ucb_wire_error *w);
int ucb_error_from_wire (ucb_error_t *err, const struct ucb_wire_error *w);

#endif
