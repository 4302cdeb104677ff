#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# man.sh - the man page lints clean with mandoc.
echo "TAP version 13"
echo "1..1"
out=$(mandoc -T lint -W warning "$top_srcdir/man/ucbench.1" 2>&1)
if [ -z "$out" ]; then
  echo "ok 1 - mandoc -T lint man/ucbench.1"
else
  echo "not ok 1 - mandoc -T lint man/ucbench.1"
  echo "$out" | sed 's/^/# /'
fi
