/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout.h - the host's cgroup setup, read only: the layout at /sys/fs/cgroup and where a process
 * sits.  `ucbench info` and `run --cgroup` both ask here. */
#ifndef UCB_CG_LAYOUT_H
#define UCB_CG_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ucb_cg_layout
{
  UCB_CG_NONE,    /* no cgroup filesystem at /sys/fs/cgroup */
  UCB_CG_LEGACY,  /* tmpfs with v1 hierarchies only */
  UCB_CG_HYBRID,  /* v1 hierarchies + cgroup2 at /sys/fs/cgroup/unified */
  UCB_CG_UNIFIED, /* cgroup2 at /sys/fs/cgroup */
};

/* "none" "legacy" "hybrid" "unified". */
const char *ucb_cg_layout_name (enum ucb_cg_layout l);
/* statfs on /sys/fs/cgroup: libcgroup 2.0.2 has no call that tells. */
enum ucb_cg_layout ucb_cgroup_detect (void);
/* The mount point of the unified hierarchy: /sys/fs/cgroup (unified), /sys/fs/cgroup/unified
 * (hybrid), NULL (legacy, none). */
const char *ucb_cg_v2_mount (enum ucb_cg_layout l);

/* The path in /proc/<pid>/cgroup of the v2 hierarchy (controller NULL or "") or of the v1
 * hierarchy holding `controller`; NULL if absent or unreadable. */
char *ucb_cgroup_path_of (pid_t pid, const char *controller);

/* The parsing behind it, which the files of the cgroup module share. */
/* Is `w` one of the `sep`-separated words of list[0..len)? */
bool ucb_cg_list_has (const char *list, size_t len, const char *w, char sep);
/* The line of /proc/PID/cgroup text of the v2 hierarchy (ctrl NULL or "") or of the v1
 * hierarchy holding ctrl: its controllers field (when `ctrls`) and its path. */
bool ucb_cg_find_line (const char *text, const char *ctrl, char **ctrls, char **path);
/* The cgroup2 mount at `want_mp`, or the v1 mount whose options name `ctrl`: mount point and
 * root in /proc/self/mountinfo. */
bool ucb_cg_find_mount (const char *want_mp, const char *ctrl, char **mp, char **root);

#endif
