/* docload.h - reading a ucbench-result document back (compare, and later export/plot). */
#ifndef UCB_DOCLOAD_H
#define UCB_DOCLOAD_H

#include <jansson.h>

#include "core/error.h"

/* Load `path` and check it is a ucbench-result/1 document (an object with the right schema
 * string, and `results` an array when present).  Every problem is a usage error (exit 2)
 * naming the file: not found, too large, not JSON (with line and column), not a ucbench
 * document, a newer schema major. */
int ucb_doc_load (const char *path, json_t **out, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
