#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# matrix.sh - `ucbench verify` (and info, and a short run) on Debian's stock kernels in QEMU, and
# on the host, with the kernel x case table of verdicts.  TAP on stdout.
#   usage: tests/kernels/matrix.sh [--out DIR] [--series "6.1 6.12"]
# Kernel packages are fetched with `apt-get download` (never installed) into $UCB_KCACHE
# (default /var/cache/ucbench-kernels); when they cannot be fetched the kernel is skipped, not
# passed.  A static ucbench is built from this tree in OUT/static-build (configure
# --enable-static-binary) unless UCBENCH_STATIC names one.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/kernels
CACHE=${UCB_KCACHE:-/var/cache/ucbench-kernels}
OUT=${OUT:-$PWD/kernel-matrix}
SERIES=${SERIES:-"6.1 6.12"}
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --series) SERIES=$2; shift 2 ;;
    *) echo "matrix.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
finish() { echo "1..$n"; exit $((failed > 0)); }

echo "TAP version 13"
mkdir -p "$OUT" "$CACHE" || { echo "1..0 # SKIP cannot create $OUT or $CACHE"; exit 0; }

# ---- tools -----------------------------------------------------------------------------------
need=()
for p in qemu-system-x86 busybox-static cpio; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
       --no-install-recommends "${need[@]}" >"$OUT/apt.log" 2>&1; then
    echo "1..0 # SKIP cannot install ${need[*]} (see $OUT/apt.log)"
    exit 0
  fi
fi

# ---- a static ucbench from this tree ------------------------------------------------------------
static=${UCBENCH_STATIC:-}
if [ -z "$static" ]; then
  sb=$OUT/static-build  # per tree: the cache outlives checkouts
  mkdir -p "$sb"
  t0=$(date +%s)
  if [ ! -x "$top/configure" ]; then (cd "$top" && ./autogen.sh) >"$OUT/static-build.log" 2>&1; fi
  if (cd "$sb" && { [ -f Makefile ] || "$top/configure" --enable-static-binary; } \
        && make -j"$(nproc)" ucbench) >>"$OUT/static-build.log" 2>&1; then
    static=$sb/ucbench
    ok "static ucbench built ($(( $(date +%s) - t0 )) s)"
  else
    notok "static ucbench builds (see $OUT/static-build.log)"
    finish
  fi
fi

# ---- the host's own kernel: the reference column --------------------------------------------
# The dynamic build: a static glibc cannot load the host's NSS modules (getpwent) safely.
host_ucb=${UCBENCH:-$top/build/ucbench}
[ -x "$host_ucb" ] || host_ucb=$static
rel=$(uname -r)
if "$host_ucb" verify --format json >"$OUT/host-$rel.verify.json.tmp" 2>"$OUT/host-$rel.verify.err" \
   || [ $? -eq 1 ]; then
  "$host_ucb" info --format json >"$OUT/host-$rel.info.json.tmp" 2>/dev/null
  python3 - "$OUT" "host-$rel" <<'PY'
import json, sys
out, name = sys.argv[1:]
for kind in ("verify", "info"):
    with open(f"{out}/{name}.{kind}.json.tmp") as f:
        d = json.load(f)
    d["kernel_matrix"] = {"where": "host", "emulated_timing": False}
    with open(f"{out}/{name}.{kind}.json", "w") as f:
        json.dump(d, f, indent=2, sort_keys=True)
        f.write("\n")
PY
  rm -f "$OUT"/host-"$rel".*.tmp
  ok "host kernel $rel: verify ran"
else
  notok "host kernel $rel: verify ran (see $OUT/host-$rel.verify.err)"
fi

# ---- Debian's stock cloud kernels ---------------------------------------------------------------
mkdir -p "$CACHE/debs" "$CACHE/x"
for s in $SERIES; do
  re="^linux-image-${s//./\\.}[.][^ ]*-cloud-amd64\$"
  pkg=$(apt-cache search --names-only "$re" 2>/dev/null | awk '{print $1}' | grep -E "$re" | sort -V | tail -1)
  if [ -z "$pkg" ]; then
    skip "stock $s kernel boots and reports" "no linux-image-$s*-cloud-amd64 in the apt lists (apt-get update?)"
    continue
  fi
  deb=$(ls "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | tail -1)
  if [ -z "$deb" ]; then
    (cd "$CACHE/debs" && apt-get download "$pkg") >"$OUT/download-$s.log" 2>&1
    deb=$(ls "$CACHE/debs/${pkg}_"*.deb 2>/dev/null | tail -1)
  fi
  if [ -z "$deb" ]; then
    skip "stock $s kernel ($pkg) boots and reports" "apt-get download failed (see $OUT/download-$s.log)"
    continue
  fi
  x=$CACHE/x/$pkg
  [ -d "$x/boot" ] || dpkg-deb -x "$deb" "$x"
  img=$(ls "$x"/boot/vmlinuz-* | head -1)
  name=${pkg#linux-image-}
  boot() { python3 "$here/boot.py" --kernel "$img" --name "$name" --out "$OUT" --ucbench "$static" \
              --timeout "${UCB_BOOT_TIMEOUT:-900}" 2>"$OUT/$name.stderr"; }
  line=$(boot); brc=$?
  # A stock kernel that oopses in a task of its own (not ucbench's nor a probe's) is booted once
  # more; the first log is kept and the line says why.  (TCG's stale int3, in any task, the
  # harness boots again itself, and its fourth is the verdict.)  Any other oops in one of ours is
  # the verdict, as is a second oops.
  slog=$OUT/$name.serial.log
  comm=$(grep -m1 -o 'Comm: [^ ]*' "$slog" 2>/dev/null | cut -d' ' -f2)
  if [ $brc -ne 0 ] && [[ $line == *": panic"* ]] && [ -n "$comm" ] &&
     [[ $comm != ucb* && $comm != busybox && $comm != sh ]] && ! grep -q 'int3: 0000' "$slog"; then
    cp "$slog" "$OUT/$name.own-oops.serial.log"
    sed 's/^/# first boot: /' "$OUT/$name.stderr"
    line=$(boot); brc=$?
    line+=" (booted again: the first hit an oops in the kernel's own $comm, see"
    line+=" $OUT/$name.own-oops.serial.log)"
    [[ $line == *": ok "* ]] && brc=0
  fi
  if [ $brc -eq 0 ]; then
    ok "stock kernel $line"
    grep ': kernel (boot [0-9]): ' "$OUT/$name.stderr" 2>/dev/null | sed 's/^/# /'
  else
    notok "stock kernel $line"
    # what the kernel and ucbench said: CI logs keep this output, not the serial log
    head -30 "$OUT/$name.stderr" 2>/dev/null | sed 's/^/# /'
  fi
done

# ---- the table ----------------------------------------------------------------------------------
if python3 "$here/table.py" "$OUT" --output "$OUT/matrix.md" 2>"$OUT/table.err"; then
  ok "every verdict on every kernel is explained ($OUT/matrix.md)"
else
  notok "every verdict on every kernel is explained: $(cat "$OUT/table.err")"
fi
cat "$OUT/matrix.md" 2>/dev/null | sed 's/^/# /'
finish
