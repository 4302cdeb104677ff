/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-profile.c - read a Docker-format seccomp profile into a libseccomp filter context. */
#include "config.h"

#ifdef HAVE_SECCOMP
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seccomp.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "core/util.h"
#include "host/seccomp.h"

/* Docker's default profile: data/seccomp/docker-default.json, embedded by embed-file.sh. */
extern const char ucb_seccomp_docker_json[];
extern const size_t ucb_seccomp_docker_json_len;

#define MAX_PROFILE_BYTES (16u << 20) /* Docker's is 13 KiB; refuses runaway input */
#define LOC_MAX 96                    /* "syscalls[123].includes.arches[4]" and the like */

/* The architecture names a profile may use: archMap and `architectures` take the SCMP_ARCH_
 * names, whose lower-case tail is libseccomp's own name ("x86_64"); includes/excludes.arches
 * take Docker's (Go's) names. */
static const char *const scmp_arches[] = {
  "SCMP_ARCH_X86",     "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",         "SCMP_ARCH_ARM",
  "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",      "SCMP_ARCH_MIPS64N32",
  "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
  "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",        "SCMP_ARCH_S390X",
  "SCMP_ARCH_PARISC",  "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",     "SCMP_ARCH_LOONGARCH64",
  "SCMP_ARCH_M68K",    "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",
};

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

