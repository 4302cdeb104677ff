/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-fields.c - the members of a Docker-format seccomp profile, read with the JSON location
 * of each for the one-line message that refuses it: typed members, actions, architectures and
 * the includes/excludes conditions (evaluated for this host by ucb_seccomp_build). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/seccomp-reader.h"
#include "core/util.h"

/* Docker's (Go's) architecture names, which includes/excludes.arches take, and the SCMP_ARCH_
 * name of each. */
static const struct
{
  const char *docker, *scmp;
} docker_arches[] = {
  { "x86", "SCMP_ARCH_X86" },
  { "amd64", "SCMP_ARCH_X86_64" },
  { "x32", "SCMP_ARCH_X32" },
  { "arm", "SCMP_ARCH_ARM" },
  { "arm64", "SCMP_ARCH_AARCH64" },
  { "mips", "SCMP_ARCH_MIPS" },
  { "mipsle", "SCMP_ARCH_MIPSEL" },
  { "mipsel", "SCMP_ARCH_MIPSEL" },
  { "mips64", "SCMP_ARCH_MIPS64" },
  { "mips64n32", "SCMP_ARCH_MIPS64N32" },
  { "mipsel64", "SCMP_ARCH_MIPSEL64" },
  { "mips3l64n32", "SCMP_ARCH_MIPSEL64N32" }, /* sic: moby's spelling */
  { "mipsel64n32", "SCMP_ARCH_MIPSEL64N32" },
  { "ppc", "SCMP_ARCH_PPC" },
  { "ppc64", "SCMP_ARCH_PPC64" },
  { "ppc64le", "SCMP_ARCH_PPC64LE" },
  { "s390", "SCMP_ARCH_S390" },
  { "s390x", "SCMP_ARCH_S390X" },
  { "riscv64", "SCMP_ARCH_RISCV64" },
  { "loong64", "SCMP_ARCH_LOONGARCH64" },
  { "loongarch64", "SCMP_ARCH_LOONGARCH64" },
};

/* A bad profile: one line naming the file and the JSON location. */
__attribute__ ((format (printf, 4, 5))) int (ucb_seccomp_bad) (const struct ucb_seccomp_reader *r,
                                                               ucb_error_t *err, const char *loc,
                                                               const char *fmt, ...)
{
  char what[256];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  return ucb_usage_error (err, "seccomp profile `%s`: %s: %s", r->file, loc, what);
}

/* A JSON location into `buf` (UCB_SECCOMP_LOC_MAX bytes): cut if ever deeper, never overrun. */
__attribute__ ((format (printf, 2, 3))) const char *
ucb_seccomp_locf (char *buf, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (buf, UCB_SECCOMP_LOC_MAX, fmt, ap);
  va_end (ap);
  return buf;
}

/* `v` (at `loc`) must be a JSON object. */
int
ucb_seccomp_want_object (const struct ucb_seccomp_reader *r, const json_t *v, const char *loc,
                         ucb_error_t *err)
{
  return json_is_object (v) ? 0 : ucb_seccomp_bad (r, err, loc, "expected an object");
}

const char *
ucb_seccomp_join (char *buf, const char *parent, const char *key)
{
  return ucb_seccomp_locf (buf, "%s%s%s", parent, *parent ? "." : "", key);
}

/* Optional member: absent and null both give NULL. */
static json_t *
member (json_t *o, const char *key)
{
  json_t *v = json_object_get (o, key);
  return json_is_null (v) ? NULL : v;
}

int
ucb_seccomp_get_string (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                        const char *key, bool required, const char **out, ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX];
  json_t *v = member (o, key);

  *out = NULL;
  if (v == NULL && required)
    return ucb_seccomp_bad (r, err, ucb_seccomp_join (loc, parent, key), "missing");
  if (v != NULL && !json_is_string (v))
    return ucb_seccomp_bad (r, err, ucb_seccomp_join (loc, parent, key), "expected a string");
  *out = json_string_value (v);
  return 0;
}

/* An optional integer within [min, max]; `*out` keeps its value when absent. */
int
ucb_seccomp_get_int (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                     const char *key, long long min, long long max, bool *present, long long *out,
                     ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX];
  json_t *v = member (o, key);

  if (present)
    *present = v != NULL;
  if (v == NULL)
    return 0;
  if (!json_is_integer (v) || json_integer_value (v) < min || json_integer_value (v) > max)
    return ucb_seccomp_bad (r, err, ucb_seccomp_join (loc, parent, key),
                            "expected an integer from %lld to %lld", min, max);
  *out = json_integer_value (v);
  return 0;
}

/* An optional array (NULL when absent); every element a string if `strings`. */
int
ucb_seccomp_get_array (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                       const char *key, bool strings, json_t **out, ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX];
  json_t *v = member (o, key);

  *out = NULL;
  if (v == NULL)
    return 0;
  ucb_seccomp_join (loc, parent, key);
  if (!json_is_array (v))
    return ucb_seccomp_bad (r, err, loc, "expected an array");
  for (size_t i = 0; strings && i < json_array_size (v); i++)
    if (!json_is_string (json_array_get (v, i)))
      return ucb_seccomp_bad (
          r, err, ucb_seccomp_locf (loc, "%s%s%s[%zu]", parent, *parent ? "." : "", key, i),
          "expected a string");
  *out = v;
  return 0;
}

