/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - the result document (jansson) and the text table drawn from it.
 *
 * Every number a user sees is derived here from the raw readings, once; the text table reads
 * the document (through the model, report/model.h), so the two can never disagree. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json-util.h"
#include "core/process.h"
#include "core/stats.h"
#include "core/util.h"
#include "core/version.h"
#include "report/model.h"
#include "report/report.h"

void
ucb_report_scalability (json_t *results)
{
  struct ucb_doc d;

  /* Once over the points (no rescan per point): the series and their 1-container medians. */
  if (ucb_doc_built (results, &d))
    {
      cleanup_free double *scal = xcalloc (d.n_points + 1, sizeof *scal);
      ucb_doc_scalability (&d, scal);
      for (size_t i = 0; i < d.n_points; i++)
        if (isfinite (scal[i]))
          ucb_json_set (json_object_get (d.points[i].json, "summary"), "scalability",
                        ucb_json_real (scal[i]));
      ucb_doc_free (&d);
    }
}

json_t *
ucb_report_document (int argc, char **argv, double start_realtime, double duration_s, json_t *host,
                     json_t *config, json_t *results)
{
  json_t *doc = ucb_json_obj (), *tool = ucb_json_obj (), *run = ucb_json_obj (),
         *av = ucb_json_arr ();
  char when[64] = "";
  time_t secs = (time_t) start_realtime;
  struct tm tm;

  if (gmtime_r (&secs, &tm))
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  ucb_json_push (av, ucb_json_str (PACKAGE_NAME)); /* argv holds the subcommand onwards */
  for (int i = 0; i < argc; i++)
    ucb_json_push (av, ucb_json_str (argv[i]));
  ucb_json_set (tool, "name", ucb_json_str (PACKAGE_NAME));
  ucb_json_set (tool, "version", ucb_json_str (ucb_version));
  ucb_json_set (run, "start_time", ucb_json_str (when));
  ucb_json_set (run, "start_epoch_s", ucb_json_int ((long long) start_realtime));
  ucb_json_set (run, "duration_s", ucb_json_real (duration_s));
  ucb_json_set (run, "argv", av);
  ucb_json_set (doc, "schema", ucb_json_str (UCB_SCHEMA));
  ucb_json_set (doc, "tool", tool);
  ucb_json_set (doc, "run", run);
  ucb_json_set (doc, "host", host ? host : json_null ());
  ucb_json_set (doc, "config", config);
  ucb_json_set (doc, "results", results);
  return doc;
}

/* Not a regular file (a pipe, a terminal, /dev/stdout): write through it; renaming a
 * temporary over it would replace the device node or the symlink itself. */
/* What goes into the file: a JSON document, or bytes already made (export's text formats,
 * plot's HTML and SVG). */
struct content
{
  const json_t *doc;
  const char *buf;
  size_t len;
};

static int
put (const struct content *c, FILE *f, ucb_error_t *err)
{
  if (c->doc)
    return ucb_json_write (c->doc, f, err);
  if (fwrite (c->buf, 1, c->len, f) != c->len || fflush (f) != 0)
    return ucb_make_error (err, errno ? errno : EIO, "write");
  return 0;
}

static int
write_direct (const struct content *doc, const char *path, ucb_error_t *err)
{
  cleanup_file FILE *f = fopen (path, "we");

  if (f == NULL)
    return ucb_make_error (err, errno, "open `%s`", path);
  if (put (doc, f, err) < 0)
    return ucb_error_wrap (err, "`%s`", path);
  if (fclose (steal_pointer (&f)) != 0)
    return ucb_make_error (err, errno, "write `%s`", path);
  return 0;
}

/* Where the document for `path` goes: written directly (a pipe, a terminal, another
 * non-regular file, a dangling symlink: NULL), or through a temporary next to the returned
 * file (a new or regular one; a symlink's target, not the link). */
static char *
atomic_target (const char *path, struct stat *st, bool *exists)
{
  char *real = NULL;

  *exists = stat (path, st) == 0;
  if (*exists)
    {
      if (!S_ISREG (st->st_mode))
        return NULL;
      real = realpath (path, NULL);
    }
  else if (lstat (path, st) == 0 && S_ISLNK (st->st_mode))
    return NULL;
  return real ? real : xstrdup (path);
}

