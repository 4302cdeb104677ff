/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info-text.h - `ucbench info`'s text form of a `host` object. */
#ifndef UCB_INFO_TEXT_H
#define UCB_INFO_TEXT_H

#include <stdio.h>

#include <jansson.h>

/* Print `host` (the document's `host` object; nothing for a non-object) as aligned `key: value`
 * lines, objects flattened to dotted keys, each null said in words. */
void ucb_info_print_text (FILE *f, const json_t *host);

#endif