static int
parse_errno (const struct ucb_seccomp_reader *r, json_t *o, const char *parent, const char *key,
             int max, int *e, ucb_error_t *err)
{
  long long v = EPERM; /* runc's default for an ERRNO (and TRACE) without errnoRet */

  if (ucb_seccomp_get_int (r, o, parent, key, 0, max, NULL, &v, err) < 0)
    return -1;
  *e = (int) v;
  return 0;
}

/* `o[key]` as an action; `errno_key` holds its errno (ERRNO) or message (TRACE). */
int
ucb_seccomp_parse_action (const struct ucb_seccomp_reader *r, json_t *o, const char *parent,
                          const char *key, const char *errno_key, struct ucb_seccomp_action *a,
                          ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX];
  const char *s;
  size_t k;

  a->e = 0;
  if (ucb_seccomp_get_string (r, o, parent, key, true, &s, err) < 0)
    return -1;
  for (k = 0; k < UCB_SCMP_ACTS && strcmp (s, ucb_seccomp_acts[k]) != 0; k++)
    ;
  a->act = (enum ucb_seccomp_act) k;
  /* ERRNO: the kernel hands back at most MAX_ERRNO. */
  if (k == UCB_SCMP_ERRNO || k == UCB_SCMP_TRACE)
    return parse_errno (r, o, parent, errno_key, k == UCB_SCMP_ERRNO ? 4095 : 0xffff, &a->e, err);
  if (strcmp (s, "SCMP_ACT_NOTIFY") == 0)
    return ucb_seccomp_bad (
        r, err, ucb_seccomp_join (loc, parent, key),
        "SCMP_ACT_NOTIFY is not supported (ucbench has no seccomp notification listener)");
  if (k == UCB_SCMP_ACTS)
    return ucb_seccomp_bad (
        r, err, ucb_seccomp_join (loc, parent, key),
        "unknown action `%s` (expected SCMP_ACT_ALLOW, _ERRNO, _KILL, _KILL_THREAD, "
        "_KILL_PROCESS, _TRAP, _LOG or _TRACE)",
        s);
  return 0;
}

/* "4.8" as Docker reads it: exactly two parts, each 0..255, not 0.0. */
static int
parse_kernel (const struct ucb_seccomp_reader *r, const char *loc, const char *s, unsigned *maj,
              unsigned *min, ucb_error_t *err)
{
  cleanup_free char *copy = xstrdup (s);
  char *dot = strchr (copy, '.');
  uint64_t a, b;

  if (dot == NULL)
    goto fail;
  *dot = '\0';
  if (ucb_parse_u64 (copy, 0, 255, &a) < 0 || ucb_parse_u64 (dot + 1, 0, 255, &b) < 0
      || (a == 0 && b == 0))
    goto fail;
  *maj = (unsigned) a;
  *min = (unsigned) b;
  return 0;
fail:
  return ucb_seccomp_bad (r, err, loc, "invalid kernel version `%s`, expected \"<kernel>.<major>\"",
                          s);
}

int
ucb_seccomp_arch_index (const char *name)
{
  for (unsigned i = 0; i < UCB_SCMP_ARCHES; i++)
    if (strcmp (name, ucb_seccomp_arches[i]) == 0)
      return (int) i;
  return -1;
}

char **
ucb_seccomp_strings (json_t *a, size_t *n)
{
  char **v = xcalloc (json_array_size (a) + 1, sizeof *v);

  *n = json_array_size (a);
  for (size_t i = 0; i < *n; i++)
    v[i] = xstrdup (json_string_value (json_array_get (a, i)));
  return v;
}

/* One includes or excludes object, read into `c` (all zero when absent). */
int
ucb_seccomp_read_cond (const struct ucb_seccomp_reader *r, json_t *e, const char *parent,
                       const char *key, struct ucb_seccomp_cond *c, ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX], eloc[UCB_SECCOMP_LOC_MAX];
  json_t *f = member (e, key), *caps, *arches, *v;
  const char *mk;
  size_t i;

  if (f == NULL)
    return 0;
  ucb_seccomp_join (loc, parent, key);
  if (ucb_seccomp_want_object (r, f, loc, err) < 0
      || ucb_seccomp_get_array (r, f, loc, "caps", true, &caps, err) < 0
      || ucb_seccomp_get_array (r, f, loc, "arches", true, &arches, err) < 0
      || ucb_seccomp_get_string (r, f, loc, "minKernel", false, &mk, err) < 0)
    return -1;
  c->caps = ucb_seccomp_strings (caps, &c->ncaps);
  c->arches = xcalloc (json_array_size (arches) + 1, sizeof *c->arches);
  json_array_foreach (arches, i, v)
  {
    const char *name = json_string_value (v);
    size_t k;

    for (k = 0; k < UCB_ARRAY_SIZE (docker_arches); k++)
      if (strcmp (name, docker_arches[k].docker) == 0)
        break;
    if (k == UCB_ARRAY_SIZE (docker_arches))
      {
        ucb_seccomp_locf (eloc, "%s.arches[%zu]", loc, i);
        return ucb_seccomp_bad (r, err, eloc,
                                "unknown architecture `%s` (Docker names: amd64, x86, x32, arm64, "
                                "arm, s390x, ppc64le, riscv64, ...)",
                                name);
      }
    c->arches[c->narches++] = (unsigned) ucb_seccomp_arch_index (docker_arches[k].scmp);
  }
  if (mk != NULL && *mk != '\0') /* Docker: "" means no condition */
    return parse_kernel (r, ucb_seccomp_join (eloc, loc, "minKernel"), mk, &c->kmaj, &c->kmin, err);
  return 0;
}
