/* SPDX-License-Identifier: GPL-2.0-or-later */
/* version.h - the version ucbench reports (--version, the documents' tool.version). */
#ifndef UCB_VERSION_H
#define UCB_VERSION_H

/* "0.1.0" from a release tarball; "0.1.0 (git c303ecf-dirty)" from a git checkout: the
 * commit of the build, not of configure (src/core/version.c, made by scripts/gen-version.sh). */
extern const char ucb_version[];

#endif
