/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-rules.c - a profile, in its C form (host/seccomp.h), into a libseccomp filter
 * context: its architectures, the syscalls[] entries that apply to this container, host and
 * kernel (includes/excludes, as Docker evaluates them), and their rules, counted for the size
 * of the program (seccomp-size.c). */
#include "config.h"

#include <stddef.h>

#include "host/seccomp.h"

/* The names a profile gives its values, indexed by the C form's (the CLI reads them). */
const char *const ucb_seccomp_acts[UCB_SCMP_ACTS] = {
  "SCMP_ACT_ALLOW",        "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD",
  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP",  "SCMP_ACT_LOG",  "SCMP_ACT_TRACE",
};
const char *const ucb_seccomp_cmps[UCB_SCMP_CMPS] = {
  NULL,          "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",
  "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ",
};
/* The SCMP_ARCH_ names, whose lower-case tail is libseccomp's own name ("x86_64"). */
const char *const ucb_seccomp_arches[UCB_SCMP_ARCHES] = {
  "SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
  "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
  "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
  "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
  "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",     "SCMP_ARCH_LOONGARCH64",
  "SCMP_ARCH_M68K",    "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",
};

#ifdef HAVE_SECCOMP
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/capability.h>
#include <sys/utsname.h>

#include "core/util.h"
#include "host/seccomp-size.h"

_Static_assert(SCMP_CMP_NE == 1 && SCMP_CMP_MASKED_EQ == UCB_SCMP_CMPS - 1,
               "ucb_seccomp_cmps follows enum scmp_compare");

#define LOC_MAX 96 /* "syscalls[123].names[4]" and the like */

/* One profile being compiled for this container, host and kernel. */
struct rules
{
  const struct ucb_seccomp_opts *o;
  const char *file;
  scmp_filter_ctx ctx;
  uint32_t native, default_action;
  unsigned kmaj, kmin; /* running kernel, "6.12" of uname's release */
  bool kernel_known;
  struct ucb_seccomp_stats *st;
  struct ucb_seccomp_check check;
  struct ucb_seccomp_size size;
  /* Capability names of includes/excludes that libcap does not know: no container holds them
   * (as in Docker), said once, on one warning line: a typo or one newer than this libcap. */
  unsigned ncaps_unknown;
  char caps_unknown[256]; /* "CAP_A, CAP_B" (cut with ", ..." to stay one line) */
};

static uint32_t
action (const struct ucb_seccomp_action *a)
{
  static const uint32_t v[UCB_SCMP_ACTS] = {
    [UCB_SCMP_ALLOW] = SCMP_ACT_ALLOW,
    [UCB_SCMP_KILL] = SCMP_ACT_KILL_THREAD,
    [UCB_SCMP_KILL_THREAD] = SCMP_ACT_KILL_THREAD,
    [UCB_SCMP_KILL_PROCESS] = SCMP_ACT_KILL_PROCESS,
    [UCB_SCMP_TRAP] = SCMP_ACT_TRAP,
    [UCB_SCMP_LOG] = SCMP_ACT_LOG,
  };

  if (a->act == UCB_SCMP_ERRNO)
    return SCMP_ACT_ERRNO ((uint32_t) a->e);
  return a->act == UCB_SCMP_TRACE ? SCMP_ACT_TRACE ((uint32_t) a->e) : v[a->act];
}

/* libseccomp's value of ucb_seccomp_arches[i]; 0 when it does not know it. */
static uint32_t
arch_value (unsigned i)
{
  char lower[32];

  snprintf (lower, sizeof lower, "%s", ucb_seccomp_arches[i] + strlen ("SCMP_ARCH_"));
  for (char *p = lower; *p; p++)
    *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  return seccomp_arch_resolve_name (lower);
}

/* The subArchitectures of archMap's first entry for the native arch (Docker), else
 * `architectures` (older profiles, OCI): all added before the first rule (libseccomp does not
 * add existing rules to a later arch). */
static int
add_arches (struct rules *r, ucb_error_t *err)
{
  const struct ucb_seccomp_profile *p = r->o->profile;
  const unsigned *subs = p->arches;
  size_t n = p->narches, native_i = p->nmap;
  char loc[LOC_MAX];

  for (size_t i = 0; i < p->nmap && native_i == p->nmap; i++)
    if (arch_value (p->map[i].arch) == r->native)
      {
        native_i = i;
        subs = p->map[i].subs; /* none (null in the profile): the native arch alone */
        n = p->map[i].nsubs;
      }
  for (size_t i = 0; i < n; i++)
    {
      const char *name = ucb_seccomp_arches[subs[i]];
      uint32_t a = arch_value (subs[i]);
      int rc;

      if (native_i < p->nmap)
        snprintf (loc, sizeof loc, "archMap[%zu].subArchitectures[%zu]", native_i, i);
      else
        snprintf (loc, sizeof loc, "architectures[%zu]", i);
      if (a == 0)
        return ucb_usage_error (
            err,
            "seccomp profile `%s`: %s: architecture `%s` is not supported by libseccomp %u.%u.%u",
            r->file, loc, name, seccomp_version ()->major, seccomp_version ()->minor,
            seccomp_version ()->micro);
      rc = seccomp_arch_add (r->ctx, a);
      if (rc == -EEXIST) /* the native one is always there */
        continue;
      if (rc < 0)
        return ucb_make_error (err, -rc, "seccomp profile `%s`: %s: seccomp_arch_add %s", r->file,
                               loc, name);
      r->st->arches++;
    }
  return 0;
}

