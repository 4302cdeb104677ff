/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info-text.h - `ucbench info`'s text form of a `host` object. */
#ifndef UCB_INFO_TEXT_H
#define UCB_INFO_TEXT_H

#include <stdio.h>

#include <jansson.h>

#include "host/hostinfo.h"

/* Print `host` (the document's `host` object; nothing for a non-object) as aligned `key: value`
 * lines, objects flattened to dotted keys, each null said in words: for l3_domains and lsms
 * with the reasons `why` holds, recorded when `host` was probed (NULL: none known). */
void ucb_info_print_text (FILE *f, const json_t *host, const struct ucb_host_why *why);

#endif
