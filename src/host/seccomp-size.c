/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-size.c - a profile's BPF program against the kernel's limit of BPF_MAXINSNS (4096)
 * instructions a filter: known too big from its rules before libseccomp compiles them, or
 * measured once compiled; compiled once, in the parent, for every container to install.
 *
 * libseccomp's compiler takes time superlinear in the program's size (measured with 2.5.4:
 * 0.2 s for 1000 argument rules over 10 calls, 4 s for 3000, 17 s for 4500 over 8 calls, 91 s
 * for 2500 rules of two comparisons over 8 calls), and seccomp_load() compiles again each time:
 * a profile over the limit cost a minute before every container failed with EINVAL.  So the
 * rules are counted as they are added.  Every comparison of a rule is a node of libseccomp's
 * tree (db.c), and every node a BPF jump (gen_bpf.c); the one on the argument's low 32 bits is
 * JEQ for EQ, NE and MASKED_EQ (of the masked datum), JGT for GT and LE, JGE for GE and LT (NE,
 * LE and LT are EQ, GT and GE with the branches swapped).  libseccomp shares a block of
 * instructions only with one of the same accumulator state (_hsh_add), so the program holds one
 * instruction at least for each distinct (argument, jump, value) of those: a lower bound for
 * every layout, near the real size when rules compare arguments with many values, the
 * profiles that grow past the limit.  Left out, for the bound to hold: the calls with a rule
 * without conditions (it voids their other rules), a MASKED_EQ without a low mask (none on
 * 32-bit architectures), and every rule that another rule of its call may leave out of the
 * program.  One cuts another short in the tree (a1 == 5 makes a0 == 7 && a1 == 5 redundant)
 * only when each of its comparisons matches a node of the other on the same argument: the low
 * word too for EQ and MASKED_EQ (the action is reached through it), the first high-word node
 * alone for the others, which can end or pass there on 64-bit architectures.  And nodes after
 * one that takes every value with the rules on it (a0 != 5 and a0 == 5) are never reached, so
 * not emitted: that needs a false branch, which only comparisons other than EQ and MASKED_EQ
 * take, so a rule is left out when another has one after nodes that match its own.
 * Rules of EQ comparisons with values of their own, the profiles that grow past the limit,
 * lose nothing to these. */
#include "config.h"

#ifdef HAVE_SECCOMP
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/filter.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lists.h"
#include "core/util.h"
#include "host/seccomp-size.h"

#define MAX_CMPS 6 /* one comparison an argument: libseccomp refuses two */

/* A node of libseccomp's tree as the bound needs it (kind: an op class, or KEY_HI_ for the
 * first node of the high word alone), or a low-word jump (kind: its op class, mask 0). */
enum
{
  KEY_HI_EQ, /* "high word ==": EQ and NE begin there, GT, GE, LE and LT pass there */
  KEY_HI_GT, /* "high word >": GT, GE, LE and LT begin there */
  KEY_EQ,    /* EQ, NE */
  KEY_GT,    /* GT, LE */
  KEY_GE,    /* GE, LT */
  KEY_MASKED,
};
struct key
{
  uint64_t mask, datum;
  unsigned arg, kind;
};

/* One rule with conditions, its comparisons by argument, each datum masked. */
struct ucb_seccomp_rule
{
  int nr;
  unsigned n;
  struct
  {
    unsigned arg;
    enum scmp_compare op;
    uint64_t mask, datum;
  } c[MAX_CMPS];
};

/* A 64-bit argument is two words, each its own node: the native layout's width (libseccomp's
 * x32 and mips64n32 compare 32-bit arguments, like their long). */
static const bool wide = sizeof (long) == 8;

static int
cmp_arg (const void *a, const void *b)
{
  const struct scmp_arg_cmp *x = a, *y = b;
  return (x->arg > y->arg) - (x->arg < y->arg);
}

void
ucb_seccomp_size_rule (struct ucb_seccomp_size *z, int nr, const struct scmp_arg_cmp *cmp, size_t n)
{
  cleanup_free struct scmp_arg_cmp *v = xcalloc (n + 1, sizeof *v);
  struct ucb_seccomp_rule r = { .nr = nr };

  if (nr < 0 || n > MAX_CMPS) /* a pseudo number: no call of this architecture */
    return;
  if (n > 0)
    memcpy (v, cmp, n * sizeof *v);
  qsort (v, n, sizeof *v, cmp_arg);
  for (size_t i = 0; i < n; i++)
    {
      uint64_t mask = v[i].op == SCMP_CMP_MASKED_EQ ? v[i].datum_a : UINT64_MAX;
      if (v[i].op <= _SCMP_CMP_MIN || v[i].op >= _SCMP_CMP_MAX)
        return; /* libseccomp refused it */
      if (mask == 0 || (!wide && (uint32_t) mask == 0))
        continue; /* always true: no node */
      r.c[r.n].arg = v[i].arg;
      r.c[r.n].op = v[i].op;
      r.c[r.n].mask = mask;
      r.c[r.n].datum = (v[i].op == SCMP_CMP_MASKED_EQ ? v[i].datum_b : v[i].datum_a) & mask;
      r.n++;
    }
  if (r.n == 0)
    {
      z->uncond = xrealloc (z->uncond, (z->nuncond + 1) * sizeof *z->uncond);
      z->uncond[z->nuncond++] = nr;
      return;
    }
  if (z->n == z->cap)
    {
      z->cap = z->cap ? 2 * z->cap : 64;
      z->rules = xrealloc (z->rules, z->cap * sizeof *z->rules);
    }
  z->rules[z->n++] = r;
}

