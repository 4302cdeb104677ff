/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c - the names of the plan's values, as options take them and the document records them. */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/lists.h"
#include "core/util.h"
#include "engine/plan.h"

const char *const ucb_owner_kind_names[UCB_N_OWNER_KINDS] = {
  /* UCB_OWNER_UID and UCB_OWNER_RANGE are written as their uids */
  [UCB_OWNER_SHARED] = "shared",
  [UCB_OWNER_DISTINCT] = "distinct",
  [UCB_OWNER_ROOT] = "root",
  [UCB_OWNER_SELF] = "self",
};
const char *const ucb_pin_mode_names[UCB_N_PIN_MODES] = {
  [UCB_PIN_AUTO] = "auto",     [UCB_PIN_NONE] = "none",       [UCB_PIN_LIST] = "list",
  [UCB_PIN_SPREAD] = "spread", [UCB_PIN_COMPACT] = "compact", [UCB_PIN_L3] = "l3",
};
const char *const ucb_headroom_names[UCB_N_HEADROOMS] = {
  [UCB_HEADROOM_HOST] = "host",
  [UCB_HEADROOM_NEAR] = "near",
  [UCB_HEADROOM_FAR] = "far",
};

char *
ucb_owner_mode_name (const struct ucb_owner_mode *m)
{
  if (m->kind == UCB_OWNER_UID)
    return xasprintf ("%u", m->lo);
  if (m->kind == UCB_OWNER_RANGE)
    return xasprintf ("%u-%u", m->lo, m->hi);
  if ((size_t) m->kind < UCB_N_OWNER_KINDS && ucb_owner_kind_names[m->kind])
    return xstrdup (ucb_owner_kind_names[m->kind]);
  return xstrdup ("?");
}

static const struct
{
  const char *name;
  int flag;
} isolate_names[] = {
  { "user", 0 }, /* always: it is what a container is (depth >= 1) */
  { "ipc", CLONE_NEWIPC }, { "pid", CLONE_NEWPID }, { "mnt", CLONE_NEWNS },
  { "uts", CLONE_NEWUTS }, { "net", CLONE_NEWNET },
};

int
ucb_parse_isolate (const char *s, int *flags, ucb_error_t *err)
{
  cleanup_items struct ucb_items items = { NULL, 0 };
  unsigned seen = 0;

  if (ucb_split_list (s, "namespace", &items, err) < 0)
    return -1;
  *flags = 0;
  for (size_t i = 0; i < items.n; i++)
    {
      size_t k = 0;
      while (k < UCB_ARRAY_SIZE (isolate_names) && strcmp (items.v[i], isolate_names[k].name) != 0)
        k++;
      if (k == UCB_ARRAY_SIZE (isolate_names))
        {
          const char *names[UCB_ARRAY_SIZE (isolate_names)];
          for (k = 0; k < UCB_ARRAY_SIZE (isolate_names); k++)
            names[k] = isolate_names[k].name;
          return ucb_keyword_error (err, "unknown --isolate namespace", items.v[i], names,
                                    UCB_ARRAY_SIZE (names), NULL);
        }
      if (seen & (1u << k))
        return ucb_usage_error (err, "duplicate --isolate namespace `%s`", items.v[i]);
      seen |= 1u << k;
      *flags |= isolate_names[k].flag;
    }
  return 0;
}

char *
ucb_isolate_name (int flags)
{
  char *s = xstrdup ("");

  for (size_t k = 1; k < UCB_ARRAY_SIZE (isolate_names); k++)
    if (flags & isolate_names[k].flag)
      {
        char *next = xasprintf ("%s%s%s", s, *s ? "," : "", isolate_names[k].name);
        free (s);
        s = next;
      }
  return s;
}

const char *
ucb_pin_mode_name (enum ucb_pin_mode m)
{
  return (size_t) m < UCB_N_PIN_MODES ? ucb_pin_mode_names[m] : "?";
}
