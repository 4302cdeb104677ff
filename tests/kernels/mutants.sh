#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mutants.sh - does `ucbench verify` catch real kernel bugs?  For each kernel series (Debian's
# linux-source-6.1 and linux-source-6.12), build the tree (tinyconfig + kvm_guest.config + the
# fragment below), then, one at a time, the same tree with each patch of tests/kernels/patches/
# applied: 0001-*.patch is the ULIM-19 fix, mutant-NN-*.patch each re-introduce one ucounts bug
# class (the header's `Breaks:` line says which property, rlimit and levels).  patches/NAME
# applies to every series; patches/SERIES/NAME, where it exists, replaces it for that series
# (the 6.12 tree differs around inc_rlimit_get_ucounts).  Every kernel is booted under QEMU/TCG
# with tests/kernels/boot.sh (`ucbench info` + `ucbench verify` in the guest) and its verdicts
# are compared with the unpatched build's of the same series.
#
# usage: tests/kernels/mutants.sh [--series 6.1|6.12|6.1,6.12] [--cache DIR] [--out DIR]
#                                 [--ucbench STATIC] [--boot SCRIPT] [--timeout S] [--jobs N]
#                                 [--only NAME[,NAME...]] [--rebuild] [--no-run] [--prepare-only]
#                                 [--build-only]
#   --series   the kernel series, comma-separated, run one after the other (default 6.1,6.12);
#              each needs /usr/src/linux-source-SERIES.tar.xz (apt-get install linux-source-SERIES;
#              installed here when missing and run as root)
#   --cache    the build cache, outside the source tree (default ${UCB_KCACHE:-/var/cache/ucbench-kernels});
#              per series, CACHE/mutants-SERIES/ holds src/linux-source-SERIES (the one tree),
#              build/ (O=), pristine/ (copies of every file a patch touched, taken before it was
#              touched), images/NAME.bzImage (+ NAME.key), logs/, results/
#   --out      where boot.sh writes NAME.{serial.log,info.json,verify.json}, the times and
#              summary.json: OUT/SERIES/ (default CACHE/mutants-SERIES/results)
#   --ucbench  a static ucbench (or $UCBENCH_STATIC); default: build one (configure
#              --enable-static-binary; make ucbench) from this checkout in
#              CACHE/ucbench-static/<hash of the checkout's path>, so src/verify/cases edits are in it.
#              Unless boot.sh passes --keep-going to verify itself, the guest gets a small
#              busybox-sh wrapper around it that does (so every case's verdict comes back)
#   --only     build and boot only these kernels (baseline is always included; the exit
#              status then covers only them)
#   --rebuild  ignore cached images
#   --no-run   skip boot.sh's short `ucbench run` smoke in each guest (about 10 s a kernel)
#   --prepare-only  build the baseline only;  --build-only  build every kernel, boot none
#              (a later run boots the cached images)
#
# A kernel is rebuilt only when its key (sha256 of the patch, the .config and the tarball's
# identity) differs from images/NAME.key.  The tree is never left patched: before any patch is
# applied, every file in pristine/ is copied back over the tree where it differs, so an
# interrupted run (even kill -9) is repaired by the next one.
#
# A mutant is caught when at least one case is `fail` or `error` where the baseline gives `pass`
# or `known-bug`; the fix is good when ULIM-19 goes from `known-bug` to `pass` and no case
# regresses.  Each series prints its table and `VERSION: mutation score K/N`.  Exit status 0
# only if, in every series, the fix is good and every mutant is caught; 1 otherwise; 2 for
# usage or setup errors.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/kernels
CACHE=${UCB_KCACHE:-/var/cache/ucbench-kernels}
OUT=
UCBENCH=${UCBENCH_STATIC:-}
BOOT=$HERE/boot.sh
TIMEOUT=900
JOBS=$(nproc)
ONLY=
REBUILD=0
RUN=1
PREPARE_ONLY=0
BUILD_ONLY=0
SERIES=6.1,6.12
KSRC_DIR=${UCB_KSRC_DIR:-/usr/src}

die() { echo "mutants.sh: $*" >&2; exit 2; }
log() { echo "[mutants${SERIES:+ $SERIES} $(date +%H:%M:%S)] $*" >&2; }

ARGS=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --series) SERIES=$2; shift 2 ;;
    --cache) CACHE=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --ucbench) UCBENCH=$2; shift 2 ;;
    --boot) BOOT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    --run) RUN=1; shift ;;
    --no-run) RUN=0; shift ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    --build-only) BUILD_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
