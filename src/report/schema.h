/* SPDX-License-Identifier: GPL-2.0-or-later */
/* schema.h - the schema string this ucbench writes and reads (doc-file.c, model.c, report.c). */
#ifndef UCB_SCHEMA_H
#define UCB_SCHEMA_H

#define UCB_SCHEMA "ucbench-result/1"

#endif
