#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# man.sh - the man page lints clean with mandoc (every level, style included: any message
# fails), and compare's synopsis ends before its description when rendered.
page="$top_srcdir/man/ucbench.1"
echo "TAP version 13"
echo "1..2"
out=$(mandoc -T lint "$page" 2>&1)
rc=$?
if [ -z "$out" ] && [ "$rc" -eq 0 ]; then
  echo "ok 1 - mandoc -T lint man/ucbench.1: no message, exit 0"
else
  echo "not ok 1 - mandoc -T lint man/ucbench.1: no message, exit 0 (exit $rc)"
  echo "$out" | sed 's/^/# /'
fi
# compare's tag is followed by its synopsis, then a break: its description starts a line of
# its own (it ran into the synopsis).
text=$(mandoc -T ascii "$page" 2>&1 | col -bx)
if echo "$text" | grep -q '^ *Compare result documents point by point' \
   && echo "$text" | grep -q '^ *\[-f|--format text|json\] \[-v|--verbose\] *$'; then
  echo "ok 2 - rendered, compare's synopsis ends its line; the description starts the next"
else
  echo "not ok 2 - rendered, compare's synopsis ends its line; the description starts the next"
  echo "$text" | grep -A1 -e '--verbose\]' | sed 's/^/# /'
fi
