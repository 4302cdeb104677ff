/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc-file.c - reading a ucbench-result document from a file, with one-line errors for bad input;
 * model.c checks what is inside. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/process.h"
#include "core/util.h"
#include "report/doc-file.h"
#include "report/schema.h"

#define MAX_DOC_BYTES (512ull << 20) /* far above any real sweep; refuses runaway input */
/* How long a named FIFO may go without a writer: one started beside ucbench opens it within
 * milliseconds even on a loaded host, and a FIFO nobody writes then fails in seconds instead
 * of hanging.  Once a writer has it open, its pace is its own (`<(ucbench run ...)` takes as
 * long as the sweep). */
#define FIFO_WRITER_WAIT_MS 10000
#define FIFO_POLL_MS 100

/* The input as jansson reads it (json_load_callback): every byte counted, so a pipe or a FIFO
 * meets the cap of a regular file while it is read, not after. */
struct doc_in
{
  int fd;
  bool fifo;   /* read() says EOF while no writer has opened it yet */
  bool writer; /* a writer was seen: now EOF is the end */
  unsigned long long bytes;
  enum
  {
    IN_OK,
    IN_TOO_BIG,
    IN_NO_WRITER,
    IN_INTERRUPTED,
    IN_ERRNO,
  } why;
  int errnum;
  int waited_ms;
  char buf[65536];
  size_t at, len;
};

/* Wait for input on a FIFO that has had no writer: a writer's data or its close (POLLIN,
 * POLLHUP), or one that opens it and writes nothing yet (read() then says EAGAIN, not EOF).
 * In slices, to see the last; -1 after FIFO_WRITER_WAIT_MS. */
static int
wait_writer (struct doc_in *in)
{
  struct pollfd p = { .fd = in->fd, .events = POLLIN };
  int n;

  if (in->waited_ms >= FIFO_WRITER_WAIT_MS)
    {
      in->why = IN_NO_WRITER;
      return -1;
    }
  n = poll (&p, 1, FIFO_POLL_MS);
  if (n < 0 && errno != EINTR)
    {
      in->why = IN_ERRNO;
      in->errnum = errno;
      return -1;
    }
  if (n < 0 && ucb_interrupted ())
    {
      in->why = IN_INTERRUPTED;
      return -1;
    }
  if (n > 0 && (p.revents & POLLHUP))
    in->writer = true; /* it came and went: what it wrote is there, then EOF */
  if (n == 0)
    in->waited_ms += FIFO_POLL_MS;
  return 0;
}

/* Wait for more from a writer (or a terminal), as long as it takes. */
static int
wait_data (struct doc_in *in)
{
  struct pollfd p = { .fd = in->fd, .events = POLLIN };

  if (poll (&p, 1, -1) >= 0 || (errno == EINTR && !ucb_interrupted ()))
    return 0;
  in->why = errno == EINTR ? IN_INTERRUPTED : IN_ERRNO;
  in->errnum = errno;
  return -1;
}

/* Fill in->buf: its length, 0 at the end, -1 on a failure said in in->why. */
static ssize_t
fill (struct doc_in *in)
{
  for (;;)
    {
      ssize_t n = read (in->fd, in->buf, sizeof in->buf);

      if (n > 0)
        {
          in->writer = true;
          in->bytes += (unsigned long long) n;
          if (in->bytes <= MAX_DOC_BYTES)
            return n;
          in->why = IN_TOO_BIG;
          return -1;
        }
      if (n == 0 && (!in->fifo || in->writer))
        return 0;
      if (n == 0)
        {
          if (wait_writer (in) < 0)
            return -1;
          continue;
        }
      if (errno == EAGAIN)
        {
          in->writer = true; /* open for writing: read() says EAGAIN, not EOF */
          if (wait_data (in) < 0)
            return -1;
          continue;
        }
      if (errno == EINTR && !ucb_interrupted ())
        continue;
      in->why = errno == EINTR ? IN_INTERRUPTED : IN_ERRNO;
      in->errnum = errno;
      return -1;
    }
}

static size_t
read_cb (void *buffer, size_t len, void *arg)
{
  struct doc_in *in = arg;

  if (in->at == in->len)
    {
      ssize_t n = fill (in);

      if (n <= 0)
        return n == 0 ? 0 : (size_t) -1; /* jansson takes both for the end */
      in->at = 0;
      in->len = (size_t) n;
    }
  if (len > in->len - in->at)
    len = in->len - in->at;
  memcpy (buffer, in->buf + in->at, len);
  in->at += len;
  return len;
}

/* What made reading stop, as the usage error naming `path`. */
static int
input_error (const char *path, const struct doc_in *in, ucb_error_t *err)
{
  switch (in->why)
    {
    case IN_TOO_BIG:
      return ucb_usage_error (err, "`%s`: more than %llu bytes, larger than any ucbench document",
                              path, MAX_DOC_BYTES);
    case IN_NO_WRITER:
      return ucb_usage_error (err, "`%s`: a FIFO that no process opened for writing in %d s", path,
                              FIFO_WRITER_WAIT_MS / 1000);
    case IN_INTERRUPTED:
      return ucb_make_error (err, EINTR, "`%s`: interrupted by signal %d while reading", path,
                             ucb_interrupted ());
    case IN_ERRNO:
    case IN_OK:
    default:
      return ucb_usage_error (err, "`%s`: %s", path, strerror (in->errnum));
    }
}

