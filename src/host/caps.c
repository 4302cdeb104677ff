/* SPDX-License-Identifier: GPL-2.0-or-later */
/* caps.c - the capabilities a container keeps (--caps), applied the way runtimes do.
 *
 * A new user namespace gives its first process every capability in that namespace and a full
 * bounding set (kernel set_cred_user_ns), so a container made of nested namespaces is only
 * "Docker-like" once its init has dropped them itself, as runc does after setns/clone. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "core/lists.h"
#include "core/util.h"
#include "host/caps.h"

/* moby's oci/caps/defaults.go DefaultCapabilities(): what `docker run` keeps by default. */
static const int docker_default[] = {
  CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FSETID,           CAP_FOWNER,
  CAP_MKNOD,   CAP_NET_RAW,      CAP_SETGID,           CAP_SETUID,
  CAP_SETFCAP, CAP_SETPCAP,      CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT,
  CAP_KILL,    CAP_AUDIT_WRITE,
};

static void
set_list (struct ucb_caps *c, const int *v, size_t n)
{
  size_t k = 0;

  c->keep = xcalloc (n ? n : 1, sizeof *c->keep);
  if (n > 0) /* "none" passes v == NULL, which memcpy and qsort must not see */
    {
      memcpy (c->keep, v, n * sizeof *v);
      qsort (c->keep, n, sizeof *c->keep, ucb_cmp_int);
    }
  for (size_t i = 0; i < n; i++)
    if (k == 0 || c->keep[k - 1] != c->keep[i])
      c->keep[k++] = c->keep[i];
  c->nkeep = k;
}

/* One name: "chown", "cap_chown" or "CAP_CHOWN"; libcap knows every name of this kernel. */
static int
parse_one (const char *name, int *cap, ucb_error_t *err)
{
  cleanup_free char *full = NULL;
  cap_value_t v;

  if (strncasecmp (name, "cap_", 4) == 0)
    full = xstrdup (name);
  else
    full = xasprintf ("cap_%s", name);
  for (char *p = full; *p; p++)
    *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  if (cap_from_name (full, &v) < 0 || v < 0)
    return ucb_usage_error (err,
                            "unknown capability `%s` in --caps (expected names such as "
                            "chown,net_raw or CAP_KILL; see capabilities(7))",
                            name);
  *cap = (int) v;
  return 0;
}

int
ucb_caps_parse (const char *s, struct ucb_caps *c, ucb_error_t *err)
{
  cleanup_free char *copy = NULL;
  cleanup_free int *v = NULL;
  cleanup_free const char **names = NULL; /* as given, into `copy` */
  size_t n = 0;
  char *save = NULL;

  ucb_caps_free (c);
  if (strcmp (s, "keep") == 0)
    {
      c->mode = UCB_CAPS_KEEP;
      return 0;
    }
  if (strcmp (s, "drop") == 0)
    {
      c->mode = UCB_CAPS_DROP;
      set_list (c, docker_default, UCB_ARRAY_SIZE (docker_default));
      return 0;
    }
  c->mode = UCB_CAPS_LIST;
  if (strcmp (s, "none") == 0)
    {
      set_list (c, NULL, 0);
      return 0;
    }
  if (*s == '\0' || s[strlen (s) - 1] == ',' || *s == ',' || strstr (s, ",,"))
    return ucb_usage_error (err,
                            "malformed --caps `%s` (expected keep, drop, none or a "
                            "comma-separated list of capabilities)",
                            s);
  copy = xstrdup (s);
  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    {
      v = xrealloc (v, (n + 1) * sizeof *v);
      names = xrealloc (names, (n + 1) * sizeof *names);
      if (parse_one (t, &v[n], err) < 0)
        return -1;
      for (size_t j = 0; j < n; j++)
        if (v[j] == v[n])
          return strcmp (names[j], t) == 0
                     ? ucb_usage_error (err, "duplicate capability `%s` in --caps", t)
                     : ucb_usage_error (err,
                                        "duplicate capability `%s` in --caps (the same as "
                                        "`%s`)",
                                        t, names[j]);
      names[n++] = t;
    }
  set_list (c, v, n);
  return 0;
}

void
ucb_caps_free (struct ucb_caps *c)
{
  free (c->keep);
  c->keep = NULL;
  c->nkeep = 0;
}

uint64_t
ucb_caps_effective (void)
{
  cap_t cur = cap_get_proc ();
  uint64_t mask = 0;

  for (int cap = 0; cur && cap < 64 && CAP_IS_SUPPORTED (cap); cap++)
    {
      cap_flag_value_t v = CAP_CLEAR;
      if (cap_get_flag (cur, (cap_value_t) cap, CAP_EFFECTIVE, &v) == 0 && v == CAP_SET)
        mask |= 1ull << cap;
    }
  if (cur)
    cap_free (cur);
  return mask;
}

char *
ucb_caps_names (const int *caps, size_t n)
{
  char *out = xstrdup ("");

  for (size_t i = 0; i < n; i++)
    {
      char *name = cap_to_name ((cap_value_t) caps[i]);
      char *next = xasprintf ("%s%s%s", out, i ? "," : "", name ? name : "?");
      if (name)
        cap_free (name);
      free (out);
      out = next;
    }
  return out;
}

static bool
in_list (const int *keep, size_t n, int cap)
{
  for (size_t i = 0; i < n; i++)
    if (keep[i] == cap)
      return true;
  return false;
}

