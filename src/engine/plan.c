/* plan.c - the names of the plan's values, as options take them and the document records them. */
#include "config.h"

#include <sched.h>
#include <string.h>

#include "core/lists.h"
#include "core/util.h"
#include "engine/plan.h"

/* The owner kinds with a name of their own; the others are written as their uids. */
static const struct
{
  const char *name;
  enum ucb_owner_kind kind;
} owner_names[] = {
  { "shared", UCB_OWNER_SHARED },
  { "distinct", UCB_OWNER_DISTINCT },
  { "root", UCB_OWNER_ROOT },
  { "self", UCB_OWNER_SELF },
};

char *
ucb_owner_mode_name (const struct ucb_owner_mode *m)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (owner_names); i++)
    if (owner_names[i].kind == m->kind)
      return xstrdup (owner_names[i].name);
  if (m->kind == UCB_OWNER_UID)
    return xasprintf ("%u", m->lo);
  if (m->kind == UCB_OWNER_RANGE)
    return xasprintf ("%u-%u", m->lo, m->hi);
  return xstrdup ("?");
}

bool
ucb_owner_kind_named (const char *name, enum ucb_owner_kind *kind)
{
  for (size_t i = 0; i < UCB_ARRAY_SIZE (owner_names); i++)
    if (strcmp (name, owner_names[i].name) == 0)
      {
        *kind = owner_names[i].kind;
        return true;
      }
  return false;
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
  switch (m)
    {
    case UCB_PIN_AUTO:
      return "auto";
    case UCB_PIN_NONE:
      return "none";
    case UCB_PIN_LIST:
      return "list";
    case UCB_PIN_SPREAD:
      return "spread";
    case UCB_PIN_COMPACT:
      return "compact";
    case UCB_PIN_L3:
      return "l3";
    default:
      return "?";
    }
}