case ,$SERIES, in
  *,,*) die "--series $SERIES: an empty series" ;;
esac
for s in ${SERIES//,/ }; do
  [[ $s =~ ^[0-9]+\.[0-9]+$ ]] || die "--series $SERIES: '$s' is not a series such as 6.1 or 6.12"
done

# Several series: run this script once per series (each with its own tree, build and
# pristine copies), then repeat every series' score line; exit with the worst status.
if [[ $SERIES == *,* ]]; then
  worst=0
  scores=()
  for s in ${SERIES//,/ }; do
    rc=0
    bash "$0" "${ARGS[@]}" --series "$s" || rc=$?
    [ $rc -le $worst ] || worst=$rc
    [ $rc -ne 2 ] || log "series $s: setup error (exit status 2)"
    o=${OUT:-$CACHE/mutants-$s/results}
    [ -z "$OUT" ] || o=$OUT/$s
    if [ $PREPARE_ONLY -eq 0 ] && [ $BUILD_ONLY -eq 0 ] && [ -f "$o/summary.json" ] && [ "$o/summary.json" -nt "$o/times.tsv.start" ]; then
      scores+=("$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%s: mutation score %d/%d" % (d["kernel_version"], *d["mutation_score"]))' "$o/summary.json" \
        || echo "$s: unreadable $o/summary.json")")
    else
      scores+=("$s: no score (exit status $rc)")
    fi
  done
  printf '%s\n' "${scores[@]}"
  # the table across series (docs/results/kernels/mutants.txt is this file)
  sums=()
  for s in ${SERIES//,/ }; do
    o=${OUT:-$CACHE/mutants-$s/results}
    [ -z "$OUT" ] || o=$OUT/$s
    [ ! -f "$o/summary.json" ] || sums+=("$o/summary.json")
  done
  if [ $PREPARE_ONLY -eq 0 ] && [ $BUILD_ONLY -eq 0 ] && [ ${#sums[@]} -gt 0 ]; then
    t=${OUT:-$CACHE}/mutants.txt
    mkdir -p "$(dirname "$t")"
    python3 "$HERE/mutants-table.py" "${sums[@]}" > "$t.tmp" && mv "$t.tmp" "$t" && log "table: $t"
  fi
  exit $worst
fi

TOP=$(mkdir -p "$CACHE" && cd "$CACHE" && pwd)
CACHE=$TOP/mutants-$SERIES
OUT=${OUT:+$OUT/$SERIES}
OUT=${OUT:-$CACHE/results}
TARBALL=$KSRC_DIR/linux-source-$SERIES.tar.xz
TREE_NAME=linux-source-$SERIES
mkdir -p "$OUT" "$CACHE/images" "$CACHE/logs" "$CACHE/pristine" "$CACHE/src"
OUT=$(cd "$OUT" && pwd)
SRC=$CACHE/src/$TREE_NAME
B=$CACHE/build
PRISTINE=$CACHE/pristine
TIMES=$OUT/times.tsv
touch "$TIMES.start"
export UCB_KCACHE=$TOP   # boot.sh keeps its initramfs there too

if [ ! -f "$TARBALL" ] && [ "$(id -u)" -eq 0 ]; then
  log "installing linux-source-$SERIES and the kernel build tools (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "linux-source-$SERIES" build-essential bc bison flex \
    libelf-dev libssl-dev qemu-system-x86 busybox-static cpio >&2 || true
fi
[ -f "$TARBALL" ] || die "$TARBALL missing: apt-get install -y linux-source-$SERIES build-essential bc bison flex libelf-dev libssl-dev"
for t in make gcc bison flex bc patch qemu-system-x86_64 python3 cpio flock; do
  command -v "$t" >/dev/null || die "$t missing (see tests/kernels/README.md, Packages)"
done
[ -x "$BOOT" ] || die "boot harness $BOOT missing"

# one mutants.sh per series (its tree, build directory and pristine copies)
exec 9>"$CACHE/.mutants.lock"
flock -n 9 || die "another mutants.sh holds $CACHE/.mutants.lock"

: > "$TIMES.new"
note_time() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$TIMES.new"; }   # kernel step seconds

# ---------------------------------------------------------------- the tree
# The config fragment on top of tinyconfig + kvm_guest.config (README.md, Pitfalls).  GZIP, not
# XZ: XZ takes ~4 s to decompress under TCG.  SLUB instead of tinyconfig's SLOB.
FRAGMENT='CONFIG_64BIT=y
CONFIG_SMP=y
CONFIG_EXPERT=y
CONFIG_PRINTK=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
# CONFIG_KERNEL_XZ is not set
CONFIG_KERNEL_GZIP=y
# CONFIG_SLOB is not set
CONFIG_SLUB=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_PROC_FS=y
CONFIG_PROC_SYSCTL=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_SHMEM=y
CONFIG_TMPFS=y
CONFIG_MULTIUSER=y
CONFIG_NAMESPACES=y
CONFIG_USER_NS=y
CONFIG_UTS_NS=y
CONFIG_IPC_NS=y
CONFIG_PID_NS=y
CONFIG_NET_NS=y
CONFIG_SYSVIPC=y
CONFIG_POSIX_MQUEUE=y
CONFIG_FUTEX=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_POSIX_TIMERS=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_INOTIFY_USER=y
CONFIG_FILE_LOCKING=y
CONFIG_ADVISE_SYSCALLS=y
CONFIG_MEMBARRIER=y
CONFIG_RSEQ=y
CONFIG_SECCOMP=y
CONFIG_SECCOMP_FILTER=y
CONFIG_CGROUPS=y
CONFIG_MEMCG=y
CONFIG_CGROUP_PIDS=y
CONFIG_NET=y
CONFIG_UNIX=y
CONFIG_ACPI=y
CONFIG_PCI=y
# CONFIG_WERROR is not set'

tarball_id() { stat -c '%n %s %Y' "$TARBALL"; }

prepare_tree() {
  if [ -f "$SRC/.ucb-unpacked" ] && [ "$(cat "$SRC/.ucb-unpacked")" = "$(tarball_id)" ]; then
    return
  fi
  log "unpacking $TARBALL into $CACHE/src (about 30 s)"
  local t0=$SECONDS tmp=$CACHE/src/.unpack.$$
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -C "$tmp" -xf "$TARBALL"
  [ -d "$tmp/$TREE_NAME" ] || die "$TARBALL has no $TREE_NAME/"
  # a new tree: the old one, its build and the pristine copies all go
  rm -rf "$SRC" "$B" "$PRISTINE" "$CACHE"/images/*.key
  mkdir -p "$PRISTINE"
  mv "$tmp/$TREE_NAME" "$SRC" && rmdir "$tmp"
  tarball_id > "$SRC/.ucb-unpacked"
  note_time tree unpack $((SECONDS - t0))
}

# Copy back every file a patch ever touched (pristine/ holds the originals), where it differs.
restore_tree() {
  local f rel n=0
  while IFS= read -r -d '' f; do
    rel=${f#"$PRISTINE"/}
    if ! cmp -s "$f" "$SRC/$rel"; then
      cp "$f" "$SRC/$rel.ucb-tmp" && mv "$SRC/$rel.ucb-tmp" "$SRC/$rel"
      n=$((n + 1))
    fi
  done < <(find "$PRISTINE" -type f -print0)
  find "$SRC" -name '*.rej' -newer "$SRC/.ucb-unpacked" -delete 2>/dev/null || true
  [ $n -eq 0 ] || log "restored $n file(s) of the tree"
}

patch_files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

apply_patch() {
  local p=$1 f
  grep -q '^--- /dev/null' "$p" && die "$p creates a file: not supported (restore could not undo it)"
  for f in $(patch_files "$p"); do
    [ -f "$SRC/$f" ] || die "$p touches $f, which the tree lacks"
    if [ ! -f "$PRISTINE/$f" ]; then          # the tree is pristine here (restore_tree ran)
      mkdir -p "$(dirname "$PRISTINE/$f")"
      cp "$SRC/$f" "$PRISTINE/$f.tmp" && mv "$PRISTINE/$f.tmp" "$PRISTINE/$f"
    fi
  done
  (cd "$SRC" && patch -p1 -s --forward --no-backup-if-mismatch < "$p") \
    || { restore_tree; die "$(basename "$p") does not apply to $SRC"; }
}

config_sha() { { printf '%s\n' "$FRAGMENT"; tarball_id; } | sha256sum | cut -c1-16; }

configure_kernel() {
  local want; want=$(config_sha)
  if [ -f "$B/.config" ] && [ "$(cat "$B/.ucb-config" 2>/dev/null)" = "$want" ]; then
    return
  fi
  log "configuring: tinyconfig + kvm_guest.config + fragment"
  local t0=$SECONDS frag=$CACHE/logs/fragment.config
  mkdir -p "$B"
  printf '%s\n' "$FRAGMENT" > "$frag"
  {
    make -C "$SRC" -s O="$B" tinyconfig &&
    (cd "$SRC" && KCONFIG_CONFIG="$B/.config" scripts/kconfig/merge_config.sh -m -O "$B" \
      "$B/.config" kernel/configs/kvm_guest.config "$frag") &&
    make -C "$SRC" -s O="$B" olddefconfig
  } > "$CACHE/logs/config.log" 2>&1 || die "configuration failed (see $CACHE/logs/config.log)"
  local l missing=
  for l in $(grep -o '^CONFIG_[A-Z0-9_]*=y' "$frag"); do
    grep -qx "$l" "$B/.config" || missing="$missing $l"
  done
  [ -z "$missing" ] || die "options not set after olddefconfig:$missing"
  grep -qx 'CONFIG_USER_NS=y' "$B/.config" || die "CONFIG_USER_NS unset (tests/kernels/README.md, pitfall 2)"
  echo "$want" > "$B/.ucb-config"
  note_time tree config $((SECONDS - t0))
}

# build NAME [PATCH]: images/NAME.bzImage for the tree with PATCH (none: baseline)
build_kernel() {
  local name=$1 p=${2:-} key img=$CACHE/images/$1.bzImage
  key=$({ config_sha; [ -z "$p" ] || cat "$p"; } | sha256sum | cut -c1-16)
  if [ $REBUILD -eq 0 ] && [ -f "$img" ] && [ "$(cat "$CACHE/images/$name.key" 2>/dev/null)" = "$key" ]; then
    log "$name: cached image"
    note_time "$name" build cached
    return 0
  fi
  restore_tree
  [ -z "$p" ] || apply_patch "$p"
  log "$name: make -j$JOBS bzImage"
  local t0=$SECONDS rc=0
  nice -n 5 make -C "$SRC" -s -j"$JOBS" O="$B" bzImage > "$CACHE/logs/$name.build.log" 2>&1 || rc=$?
  local dt=$((SECONDS - t0))
  restore_tree
  if [ $rc -ne 0 ]; then
    tail -20 "$CACHE/logs/$name.build.log" >&2
    log "$name: BUILD FAILED after ${dt}s (see $CACHE/logs/$name.build.log)"
    note_time "$name" build failed
    return 1
  fi
  cp "$B/arch/x86/boot/bzImage" "$img.tmp" && mv "$img.tmp" "$img"
  echo "$key" > "$CACHE/images/$name.key"
  log "$name: built in ${dt}s -> $img"
  note_time "$name" build "$dt"
}

static_ucbench() {
  if [ -n "$UCBENCH" ]; then
    [ -x "$UCBENCH" ] || die "--ucbench $UCBENCH is not executable"
  else
    # one build directory per checkout (the cache outlives checkouts), configured from it
    local d t0=$SECONDS
    d=$TOP/ucbench-static/$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)
    mkdir -p "$d"
    [ -x "$ROOT/configure" ] || (cd "$ROOT" && ./autogen.sh) > "$CACHE/logs/autogen.log" 2>&1 \
      || die "$ROOT/configure missing and autogen.sh failed"
    if [ ! -f "$d/Makefile" ]; then
      log "configuring a static ucbench from $ROOT in $d"
      (cd "$d" && "$ROOT/configure" --enable-static-binary) > "$CACHE/logs/ucbench-configure.log" 2>&1 \
        || die "configure --enable-static-binary failed (see $CACHE/logs/ucbench-configure.log)"
    fi
    make -C "$d" -s -j"$JOBS" ucbench > "$CACHE/logs/ucbench-make.log" 2>&1 \
      || die "make ucbench failed (see $CACHE/logs/ucbench-make.log)"
    UCBENCH=$d/ucbench
    note_time ucbench build $((SECONDS - t0))
  fi
  ! command -v file >/dev/null || file -L "$UCBENCH" | grep -q 'statically linked' \
    || log "warning: $UCBENCH does not look statically linked; the guest has no libraries"
  # boot.sh runs `ucbench verify` without --keep-going, so the first failing case would hide
  # the verdicts of the rest.  Unless it passes --keep-going itself, hand it a busybox-sh
  # wrapper with the static binary appended: it unpacks the binary into the guest's /tmp and
  # adds --keep-going to `verify`.
  if grep -q -- '--keep-going' "$BOOT" "$HERE/boot.py" 2>/dev/null; then
    return
  fi
  local w hdr off
  w=$TOP/ucbench-keepgoing/$(sha256sum < "$UCBENCH" | cut -c1-16)
  if [ ! -x "$w" ]; then
    mkdir -p "$(dirname "$w")"
    hdr='#!/bin/busybox sh
# ucbench + `verify --keep-going` (tests/kernels/mutants.sh); the static binary follows byte @OFFSET@
r=/tmp/.ucbench-real
[ -x $r ] || { /bin/busybox tail -c +@OFFSET@ "$0" > $r.tmp && /bin/busybox chmod 755 $r.tmp && /bin/busybox mv $r.tmp $r; } || exit 127
if [ "$1" = verify ]; then shift; exec $r verify --keep-going "$@"; fi
exec $r "$@"
'
    off=$(( $(printf '%s' "$hdr" | wc -c) + 1 ))       # @OFFSET@ and its 8-digit value: same length
    off=$(printf '%08d' "$off")
    { printf '%s' "${hdr//@OFFSET@/$off}"; cat "$UCBENCH"; } > "$w.tmp"
    chmod 755 "$w.tmp" && mv "$w.tmp" "$w"
  fi
  UCBENCH=$w
}

boot_kernel() {
  local name=$1 t0=$SECONDS rc=0 args=()
  [ $RUN -eq 1 ] || args+=(--no-run)
  rm -f "$OUT/$name.verify.json" "$OUT/$name.info.json" "$OUT/$name.run.json"
  "$BOOT" --kernel "$CACHE/images/$name.bzImage" --name "$name" --out "$OUT" \
    --ucbench "$UCBENCH" --timeout "$TIMEOUT" "${args[@]}" || rc=$?
  note_time "$name" boot $((SECONDS - t0))
  return $rc
}

# ---------------------------------------------------------------- main
prepare_tree
restore_tree
configure_kernel
# patches/NAME for every series, unless patches/SERIES/NAME replaces it; 0*-* (fixes) first
PATCHES=()
for n in $( { ls "$HERE/patches" "$HERE/patches/$SERIES" 2>/dev/null || true; } \
            | grep -E '^(0[0-9]*|mutant)-.*\.patch$' | sort -u); do
  p=$HERE/patches/$SERIES/$n
  [ -f "$p" ] || p=$HERE/patches/$n
  n=${n%.patch}
  if [ -n "$ONLY" ] && ! printf ',%s,' "$ONLY" | grep -q ",$n,"; then continue; fi
  PATCHES+=("$p")
done
[ -n "$ONLY" ] && [ ${#PATCHES[@]} -eq 0 ] && die "--only $ONLY matches no patch"
trap 'restore_tree' EXIT

build_kernel baseline || die "the baseline kernel does not build"
if [ $PREPARE_ONLY -eq 1 ]; then
  mv "$TIMES.new" "$TIMES"; cat "$TIMES"; exit 0
fi
static_ucbench
KERNELS=(baseline)
declare -A BUILD_FAILED=()
for p in "${PATCHES[@]}"; do
  n=$(basename "$p" .patch)
  KERNELS+=("$n")
  build_kernel "$n" "$p" || BUILD_FAILED[$n]=1
done
trap - EXIT
restore_tree
if [ $BUILD_ONLY -eq 1 ]; then
  mv "$TIMES.new" "$TIMES"; cat "$TIMES"
  [ ${#BUILD_FAILED[@]} -eq 0 ] || die "build failed: ${!BUILD_FAILED[*]}"
  exit 0
fi

boot_kernel baseline || die "the unpatched kernel does not boot/run: see $OUT/baseline.serial.log"
# /proc/self/ns/user in the guest (README.md, pitfall 2): ucbench info reports it
for n in "${KERNELS[@]:1}"; do
  [ -z "${BUILD_FAILED[$n]:-}" ] || continue
  boot_kernel "$n" || log "$n: boot/run failed (see $OUT/$n.serial.log)"
done
mv "$TIMES.new" "$TIMES"

KVER=$(make -s -C "$SRC" kernelversion 2>/dev/null || echo "$SERIES")
declare -A PATCH_OF=()
for p in "${PATCHES[@]}"; do PATCH_OF[$(basename "$p" .patch)]=$p; done
ARGV=()
for k in "${KERNELS[@]}"; do ARGV+=("$k=${PATCH_OF[$k]:-}"); done
python3 - "$OUT" "$TIMES" "$SERIES" "$KVER" "${ARGV[@]}" <<'PYEOF'
import json, os, sys
out, times, series, kver = sys.argv[1:5]
kernels = [a.split("=", 1)[0] for a in sys.argv[5:]]
patch_of = dict(a.split("=", 1) for a in sys.argv[5:])
T = {}
for line in open(times):
    k, step, v = line.rstrip("\n").split("\t")
    T[(k, step)] = v

def load(k):
    try:
        with open(os.path.join(out, f"{k}.verify.json")) as f:
            doc = json.load(f)
        return {c["id"]: c["status"] for c in doc.get("verify", [])}
    except (OSError, ValueError, KeyError, TypeError):
        return None

def breaks(k):
    """The patch header's `Breaks: P<n> RLIMITS LEVELS DIRECTION` line."""
    try:
        with open(patch_of.get(k) or "/nonexistent") as f:
            for line in f:
                if line.startswith("Breaks:"):
                    return line[len("Breaks:"):].strip()
                if line.startswith("---"):
                    break
    except OSError:
        pass
    return ""

base = load("baseline")
if not base:
    sys.exit("mutants.sh: no usable baseline verify.json")
GOOD = ("pass", "known-bug")
rows, ok_all, caught_n, mutants_n = [], True, 0, 0
for k in kernels:
    v = load(k)
    is_fix = not k.startswith("mutant-") and k != "baseline"
    hits = []
    if v is None:
        diff, verdict = "no verify.json (build/boot failed)", "no"
        ok = False
    else:
        d = [f"{cid} {base.get(cid, '-')}->{v.get(cid, '-')}" for cid in sorted(set(base) | set(v))
             if base.get(cid) != v.get(cid)]
        diff = ", ".join(d) if d else "(same as baseline)"
        if k == "baseline":
            bad = [c for c, s in v.items() if s not in GOOD + ("skip",)]
            verdict = "-" if not bad else "WARNING: " + ",".join(bad)
            ok = True
        elif is_fix:
            regress = [c for c in v if base.get(c) in GOOD and v[c] in ("fail", "error")]
            ok = base.get("ULIM-19") == "known-bug" and v.get("ULIM-19") == "pass" and not regress
            verdict = "yes (ULIM-19 pass)" if ok else "NO"
        else:
            hits = sorted(c for c in v if base.get(c) in GOOD and v[c] in ("fail", "error"))
            ok = bool(hits)
            verdict = "yes" if ok else "NO (survived)"
    if k.startswith("mutant-"):
        mutants_n += 1
        caught_n += ok
    ok_all &= ok
    rows.append({"kernel": k, "build_s": T.get((k, "build"), "?"), "boot_s": T.get((k, "boot"), "?"),
                 "caught": verdict, "caught_by": hits, "differs": diff, "breaks": breaks(k)})

w = max(len(r["kernel"]) for r in rows)
print(f"\nseries {series} (linux-source-{series}, {kver})")
print(f"{'kernel':<{w}}  {'build s':>7}  {'boot s':>6}  caught               cases that differ from baseline")
for r in rows:
    print(f"{r['kernel']:<{w}}  {r['build_s']:>7}  {r['boot_s']:>6}  {r['caught']:<20} {r['differs']}")
survivors = [r for r in rows if r["caught"] == "NO (survived)"]
for r in survivors:
    print(f"SURVIVED {r['kernel']}: no case observes {r['breaks'] or 'its bug'}")
print("\nbaseline verdicts: " + " ".join(f"{c}={s}" for c, s in sorted(base.items())))
# README.md pitfall 2: without CONFIG_USER_NS unshare(CLONE_NEWUSER) is EPERM on Debian
# trees.  ULIM-20 stats /proc/self/ns/user (error when it is missing); info probes a userns.
try:
    with open(os.path.join(out, "baseline.info.json")) as f:
        can = json.load(f)["host"]["userns"]["can_create"]
except (OSError, ValueError, KeyError, TypeError):
    can = None
userns_ok = can is True and base.get("ULIM-20") == "pass"
print(f"guest user namespaces: info host.userns.can_create={can}, ULIM-20 (stats /proc/self/ns/user) "
      f"{base.get('ULIM-20')}: {'ok' if userns_ok else 'NOT OK'}")
ok_all &= userns_ok
setup = [f"{k}:{s}={v}" for (k, s), v in T.items() if k in ("tree", "ucbench")]
if setup:
    print("setup times (s): " + " ".join(setup))
print(f"{kver}: mutation score {caught_n}/{mutants_n}")
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump({"series": series, "kernel_version": kver, "kernels": rows, "baseline": base,
               "mutation_score": [caught_n, mutants_n]}, f, indent=1)
sys.exit(0 if ok_all else 1)
PYEOF