static const struct
{
  const char *name;
  enum scmp_compare op;
} compare_ops[] = {
  { "SCMP_CMP_NE", SCMP_CMP_NE },
  { "SCMP_CMP_LT", SCMP_CMP_LT },
  { "SCMP_CMP_LE", SCMP_CMP_LE },
  { "SCMP_CMP_EQ", SCMP_CMP_EQ },
  { "SCMP_CMP_GE", SCMP_CMP_GE },
  { "SCMP_CMP_GT", SCMP_CMP_GT },
  { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

/* One profile being read: where messages point, and what includes/excludes test. */
struct reader
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
};

/* A bad profile: one line naming the file and the JSON location. */
__attribute__ ((format (printf, 4, 5))) static int
bad (const struct reader *r, ucb_error_t *err, const char *loc, const char *fmt, ...)
{
  char what[256];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  return ucb_usage_error (err, "seccomp profile `%s`: %s: %s", r->file, loc, what);
}

/* A JSON location into `buf` (LOC_MAX bytes): cut if ever deeper, never overrun. */
__attribute__ ((format (printf, 2, 3))) static const char *
locf (char *buf, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (buf, LOC_MAX, fmt, ap);
  va_end (ap);
  return buf;
}

/* `v` (at `loc`) must be a JSON object. */
static int
want_object (const struct reader *r, const json_t *v, const char *loc, ucb_error_t *err)
{
  return json_is_object (v) ? 0 : bad (r, err, loc, "expected an object");
}

static const char *
join (char *buf, const char *parent, const char *key)
{
  return locf (buf, "%s%s%s", parent, *parent ? "." : "", key);
}

/* libseccomp's value of an SCMP_ARCH_ name (0: libseccomp does not know it); -1 if no such
 * name exists at all. */
static int
scmp_arch (const char *name, uint32_t *arch)
{
  char lower[32];
  size_t i;

  for (i = 0; i < UCB_ARRAY_SIZE (scmp_arches); i++)
    if (strcmp (name, scmp_arches[i]) == 0)
      break;
  if (i == UCB_ARRAY_SIZE (scmp_arches))
    return -1;
  snprintf (lower, sizeof lower, "%s", name + strlen ("SCMP_ARCH_"));
  for (char *p = lower; *p; p++)
    *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  *arch = seccomp_arch_resolve_name (lower);
  return 0;
}

/* Optional member: absent and null both give NULL. */
static json_t *
member (json_t *o, const char *key)
{
  json_t *v = json_object_get (o, key);
  return json_is_null (v) ? NULL : v;
}

static int
get_string (const struct reader *r, json_t *o, const char *parent, const char *key, bool required,
            const char **out, ucb_error_t *err)
{
  char loc[LOC_MAX];
  json_t *v = member (o, key);

  *out = NULL;
  if (v == NULL && required)
    return bad (r, err, join (loc, parent, key), "missing");
  if (v != NULL && !json_is_string (v))
    return bad (r, err, join (loc, parent, key), "expected a string");
  *out = json_string_value (v);
  return 0;
}

/* An optional integer within [min, max]; `*out` keeps its value when absent. */
static int
get_int (const struct reader *r, json_t *o, const char *parent, const char *key, long long min,
         long long max, bool *present, long long *out, ucb_error_t *err)
{
  char loc[LOC_MAX];
  json_t *v = member (o, key);

  if (present)
    *present = v != NULL;
  if (v == NULL)
    return 0;
  if (!json_is_integer (v) || json_integer_value (v) < min || json_integer_value (v) > max)
    return bad (r, err, join (loc, parent, key), "expected an integer from %lld to %lld", min, max);
  *out = json_integer_value (v);
  return 0;
}

/* An optional array (NULL when absent); every element a string if `strings`. */
static int
get_array (const struct reader *r, json_t *o, const char *parent, const char *key, bool strings,
           json_t **out, ucb_error_t *err)
{
  char loc[LOC_MAX];
  json_t *v = member (o, key);

  *out = NULL;
  if (v == NULL)
    return 0;
  join (loc, parent, key);
  if (!json_is_array (v))
    return bad (r, err, loc, "expected an array");
  for (size_t i = 0; strings && i < json_array_size (v); i++)
    if (!json_is_string (json_array_get (v, i)))
      return bad (r, err, locf (loc, "%s%s%s[%zu]", parent, *parent ? "." : "", key, i),
                  "expected a string");
  *out = v;
  return 0;
}

static int
parse_errno (const struct reader *r, json_t *o, const char *parent, const char *key, int max,
             int *e, ucb_error_t *err)
{
  long long v = EPERM; /* runc's default for an ERRNO (and TRACE) without errnoRet */

  if (get_int (r, o, parent, key, 0, max, NULL, &v, err) < 0)
    return -1;
  *e = (int) v;
  return 0;
}

/* `o[key]` as a libseccomp action; `errno_key` holds its errno (ERRNO) or message (TRACE). */
static int
parse_action (const struct reader *r, json_t *o, const char *parent, const char *key,
              const char *errno_key, uint32_t *action, const char **name, int *e, ucb_error_t *err)
{
  char loc[LOC_MAX];
  const char *s;

  *e = 0;
  if (get_string (r, o, parent, key, true, &s, err) < 0)
    return -1;
  *name = s;
  if (strcmp (s, "SCMP_ACT_ALLOW") == 0)
    *action = SCMP_ACT_ALLOW;
  else if (strcmp (s, "SCMP_ACT_ERRNO") == 0)
    {
      /* The kernel hands back at most MAX_ERRNO. */
      if (parse_errno (r, o, parent, errno_key, 4095, e, err) < 0)
        return -1;
      *action = SCMP_ACT_ERRNO ((uint32_t) *e);
    }
  else if (strcmp (s, "SCMP_ACT_KILL") == 0 || strcmp (s, "SCMP_ACT_KILL_THREAD") == 0)
    *action = SCMP_ACT_KILL_THREAD;
  else if (strcmp (s, "SCMP_ACT_KILL_PROCESS") == 0)
    *action = SCMP_ACT_KILL_PROCESS;
  else if (strcmp (s, "SCMP_ACT_TRAP") == 0)
    *action = SCMP_ACT_TRAP;
  else if (strcmp (s, "SCMP_ACT_LOG") == 0)
    *action = SCMP_ACT_LOG;
  else if (strcmp (s, "SCMP_ACT_TRACE") == 0)
    {
      if (parse_errno (r, o, parent, errno_key, 0xffff, e, err) < 0)
        return -1;
      *action = SCMP_ACT_TRACE ((uint32_t) *e);
    }
  else if (strcmp (s, "SCMP_ACT_NOTIFY") == 0)
    return bad (r, err, join (loc, parent, key),
                "SCMP_ACT_NOTIFY is not supported (ucbench has no seccomp notification listener)");
  else
    return bad (r, err, join (loc, parent, key),
                "unknown action `%s` (expected SCMP_ACT_ALLOW, _ERRNO, _KILL, _KILL_THREAD, "
                "_KILL_PROCESS, _TRAP, _LOG or _TRACE)",
                s);
  return 0;
}

/* "4.8" as Docker reads it: exactly two parts, each 0..255, not 0.0. */
static int
parse_kernel (const struct reader *r, const char *loc, const char *s, unsigned *maj, unsigned *min,
              ucb_error_t *err)
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
  return bad (r, err, loc, "invalid kernel version `%s`, expected \"<kernel>.<major>\"", s);
}