/* Open `path` as a document's input: a regular file within the cap, a FIFO or a character
 * device (a pipe, `/dev/stdin`), never blocking in open() (a FIFO with no writer). */
static int
open_input (const char *path, struct doc_in *in, ucb_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;

  if (fd < 0 || fstat (fd, &st) < 0)
    return ucb_usage_error (err, "`%s`: %s", path, strerror (errno));
  if (!S_ISREG (st.st_mode) && !S_ISFIFO (st.st_mode) && !S_ISCHR (st.st_mode))
    return ucb_usage_error (err, "`%s`: not a regular file", path);
  if (S_ISREG (st.st_mode) && (unsigned long long) st.st_size > MAX_DOC_BYTES)
    return ucb_usage_error (err, "`%s`: %llu bytes, larger than any ucbench document (%llu)", path,
                            (unsigned long long) st.st_size, MAX_DOC_BYTES);
  in->fifo = S_ISFIFO (st.st_mode);
  in->fd = steal_fd (&fd);
  return 0;
}

static int check_schema (const char *path, json_t *doc, json_t **out, ucb_error_t *err);

int
ucb_doc_read (const char *path, json_t **out, ucb_error_t *err)
{
  cleanup_free struct doc_in *in = xcalloc (1, sizeof *in);
  json_error_t jerr;
  json_t *doc;

  *out = NULL;
  if (open_input (path, in, err) < 0)
    return -1;
  doc = json_load_callback (read_cb, in, JSON_REJECT_DUPLICATES, &jerr);
  close (in->fd);
  /* A failure of the input, even after a whole value (the rest is read to its end). */
  if (in->why != IN_OK)
    {
      json_decref (doc);
      return input_error (path, in, err);
    }
  /* jansson gives no position when the file could not be read at all (-1). */
  if (doc == NULL && jerr.line < 0)
    return ucb_usage_error (err, "`%s`: %s", path, jerr.text);
  if (doc == NULL)
    return ucb_usage_error (err, "`%s`: not valid JSON: line %d column %d: %s", path, jerr.line,
                            jerr.column, jerr.text);
  return check_schema (path, doc, out, err);
}

/* `doc` (its reference taken over) as a ucbench-result/1 document in *out, or a usage error. */
static int
check_schema (const char *path, json_t *doc, json_t **out, ucb_error_t *err)
{
  const char *schema;
  unsigned long major;
  char *end;

  schema = json_string_value (json_object_get (doc, "schema"));
  if (!json_is_object (doc) || schema == NULL || strncmp (schema, "ucbench-result/", 15) != 0)
    {
      json_decref (doc);
      return ucb_usage_error (err, "`%s`: not a ucbench result document (no \"schema\": \"%s\")",
                              path, UCB_SCHEMA);
    }
  errno = 0;
  major = strtoul (schema + 15, &end, 10);
  if (errno || end == schema + 15 || major != 1)
    {
      /* The message first: `schema` points into the document. */
      ucb_usage_error (err, "`%s`: schema `%s` is not one this ucbench reads (%s)%s", path, schema,
                       UCB_SCHEMA, major > 1 ? ": upgrade ucbench" : "");
      json_decref (doc);
      return -1;
    }
  *out = doc;
  return 0;
}

int
ucb_doc_open (const char *path, unsigned kinds, struct ucb_doc *d, ucb_error_t *err)
{
  json_t *json;
  int ret;

  memset (d, 0, sizeof *d);
  if (ucb_doc_read (path, &json, err) < 0)
    return -1;
  ret = ucb_doc_load (json, path, kinds, d, err);
  json_decref (json);
  return ret;
}

int
ucb_doc_read_text (const char *path, char **text, size_t *len, ucb_error_t *err)
{
  cleanup_free struct doc_in *in = xcalloc (1, sizeof *in);
  cleanup_free char *buf = xcalloc (1, 1);
  size_t n = 0, cap = 1;
  ssize_t r;

  *text = NULL;
  *len = 0;
  if (open_input (path, in, err) < 0)
    return -1;
  while ((r = fill (in)) > 0)
    {
      if (n + (size_t) r + 1 > cap)
        {
          cap = 2 * (n + (size_t) r + 1);
          buf = xrealloc (buf, cap);
        }
      memcpy (buf + n, in->buf, (size_t) r);
      n += (size_t) r;
    }
  close (in->fd);
  if (r < 0)
    return input_error (path, in, err);
  buf[n] = '\0';
  *text = steal_pointer (&buf);
  *len = n;
  return 0;
}

int
ucb_doc_parse (const char *path, const char *text, size_t len, json_t **out, ucb_error_t *err)
{
  json_error_t jerr;
  json_t *doc = json_loadb (text, len, JSON_REJECT_DUPLICATES, &jerr);

  *out = NULL;
  if (doc == NULL)
    return ucb_usage_error (err, "`%s`: not valid JSON: line %d column %d: %s", path, jerr.line,
                            jerr.column, jerr.text);
  return check_schema (path, doc, out, err);
}
