#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# compare-calibration.sh - how often `ucbench compare` cries wolf, and how often it finds a
# real slowdown: N identical runs of getppid, all N(N-1)/2 pairs compared (A/A: every
# regression or improvement is a false alarm), and S runs with Docker's seccomp profile (a
# filter on every system call, +25-35 % CPU per call here) against the first S plain runs
# (power: a regression is right, an improvement a wrong sign).  Runs are interleaved.
#   usage: bench/compare-calibration.sh [UCBENCH] [N] [S] [HOGS] [DRIFT] [REPEAT] [PROFILE]
#   (run as root; N = 7 gives 21 A/A pairs; HOGS busy loops compete for the CPUs meanwhile;
#   DRIFT is compare's --drift, default its own; REPEAT the --repeat of every run, default 3;
#   PROFILE the --seccomp of the S runs, default docker; `argrule` is a one-rule profile whose
#   getppid rule tests an argument, so the BPF program runs on every call: docker's allows
#   getppid outright, which the kernel caches since 5.11, and on some VMs that costs nothing)   docs/statistics.md, docs/performance.md
set -eu
UCB=${1:-./ucbench}
N=${2:-7}
S=${3:-3}
HOGS=${4:-0}
DRIFT=${5:-}
REPEAT=${6:-3}
PROFILE=${7:-docker}
TMP=$(mktemp -d)
HOG_PIDS=""
cleanup() {
  for p in $HOG_PIDS; do kill "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
if [ "$PROFILE" = argrule ]; then
  PROFILE=$TMP/argrule.json
  cat >"$PROFILE" <<'JSON'
{"defaultAction": "SCMP_ACT_ALLOW",
 "syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_ERRNO",
               "args": [{"index": 0, "value": 12345, "op": "SCMP_CMP_EQ"}]}]}
JSON
fi
for h in $(seq "$HOGS"); do
  sh -c 'while :; do :; done' &
  HOG_PIDS="$HOG_PIDS $!"
done
run() {
  # shellcheck disable=SC2086
  "$UCB" run --workload getppid --containers 1 --owner shared --repeat "$REPEAT" --duration 0.5 \
    --warmup 0.2 --interval 0.1 --uid-base "${UCB_UID_BASE:-2150900000}" --quiet \
    --output "$TMP/$1.json" $2
}
s=0
for a in $(seq "$N"); do
  run "a$a" ""
  if [ "$s" -lt "$S" ] && [ $((a % 2)) -eq 0 ]; then
    s=$((s + 1))
    run "s$s" "--seccomp $PROFILE"
  fi
done
while [ "$s" -lt "$S" ]; do
  s=$((s + 1))
  run "s$s" "--seccomp $PROFILE"
done
python3 - "$UCB" "$TMP" "$N" "$S" "$DRIFT" <<'PY'
import json, subprocess, sys
ucb, tmp, n, s, drift = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
extra = ["--drift", drift] if drift else []
def verdict(a, b):
    r = subprocess.run([ucb, "compare", f"{tmp}/{a}.json", f"{tmp}/{b}.json", "--format",
                        "json"] + extra, capture_output=True, text=True)
    return json.loads(r.stdout)["points"][0]["verdict"]
aa = [verdict(f"a{i}", f"a{j}") for i in range(1, n + 1) for j in range(i + 1, n + 1)]
pw = [verdict(f"a{i}", f"s{j}") for i in range(1, min(n, s) + 1) for j in range(1, s + 1)]
flag = sum(v in ("regression", "improvement") for v in aa)
print(f"A/A: {flag} of {len(aa)} pairs flagged a change ({100 * flag / len(aa):.0f} %)")
print(f"seccomp: {pw.count('regression')} regression, {pw.count('improvement')} improvement, "
      f"{len(pw) - pw.count('regression') - pw.count('improvement')} other, of {len(pw)}")
r = subprocess.run([ucb, "compare", "--format", "json"] + extra
                   + sum((["--base", f"{tmp}/a{i}.json"] for i in range(1, min(n, s) + 1)), [])
                   + sum((["--head", f"{tmp}/s{j}.json"] for j in range(1, s + 1)), []),
                   capture_output=True, text=True)
p = json.loads(r.stdout)["points"][0]
print(f"seccomp {min(n, s)} v {s} documents: ratio {p['ratio']:.3f} "
      f"[{p['ci_low']:.3f}, {p['ci_high']:.3f}], {p['verdict']}")
def mean_ops(name):
    doc = json.load(open(f"{tmp}/{name}.json"))
    rs = [x["summary"]["per_container_ops"] for x in doc["results"]]
    return sum(rs) / len(rs)
ma = [mean_ops(f"a{i}") for i in range(1, n + 1)]
ms = [mean_ops(f"s{j}") for j in range(1, s + 1)]
sd = (sum((x - sum(ma) / n) ** 2 for x in ma) / (n - 1)) ** 0.5
print("document means, ops/s: plain " + " ".join(f"{x / 1e3:.0f}k" for x in ma)
      + f" (CV {100 * sd / (sum(ma) / n):.1f} %); seccomp "
      + " ".join(f"{x / 1e3:.0f}k" for x in ms))
for v in sorted(set(aa + pw)):
    print(f"  {v}: A/A {aa.count(v)}, seccomp {pw.count(v)}")
PY
