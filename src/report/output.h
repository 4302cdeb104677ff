/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.h - --output: checked before anything is measured, written so that nothing is lost,
 * half-written or written where it must not go. */
#ifndef UCB_OUTPUT_H
#define UCB_OUTPUT_H

#include <stddef.h>

#include <jansson.h>

#include "core/error.h"

/* Before anything is measured: would ucb_report_write_file() be able to write `path`?  A usage
 * error naming why when not: empty, a directory, a name too long, a symlink loop, a link,
 * FIFO or file of another user in a sticky world-writable directory, a FIFO nobody reads, a
 * block device, an immutable file, a place that takes no new file.  A FIFO or device is opened
 * now and kept open for the write. */
int ucb_report_check_output (const char *path, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Write with ucb_json_write() to `path`, signals deferred meanwhile: a regular file atomically
 * (an O_TMPFILE linked in and renamed over the old one), a FIFO or character device through,
 * never blocking for good (a signal while it takes no more gives the write up). */
int ucb_report_write_file (const json_t *doc, const char *path, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* The same for bytes already made (export's text formats, plot's pages): the old file or the
 * new one, never half of it. */
int ucb_report_write_bytes (const char *buf, size_t len, const char *path, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* For a document that cost a measurement (`cmd`: "run", "verify"): ucb_report_write_file(),
 * and when that fails, the document saved to a new file ucbench-CMD-YYYYMMDDTHHMMSSZ-PID.json
 * in the current directory, $TMPDIR or /tmp (else to stdout); the error (status 1) then says
 * what failed and where the document is. */
int ucb_report_write_kept (const json_t *doc, const char *path, const char *cmd, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