/* ---- the temporary ------------------------------------------------------------------------ *
 * An unnamed file (O_TMPFILE) in the target's directory, linked in when complete: a crash at
 * any point leaves no file behind.  A name exists only for the instant between linking and
 * renaming over an old document, or for the whole write where the filesystem has no
 * O_TMPFILE; that name, TARGET.ucbench-tmp-PID-N, tells whether its ucbench still lives. */

#define TMP_TAG ".ucbench-tmp-"

/* A fresh name for a temporary of `real` (n: tried so far). */
static char *
tmp_name (const char *real, unsigned n)
{
  return xasprintf ("%s" TMP_TAG "%ld-%u", real, (long) getpid (), n);
}

/* Remove the temporaries of `real` left by a ucbench that died (SIGKILL, a crash) while it
 * wrote; those of a live process are its business. */
static void
clean_stale (const char *real)
{
  cleanup_free char *copy = xstrdup (real), *copy2 = xstrdup (real);
  cleanup_free char *prefix = xasprintf ("%s" TMP_TAG, basename (copy2));
  size_t len = strlen (prefix);
  DIR *dir = opendir (dirname (copy));
  struct dirent *e;

  if (dir == NULL)
    return;
  while ((e = readdir (dir)) != NULL)
    {
      char *end;
      long pid;

      if (strncmp (e->d_name, prefix, len) != 0)
        continue;
      errno = 0;
      pid = strtol (e->d_name + len, &end, 10);
      if (errno || end == e->d_name + len || *end != '-' || pid <= 0 || pid == (long) getpid ())
        continue;
      if (kill ((pid_t) pid, 0) < 0 && errno == ESRCH)
        unlinkat (dirfd (dir), e->d_name, 0);
    }
  closedir (dir);
}

