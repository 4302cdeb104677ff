#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# compare-kernels.sh - measure the running kernel, and once results of two kernels exist,
# compare them.  Typical use, as root, with ucbench built in ../build:
#
#   ./compare-kernels.sh base      # on kernel A: writes results/base.json + base-verify.json
#   (reboot into kernel B)
#   ./compare-kernels.sh head      # on kernel B: writes results/head.json + head-verify.json
#   ./compare-kernels.sh compare   # prints the table; exit 1 on a significant regression
#
# Without installing or rebooting: `./compare-kernels.sh vm BASE-IMAGE HEAD-IMAGE` boots each
# image in QEMU with ucbench-vm (verify; with KVM, SWEEP too, the kernels booted alternately
# ROUNDS times, default 3) and compares them; see ucbench-vm(1).
#
# Keep the sweep identical on both kernels (same options, same machine, nothing else
# running); the compare header warns when host or options differ.
set -eu
UCBENCH=${UCBENCH:-$(dirname "$0")/../build/ucbench}
OUT=${OUT:-results}
SWEEP=${SWEEP:---workload signal,sigqueue,getppid --containers 1,2,4 --owner shared,distinct --repeat 3}
mkdir -p "$OUT"
case "${1:-}" in
  base|head)
    # shellcheck disable=SC2086  # SWEEP is a word list on purpose
    "$UCBENCH" run $SWEEP --output "$OUT/$1.json"
    "$UCBENCH" verify limits --keep-going --output "$OUT/$1-verify.json" || true
    echo "wrote $OUT/$1.json and $OUT/$1-verify.json ($(uname -r))"
    ;;
  vm)
    [ $# -eq 3 ] || { echo "usage: $0 vm BASE-IMAGE HEAD-IMAGE" >&2; exit 2; }
    VM=${UCBENCH_VM:-$(dirname "$0")/../vm/ucbench-vm}
    command -v "$VM" >/dev/null || VM=ucbench-vm
    rc=0
    "$VM" --out "$OUT" --kernel "$2" --kernel "$3" || rc=$?
    [ $rc -le 1 ] || exit $rc
    if [ -w /dev/kvm ] && [ -r /dev/kvm ]; then
      # shellcheck disable=SC2086  # SWEEP is a word list on purpose
      "$VM" --out "$OUT" --kernel "$2" --kernel "$3" --rounds "${ROUNDS:-3}" -- run $SWEEP || rc=1
    fi
    exit $rc
    ;;
  compare)
    "$UCBENCH" compare "$OUT/base.json" "$OUT/head.json"
    "$UCBENCH" compare "$OUT/base-verify.json" "$OUT/head-verify.json"
    ;;
  *)
    echo "usage: $0 base|head|compare | vm BASE-IMAGE HEAD-IMAGE" >&2
    exit 2
    ;;
esac