int
ucb_caps_bound (const int *keep, size_t n, ucb_error_t *err)
{
  int max = (int) cap_max_bits ();

  for (int cap = 0; cap < max; cap++)
    {
      if (in_list (keep, n, cap) || cap_get_bound ((cap_value_t) cap) != 1)
        continue;
      if (cap_drop_bound ((cap_value_t) cap) < 0)
        {
          int e = errno;
          cleanup_free char *name = NULL;
          char *lc = cap_to_name ((cap_value_t) cap);
          name = xstrdup (lc ? lc : "?");
          if (lc)
            cap_free (lc);
          if (e == EPERM)
            return ucb_make_error (err, 0,
                                   "cannot drop %s from the bounding set: CAP_SETPCAP is missing "
                                   "(at --depth 0 the container is the owner uid itself; run "
                                   "ucbench as root or use --depth >= 1)",
                                   name);
          return ucb_make_error (err, e, "drop %s from the bounding set", name);
        }
    }
  return 0;
}

int
ucb_caps_apply (const int *keep, size_t n, ucb_error_t *err)
{
  cap_t cur = NULL, next = NULL;
  int r = 0;

  if (ucb_caps_bound (keep, n, err) < 0)
    return -1;
  /* EINVAL: a kernel without ambient capabilities (< 4.3) has none to reset. */
  if (cap_reset_ambient () < 0 && errno != EINVAL)
    return ucb_make_error (err, errno, "reset the ambient capabilities");
  cur = cap_get_proc ();
  next = cap_init ();
  if (cur == NULL || next == NULL)
    {
      r = ucb_make_error (err, errno, "cap_get_proc");
      goto out;
    }
  for (size_t i = 0; i < n; i++)
    {
      cap_value_t v = (cap_value_t) keep[i];
      cap_flag_value_t have = CAP_CLEAR;
      /* Keep only what is held: a list may name capabilities this process never had. */
      if (cap_get_flag (cur, v, CAP_PERMITTED, &have) == 0 && have == CAP_SET)
        {
          cap_set_flag (next, CAP_PERMITTED, 1, &v, CAP_SET);
          cap_set_flag (next, CAP_EFFECTIVE, 1, &v, CAP_SET);
        }
    }
  if (cap_set_proc (next) < 0)
    {
      r = ucb_make_error (err, errno, "cap_set_proc");
      goto out;
    }
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    r = ucb_make_error (err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
out:
  if (cur)
    cap_free (cur);
  if (next)
    cap_free (next);
  return r;
}

/* What ucbench cannot do without each capability (the `ucbench info` table). */
static const struct
{
  cap_value_t cap;
  const char *disables;
} needs[] = {
  { CAP_SYS_RESOURCE, "raising hard rlimits: --limit and --headroom far stop at the hard limits "
                      "ucbench was started with" },
  { CAP_SETUID, "owner modes other than self (shared, distinct, root, UID): containers are "
                "made by your own uid only (no subuid ranges, no newuidmap)" },
  { CAP_SETGID, "owner modes other than self (the owner's gid cannot be set)" },
  { CAP_SYS_ADMIN, "--cgroup outside a delegated subtree (creating cgroups, moving tasks)" },
  { CAP_SETPCAP, "--caps drop/LIST at --depth 0 (the bounding set cannot be reduced)" },
  { CAP_KILL, "stopping containers owned by other uids" },
  { CAP_PERFMON, "--perf kernel-side counts (unless kernel.perf_event_paranoid <= 1)" },
  { CAP_SYS_PTRACE, "--perf counters on containers owned by other uids" },
};

static char *
iab_text (void)
{
  cap_iab_t iab = cap_iab_get_proc ();
  char *t = iab ? cap_iab_to_text (iab) : NULL;
  char *out = xstrdup (t ? t : "");

  if (t)
    cap_free (t);
  if (iab)
    cap_free (iab);
  return out;
}

void
ucb_caps_probe (struct ucb_caps_probe *p)
{
  cap_t cur = cap_get_proc ();
  char *text = cur ? cap_to_text (cur, NULL) : NULL;

  memset (p, 0, sizeof *p);
  p->text = text ? xstrdup (text) : NULL;
  p->iab = iab_text ();
  p->missing = xcalloc (UCB_ARRAY_SIZE (needs), sizeof *p->missing);
  for (size_t i = 0; i < UCB_ARRAY_SIZE (needs); i++)
    {
      cap_flag_value_t v = CAP_CLEAR;
      char *name;

      if (!CAP_IS_SUPPORTED (needs[i].cap))
        continue;
      if (cur && cap_get_flag (cur, needs[i].cap, CAP_EFFECTIVE, &v) == 0 && v == CAP_SET)
        continue;
      name = cap_to_name (needs[i].cap);
      if (name)
        {
          p->missing[p->nmissing].name = xstrdup (name);
          p->missing[p->nmissing++].disables = needs[i].disables;
          cap_free (name);
        }
    }
  if (text)
    cap_free (text);
  if (cur)
    cap_free (cur);
}

void
ucb_caps_probe_free (struct ucb_caps_probe *p)
{
  for (size_t i = 0; i < p->nmissing; i++)
    free (p->missing[i].name);
  free (p->missing);
  free (p->text);
  free (p->iab);
  memset (p, 0, sizeof *p);
}
