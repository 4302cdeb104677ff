/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-profile.c - read a Docker-format seccomp profile into its C form (host/seccomp.h):
 * the document, its architectures and its syscalls[] entries (their members:
 * seccomp-fields.c).  A JSON input, so read here in the CLI; host/seccomp.c compiles the form,
 * for this host, into the filter every container loads. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli/seccomp-profile.h"
#include "cli/seccomp-reader.h"
#include "core/lists.h"
#include "core/util.h"

/* Docker's default profile: data/seccomp/docker-default.json, embedded by embed-file.sh. */
extern const char ucb_seccomp_docker_json[];
extern const size_t ucb_seccomp_docker_json_len;

#define MAX_PROFILE_BYTES (16u << 20) /* Docker's is 13 KiB; refuses runaway input */

/* An SCMP_ARCH_ name (archMap, architectures; includes/excludes.arches take Docker's names:
 * seccomp-fields.c) at `loc`, as its ucb_seccomp_arches index. */
static int
want_arch (const struct ucb_seccomp_reader *r, const char *name, const char *loc, unsigned *out,
           ucb_error_t *err)
{
  int i = ucb_seccomp_arch_index (name);

  if (i < 0)
    return ucb_seccomp_bad (r, err, loc, "unknown architecture `%s`", name);
  *out = (unsigned) i;
  return 0;
}

/* archMap (Docker) or architectures (older profiles, OCI): which apply is the build's (the
 * native arch's entry of archMap). */
static int
read_arches (const struct ucb_seccomp_reader *r, json_t *doc, struct ucb_seccomp_profile *p,
             ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX], sloc[UCB_SECCOMP_LOC_MAX];
  json_t *map, *list, *v;
  size_t i;

  if (ucb_seccomp_get_array (r, doc, "", "archMap", false, &map, err) < 0
      || ucb_seccomp_get_array (r, doc, "", "architectures", true, &list, err) < 0)
    return -1;
  if (json_array_size (map) > 0 && json_array_size (list) > 0)
    return ucb_seccomp_bad (r, err, "archMap", "both `architectures` and `archMap` given; use one");
  p->map = xcalloc (json_array_size (map) + 1, sizeof *p->map);
  json_array_foreach (map, i, v)
  {
    struct ucb_seccomp_archmap *m = &p->map[p->nmap++];
    const char *name;
    json_t *s;

    ucb_seccomp_locf (loc, "archMap[%zu]", i);
    if (ucb_seccomp_want_object (r, v, loc, err) < 0
        || ucb_seccomp_get_string (r, v, loc, "architecture", true, &name, err) < 0
        || ucb_seccomp_get_array (r, v, loc, "subArchitectures", true, &s, err) < 0
        || want_arch (r, name, ucb_seccomp_join (sloc, loc, "architecture"), &m->arch, err) < 0)
      return -1;
    m->subs = xcalloc (json_array_size (s) + 1, sizeof *m->subs);
    for (size_t k = 0; k < json_array_size (s); k++)
      if (want_arch (r, json_string_value (json_array_get (s, k)),
                     ucb_seccomp_locf (sloc, "%s.subArchitectures[%zu]", loc, k),
                     &m->subs[m->nsubs++], err)
          < 0)
        return -1;
  }
  p->arches = xcalloc (json_array_size (list) + 1, sizeof *p->arches);
  json_array_foreach (list, i, v) if (want_arch (r, json_string_value (v),
                                                 ucb_seccomp_locf (loc, "architectures[%zu]", i),
                                                 &p->arches[p->narches++], err)
                                      < 0) return -1;
  return 0;
}

