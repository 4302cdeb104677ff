#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seccomp-cost.sh - what a seccomp filter costs the `getppid` control, per system call.
# Configurations are interleaved round by round (noise hits them alike) and the per-call time
# of each is reported as the median over rounds with the min-max spread.
#   usage: bench/seccomp-cost.sh [UCBENCH] [ROUNDS]    (run as root; docs/performance.md)
set -eu
UCB=${1:-./ucbench}
ROUNDS=${2:-7}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# An allowlist whose getppid rule depends on an argument: the BPF program runs on every call
# (an unconditional allow is cached by the kernel since 5.11 and skips it).
cat > "$TMP/argrule.json" <<'JSON'
{"defaultAction": "SCMP_ACT_ALLOW",
 "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_ERRNO",
               "args": [{"index": 0, "value": 12345, "op": "SCMP_CMP_EQ"}]}]}
JSON
set -- none docker docker-opt2 argrule
for r in $(seq "$ROUNDS"); do
  for c in "$@"; do
    case $c in
      none) extra="" ;;
      docker) extra="--seccomp docker" ;;
      docker-opt2) extra="--seccomp docker --seccomp-optimize 2" ;;
      argrule) extra="--seccomp $TMP/argrule.json" ;;
    esac
    # shellcheck disable=SC2086
    "$UCB" run --workload getppid --containers 1 --owner distinct --pin 1 --duration 2 \
      --warmup 0.5 --quiet --format json $extra > "$TMP/$c.$r.json"
  done
done
python3 - "$TMP" "$ROUNDS" "$@" <<'PY'
import json, statistics, sys
tmp, rounds, confs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ns = {}
for c in confs:
    v = []
    for r in range(1, rounds + 1):
        d = json.load(open(f"{tmp}/{c}.{r}.json"))
        v.append(1e9 / d["results"][0]["summary"]["per_container_ops"])
    ns[c] = v
base = statistics.median(ns["none"])
print(f"{'seccomp':<12} {'ns/call':>8} {'min-max':>15} {'vs none':>9}")
for c in confs:
    m = statistics.median(ns[c])
    print(f"{c:<12} {m:8.1f} {min(ns[c]):7.1f}-{max(ns[c]):<7.1f} {m - base:+8.1f}")
PY