static bool
holds_cap (const struct reader *r, const char *name)
{
  char lower[64];
  cap_value_t v;

  /* libcap knows the lower-case names; a name it does not know is a capability nobody holds,
   * as in Docker, which compares the names with the container's list. */
  snprintf (lower, sizeof lower, "%s", name);
  for (char *p = lower; *p; p++)
    *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  if (strncmp (lower, "cap_", 4) != 0 || cap_from_name (lower, &v) < 0)
    return false;
  for (size_t i = 0; i < r->o->ncaps; i++)
    if (r->o->caps[i] == (int) v)
      return true;
  return false;
}

/* One includes or excludes object, read and evaluated.  `*any` / `*all`: whether some / every
 * condition it names holds for this container, host and kernel; a condition it does not name
 * counts as holding for `all` and not for `any`. */
static int
eval_filter (const struct reader *r, json_t *e, const char *parent, const char *key, bool *any,
             bool *all, ucb_error_t *err)
{
  char loc[LOC_MAX], eloc[LOC_MAX];
  json_t *f = member (e, key), *caps, *arches, *v;
  const char *mk;
  size_t i;

  *any = false;
  *all = true;
  if (f == NULL)
    return 0;
  join (loc, parent, key);
  if (want_object (r, f, loc, err) < 0 || get_array (r, f, loc, "caps", true, &caps, err) < 0
      || get_array (r, f, loc, "arches", true, &arches, err) < 0
      || get_string (r, f, loc, "minKernel", false, &mk, err) < 0)
    return -1;

  json_array_foreach (caps, i, v)
  {
    bool held = holds_cap (r, json_string_value (v));
    *any = *any || held;
    *all = *all && held;
  }
  if (json_array_size (arches) > 0)
    {
      bool native = false;
      json_array_foreach (arches, i, v)
      {
        const char *name = json_string_value (v);
        size_t k;

        for (k = 0; k < UCB_ARRAY_SIZE (docker_arches); k++)
          if (strcmp (name, docker_arches[k].docker) == 0)
            break;
        if (k == UCB_ARRAY_SIZE (docker_arches))
          {
            locf (eloc, "%s.arches[%zu]", loc, i);
            return bad (r, err, eloc,
                        "unknown architecture `%s` (Docker names: amd64, x86, x32, arm64, "
                        "arm, s390x, ppc64le, riscv64, ...)",
                        name);
          }
        native = native || (r->native_name && strcmp (docker_arches[k].scmp, r->native_name) == 0);
      }
      *any = *any || native;
      *all = *all && native;
    }
  if (mk != NULL && *mk != '\0') /* Docker: "" means no condition */
    {
      unsigned maj = 0, min = 0;
      bool newer;

      if (parse_kernel (r, join (eloc, loc, "minKernel"), mk, &maj, &min, err) < 0)
        return -1;
      if (!r->kernel_known)
        return ucb_make_error (err, 0, "seccomp profile `%s`: %s: cannot read the kernel version",
                               r->file, eloc);
      newer = r->kmaj > maj || (r->kmaj == maj && r->kmin >= min);
      *any = *any || newer;
      *all = *all && newer;
    }
  return 0;
}

/* archMap (Docker) or architectures (older profiles, OCI): arches to add to the filter, all
 * before the first rule (libseccomp does not add existing rules to a later arch). */