/* args[]: the comparisons of one entry. */
static int
read_args (const struct ucb_seccomp_reader *r, json_t *e, const char *parent,
           struct ucb_seccomp_entry *c, ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX], oloc[UCB_SECCOMP_LOC_MAX];
  json_t *args, *a;
  size_t i;

  if (ucb_seccomp_get_array (r, e, parent, "args", false, &args, err) < 0)
    return -1;
  c->args = xcalloc (json_array_size (args) + 1, sizeof *c->args);
  json_array_foreach (args, i, a)
  {
    long long index = 0, value = 0, two = 0;
    bool has_index, has_value;
    const char *op;
    unsigned k;

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
    for (k = 1; k < UCB_SCMP_CMPS && strcmp (op, ucb_seccomp_cmps[k]) != 0; k++)
      ;
    if (k == UCB_SCMP_CMPS)
      return ucb_seccomp_bad (
          r, err, ucb_seccomp_join (oloc, loc, "op"),
          "unknown operator `%s` (expected SCMP_CMP_NE, _LT, _LE, _EQ, _GE, _GT or "
          "_MASKED_EQ)",
          op);
    c->args[c->nargs++] = (struct ucb_seccomp_arg){
      .index = (unsigned) index, .op = k, .value = (uint64_t) value, .two = (uint64_t) two
    };
  }
  return 0;
}

/* One syscalls[] entry, all of it. */
static int
read_entry (const struct ucb_seccomp_reader *r, json_t *e, size_t idx, struct ucb_seccomp_entry *c,
            ucb_error_t *err)
{
  char loc[UCB_SECCOMP_LOC_MAX];
  json_t *names;
  const char *name;

  ucb_seccomp_locf (loc, "syscalls[%zu]", idx);
  if (ucb_seccomp_want_object (r, e, loc, err) < 0
      || ucb_seccomp_get_array (r, e, loc, "names", true, &names, err) < 0
      || ucb_seccomp_get_string (r, e, loc, "name", false, &name, err) < 0)
    return -1;
  if (name != NULL && names != NULL)
    return ucb_seccomp_bad (r, err, loc, "both `name` and `names` given; use one");
  c->single = name != NULL;
  c->names = ucb_seccomp_strings (names, &c->nnames);
  if (name)
    {
      c->names[0] = xstrdup (name);
      c->nnames = 1;
    }
  if (ucb_seccomp_parse_action (r, e, loc, "action", "errnoRet", &c->action, err) < 0
      || read_args (r, e, loc, c, err) < 0
      || ucb_seccomp_read_cond (r, e, loc, "includes", &c->inc, err) < 0
      || ucb_seccomp_read_cond (r, e, loc, "excludes", &c->exc, err) < 0)
    return -1;
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

int
ucb_seccomp_profile_read (const char *file, struct ucb_seccomp_profile **out, ucb_error_t *err)
{
  __attribute__ ((cleanup (release_json))) json_t *doc = NULL;
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *p
      = xcalloc (1, sizeof *p);
  struct ucb_seccomp_reader r = { .file = file };
  json_t *calls, *e;
  size_t i;

  *out = NULL;
  p->file = xstrdup (file);
#ifndef HAVE_SECCOMP /* nothing compiles it: ucb_seccomp_build says so, naming the file */
  *out = steal_pointer (&p);
  return 0;
#endif
  if (read_profile (file, &doc, err) < 0
      || ucb_seccomp_want_object (&r, doc, "(top level)", err) < 0
      || ucb_seccomp_parse_action (&r, doc, "", "defaultAction", "defaultErrnoRet", &p->def, err)
             < 0
      || ucb_seccomp_get_array (&r, doc, "", "syscalls", false, &calls, err) < 0
      || read_arches (&r, doc, p, err) < 0)
    return -1;
  p->calls = xcalloc (json_array_size (calls) + 1, sizeof *p->calls);
  json_array_foreach (calls, i,
                      e) if (read_entry (&r, e, i, &p->calls[p->ncalls++], err) < 0) return -1;
  *out = steal_pointer (&p);
  return 0;
}

static void
free_cond (struct ucb_seccomp_cond *c)
{
  ucb_free_items (c->caps, c->ncaps);
  free (c->arches);
}

void
ucb_seccomp_profile_free (struct ucb_seccomp_profile **pp)
{
  struct ucb_seccomp_profile *p = *pp;

  if (p == NULL)
    return;
  for (size_t i = 0; i < p->ncalls; i++)
    {
      ucb_free_items (p->calls[i].names, p->calls[i].nnames);
      free (p->calls[i].args);
      free_cond (&p->calls[i].inc);
      free_cond (&p->calls[i].exc);
    }
  for (size_t i = 0; i < p->nmap; i++)
    free (p->map[i].subs);
  free (p->calls);
  free (p->map);
  free (p->arches);
  free (p->file);
  free (p);
  *pp = NULL;
}