/* Remember a capability name libcap does not know, once. */
static void
note_unknown_cap (struct rules *r, const char *name)
{
  size_t at = strlen (r->caps_unknown), len = strlen (name);

  for (const char *p = r->caps_unknown; (p = strstr (p, name)) != NULL; p += len)
    if ((p == r->caps_unknown || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
      return;
  r->ncaps_unknown++;
  if (at + len + 8 < sizeof r->caps_unknown)
    snprintf (r->caps_unknown + at, sizeof r->caps_unknown - at, "%s%s", at ? ", " : "", name);
  else if (!strstr (r->caps_unknown, ", ..."))
    snprintf (r->caps_unknown + at, sizeof r->caps_unknown - at, ", ...");
}

static bool
holds_cap (struct rules *r, const char *name)
{
  char lower[64];
  cap_value_t v;

  /* libcap knows the lower-case names; a name it does not know is a capability nobody holds,
   * as in Docker, which compares the names with the container's list. */
  snprintf (lower, sizeof lower, "%s", name);
  for (char *p = lower; *p; p++)
    *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  if (strncmp (lower, "cap_", 4) != 0 || cap_from_name (lower, &v) < 0)
    {
      note_unknown_cap (r, name);
      return false;
    }
  for (size_t i = 0; i < r->o->ncaps; i++)
    if (r->o->caps[i] == (int) v)
      return true;
  return false;
}

/* One includes or excludes (at `loc`): whether some (`*any`) / every (`*all`) condition it
 * names holds for this container, host and kernel; one it does not name counts as holding for
 * `all` and not for `any`. */
static int
eval_cond (struct rules *r, const struct ucb_seccomp_cond *c, const char *loc, bool *any, bool *all,
           ucb_error_t *err)
{
  *any = false;
  *all = true;
  for (size_t i = 0; i < c->ncaps; i++)
    {
      bool held = holds_cap (r, c->caps[i]);
      *any = *any || held;
      *all = *all && held;
    }
  if (c->narches > 0)
    {
      bool native = false;
      for (size_t i = 0; i < c->narches; i++)
        native = native || arch_value (c->arches[i]) == r->native;
      *any = *any || native;
      *all = *all && native;
    }
  if (c->kmaj || c->kmin)
    {
      bool newer = r->kmaj > c->kmaj || (r->kmaj == c->kmaj && r->kmin >= c->kmin);
      if (!r->kernel_known)
        return ucb_make_error (err, 0,
                               "seccomp profile `%s`: %s.minKernel: cannot read the kernel version",
                               r->file, loc);
      *any = *any || newer;
      *all = *all && newer;
    }
  return 0;
}

/* One syscalls[] entry: its rules, unless includes/excludes say no. */
static int
add_entry (struct rules *r, const struct ucb_seccomp_entry *e, size_t idx, ucb_error_t *err)
{
  cleanup_free struct scmp_arg_cmp *cmp = xcalloc (e->nargs + 1, sizeof *cmp);
  char loc[LOC_MAX], cloc[2 * LOC_MAX];
  uint32_t act = action (&e->action);
  bool split = false, inc_any, inc_all, exc_any, exc_all;
  unsigned seen = 0;

  /* Two comparisons of one argument: libseccomp refuses them in one rule, so each becomes a
   * rule of its own (as runc does). */
  for (size_t k = 0; k < e->nargs; k++)
    {
      const struct ucb_seccomp_arg *a = &e->args[k];
      cmp[k] = (struct scmp_arg_cmp){ .arg = a->index,
                                      .op = (enum scmp_compare) a->op,
                                      .datum_a = (scmp_datum_t) a->value,
                                      .datum_b = (scmp_datum_t) a->two };
      split = split || (seen & (1u << a->index));
      seen |= 1u << a->index;
    }
  snprintf (loc, sizeof loc, "syscalls[%zu]", idx);
  if (eval_cond (r, &e->inc, strcat (strcpy (cloc, loc), ".includes"), &inc_any, &inc_all, err) < 0
      || eval_cond (r, &e->exc, strcat (strcpy (cloc, loc), ".excludes"), &exc_any, &exc_all, err)
             < 0)
    return -1;
  /* Docker: excluded when any excludes condition holds; included when all includes hold. */
  if (exc_any || !inc_all)
    {
      r->st->entries_skipped++;
      return 0;
    }
  r->st->entries_used++;
  for (size_t i = 0; i < e->nnames; i++)
    {
      const char *sys = e->names[i];
      int nr = seccomp_syscall_resolve_name (sys);

      r->st->names++;
      ucb_seccomp_check_name (&r->check, sys, nr, act, e->nargs);
      /* Unknown to libseccomp (too new for it, or another arch only): skipped, as runc does.  A
       * name that exists only on a sub-architecture resolves to a pseudo number and is kept. */
      if (nr == __NR_SCMP_ERROR)
        {
          r->st->names_unknown++;
          continue;
        }
      /* libseccomp refuses a rule that repeats the default action; it would change nothing. */
      if (act == r->default_action)
        continue;
      for (size_t k = 0; k < (split ? e->nargs : 1); k++)
        {
          int rc = split ? seccomp_rule_add_array (r->ctx, act, nr, 1, &cmp[k])
                         : seccomp_rule_add_array (r->ctx, act, nr, (unsigned) e->nargs, cmp);
          if (rc < 0)
            {
              if (e->single)
                snprintf (cloc, sizeof cloc, "%s.name", loc);
              else
                snprintf (cloc, sizeof cloc, "%s.names[%zu]", loc, i);
              return ucb_usage_error (err, "seccomp profile `%s`: %s: seccomp_rule_add %s %s: %s",
                                      r->file, cloc, ucb_seccomp_acts[e->action.act], sys,
                                      strerror (-rc));
            }
          ucb_seccomp_size_rule (&r->size, nr, split ? &cmp[k] : cmp, split ? 1 : e->nargs);
          r->st->rules++;
        }
    }
  return 0;
}

static void
release_ctx (scmp_filter_ctx *c)
{
  if (*c)
    seccomp_release (*c);
}

static void
release_rules (struct rules *r)
{
  ucb_seccomp_size_free (&r->size);
}

int
ucb_seccomp_rules (const struct ucb_seccomp_opts *o, int optimize, scmp_filter_ctx *ctx,
                   struct ucb_seccomp_stats *st, unsigned *min_insns, ucb_error_t *err)
{
  const struct ucb_seccomp_profile *p = o->profile;
  __attribute__ ((cleanup (release_ctx))) scmp_filter_ctx c = NULL;
  __attribute__ ((cleanup (release_rules))) struct rules r
      = { .o = o, .file = p->file, .st = st, .native = seccomp_arch_native () };
  const char *base = strrchr (p->file, '/');
  struct utsname u;
  int rc;

  *ctx = NULL;
  *min_insns = 0;
  snprintf (st->profile, sizeof st->profile, "%s", base && base[1] ? base + 1 : p->file);
  snprintf (st->default_action, sizeof st->default_action, "%s", ucb_seccomp_acts[p->def.act]);
  st->default_errno = p->def.e;
  r.kernel_known = uname (&u) == 0 && sscanf (u.release, "%u.%u", &r.kmaj, &r.kmin) == 2;
  r.default_action = action (&p->def);
  c = r.ctx = seccomp_init (r.default_action);
  if (c == NULL)
    return ucb_make_error (err, EINVAL, "seccomp_init %s", st->default_action);
  /* Kernel errnos instead of libseccomp's -ECANCELED (no-new-privs: ucb_seccomp_load). */
  rc = seccomp_attr_set (c, SCMP_FLTATR_API_SYSRAWRC, 1);
  if (rc == 0)
    rc = seccomp_attr_set (c, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t) optimize);
  if (rc < 0)
    return ucb_make_error (err, -rc, "seccomp_attr_set (optimize %d)", optimize);
  st->optimize = optimize;
  st->arches = 1; /* the native arch, which seccomp_init adds */
  if (add_arches (&r, err) < 0)
    return -1;
  for (size_t i = 0; i < p->ncalls; i++)
    {
      st->entries++;
      if (add_entry (&r, &p->calls[i], i, err) < 0)
        return -1;
    }
  if (ucb_seccomp_check_finish (&r.check, c, r.default_action, p->file, st, err) < 0)
    return -1;
  if (r.ncaps_unknown)
    {
      cleanup_free char *shown = ucb_escape_controls (p->file),
                        *caps = ucb_escape_controls (r.caps_unknown);
      const char *them = r.ncaps_unknown == 1 ? "it" : "them";
      fprintf (stderr,
               "ucbench: warning: %u capability name%s libcap does not know in %s: %s (no "
               "container holds %s: entries that include %s are skipped, entries that exclude "
               "%s apply)\n",
               r.ncaps_unknown, r.ncaps_unknown == 1 ? "" : "s", shown, caps, them, them, them);
    }
  *min_insns = ucb_seccomp_size_min (&r.size);
  *ctx = steal_pointer (&c);
  return 0;
}

#endif /* HAVE_SECCOMP */