static unsigned
op_kind (enum scmp_compare op)
{
  switch (op)
    {
    case SCMP_CMP_GT:
    case SCMP_CMP_LE:
      return KEY_GT;
    case SCMP_CMP_GE:
    case SCMP_CMP_LT:
      return KEY_GE;
    case SCMP_CMP_MASKED_EQ:
      return KEY_MASKED;
    case SCMP_CMP_EQ:
    case SCMP_CMP_NE:
    case _SCMP_CMP_MIN:
    case _SCMP_CMP_MAX:
    default:
      return KEY_EQ;
    }
}

/* Comparison `i` of `r`: what another rule needs of a rule to cut it short (`need`), and the
 * `*n` keys of its own that can meet such a need (`offer`: its nodes, and on 64-bit
 * architectures its first high-word nodes, but a MASKED_EQ's). */
static struct key
keys (const struct ucb_seccomp_rule *r, unsigned i, struct key offer[3], unsigned *n)
{
  enum scmp_compare op = r->c[i].op;
  unsigned kind = op_kind (op);
  struct key hi_eq = { 0, r->c[i].datum >> 32, r->c[i].arg, KEY_HI_EQ };
  struct key hi_gt = { 0, r->c[i].datum >> 32, r->c[i].arg, KEY_HI_GT };

  *n = 0;
  offer[(*n)++] = (struct key){ r->c[i].mask, r->c[i].datum, r->c[i].arg, kind };
  if (wide && kind != KEY_MASKED)
    offer[(*n)++] = hi_eq;
  if (wide && (kind == KEY_GT || kind == KEY_GE))
    offer[(*n)++] = hi_gt;
  if (!wide || op == SCMP_CMP_EQ || kind == KEY_MASKED)
    return offer[0]; /* the action is reached through the low word */
  return op == SCMP_CMP_NE ? hi_eq : hi_gt;
}

static int
cmp_key (const struct key *x, const struct key *y)
{
  if (x->arg != y->arg)
    return x->arg < y->arg ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->mask != y->mask)
    return x->mask < y->mask ? -1 : 1;
  return (x->datum > y->datum) - (x->datum < y->datum);
}

static int
cmp_key_v (const void *a, const void *b)
{
  return cmp_key (a, b);
}

/* What a rule needs of another to cut it short: one key for each comparison, and how many
 * distinct rules of the call need the same. */
struct need
{
  int nr;
  unsigned n, count;
  struct key k[MAX_CMPS];
};

static int
cmp_need (const void *a, const void *b)
{
  const struct need *x = a, *y = b;
  if (x->nr != y->nr)
    return x->nr < y->nr ? -1 : 1;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  for (unsigned i = 0; i < x->n; i++)
    {
      int c = cmp_key (&x->k[i], &y->k[i]);
      if (c)
        return c;
    }
  return 0;
}

static int
cmp_rule (const void *a, const void *b)
{
  const struct ucb_seccomp_rule *x = a, *y = b;
  if (x->nr != y->nr)
    return x->nr < y->nr ? -1 : 1;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  for (unsigned i = 0; i < x->n; i++)
    {
      struct key ox[3], oy[3];
      unsigned n;
      int c;
      keys (x, i, ox, &n);
      keys (y, i, oy, &n);
      if ((c = cmp_key (&ox[0], &oy[0])) != 0)
        return c;
      if (x->c[i].op != y->c[i].op)
        return x->c[i].op < y->c[i].op ? -1 : 1;
    }
  return 0;
}

/* The needs of a profile's rules, to find whether one may cut another short. */
struct needs
{
  struct need *v; /* sorted, each distinct need once, with its count */
  size_t n;
  struct need *ends; /* the needs before each comparison but EQ and MASKED_EQ: likewise */
  size_t nends;
  struct need *prefixes; /* the first keys of every need, sorted: to choose only those */
  size_t nprefixes;
};

