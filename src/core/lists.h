/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lists.h - comma lists, CPU lists and keyword lists, for option values, sysfs and the document
 * alike. */
#ifndef UCB_LISTS_H
#define UCB_LISTS_H

#include <stddef.h>

#include "core/error.h"

#define UCB_MAX_CPUS 4096

/* The items of a comma list, each its own string. */
struct ucb_items
{
  char **v;
  size_t n;
};
/* Split a comma list into *out; empty items ("4,,8", ",4", "4,") are usage errors naming
 * `what`. */
int ucb_split_list (const char *s, const char *what, struct ucb_items *out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
void ucb_free_items (char **items, size_t n);
/* Free a list of ucb_split_list and empty it; `cleanup_items` does it at the end of a scope. */
void ucb_items_free (struct ucb_items *l);
#define cleanup_items __attribute__ ((cleanup (ucb_items_free)))
/* qsort/bsearch comparator of ints. */
int ucb_cmp_int (const void *a, const void *b);
/* "0-3,8" into a sorted list without duplicates (usage errors otherwise). */
int ucb_parse_cpu_list (const char *s, int **out, size_t *n, ucb_error_t *err)
    __attribute__ ((warn_unused_result));
/* Canonical "0-3,8" form of a sorted CPU list ("" for none). */
char *ucb_format_cpu_list (const int *cpus, size_t n);

/* Keywords: the names a value may take, as a table (NULL entries are skipped: tables indexed by
 * an enum whose members are not all written as names). */
/* Edits from `a` to `b`, case-insensitive: insertions, deletions, substitutions and swaps of
 * two neighbours ("dokcer" is 1 from "docker"). */
size_t ucb_edit_distance (const char *a, const char *b);
/* The keyword a mistyped `s` most likely meant: the first of the nearest names within 2 edits
 * (1 for a name of 3 characters or fewer, so that short words do not all match), or NULL. */
const char *ucb_nearest_name (const char *const *names, size_t n, const char *s);
/* "a, b or c"; with `other` (e.g. "a CPU list"): "a, b, c or OTHER".  Freshly allocated. */
char *ucb_names_text (const char *const *names, size_t n, const char *other);
/* The usage error for `s`, none of the keywords: "WHAT `S`: did you mean `X`? (expected a, b
 * or c)", the question only when one is near (ucb_nearest_name), `other` as in
 * ucb_names_text. */
int ucb_keyword_error (ucb_error_t *err, const char *what, const char *s, const char *const *names,
                       size_t n, const char *other);

#endif
