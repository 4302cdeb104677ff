#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# boot.sh - boot one kernel in QEMU with a static ucbench and bring its documents back
# (see boot.py for the options and the framing).
exec python3 "$(dirname "$0")/boot.py" "$@"
