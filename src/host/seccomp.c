/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.c - container seccomp filters: build once from a profile (its rules: seccomp-rules.c),
 * load in each container. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/seccomp-size.h"

/* The program, compiled once; each container installs it (seccomp_load would compile the
 * profile again in each: seconds for a large one). */
struct ucb_seccomp
{
  struct sock_filter *prog;
  unsigned short len;
};

static void
release_ctx (scmp_filter_ctx *c)
{
  if (*c)
    seccomp_release (*c);
}

int
ucb_seccomp_build (const struct ucb_seccomp_opts *o, struct ucb_seccomp **out,
                   struct ucb_seccomp_stats *st, ucb_error_t *err)
{
  __attribute__ ((cleanup (release_ctx))) scmp_filter_ctx ctx = NULL;
  cleanup_seccomp struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats local;
  int opt = o->optimize ? o->optimize : 1;
  unsigned min_insns = 0, len = 0;

  *out = NULL;
  if (st == NULL)
    st = &local;
  memset (st, 0, sizeof *st);
  if (o->profile == NULL)
    return ucb_make_error (err, 0, "internal: no seccomp profile given");
  if (opt != 1 && opt != 2)
    return ucb_usage_error (err, "seccomp optimize level %d: expected 1 or 2", o->optimize);
  if (ucb_seccomp_rules (o, opt, &ctx, st, &min_insns, err) < 0)
    return -1;
  /* Too big for the kernel: said before the compiler's minute where the rules tell, else
   * once compiled; never in each container. */
  if (ucb_seccomp_size_check (o->profile->file, min_insns, false, st->arches, err) < 0)
    return -1;
  s = xcalloc (1, sizeof *s);
  if (ucb_seccomp_compile (ctx, &s->prog, &len, err) < 0)
    return -1;
  st->bpf_insns = len;
  if (ucb_seccomp_size_check (o->profile->file, len, true, st->arches, err) < 0)
    return -1;
  s->len = (unsigned short) len;

  snprintf (active, sizeof active, "%s", o->profile->file);
  *out = steal_pointer (&s);
  return 0;
}

int
ucb_seccomp_load (const struct ucb_seccomp *s, uint64_t *load_ns, ucb_error_t *err)
{
  struct sock_fprog prog = { .len = s->len, .filter = s->prog };
  uint64_t t0 = ucb_now_ns ();
  int rc, e;

  /* seccomp_load with libseccomp's defaults: SCMP_FLTATR_CTL_NNP on, no TSYNC, LOG or
   * SPEC_ALLOW flag; prctl where the kernel has no seccomp() (before 3.17). */
  rc = prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (rc == 0)
    rc = (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
  if (rc < 0 && errno == ENOSYS)
    rc = prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  e = errno;
  if (load_ns)
    *load_ns = ucb_now_ns () - t0;
  if (rc < 0)
    return ucb_make_error (err, e, "install the seccomp filter (%u BPF instructions)",
                           (unsigned) s->len);
  return 0;
}

void
ucb_seccomp_free (struct ucb_seccomp **s)
{
  if (*s == NULL)
    return;
  free ((*s)->prog);
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
  return ucb_make_error (err, 0, "seccomp profile `%s`: " NO_SECCOMP,
                         o->profile ? o->profile->file : "");
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
