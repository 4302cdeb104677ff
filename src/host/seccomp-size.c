/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp-size.c - a profile's BPF program against the kernel's limit of BPF_MAXINSNS (4096)
 * instructions a filter: known too big from its rules before libseccomp compiles them, or
 * measured once compiled; compiled once, in the parent, for every container to install.
 *
 * libseccomp's compiler takes time superlinear in the program's size (measured with 2.5.4:
 * 0.2 s for 1000 argument rules over 10 calls, 4 s for 3000, 17 s for 4500 over 8 calls), and
 * seccomp_load() compiles again each time: a profile over the limit cost a minute before
 * every container failed with EINVAL.  So the rules are counted as they are added.  Each
 * rule's first comparison (the lowest argument index: libseccomp's order) is a BPF jump on
 * the argument's low 32 bits: JEQ for EQ, NE and MASKED_EQ (of the masked datum), JGT for GT
 * and LE, JGE for GE and LT (libseccomp's db.c turns NE, LE and LT into EQ, GT and GE with
 * the branches swapped).  However libseccomp shares blocks between calls, the program holds
 * one instruction at least for each distinct (jump, value) pair of those: a lower bound that
 * holds for every layout and architecture, and near the real size when the rules compare one
 * argument with many values, the profiles that grow past the limit.  Left out, for the bound
 * to hold: the calls with a rule without conditions (it may void their other rules), a
 * MASKED_EQ without a mask (no comparison), and one without a low mask (none on 32-bit
 * architectures). */
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

/* A comparison the program must make: the call it belongs to, the jump and its value. */
struct ucb_seccomp_insn
{
  int nr;
  unsigned jump; /* BPF_JEQ, BPF_JGT or BPF_JGE */
  uint32_t k;
};

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
  struct ucb_seccomp_insn in = { .nr = nr };
  size_t i = 0;

  if (nr < 0) /* a pseudo number: no call of this architecture, nothing in its program */
    return;
  if (n > 0)
    memcpy (v, cmp, n * sizeof *v);
  qsort (v, n, sizeof *v, cmp_arg);
  while (i < n && v[i].op == SCMP_CMP_MASKED_EQ && v[i].datum_a == 0)
    i++; /* always true */
  if (i == n)
    {
      z->uncond = xrealloc (z->uncond, (z->nuncond + 1) * sizeof *z->uncond);
      z->uncond[z->nuncond++] = nr;
      return;
    }
  switch (v[i].op)
    {
    case SCMP_CMP_EQ:
    case SCMP_CMP_NE:
      in.jump = BPF_JEQ;
      in.k = (uint32_t) v[i].datum_a;
      break;
    case SCMP_CMP_GT:
    case SCMP_CMP_LE:
      in.jump = BPF_JGT;
      in.k = (uint32_t) v[i].datum_a;
      break;
    case SCMP_CMP_GE:
    case SCMP_CMP_LT:
      in.jump = BPF_JGE;
      in.k = (uint32_t) v[i].datum_a;
      break;
    case SCMP_CMP_MASKED_EQ: /* datum_a the mask, datum_b the datum */
      if ((uint32_t) v[i].datum_a == 0)
        return;
      in.jump = BPF_JEQ;
      in.k = (uint32_t) (v[i].datum_b & v[i].datum_a);
      break;
    case _SCMP_CMP_MIN:
    case _SCMP_CMP_MAX:
    default:
      return;
    }
  z->insns = xrealloc (z->insns, (z->n + 1) * sizeof *z->insns);
  z->insns[z->n++] = in;
}

static int
cmp_insn (const void *a, const void *b)
{
  const struct ucb_seccomp_insn *x = a, *y = b;
  if (x->jump != y->jump)
    return x->jump < y->jump ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

unsigned
ucb_seccomp_size_min (struct ucb_seccomp_size *z)
{
  size_t kept = 0, distinct = 0;

  if (z->nuncond > 1)
    qsort (z->uncond, z->nuncond, sizeof *z->uncond, ucb_cmp_int);
  for (size_t i = 0; i < z->n; i++)
    if (z->nuncond == 0
        || bsearch (&z->insns[i].nr, z->uncond, z->nuncond, sizeof *z->uncond, ucb_cmp_int) == NULL)
      z->insns[kept++] = z->insns[i];
  z->n = kept;
  if (kept > 1)
    qsort (z->insns, kept, sizeof *z->insns, cmp_insn);
  for (size_t i = 0; i < kept; i++)
    distinct += i == 0 || cmp_insn (&z->insns[i - 1], &z->insns[i]) != 0;
  return distinct > UINT32_MAX ? UINT32_MAX : (unsigned) distinct;
}

void
ucb_seccomp_size_free (struct ucb_seccomp_size *z)
{
  free (z->insns);
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
