#!/bin/sh
# compare-calibration.sh - how often `ucbench compare` cries wolf, and how often it finds a
# real slowdown: N identical runs of getppid, all N(N-1)/2 pairs compared (A/A: every
# regression or improvement is a false alarm), and S runs with Docker's seccomp profile (a
# filter on every system call, +25-35 % CPU per call here) against the first S plain runs
# (power: a regression is right, an improvement a wrong sign).  Runs are interleaved.
#   usage: bench/compare-calibration.sh [UCBENCH] [N] [S] [HOGS] [DRIFT] [REPEAT]
#   (run as root; N = 7 gives 21 A/A pairs; HOGS busy loops compete for the CPUs meanwhile;
#   DRIFT is compare's --drift, default its own; REPEAT the --repeat of every run, default 3)   docs/statistics.md, docs/performance.md
set -eu
UCB=${1:-./ucbench}
N=${2:-7}
S=${3:-3}
HOGS=${4:-0}
DRIFT=${5:-}
REPEAT=${6:-3}
TMP=$(mktemp -d)
HOG_PIDS=""
cleanup() {
  for p in $HOG_PIDS; do kill "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
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
    run "s$s" "--seccomp docker"
  fi
done
while [ "$s" -lt "$S" ]; do
  s=$((s + 1))
  run "s$s" "--seccomp docker"
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
for v in sorted(set(aa + pw)):
    print(f"  {v}: A/A {aa.count(v)}, seccomp {pw.count(v)}")
PY
