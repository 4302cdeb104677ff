/* SPDX-License-Identifier: GPL-2.0-or-later */
/* diff.c - the host and option differences that `ucbench compare` names (docs/json.md,
 * compare's `differences`): a note, never a failure, so that a ratio is read knowing what else
 * changed between the runs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json-util.h"
#include "core/util.h"
#include "report/compare/parts.h"

/* A compared key: `path` dotted from the document's top.  `predates`: its value, as JSON text,
 * in a document whose `config` has no `runtime` (an older ucbench, without those options);
 * NULL: not recorded there.  `say`: the value compared, from the recorded one (which may be
 * null); NULL: the recorded one. */
struct key
{
  const char *path;
  const char *predates;
  json_t *(*say) (json_t *v);
};

/* The filter by its profile: a different one changes every system call's cost. */
static json_t *
say_seccomp (json_t *v)
{
  json_t *p = json_object_get (v, "profile");
  if (!json_is_object (v))
    return ucb_json_str ("none");
  return ucb_json_str (json_is_string (p) ? json_string_value (p) : "on");
}

/* Its settings (cpuset, pids_max, set) are keys of their own; the pid and groups are not. */
static json_t *
say_cgroup (json_t *v)
{
  return ucb_json_str (json_is_object (v) ? "on" : "none");
}

static json_t *
say_perf (json_t *v)
{
  if (!json_is_object (v))
    return ucb_json_str ("none");
  return ucb_json_str (json_is_true (json_object_get (v, "available")) ? "on"
                                                                       : "on (no hardware event)");
}

/* What changes what is measured, and what a reader must know to trust a ratio; not the start
 * time, argv, hostname, pids or notes, which differ between any two runs. */
static const struct key keys[] = {
  { "tool.version", NULL, NULL },
  { "host.kernel.release", NULL, NULL },
  { "host.kernel.version", NULL, NULL },
  { "host.kernel.cmdline", NULL, NULL },
  { "host.arch", NULL, NULL },
  { "host.cpu_model", NULL, NULL },
  { "host.cpus_online", NULL, NULL },
  { "host.cpus_allowed", NULL, NULL },
  { "host.smt", NULL, NULL },
  { "host.virtualization", NULL, NULL },
  { "host.lsms", NULL, NULL },
  { "host.libraries.libc", NULL, NULL },
  { "host.libraries.libseccomp", NULL, NULL },
  { "config.duration_s", NULL, NULL },
  { "config.warmup_s", NULL, NULL },
  { "config.interval_s", NULL, NULL },
  { "config.mode", NULL, NULL },
  { "config.isolate", NULL, NULL },
  { "config.limits", NULL, NULL },
  { "config.headroom", NULL, NULL },
  { "config.contention_threshold", NULL, NULL },
  { "config.pin.mode", NULL, NULL },
  { "config.pin.cpus", NULL, NULL },
  { "config.runtime.seccomp", "null", say_seccomp },
  { "config.runtime.seccomp.default_action", NULL, NULL },
  { "config.runtime.seccomp.optimize", NULL, NULL },
  { "config.runtime.seccomp.rules", NULL, NULL },
  { "config.runtime.seccomp.bpf_insns", NULL, NULL },
  { "config.runtime.caps.mode", "\"keep\"", NULL },
  { "config.runtime.caps.keep", "null", NULL },
  { "config.runtime.no_new_privs", "false", NULL },
  { "config.runtime.cgroup", "null", say_cgroup },
  { "config.runtime.cgroup.cpuset", NULL, NULL },
  { "config.runtime.cgroup.pids_max", NULL, NULL },
  { "config.runtime.cgroup.set", NULL, NULL },
  { "config.runtime.perf", "null", say_perf },
};

/* The value at dotted `path` in `doc` (borrowed), NULL when a step is missing. */
static json_t *
at (json_t *doc, const char *path)
{
  char buf[128], *save = NULL;

  snprintf (buf, sizeof buf, "%s", path);
  for (char *s = strtok_r (buf, ".", &save); s && doc; s = strtok_r (NULL, ".", &save))
    doc = json_object_get (doc, s);
  return doc;
}

static char *
dump (json_t *v)
{
  char *s
      = json_dumps (v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION (10));
  if (!s)
    ucb_oom ();
  return s;
}

/* A scalar as it is; a non-empty array of strings and numbers as its items joined by commas
 * (`0,1`); any other array or object as its compact JSON text.  Every value compared is then a
 * scalar, so that a side's several values can be an array. */
static json_t *
flat (json_t *v)
{
  size_t i, len = 0;
  json_t *x, *out;
  char *buf = NULL;
  bool joinable = json_is_array (v) && json_array_size (v) > 0;
  FILE *f;

  if (!json_is_array (v) && !json_is_object (v))
    return json_incref (v);
  json_array_foreach (v, i, x) joinable = joinable && (json_is_string (x) || json_is_number (x));
  if (!joinable)
    {
      cleanup_free char *s = dump (v);
      return ucb_json_str (s);
    }
  f = open_memstream (&buf, &len);
  if (!f)
    ucb_oom ();
  json_array_foreach (v, i, x)
  {
    cleanup_free char *s = json_is_string (x) ? xstrdup (json_string_value (x)) : dump (x);
    fprintf (f, "%s%s", i ? "," : "", s);
  }
  fclose (f);
  out = ucb_json_str (buf);
  free (buf);
  return out;
}

