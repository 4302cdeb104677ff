/* plan.c - the names of the plan's values, as options take them and the document records them. */
#include "config.h"

#include <sched.h>
#include <string.h>

#include "core/lists.h"
#include "core/util.h"
#include "engine/plan.h"

/* The names of the plan's enums, indexed by them. */
static const char *const owner_names[] = {
  /* UCB_OWNER_UID and UCB_OWNER_RANGE are written as their uids */
  [UCB_OWNER_SHARED] = "shared",
  [UCB_OWNER_DISTINCT] = "distinct",
  [UCB_OWNER_ROOT] = "root",
  [UCB_OWNER_SELF] = "self",
};
static const char *const pin_names[] = {
  [UCB_PIN_AUTO] = "auto",     [UCB_PIN_NONE] = "none",       [UCB_PIN_LIST] = "list",
  [UCB_PIN_SPREAD] = "spread", [UCB_PIN_COMPACT] = "compact", [UCB_PIN_L3] = "l3",
};
static const char *const headroom_names[] = {
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
  if ((size_t) m->kind < UCB_ARRAY_SIZE (owner_names) && owner_names[m->kind])
    return xstrdup (owner_names[m->kind]);
  return xstrdup ("?");
}

bool
ucb_owner_kind_named (const char *name, enum ucb_owner_kind *kind)
{
  int k = ucb_name_index (owner_names, UCB_ARRAY_SIZE (owner_names), name);

  if (k >= 0)
    *kind = (enum ucb_owner_kind) k;
  return k >= 0;
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

  if (ucb_split_list (s, "namespace", &items, err) < 0)
    return -1;
  *flags = 0;
  for (size_t i = 0; i < items.n; i++)
    {
      size_t k = 0;
      while (k < UCB_ARRAY_SIZE (isolate_names) && strcmp (items.v[i], isolate_names[k].name) != 0)
        k++;
      if (k == UCB_ARRAY_SIZE (isolate_names))
        return ucb_usage_error (err,
                                "unknown namespace `%s` in --isolate (expected user, ipc, pid, "
                                "mnt, uts or net)",
                                items.v[i]);
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
  return (size_t) m < UCB_ARRAY_SIZE (pin_names) ? pin_names[m] : "?";
}

bool
ucb_pin_mode_named (const char *name, enum ucb_pin_mode *m)
{
  int k = ucb_name_index (pin_names, UCB_ARRAY_SIZE (pin_names), name);

  /* "list" is what the document says of a CPU list; --pin takes the CPUs themselves */
  if (k >= 0 && k != UCB_PIN_LIST)
    *m = (enum ucb_pin_mode) k;
  return k >= 0 && k != UCB_PIN_LIST;
}

const char *
ucb_headroom_name (enum ucb_headroom h)
{
  return (size_t) h < UCB_ARRAY_SIZE (headroom_names) ? headroom_names[h] : "?";
}

bool
ucb_headroom_named (const char *name, enum ucb_headroom *h)
{
  int k = ucb_name_index (headroom_names, UCB_ARRAY_SIZE (headroom_names), name);

  if (k >= 0)
    *h = (enum ucb_headroom) k;
  return k >= 0;
}
