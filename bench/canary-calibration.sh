#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# canary-calibration.sh - does dividing by the host-speed canary (results[].canary, `compare
# --normalize canary`) make invocations agree better?  N identical runs of getppid spaced out
# (A), S runs with Docker's seccomp profile (a real +10-35 % CPU per call) interleaved
# A A S A A S ...; then, raw and normalised:
#   (a) the CV of the N documents' means (geometric mean of their repeats' per-container ops/s)
#       and the A/A compare verdicts over the N(N-1)/2 pairs (a regression or an improvement
#       is a false alarm);
#   (b) the A(first S) vs S comparison with S documents a side (--base/--head): its verdict
#       and the width of its 95 % interval;
#   and the canary's own noise: |change_pct| between before and after of every repeat.
# Every run's load average is recorded (the machine may be shared).
#   usage: bench/canary-calibration.sh [UCBENCH] [N] [S] [GAP_S] [DURATION] [OUTDIR]
#   (run as root; defaults 6 3 20 2; OUTDIR keeps the documents, default a temporary one;
#   ANALYSE_ONLY=1 re-reads the documents of an earlier OUTDIR without running anything)
#   docs/statistics.md, "host-speed canary"
set -eu
UCB=${1:-./ucbench}
N=${2:-6}
S=${3:-3}
GAP=${4:-20}
DUR=${5:-2}
OUT=${6:-}
if [ -z "$OUT" ]; then
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi
mkdir -p "$OUT"
[ -n "${ANALYSE_ONLY:-}" ] || : >"$OUT/loadavg.txt"
run() {
  echo "$1 $(date +%T) $(cat /proc/loadavg)" >>"$OUT/loadavg.txt"
  # shellcheck disable=SC2086
  "$UCB" run --workload getppid --containers 1 --owner shared --repeat 3 --duration "$DUR" \
    --uid-base "${UCB_UID_BASE:-2150900000}" --quiet --output "$OUT/$1.json" $2
  sleep "$GAP"
}
s=0
[ -z "${ANALYSE_ONLY:-}" ] || s=$S N=0
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
echo "# load average at each run's start (name, time, /proc/loadavg)"
cat "$OUT/loadavg.txt"
N=${2:-6}
python3 - "$UCB" "$OUT" "$N" "$S" <<'PY'
import json, math, statistics as st, subprocess, sys
ucb, out, n, s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def load(name):
    return json.load(open(f"{out}/{name}.json"))["results"]
def rate(c):
    b, a = c.get("before"), c.get("after")
    return math.sqrt(b * a) if b and a else (b or a)
def quiet(name):
    return [r for r in load(name) if r["status"] == "ok"
            and not r.get("contention", {}).get("contended")]
def doc_mean(name, norm, key="per_container_ops"):
    """Geometric mean over the document's uncontended repeats (those compare uses) of ops/s,
    divided by the canary when norm; of CPU ns/op (key) multiplied by it."""
    sign = -1 if key == "per_container_ops" else 1
    logs = [math.log(r["summary"][key]) + (sign * math.log(rate(r["canary"])) if norm else 0)
            for r in quiet(name) if r["summary"][key]]
    return math.exp(sum(logs) / len(logs)) if logs else None
def cv(v):
    return 100 * st.stdev(v) / st.mean(v)
def compare(base, head, norm):
    args = [ucb, "compare", "--format", "json", "--normalize", "canary" if norm else "none"]
    args += sum((["--base", f"{out}/{b}.json"] for b in base), [])
    args += sum((["--head", f"{out}/{h}.json"] for h in head), [])
    return json.loads(subprocess.run(args, capture_output=True, text=True).stdout)["points"][0]
A = [f"a{i}" for i in range(1, n + 1)]
Sn = [f"s{j}" for j in range(1, s + 1)]
moves = [abs(r["canary"]["change_pct"]) for x in A + Sn for r in load(x)
         if r["canary"].get("change_pct") is not None]
print("canary |change_pct| before->after over %d repeats: median %.2f, max %.2f, moved %d"
      % (len(moves), st.median(moves), max(moves),
         sum(r["canary"]["moved"] for x in A + Sn for r in load(x))))
print("doc  uncontended  ops/s(raw)  CPU ns/op(raw)  canary(loops/s)")
for x in A + Sn:
    m, c = doc_mean(x, False), doc_mean(x, False, "cpu_ns_per_op")
    print("%-4s %d of %d %14s %14s %14.4g" % (x, len(quiet(x)), len(load(x)),
          "%.0f" % m if m else "-", "%.1f" % c if c else "-",
          st.mean(rate(r["canary"]) for r in load(x))))
for norm in (False, True):
    tag = "canary" if norm else "none  "
    aa = [compare([A[i]], [A[j]], norm)["verdict"] for i in range(n) for j in range(i + 1, n)]
    flag = sum(v in ("regression", "improvement") for v in aa)
    p = compare(A[:s], Sn, norm)
    means = [m for m in (doc_mean(x, norm) for x in A) if m]
    cpus = [m for m in (doc_mean(x, norm, "cpu_ns_per_op") for x in A) if m]
    print(f"--normalize {tag}: CV of the documents' CPU ns/op {cv(cpus) if len(cpus) > 1 else float('nan'):.2f} % ({len(cpus)} documents)")
    print(f"--normalize {tag}: (a) CV of the document means {cv(means) if len(means) > 1 else float('nan'):.2f} % ({len(means)} documents with an uncontended repeat),"
          f" A/A false alarms {flag} of {len(aa)} ({', '.join(sorted(set(aa)))});"
          f" (b) seccomp {s} v {s} documents: ratio {p['ratio']:.3f} [{p['ci_low']:.3f}, {p['ci_high']:.3f}]"
          f" width {100 * (p['ci_high'] - p['ci_low']):.1f} pts, {p['verdict']}")
PY
