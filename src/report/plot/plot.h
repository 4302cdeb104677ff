/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.h - `ucbench plot`: charts of result documents as SVG or an HTML report. */
#ifndef UCB_PLOT_H
#define UCB_PLOT_H

#include <stddef.h>

#include "core/error.h"

/* Load the `n` documents at `paths` and write their charts to `output`, whose extension (.svg,
 * .html, .htm) picks the format.  Bad input is a usage error; an unwritable output a failure. */
int ucb_plot (char **paths, size_t n, const char *output, ucb_error_t *err)
    __attribute__ ((warn_unused_result));

#endif