/* The value of `k` in document `doc` (a new reference), NULL when it does not record it. */
static json_t *
value_of (json_t *doc, const struct key *k)
{
  json_t *config = json_object_get (doc, "config");
  cleanup_json json_t *v = json_incref (at (doc, k->path));

  if (!v && k->predates && json_is_object (config) && !json_object_get (config, "runtime"))
    v = ucb_json_checked (json_loads (k->predates, JSON_DECODE_ANY, NULL));
  if (!v)
    return NULL;
  return k->say ? k->say (v) : flat (v);
}

/* The values of `k` over one side. */
struct side_values
{
  const struct ucb_doc *docs;
  size_t n;
  json_t **v;  /* per document; NULL: not recorded */
  json_t *one; /* the first recorded (borrowed), NULL when none */
  bool mixed;  /* two recorded values differ */
};

static void
side_read (const struct ucb_doc *docs, size_t n, const struct key *k, struct side_values *s)
{
  *s = (struct side_values){ .docs = docs, .n = n, .v = xcalloc (n + 1, sizeof *s->v) };
  for (size_t i = 0; i < n; i++)
    {
      s->v[i] = value_of (docs[i].json, k);
      if (s->v[i] && !s->one)
        s->one = s->v[i];
      else if (s->v[i] && !json_equal (s->v[i], s->one))
        s->mixed = true;
    }
}

static void
side_free (struct side_values *s)
{
  for (size_t i = 0; i < s->n; i++)
    json_decref (s->v[i]);
  free (s->v);
}

/* A side in the JSON: its value, or each document's when they differ. */
static json_t *
side_json (const struct side_values *s)
{
  json_t *a;

  if (!s->mixed)
    return s->one ? json_incref (s->one) : NULL;
  a = ucb_json_arr ();
  for (size_t i = 0; i < s->n; i++)
    ucb_json_push (a, s->v[i] ? json_incref (s->v[i]) : NULL);
  return a;
}

/* A value as the text says it: null is `-`. */
static char *
said (json_t *v)
{
  if (!v || json_is_null (v))
    return xstrdup ("-");
  if (json_is_string (v))
    return xstrdup (*json_string_value (v) ? json_string_value (v) : "\"\"");
  return dump (v);
}

/* A side in the text: its value, or each distinct value with the documents that have it. */
static void
side_text (FILE *f, const struct side_values *s)
{
  bool first = true;

  if (!s->mixed)
    {
      cleanup_free char *t = said (s->one);
      fputs (t, f);
      return;
    }
  for (size_t i = 0; i < s->n; i++)
    {
      size_t j;
      cleanup_free char *t = NULL;

      for (j = 0; j < i && s->v[i]; j++)
        if (s->v[j] && json_equal (s->v[j], s->v[i]))
          break;
      if (!s->v[i] || j < i)
        continue; /* not recorded, or said with an earlier document */
      t = said (s->v[i]);
      fprintf (f, "%s%s (", first ? "" : ", ", t);
      first = false;
      for (j = i; j < s->n; j++)
        if (s->v[j] && json_equal (s->v[j], s->v[i]))
          fprintf (f, "%s%s", j == i ? "" : ", ", s->docs[j].name);
      fputc (')', f);
    }
}

static json_t *
sentence (const struct key *k, const struct side_values *b, const struct side_values *h)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  json_t *out;

  if (!f)
    ucb_oom ();
  if (!b->mixed && !h->mixed)
    {
      fprintf (f, "base and head differ in %s: ", k->path);
      side_text (f, b);
      fputs (" (base) vs ", f);
      side_text (f, h);
      fputs (" (head)", f);
    }
  else
    {
      fprintf (f, "the documents of a side differ in %s: base ", k->path);
      side_text (f, b);
      fputs ("; head ", f);
      side_text (f, h);
    }
  fclose (f);
  out = ucb_json_fmt ("%s", buf);
  free (buf);
  return out;
}

json_t *
ucb_compare_differences (const struct ucb_doc *base, size_t n_base, const struct ucb_doc *head,
                         size_t n_head, json_t *notes)
{
  json_t *out = ucb_json_arr ();

  for (size_t i = 0; i < UCB_ARRAY_SIZE (keys); i++)
    {
      struct side_values b, h;

      side_read (base, n_base, &keys[i], &b);
      side_read (head, n_head, &keys[i], &h);
      if (b.mixed || h.mixed || (b.one && h.one && !json_equal (b.one, h.one)))
        {
          json_t *o = ucb_json_obj ();
          ucb_json_set (o, "key", ucb_json_str (keys[i].path));
          ucb_json_set (o, "base", side_json (&b));
          ucb_json_set (o, "head", side_json (&h));
          ucb_json_push (out, o);
          ucb_json_push (notes, sentence (&keys[i], &b, &h));
        }
      side_free (&b);
      side_free (&h);
    }
  return out;
}