static int
add_arches (struct reader *r, json_t *doc, ucb_error_t *err)
{
  char loc[LOC_MAX], sloc[LOC_MAX];
  json_t *map, *list, *v, *subs = NULL;
  bool found = false;
  size_t i, native_i = 0;

  if (get_array (r, doc, "", "archMap", false, &map, err) < 0
      || get_array (r, doc, "", "architectures", true, &list, err) < 0)
    return -1;
  if (json_array_size (map) > 0 && json_array_size (list) > 0)
    return bad (r, err, "archMap", "both `architectures` and `archMap` given; use one");

  /* Check every entry; only the first for the native arch adds anything, as in Docker. */
  json_array_foreach (map, i, v)
  {
    const char *name;
    uint32_t a = 0;
    json_t *s;

    locf (loc, "archMap[%zu]", i);
    if (want_object (r, v, loc, err) < 0
        || get_string (r, v, loc, "architecture", true, &name, err) < 0
        || get_array (r, v, loc, "subArchitectures", true, &s, err) < 0)
      return -1;
    if (scmp_arch (name, &a) < 0)
      return bad (r, err, join (sloc, loc, "architecture"), "unknown architecture `%s`", name);
    for (size_t k = 0; k < json_array_size (s); k++)
      {
        const char *sub = json_string_value (json_array_get (s, k));
        uint32_t sa;
        if (scmp_arch (sub, &sa) < 0)
          {
            locf (sloc, "%s.subArchitectures[%zu]", loc, k);
            return bad (r, err, sloc, "unknown architecture `%s`", sub);
          }
      }
    if (a == r->native && !found)
      {
        found = true;
        native_i = i;
        subs = s; /* NULL (null in the profile): the native arch alone */
      }
  }
  if (!found)
    subs = list;
  json_array_foreach (subs, i, v)
  {
    const char *name = json_string_value (v);
    uint32_t a = 0;
    int rc;

    if (subs == list)
      locf (loc, "architectures[%zu]", i);
    else
      locf (loc, "archMap[%zu].subArchitectures[%zu]", native_i, i);
    if (scmp_arch (name, &a) < 0)
      return bad (r, err, loc, "unknown architecture `%s`", name);
    if (a == 0)
      return bad (r, err, loc, "architecture `%s` is not supported by libseccomp %u.%u.%u", name,
                  seccomp_version ()->major, seccomp_version ()->minor, seccomp_version ()->micro);
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

/* args[]: the comparisons of one entry; `*split` when two share an argument index, which
 * libseccomp refuses in one rule: then each becomes a rule of its own (as runc does). */
static int
parse_args (const struct reader *r, json_t *e, const char *parent, struct scmp_arg_cmp **out,
            size_t *n, bool *split, ucb_error_t *err)
{
  cleanup_free struct scmp_arg_cmp *cmp = NULL;
  char loc[LOC_MAX];
  unsigned seen = 0;
  json_t *args, *a;
  size_t i;

  *n = 0;
  *split = false;
  if (get_array (r, e, parent, "args", false, &args, err) < 0)
    return -1;
  cmp = xcalloc (json_array_size (args) + 1, sizeof *cmp);
  json_array_foreach (args, i, a)
  {
    long long index = 0, value = 0, two = 0;
    bool has_index, has_value;
    const char *op;
    size_t k;

    locf (loc, "%s.args[%zu]", parent, i);
    /* JSON integers stop at 2^63 - 1 in jansson; no argument value of the profiles needs more */
    if (want_object (r, a, loc, err) < 0
        || get_int (r, a, loc, "index", 0, 5, &has_index, &index, err) < 0
        || get_int (r, a, loc, "value", 0, INT64_MAX, &has_value, &value, err) < 0
        || get_int (r, a, loc, "valueTwo", 0, INT64_MAX, NULL, &two, err) < 0
        || get_string (r, a, loc, "op", true, &op, err) < 0)
      return -1;
    if (!has_index || !has_value)
      return bad (r, err, loc, "missing %s", has_index ? "value" : "index");
    for (k = 0; k < UCB_ARRAY_SIZE (compare_ops); k++)
      if (strcmp (op, compare_ops[k].name) == 0)
        break;
    if (k == UCB_ARRAY_SIZE (compare_ops))
      {
        char oloc[LOC_MAX];
        return bad (r, err, join (oloc, loc, "op"),
                    "unknown operator `%s` (expected SCMP_CMP_NE, _LT, _LE, _EQ, _GE, _GT or "
                    "_MASKED_EQ)",
                    op);
      }
    /* MASKED_EQ: `value` is the mask, `valueTwo` the datum, as in the OCI spec. */
    cmp[i] = (struct scmp_arg_cmp){ .arg = (unsigned) index,
                                    .op = compare_ops[k].op,
                                    .datum_a = (scmp_datum_t) value,
                                    .datum_b = (scmp_datum_t) two };
    if (seen & (1u << index))
      *split = true;
    seen |= 1u << index;
  }
  *n = json_array_size (args);
  *out = steal_pointer (&cmp);
  return 0;
}

/* One syscalls[] entry: read all of it, then add its rules unless includes/excludes say no. */
static int
add_entry (struct reader *r, json_t *e, size_t idx, ucb_error_t *err)
{
  cleanup_free struct scmp_arg_cmp *cmp = NULL;
  char loc[LOC_MAX], nloc[LOC_MAX];
  json_t *names;
  const char *name, *aname;
  uint32_t action;
  bool split, inc_any, inc_all, exc_any, exc_all;
  size_t nargs, i;
  int e_ret;

  locf (loc, "syscalls[%zu]", idx);
  if (want_object (r, e, loc, err) < 0 || get_array (r, e, loc, "names", true, &names, err) < 0
      || get_string (r, e, loc, "name", false, &name, err) < 0)
    return -1;
  if (name != NULL && names != NULL)
    return bad (r, err, loc, "both `name` and `names` given; use one");
  if (parse_action (r, e, loc, "action", "errnoRet", &action, &aname, &e_ret, err) < 0
      || parse_args (r, e, loc, &cmp, &nargs, &split, err) < 0
      || eval_filter (r, e, loc, "includes", &inc_any, &inc_all, err) < 0
      || eval_filter (r, e, loc, "excludes", &exc_any, &exc_all, err) < 0)
    return -1;

  /* Docker: excluded when any excludes condition holds; included when all includes hold. */
  if (exc_any || !inc_all)
    {
      r->st->entries_skipped++;
      return 0;
    }
  r->st->entries_used++;
  for (i = 0; i < (name ? 1 : json_array_size (names)); i++)
    {
      const char *sys = name ? name : json_string_value (json_array_get (names, i));
      int nr = seccomp_syscall_resolve_name (sys);

      r->st->names++;
      ucb_seccomp_check_name (&r->check, sys, nr, action, nargs);
      /* Unknown to libseccomp (too new for it, or another arch only): skipped, as runc does.  A
       * name that exists only on a sub-architecture resolves to a pseudo number and is kept. */
      if (nr == __NR_SCMP_ERROR)
        {
          r->st->names_unknown++;
          continue;
        }
      /* libseccomp refuses a rule that repeats the default action; it would change nothing. */
      if (action == r->default_action)
        continue;
      for (size_t k = 0; k < (split ? nargs : 1); k++)
        {
          int rc = split ? seccomp_rule_add_array (r->ctx, action, nr, 1, &cmp[k])
                         : seccomp_rule_add_array (r->ctx, action, nr, (unsigned) nargs, cmp);
          if (rc < 0)
            {
              if (name)
                join (nloc, loc, "name");
              else
                locf (nloc, "%s.names[%zu]", loc, i);
              return bad (r, err, nloc, "seccomp_rule_add %s %s: %s", aname, sys, strerror (-rc));
            }
          r->st->rules++;
        }
    }
  return 0;
}

static int
read_profile (const char *path, json_t **doc, ucb_error_t *err)
{
  json_error_t jerr;
  struct stat sb;

  if (strcmp (path, "docker") == 0)
    {
      *doc = json_loadb (ucb_seccomp_docker_json, ucb_seccomp_docker_json_len, 0, &jerr);
      if (*doc == NULL) /* the build checked it; only memory can run out */
        return ucb_make_error (err, 0, "embedded docker seccomp profile: %s", jerr.text);
      return 0;
    }
  if (stat (path, &sb) < 0)
    return ucb_usage_error (err, "seccomp profile `%s`: %s", path, strerror (errno));
  if (S_ISDIR (sb.st_mode))
    return ucb_usage_error (err, "seccomp profile `%s`: is a directory", path);
  if (S_ISREG (sb.st_mode) && (unsigned long long) sb.st_size > MAX_PROFILE_BYTES)
    return ucb_usage_error (err, "seccomp profile `%s`: %llu bytes, too large for a profile", path,
                            (unsigned long long) sb.st_size);
  *doc = json_load_file (path, 0, &jerr);
  if (*doc == NULL && jerr.line < 0) /* jansson could not open or read it */
    return ucb_usage_error (err, "seccomp profile `%s`: %s", path, jerr.text);
  if (*doc == NULL)
    return ucb_usage_error (err, "seccomp profile `%s`: not valid JSON: line %d column %d: %s",
                            path, jerr.line, jerr.column, jerr.text);
  return 0;
}

static void
release_json (json_t **p)
{
  json_decref (*p);
}

static void
release_ctx (scmp_filter_ctx *c)
{
  if (*c)
    seccomp_release (*c);
}

int
ucb_seccomp_profile_read (const struct ucb_seccomp_opts *o, int optimize, void **ctx,
                          struct ucb_seccomp_stats *st, ucb_error_t *err)
{
  __attribute__ ((cleanup (release_json))) json_t *doc = NULL;
  __attribute__ ((cleanup (release_ctx))) scmp_filter_ctx c = NULL;
  struct reader r = { .o = o, .file = o->profile, .st = st };
  const char *dname, *base;
  json_t *calls, *e;
  struct utsname u;
  size_t i;
  int e_def, rc;

  *ctx = NULL;
  if (read_profile (o->profile, &doc, err) < 0)
    return -1;
  if (want_object (&r, doc, "(top level)", err) < 0)
    return -1;

  base = strrchr (o->profile, '/');
  snprintf (st->profile, sizeof st->profile, "%s", base && base[1] ? base + 1 : o->profile);
  r.native = seccomp_arch_native ();
  for (i = 0; i < UCB_ARRAY_SIZE (scmp_arches); i++)
    {
      uint32_t a = 0;
      if (scmp_arch (scmp_arches[i], &a) == 0 && a == r.native)
        r.native_name = scmp_arches[i];
    }
  r.kernel_known = uname (&u) == 0 && sscanf (u.release, "%u.%u", &r.kmaj, &r.kmin) == 2;

  if (parse_action (&r, doc, "", "defaultAction", "defaultErrnoRet", &r.default_action, &dname,
                    &e_def, err)
      < 0)
    return -1;
  snprintf (st->default_action, sizeof st->default_action, "%s", dname);
  st->default_errno = e_def;
  if (get_array (&r, doc, "", "syscalls", false, &calls, err) < 0)
    return -1;

  c = r.ctx = seccomp_init (r.default_action);
  if (c == NULL)
    return ucb_make_error (err, EINVAL, "seccomp_init %s", dname);
  /* Kernel errnos instead of libseccomp's -ECANCELED.  NNP stays at its default. */
  rc = seccomp_attr_set (c, SCMP_FLTATR_API_SYSRAWRC, 1);
  if (rc == 0)
    rc = seccomp_attr_set (c, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t) optimize);
  if (rc < 0)
    return ucb_make_error (err, -rc, "seccomp_attr_set (optimize %d)", optimize);
  st->optimize = optimize;
  st->arches = 1; /* the native arch, which seccomp_init adds */
  if (add_arches (&r, doc, err) < 0)
    return -1;

  json_array_foreach (calls, i, e)
  {
    st->entries++;
    if (add_entry (&r, e, i, err) < 0)
      return -1;
  }
  if (ucb_seccomp_check_finish (&r.check, c, r.default_action, o->profile, st, err) < 0)
    return -1;
  *ctx = steal_pointer (&c);
  return 0;
}

#endif /* HAVE_SECCOMP */