static bool
branches (enum scmp_compare op)
{
  return op != SCMP_CMP_EQ && op != SCMP_CMP_MASKED_EQ;
}

/* Whether `pick` is what `r` needs before one of its comparisons that branch. */
static bool
own_end (const struct ucb_seccomp_rule *r, const struct need *own, const struct need *pick)
{
  struct need before = *own;

  before.n = pick->n;
  return pick->n < r->n && branches (r->c[pick->n].op) && cmp_need (pick, &before) == 0;
}

/* Whether `pick` (nodes of `r`) leads to a node where another rule may cut `r` short: a rule
 * that needs all of them, or one whose comparison that branches comes after them alone (its
 * node and others on it may take every value, leaving the nodes after it, `r`'s among them,
 * unreachable: libseccomp leaves those out). */
static bool
hit (const struct ucb_seccomp_rule *r, const struct need *pick, const struct need *own,
     const struct needs *nd)
{
  const struct need *h = NULL;

  if (pick->n > 0)
    h = bsearch (pick, nd->v, nd->n, sizeof *nd->v, cmp_need);
  if (h && h->count > (cmp_need (pick, own) == 0 ? 1u : 0u))
    return true;
  h = bsearch (pick, nd->ends, nd->nends, sizeof *nd->ends, cmp_need);
  return h && h->count > (own_end (r, own, pick) ? 1u : 0u);
}

/* Whether another rule of `r`'s call may cut `r` short: whether a need matches nodes of `r`,
 * choosing for each comparison from `i` on none or one of its offers (`pick` holding the choices
 * before `i`); `own` is what `r` itself needs. */
static bool
may_cut (const struct ucb_seccomp_rule *r, unsigned i, struct need *pick, const struct need *own,
         const struct needs *nd)
{
  struct key offer[3];
  unsigned no;

  if (i == r->n)
    return hit (r, pick, own, nd);
  if (may_cut (r, i + 1, pick, own, nd))
    return true;
  keys (r, i, offer, &no);
  for (unsigned w = 0; w < no; w++)
    {
      bool cut = false;
      pick->k[pick->n++] = offer[w];
      /* needs and picks go by argument: a pick no need begins with leads nowhere */
      if (bsearch (pick, nd->prefixes, nd->nprefixes, sizeof *nd->prefixes, cmp_need))
        cut = may_cut (r, i + 1, pick, own, nd);
      pick->n--;
      if (cut)
        return true;
    }
  return false;
}

/* Sort `v` and keep each distinct entry once, counting them. */
static size_t
unique_needs (struct need *v, size_t n)
{
  size_t kept = 0;

  if (n > 1)
    qsort (v, n, sizeof *v, cmp_need);
  for (size_t i = 0; i < n; i++)
    if (kept > 0 && cmp_need (&v[kept - 1], &v[i]) == 0)
      v[kept - 1].count++;
    else
      v[kept++] = v[i];
  return kept;
}

/* The needs of every rule of `z` (`own`: of rule i, unsorted). */
static void
make_needs (const struct ucb_seccomp_size *z, struct need *own, struct needs *nd)
{
  struct key offer[3];
  unsigned no;
  size_t cmps = 0;

  for (size_t i = 0; i < z->n; i++)
    cmps += z->rules[i].n;
  nd->v = xcalloc (z->n + 1, sizeof *nd->v);
  nd->ends = xcalloc (cmps + 1, sizeof *nd->ends);
  nd->prefixes = xcalloc (cmps + 1, sizeof *nd->prefixes);
  for (size_t i = 0; i < z->n; i++)
    {
      own[i] = (struct need){ .nr = z->rules[i].nr, .n = z->rules[i].n, .count = 1 };
      for (unsigned j = 0; j < z->rules[i].n; j++)
        own[i].k[j] = keys (&z->rules[i], j, offer, &no);
      for (unsigned j = 0; j < z->rules[i].n; j++)
        {
          nd->prefixes[nd->nprefixes] = own[i];
          nd->prefixes[nd->nprefixes++].n = j + 1;
          if (!branches (z->rules[i].c[j].op))
            continue;
          nd->ends[nd->nends] = own[i];
          nd->ends[nd->nends++].n = j;
        }
      nd->v[i] = own[i];
    }
  nd->n = unique_needs (nd->v, z->n);
  nd->nends = unique_needs (nd->ends, nd->nends);
  nd->nprefixes = unique_needs (nd->prefixes, nd->nprefixes);
}

