/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.c - container seccomp filters: build once from a profile, load in each container. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/util.h"
#include "host/seccomp.h"

/* The profile of the filter built here (copied into every container on fork). */
static char active[256];

const char *
ucb_seccomp_active (void)
{
  return active[0] ? active : NULL;
}

#ifdef HAVE_SECCOMP
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct ucb_seccomp
{
  scmp_filter_ctx ctx;
};

int
ucb_seccomp_build (const struct ucb_seccomp_opts *o, struct ucb_seccomp **out,
                   struct ucb_seccomp_stats *st, ucb_error_t *err)
{
  cleanup_seccomp struct ucb_seccomp *s = NULL;
  cleanup_close int memfd = -1;
  struct ucb_seccomp_stats local;
  int opt = o->optimize ? o->optimize : 1, rc;
  struct stat sb;

  *out = NULL;
  if (st == NULL)
    st = &local;
  memset (st, 0, sizeof *st);
  if (o->profile == NULL || *o->profile == '\0')
    return ucb_usage_error (err, "seccomp profile: empty name (expected docker, none or a file)");
  if (opt != 1 && opt != 2)
    return ucb_usage_error (err, "seccomp optimize level %d: expected 1 or 2", o->optimize);
  s = xcalloc (1, sizeof *s);
  if (ucb_seccomp_profile_read (o, opt, &s->ctx, st, err) < 0)
    return -1;

  /* The program's size, from the generator seccomp_load uses; this also primes libseccomp's
   * kernel probes here, so the containers do not each repeat them. */
  memfd = memfd_create ("ucb-seccomp-bpf", MFD_CLOEXEC);
  if (memfd < 0)
    return ucb_make_error (err, errno, "memfd_create");
  rc = seccomp_export_bpf (s->ctx, memfd);
  if (rc < 0)
    return ucb_make_error (err, -rc, "seccomp_export_bpf");
  if (fstat (memfd, &sb) < 0)
    return ucb_make_error (err, errno, "fstat memfd");
  st->bpf_insns = (unsigned) ((size_t) sb.st_size / 8); /* sizeof (struct sock_filter) */

  snprintf (active, sizeof active, "%s", o->profile);
  *out = steal_pointer (&s);
  return 0;
}
int
ucb_seccomp_load (const struct ucb_seccomp *s, uint64_t *load_ns, ucb_error_t *err)
{
  uint64_t t0 = ucb_now_ns ();
  int rc = seccomp_load (s->ctx);

  if (load_ns)
    *load_ns = ucb_now_ns () - t0;
  if (rc < 0)
    return ucb_make_error (err, -rc, "seccomp_load");
  return 0;
}

void
ucb_seccomp_free (struct ucb_seccomp **s)
{
  if (*s == NULL)
    return;
  if ((*s)->ctx)
    seccomp_release ((*s)->ctx);
  free (*s);
  *s = NULL;
  active[0] = '\0';
}

#else /* !HAVE_SECCOMP */

#define NO_SECCOMP "built without libseccomp: reconfigure with libseccomp-dev installed"

struct ucb_seccomp
{
  int unused;
};

int
ucb_seccomp_build (const struct ucb_seccomp_opts *o, struct ucb_seccomp **out,
                   struct ucb_seccomp_stats *st, ucb_error_t *err)
{
  *out = NULL;
  if (st)
    memset (st, 0, sizeof *st);
  return ucb_make_error (err, 0, "seccomp profile `%s`: " NO_SECCOMP, o->profile ? o->profile : "");
}

int
ucb_seccomp_load (const struct ucb_seccomp *s, uint64_t *load_ns, ucb_error_t *err)
{
  (void) s;
  if (load_ns)
    *load_ns = 0;
  return ucb_make_error (err, 0, NO_SECCOMP);
}

void
ucb_seccomp_free (struct ucb_seccomp **s)
{
  free (*s);
  *s = NULL;
}

#endif /* HAVE_SECCOMP */

json_t *
ucb_seccomp_stats_json (const struct ucb_seccomp_stats *st)
{
  json_t *o = ucb_json_obj ();

  ucb_json_set (o, "profile", ucb_json_str (st->profile));
  ucb_json_set (o, "default_action", ucb_json_str (st->default_action));
  ucb_json_set (o, "default_errno", ucb_json_int (st->default_errno));
  ucb_json_set (o, "entries", ucb_json_int (st->entries));
  ucb_json_set (o, "entries_used", ucb_json_int (st->entries_used));
  ucb_json_set (o, "entries_skipped", ucb_json_int (st->entries_skipped));
  ucb_json_set (o, "names", ucb_json_int (st->names));
  ucb_json_set (o, "names_unknown", ucb_json_int (st->names_unknown));
  ucb_json_set (o, "rules", ucb_json_int (st->rules));
  ucb_json_set (o, "arches", ucb_json_int (st->arches));
  ucb_json_set (o, "optimize", ucb_json_int (st->optimize));
  ucb_json_set (o, "bpf_insns", ucb_json_int (st->bpf_insns));
  return o;
}