/* Open the temporary of `real`: unnamed (*named NULL) where the filesystem can, else named. */
static int
open_temp (const char *real, char **named)
{
  cleanup_free char *copy = xstrdup (real);
  int fd = open (dirname (copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);

  *named = NULL;
  /* EOPNOTSUPP: this filesystem has none; EISDIR: this kernel has none. */
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
    return fd;
  for (unsigned n = 0; n < 1000; n++)
    {
      *named = tmp_name (real, n);
      fd = open (*named, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
      if (fd >= 0 || errno != EEXIST)
        break;
      free (steal_pointer (named));
    }
  if (fd < 0)
    {
      int e = errno;
      free (steal_pointer (named));
      errno = e;
    }
  return fd;
}

/* Give the unnamed file `fd` the name `to` (EEXIST when taken). */
static int
link_unnamed (int fd, const char *to)
{
  char proc[64];

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat (AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) == 0)
    return 0;
  if (errno != ENOENT)
    return -1;
  /* No /proc: the same by descriptor, which needs CAP_DAC_READ_SEARCH. */
  return linkat (fd, "", AT_FDCWD, to, AT_EMPTY_PATH);
}

/* Put the complete temporary in place of `real`: rename a named one; link an unnamed one, to
 * `real` itself when there is none yet, else to a fresh name renamed over it (a link cannot
 * replace a file). */
static int
publish (int fd, const char *named, const char *real)
{
  cleanup_free char *tmp = NULL;
  int e;

  if (named)
    return rename (named, real);
  if (link_unnamed (fd, real) == 0)
    return 0;
  if (errno != EEXIST)
    return -1;
  for (unsigned n = 0; tmp == NULL && n < 1000; n++)
    {
      tmp = tmp_name (real, n);
      if (link_unnamed (fd, tmp) < 0)
        {
          free (steal_pointer (&tmp));
          if (errno != EEXIST)
            return -1;
        }
    }
  if (tmp == NULL)
    return -1;
  if (rename (tmp, real) == 0)
    return 0;
  e = errno;
  unlink (tmp);
  errno = e;
  return -1;
}

int
ucb_report_check_output (const char *path, ucb_error_t *err)
{
  struct stat st;
  bool exists;
  cleanup_free char *real = atomic_target (path, &st, &exists);
  cleanup_free char *named = NULL;
  int fd;

  if (exists && S_ISDIR (st.st_mode))
    return ucb_usage_error (err, "cannot write --output `%s`: it is a directory", path);
  if (real == NULL)
    {
      /* A pipe or device must take writes now; a dangling link's target is made at the end. */
      if (exists && access (path, W_OK) < 0)
        return ucb_usage_error (err, "cannot write --output `%s`: %s", path, strerror (errno));
      return 0;
    }
  /* The temporary the writer will make, made and dropped now: a directory that takes no new
   * file (/proc, sysfs, read-only) fails here, before anything is measured. */
  fd = open_temp (real, &named);
  if (fd < 0)
    return ucb_usage_error (err, "cannot write --output `%s`: cannot create a file next to it: %s",
                            path, strerror (errno));
  close (fd);
  if (named)
    unlink (named);
  return 0;
}

/* The document into a temporary next to `real`, then in its place. */
static int
write_atomic (const struct content *doc, const char *path, const char *real, ucb_error_t *err)
{
  cleanup_free char *named = NULL;
  cleanup_file FILE *f = NULL;
  int fd = open_temp (real, &named), e;

  if (fd < 0)
    return ucb_make_error (err, errno, "create a temporary file next to `%s`", path);
  f = fdopen (fd, "w");
  if (f == NULL)
    {
      e = errno;
      close (fd);
    }
  else if (put (doc, f, err) < 0)
    e = -1;
  else if (fchmod (fd, 0644) == 0 && fsync (fd) == 0 && publish (fd, named, real) == 0)
    return fclose (steal_pointer (&f)) == 0 ? 0 : ucb_make_error (err, errno, "close `%s`", path);
  else
    e = errno;
  if (named)
    unlink (named);
  return e < 0 ? ucb_error_wrap (err, "`%s`", path) : ucb_make_error (err, e, "write `%s`", path);
}

static int
write_file (const struct content *doc, const char *path, ucb_error_t *err)
{
  struct ucb_interrupt_saved saved;
  struct stat st;
  bool exists;
  cleanup_free char *real = atomic_target (path, &st, &exists);
  int r;

  /* A signal now is noted, not obeyed: the document is finished (or the old one left), and
   * the caller, seeing ucb_interrupted(), ends as an interrupted run. */
  ucb_interrupts_defer (&saved);
  if (real == NULL)
    r = write_direct (doc, path, err);
  else
    {
      clean_stale (real);
      r = write_atomic (doc, path, real, err);
    }
  ucb_interrupts_resume (&saved);
  return r;
}

int
ucb_report_write_file (const json_t *doc, const char *path, ucb_error_t *err)
{
  const struct content c = { .doc = doc };

  return write_file (&c, path, err);
}

int
ucb_report_write_bytes (const char *buf, size_t len, const char *path, ucb_error_t *err)
{
  const struct content c = { .buf = buf, .len = len };

  return write_file (&c, path, err);
}

/* A number for the table: "-" for null (NaN), as JSON has it. */
static const char *
cell (char *buf, size_t len, int decimals, double v)
{
  if (!isfinite (v))
    return "-";
  snprintf (buf, len, "%.*f", decimals, v);
  return buf;
}

/* Every column with the key of its results[] entry (the JSON and CSV name), and `-`. */
static const char ucb_report_legend[]
    = "(workload, owner, depth: the same keys; N = containers, each running `tasks` tasks)\n"
      "(ops/s/cont = summary.per_container_ops = total/N; total ops/s = summary.total_ops_per_s)\n"
      "(±% = summary.cv x 100, the spread across containers; fairness = summary.fairness, 1 = "
      "equal)\n"
      "(scale = summary.scalability = total/(N x 1-container total); failed = summary.failed_ops)\n"
      "(cpu ns/op = summary.cpu_ns_per_op, the median of the containers' CPU time per op)\n"
      "(cpu = contention.cpu_share_median, the median share of a CPU each task got)\n"
      "(* = not clean data, then why: contended, starved or speed-moved)\n"
      "(contended = contention.contended: tasks got under the threshold x their fair share)\n"
      "(starved = contention.starved: a container did under contention.starved_min_ops ops)\n"
      "(speed-moved = canary.moved: the host's own speed changed across the window)\n"
      "(- = null: ±% with one container, scale without a 1-container point, no clock read)\n";

void
ucb_report_text (FILE *f, const json_t *doc)
{
  struct ucb_doc d;

  fprintf (f, "%-9s %-9s %5s %5s %14s %6s %14s %7s %8s %9s %5s %7s\n", "workload", "owner", "depth",
           "N", "ops/s/cont", "±%", "total ops/s", "scale", "fairness", "cpu ns/op", "cpu",
           "failed");
  if (!ucb_doc_built ((json_t *) doc, &d))
    return;
  for (size_t i = 0; i < d.n_points; i++)
    {
      const struct ucb_doc_point *p = &d.points[i];
      const struct ucb_doc_summary *s = &p->sum;
      char b[7][32], flags[UCB_POINT_FLAGS_MAX];

      fprintf (f, "%-9s %-9s %5lld %5lld ", p->workload, p->owner, p->depth, p->containers);
      if (strcmp (p->status, "ok") != 0)
        {
          fprintf (f, "%s: %s\n", p->status, p->reason);
          continue;
        }
      fprintf (
          f, "%14s %6s %14s %7s %8s %9s %5s %7lld%s%s\n",
          cell (b[0], sizeof b[0], 0, s->per_container_ops),
          cell (b[1], sizeof b[1], 1, s->cv * 100), cell (b[2], sizeof b[2], 0, s->total_ops_per_s),
          cell (b[3], sizeof b[3], 3, s->scalability), cell (b[4], sizeof b[4], 3, s->fairness),
          cell (b[5], sizeof b[5], 1, s->cpu_ns_per_op),
          cell (b[6], sizeof b[6], 2, p->contention.cpu_share_median), s->failed_ops,
          ucb_point_flags (p, flags, sizeof flags) ? " * " : "", flags);
    }
  ucb_doc_free (&d);
  fputs (ucb_report_legend, f);
  ucb_report_l3_text (f, json_object_get (doc, "l3_scaling"));
}

/* Over the contended points: how many, the median of their CPU shares, the worst steal and
 * idle. */
struct busy
{
  size_t contended, measured;
  double steal_max, idle_min;
};

char *
ucb_report_contention_note (json_t *results)
{
  struct ucb_doc d;
  struct busy b = { .steal_max = NAN, .idle_min = NAN };
  cleanup_free double *shares = NULL;
  size_t nshares = 0;
  char steal[48] = "", idle[48] = "";

  if (!ucb_doc_built (results, &d))
    return NULL;
  shares = xcalloc (d.n_points + 1, sizeof *shares);
  for (size_t i = 0; i < d.n_points; i++)
    {
      const struct ucb_doc_contention *c = &d.points[i].contention;

      b.measured += d.points[i].measured;
      if (!d.points[i].measured || !c->contended)
        continue;
      b.contended++;
      if (isfinite (c->cpu_share_median))
        shares[nshares++] = c->cpu_share_median;
      if (isfinite (c->steal_pct_max) && !(c->steal_pct_max <= b.steal_max))
        b.steal_max = c->steal_pct_max;
      if (isfinite (c->idle_pct_min) && !(c->idle_pct_min >= b.idle_min))
        b.idle_min = c->idle_pct_min;
    }
  ucb_doc_free (&d);
  if (b.contended == 0)
    return NULL;
  if (isfinite (b.steal_max))
    snprintf (steal, sizeof steal, "; steal up to %.0f%%", b.steal_max);
  if (isfinite (b.idle_min))
    snprintf (idle, sizeof idle, "%sidle down to %.0f%%", *steal ? ", " : "; ", b.idle_min);
  return xasprintf ("the host was busy: %zu of %zu measured points contended (their tasks got a "
                    "median %.2g of a CPU%s%s): their numbers are not comparable; rerun on a quiet "
                    "machine, with fewer containers, or with --repeat to see the spread",
                    b.contended, b.measured, ucb_median (shares, nshares), steal, idle);
}

char *
ucb_report_starved_note (json_t *results)
{
  struct ucb_doc d;
  size_t starved = 0, measured = 0;
  long long containers = 0, of = 0;
  double need = 0;

  if (!ucb_doc_built (results, &d))
    return NULL;
  for (size_t i = 0; i < d.n_points; i++)
    {
      const struct ucb_doc_point *p = &d.points[i];

      measured += p->measured;
      if (!p->measured || !p->contention.starved)
        continue;
      starved++;
      containers += p->contention.starved_containers;
      of += p->containers;
      if (isfinite (p->contention.window_needed_s) && p->contention.window_needed_s > need)
        need = p->contention.window_needed_s;
    }
  ucb_doc_free (&d);
  if (starved == 0)
    return NULL;
  return xasprintf ("%zu of %zu measured points starved (%lld of their %lld containers did too "
                    "few ops in the window to measure): their numbers say when tasks got their "
                    "turn, not what they can do; rerun with --duration %.0fs or more (a few "
                    "scheduler slices for every task) or with fewer containers",
                    starved, measured, containers, of, ceil (fmax (need, 1)));
}
