/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-profile.c - read a Docker-format seccomp profile into a libseccomp filter context:
 * the document, its architectures and its syscalls[] entries (their members: seccomp-fields.c).
 * A JSON input, so read here in the CLI: host/seccomp.c compiles, sizes and loads the filter
 * and gets this reader from its caller (struct ucb_seccomp_opts). */
#include "config.h"

#ifdef HAVE_SECCOMP
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seccomp.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "cli/seccomp-profile.h"
#include "cli/seccomp-reader.h"
#include "core/util.h"

/* Docker's default profile: data/seccomp/docker-default.json, embedded by embed-file.sh. */
extern const char ucb_seccomp_docker_json[];
extern const size_t ucb_seccomp_docker_json_len;

#define MAX_PROFILE_BYTES (16u << 20) /* Docker's is 13 KiB; refuses runaway input */

/* The architecture names of archMap and `architectures`: the SCMP_ARCH_ names, whose lower-case
 * tail is libseccomp's own name ("x86_64"); includes/excludes.arches take Docker's (Go's) names
 * (seccomp-fields.c). */
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

/* archMap (Docker) or architectures (older profiles, OCI): arches to add to the filter, all
 * before the first rule (libseccomp does not add existing rules to a later arch). */
static int
add_arches (struct ucb_seccomp_reader *r, json_t *doc, ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX], sloc[UCB_SECCOMP_LOC_MAX];
  json_t *map, *list, *v, *subs = NULL;
  bool found = false;
  size_t i, native_i = 0;

  if (ucb_seccomp_get_array (r, doc, "", "archMap", false, &map, err) < 0
      || ucb_seccomp_get_array (r, doc, "", "architectures", true, &list, err) < 0)
    return -1;
  if (json_array_size (map) > 0 && json_array_size (list) > 0)
    return ucb_seccomp_bad (r, err, "archMap", "both `architectures` and `archMap` given; use one");

  /* Check every entry; only the first for the native arch adds anything, as in Docker. */
  json_array_foreach (map, i, v)
  {
    const char *name;
    uint32_t a = 0;
    json_t *s;

    ucb_seccomp_locf (loc, "archMap[%zu]", i);
    if (ucb_seccomp_want_object (r, v, loc, err) < 0
        || ucb_seccomp_get_string (r, v, loc, "architecture", true, &name, err) < 0
        || ucb_seccomp_get_array (r, v, loc, "subArchitectures", true, &s, err) < 0)
      return -1;
    if (scmp_arch (name, &a) < 0)
      return ucb_seccomp_bad (r, err, ucb_seccomp_join (sloc, loc, "architecture"),
                              "unknown architecture `%s`", name);
    for (size_t k = 0; k < json_array_size (s); k++)
      {
        const char *sub = json_string_value (json_array_get (s, k));
        uint32_t sa;
        if (scmp_arch (sub, &sa) < 0)
          {
            ucb_seccomp_locf (sloc, "%s.subArchitectures[%zu]", loc, k);
            return ucb_seccomp_bad (r, err, sloc, "unknown architecture `%s`", sub);
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
      ucb_seccomp_locf (loc, "architectures[%zu]", i);
    else
      ucb_seccomp_locf (loc, "archMap[%zu].subArchitectures[%zu]", native_i, i);
    if (scmp_arch (name, &a) < 0)
      return ucb_seccomp_bad (r, err, loc, "unknown architecture `%s`", name);
    if (a == 0)
      return ucb_seccomp_bad (
          r, err, loc, "architecture `%s` is not supported by libseccomp %u.%u.%u", name,
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
parse_args (const struct ucb_seccomp_reader *r, json_t *e, const char *parent,
            struct scmp_arg_cmp **out, size_t *n, bool *split, ucb_error_t *err)
{
  cleanup_free struct scmp_arg_cmp *cmp = NULL;
  char loc[UCB_SECCOMP_LOC_MAX];
  unsigned seen = 0;
  json_t *args, *a;
  size_t i;

  *n = 0;
  *split = false;
  if (ucb_seccomp_get_array (r, e, parent, "args", false, &args, err) < 0)
    return -1;
  cmp = xcalloc (json_array_size (args) + 1, sizeof *cmp);
  json_array_foreach (args, i, a)
  {
    long long index = 0, value = 0, two = 0;
    bool has_index, has_value;
    const char *op;
    size_t k;

    ucb_seccomp_locf (loc, "%s.args[%zu]", parent, i);
    /* JSON integers stop at 2^63 - 1 in jansson; no argument value of the profiles needs more */
    if (ucb_seccomp_want_object (r, a, loc, err) < 0
        || ucb_seccomp_get_int (r, a, loc, "index", 0, 5, &has_index, &index, err) < 0
        || ucb_seccomp_get_int (r, a, loc, "value", 0, INT64_MAX, &has_value, &value, err) < 0
        || ucb_seccomp_get_int (r, a, loc, "valueTwo", 0, INT64_MAX, NULL, &two, err) < 0
        || ucb_seccomp_get_string (r, a, loc, "op", true, &op, err) < 0)
      return -1;
    if (!has_index || !has_value)
      return ucb_seccomp_bad (r, err, loc, "missing %s", has_index ? "value" : "index");
    for (k = 0; k < UCB_ARRAY_SIZE (compare_ops); k++)
      if (strcmp (op, compare_ops[k].name) == 0)
        break;
    if (k == UCB_ARRAY_SIZE (compare_ops))
      {
        char oloc[UCB_SECCOMP_LOC_MAX];
        return ucb_seccomp_bad (
            r, err, ucb_seccomp_join (oloc, loc, "op"),
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
add_entry (struct ucb_seccomp_reader *r, json_t *e, size_t idx, ucb_error_t *err)
{
  cleanup_free struct scmp_arg_cmp *cmp = NULL;
  char loc[UCB_SECCOMP_LOC_MAX], nloc[UCB_SECCOMP_LOC_MAX];
  json_t *names;
  const char *name, *aname;
  uint32_t action;
  bool split, inc_any, inc_all, exc_any, exc_all;
  size_t nargs, i;
  int e_ret;

  ucb_seccomp_locf (loc, "syscalls[%zu]", idx);
  if (ucb_seccomp_want_object (r, e, loc, err) < 0
      || ucb_seccomp_get_array (r, e, loc, "names", true, &names, err) < 0
      || ucb_seccomp_get_string (r, e, loc, "name", false, &name, err) < 0)
    return -1;
  if (name != NULL && names != NULL)
    return ucb_seccomp_bad (r, err, loc, "both `name` and `names` given; use one");
  if (ucb_seccomp_parse_action (r, e, loc, "action", "errnoRet", &action, &aname, &e_ret, err) < 0
      || parse_args (r, e, loc, &cmp, &nargs, &split, err) < 0
      || ucb_seccomp_eval_filter (r, e, loc, "includes", &inc_any, &inc_all, err) < 0
      || ucb_seccomp_eval_filter (r, e, loc, "excludes", &exc_any, &exc_all, err) < 0)
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
                ucb_seccomp_join (nloc, loc, "name");
              else
                ucb_seccomp_locf (nloc, "%s.names[%zu]", loc, i);
              return ucb_seccomp_bad (r, err, nloc, "seccomp_rule_add %s %s: %s", aname, sys,
                                      strerror (-rc));
            }
          ucb_seccomp_size_rule (&r->size, nr, split ? &cmp[k] : cmp, split ? 1 : nargs);
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

static void
release_reader (struct ucb_seccomp_reader *r)
{
  ucb_seccomp_size_free (&r->size);
}

int
ucb_seccomp_profile_read (const struct ucb_seccomp_opts *o, int optimize, void **ctx,
                          struct ucb_seccomp_stats *st, unsigned *min_insns, ucb_error_t *err)
{
  __attribute__ ((cleanup (release_json))) json_t *doc = NULL;
  __attribute__ ((cleanup (release_ctx))) scmp_filter_ctx c = NULL;
  struct ucb_seccomp_names caps_unknown = { 0 };
  __attribute__ ((cleanup (release_reader))) struct ucb_seccomp_reader r
      = { .o = o, .file = o->profile, .st = st, .caps_unknown = &caps_unknown };
  const char *dname, *base;
  json_t *calls, *e;
  struct utsname u;
  size_t i;
  int e_def, rc;

  *ctx = NULL;
  *min_insns = 0;
  if (read_profile (o->profile, &doc, err) < 0)
    return -1;
  if (ucb_seccomp_want_object (&r, doc, "(top level)", err) < 0)
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

  if (ucb_seccomp_parse_action (&r, doc, "", "defaultAction", "defaultErrnoRet", &r.default_action,
                                &dname, &e_def, err)
      < 0)
    return -1;
  snprintf (st->default_action, sizeof st->default_action, "%s", dname);
  st->default_errno = e_def;
  if (ucb_seccomp_get_array (&r, doc, "", "syscalls", false, &calls, err) < 0)
    return -1;

  c = r.ctx = seccomp_init (r.default_action);
  if (c == NULL)
    return ucb_make_error (err, EINVAL, "seccomp_init %s", dname);
  /* Kernel errnos instead of libseccomp's -ECANCELED (no-new-privs: ucb_seccomp_load). */
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
  if (caps_unknown.n)
    {
      cleanup_free char *shown = ucb_escape_controls (o->profile),
                        *caps = ucb_escape_controls (caps_unknown.list);
      fprintf (stderr,
               "ucbench: warning: %u capability name%s libcap does not know in %s: %s (no "
               "container holds %s: entries that include %s are skipped, entries that exclude "
               "%s apply)\n",
               caps_unknown.n, caps_unknown.n == 1 ? "" : "s", shown, caps,
               caps_unknown.n == 1 ? "it" : "them", caps_unknown.n == 1 ? "it" : "them",
               caps_unknown.n == 1 ? "it" : "them");
    }
  *min_insns = ucb_seccomp_size_min (&r.size);
  *ctx = steal_pointer (&c);
  return 0;
}

#endif /* HAVE_SECCOMP */