/* Drop the rules of calls with an unconditional rule, and duplicates: they add no nodes. */
static void
prune_rules (struct ucb_seccomp_size *z)
{
  size_t kept = 0;

  if (z->nuncond > 1)
    qsort (z->uncond, z->nuncond, sizeof *z->uncond, ucb_cmp_int);
  for (size_t i = 0; i < z->n; i++)
    if (z->nuncond == 0
        || bsearch (&z->rules[i].nr, z->uncond, z->nuncond, sizeof *z->uncond, ucb_cmp_int) == NULL)
      z->rules[kept++] = z->rules[i];
  z->n = kept;
  if (z->n > 1)
    qsort (z->rules, z->n, sizeof *z->rules, cmp_rule);
  kept = 0;
  for (size_t i = 0; i < z->n; i++)
    if (i == 0 || cmp_rule (&z->rules[i - 1], &z->rules[i]) != 0)
      z->rules[kept++] = z->rules[i];
  z->n = kept;
}

unsigned
ucb_seccomp_size_min (struct ucb_seccomp_size *z)
{
  cleanup_free struct need *own = NULL;
  cleanup_free struct key *jumps = NULL;
  struct needs nd = { 0 };
  size_t nj = 0, distinct = 0;

  prune_rules (z);
  own = xcalloc (z->n + 1, sizeof *own);
  jumps = xcalloc (z->n * MAX_CMPS + 1, sizeof *jumps);
  make_needs (z, own, &nd);
  for (size_t i = 0; i < z->n; i++)
    {
      const struct ucb_seccomp_rule *r = &z->rules[i];
      struct need pick = { .nr = r->nr };

      if (may_cut (r, 0, &pick, &own[i], &nd))
        continue;
      for (unsigned j = 0; j < r->n; j++)
        {
          unsigned kind = op_kind (r->c[j].op);
          if ((uint32_t) r->c[j].mask != 0) /* else no low word to compare */
            jumps[nj++] = (struct key){ 0, (uint32_t) r->c[j].datum, r->c[j].arg,
                                        kind == KEY_MASKED ? KEY_EQ : kind };
        }
    }
  free (nd.v);
  free (nd.ends);
  free (nd.prefixes);
  if (nj > 1)
    qsort (jumps, nj, sizeof *jumps, cmp_key_v);
  for (size_t i = 0; i < nj; i++)
    distinct += i == 0 || cmp_key (&jumps[i - 1], &jumps[i]) != 0;
  return distinct > UINT32_MAX ? UINT32_MAX : (unsigned) distinct;
}

void
ucb_seccomp_size_free (struct ucb_seccomp_size *z)
{
  free (z->rules);
  free (z->uncond);
  memset (z, 0, sizeof *z);
}

int
ucb_seccomp_size_check (const char *file, unsigned insns, bool compiled, unsigned arches,
                        ucb_error_t *err)
{
  if (insns <= BPF_MAXINSNS)
    return 0;
  return ucb_usage_error (err,
                          "seccomp profile `%s`: %s %u BPF instructions, over the kernel's limit "
                          "of %u per filter (BPF_MAXINSNS): use fewer rules, e.g. one range "
                          "(SCMP_CMP_GE, _LE) instead of a rule per value%s",
                          file, compiled ? "its filter compiles to" : "its rules need at least",
                          insns, (unsigned) BPF_MAXINSNS,
                          arches > 1 ? ", or fewer architectures (each gets a copy of the rules)"
                                     : "");
}

int
ucb_seccomp_compile (void *ctx, struct sock_filter **prog, unsigned *len, ucb_error_t *err)
{
  cleanup_close int fd = memfd_create ("ucb-seccomp-bpf", MFD_CLOEXEC);
  cleanup_free struct sock_filter *v = NULL;
  struct stat sb;
  size_t got = 0;
  int rc;

  *prog = NULL;
  *len = 0;
  if (fd < 0)
    return ucb_make_error (err, errno, "memfd_create");
  /* The generator seccomp_load would run; this also primes libseccomp's kernel probes. */
  rc = seccomp_export_bpf (ctx, fd);
  if (rc < 0)
    return ucb_make_error (err, -rc, "seccomp_export_bpf");
  if (fstat (fd, &sb) < 0)
    return ucb_make_error (err, errno, "fstat memfd");
  if (sb.st_size <= 0 || sb.st_size % (off_t) sizeof *v != 0
      || (uint64_t) sb.st_size / sizeof *v > UINT32_MAX)
    return ucb_make_error (err, 0, "seccomp_export_bpf: a program of %lld bytes",
                           (long long) sb.st_size);
  v = xcalloc ((size_t) sb.st_size / sizeof *v, sizeof *v);
  while (got < (size_t) sb.st_size)
    {
      ssize_t n = pread (fd, (char *) v + got, (size_t) sb.st_size - got, (off_t) got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return ucb_make_error (err, n < 0 ? errno : EIO, "read the BPF program back");
      got += (size_t) n;
    }
  *len = (unsigned) (got / sizeof *v);
  *prog = steal_pointer (&v);
  return 0;
}

#endif /* HAVE_SECCOMP */
