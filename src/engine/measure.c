/* measure.c - the shared counter arena and sampling of it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/util.h"
#include "engine/measure.h"

_Static_assert(sizeof (struct ucb_slot) == UCB_SLOT_SIZE, "slot must be exactly 256 bytes");

int
ucb_arena_create (struct ucb_arena *a, size_t ntasks, ucb_error_t *err)
{
  void *p;

  a->ntasks = ntasks;
  a->bytes = sizeof (struct ucb_shared) + ntasks * sizeof (struct ucb_slot);
  p = mmap (NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    {
      a->shared = NULL;
      return ucb_make_error (err, errno, "mmap counter area (%zu bytes)", a->bytes);
    }
  a->shared = p; /* anonymous mappings are zero-filled */
  return 0;
}

void
ucb_arena_destroy (struct ucb_arena *a)
{
  if (a->shared)
    munmap (a->shared, a->bytes);
  a->shared = NULL;
}

void
ucb_samples_init (struct ucb_samples *s, size_t ntasks, size_t cap)
{
  memset (s, 0, sizeof *s);
  s->ntasks = ntasks;
  s->cap = cap ? cap : 1;
  s->r = xcalloc (s->cap * ntasks, sizeof *s->r);
}

void
ucb_samples_free (struct ucb_samples *s)
{
  free (s->r);
  memset (s, 0, sizeof *s);
}

void
ucb_sample_row (struct ucb_samples *s, const struct ucb_arena *a)
{
  if (s->nreadings == s->cap)
    {
      s->cap *= 2;
      s->r = xrealloc (s->r, s->cap * s->ntasks * sizeof *s->r);
    }
  for (size_t i = 0; i < s->ntasks; i++)
    {
      struct ucb_reading *r = ucb_reading_at (s, s->nreadings, i);
      const struct ucb_slot *slot = &a->shared->slots[i];

      r->t_ns = ucb_now_ns ();
      r->ops = __atomic_load_n (&slot->ops, __ATOMIC_RELAXED);
      r->fails = __atomic_load_n (&slot->fails, __ATOMIC_RELAXED);
      r->cpu_ns = __atomic_load_n (&slot->cpu_ns, __ATOMIC_RELAXED);
    }
  s->nreadings++;
}
