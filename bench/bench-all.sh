#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-all.sh - bench-overhead for every workload, then the per-level cost of signal and
# sigqueue (depth 0..32 at 2 containers).  Run from the build directory:
#   ../bench/bench-all.sh [ROUNDS] [DURATION]
# Prints each workload's rounds and a closing table; keep the output with the date.
set -eu
rounds=${1:-5}
duration=${2:-2}
make -s ucbench bench/bench-overhead
echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) CPUs; rounds=$rounds duration=${duration}s"
summary=""
for w in $(./ucbench list --format json | python3 -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["workloads"] if x["supported"]))'); do
  depth=0
  # mqueue and shmlock need a private IPC namespace, so a user namespace
  { [ "$w" = mqueue ] || [ "$w" = shmlock ]; } && depth=1
  out=$(./bench/bench-overhead --ucbench ./ucbench --workload "$w" --depth "$depth" \
        --rounds "$rounds" --duration "$duration" --cpu 1)
  echo "$out"
  summary="$summary
$(printf '%-9s depth %s  ' "$w" "$depth")$(echo "$out" | awk '/^ratio ucbench\/bare/ { printf "ops/s %s [%s-%s]  ", $4, $6, $8 }
                      /^CPU ratio/ { printf "cpu %s [%s-%s]", $5, $7, $9 }')"
done
echo
echo "# workload  depth  ops/s ratio ucbench/bare median [min-max]  CPU ns/op ratio bare/ucbench"
echo "$summary"
echo
echo "# depth curve: ./ucbench run --workload signal,sigqueue --containers 2 --owner distinct --depth 0,1,2,4,8,16,32 --repeat 3 --duration $duration"
./ucbench run --workload signal,sigqueue --containers 2 --owner distinct --depth 0,1,2,4,8,16,32 \
  --repeat 3 --duration "$duration" --quiet --format json | python3 -c '
import json, statistics, sys
d = json.load(sys.stdin)
rows = {}
for r in d["results"]:
    rows.setdefault((r["workload"], r["depth"]), []).append(
        (r["summary"]["per_container_ops"], r["summary"]["cpu_ns_per_op"]))
print("workload  depth  ops/s/container (median of 3 [min-max])  cpu ns/op (median)")
for (w, dep), v in rows.items():
    ops = sorted(x[0] for x in v)
    print(f"{w:9s} {dep:5d}  {statistics.median(ops):12.0f} [{ops[0]:.0f}-{ops[-1]:.0f}]  {statistics.median(x[1] for x in v):10.1f}")
'
