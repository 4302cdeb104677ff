#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""same-output.py OLD NEW - does a refactoring keep ucbench's output?  Runs the same commands
with two binaries and compares what they print.

- The readers (export in every format, compare, plot) on the shipped examples: byte for byte.
- list and info (JSON): equal, except fields that differ from one call to the next.
- run and verify documents: the same shape (every key, every type) and the same values for
  everything that is not a measurement (config, point identity, verdicts).

Usage: scripts/same-output.py old/ucbench build/ucbench   (as root, for run and verify)."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

old, new = sys.argv[1], sys.argv[2]
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ex = os.path.join(top, "examples")
tmp = tempfile.mkdtemp(prefix="ucb-same-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # its outputs are compared, not kept
failures = 0

# Values that change from one call to the next: measurements, clocks, pids, load.
VOLATILE = {"start_time", "started_at", "finished_at", "duration_s", "elapsed_s", "setup_s",
            "measured_s", "teardown_s", "late_max_s", "late", "late_readings", "contended",
            "contended_samples", "notes", "idle_pct", "steal_pct", "loadavg", "uptime_s", "pid", "pids",
            "task_pid", "userns_ino", "seccomp_load_us", "wall_s", "argv", "output",
            "mem_available_kib", "boot_id", "time", "timestamp", "date"}

# What names the build, not the behaviour: two binaries of two commits always differ there.
BUILD = {".tool.version"}


def shape(v, path=""):
    """Keys and types everywhere; values only where they are not measurements."""
    if isinstance(v, dict):
        return {k: shape(x, path + "." + k) for k, x in sorted(v.items())
                if k not in VOLATILE and path + "." + k not in BUILD}
    if isinstance(v, list):
        return [shape(x, path + "[]") for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v if not path.endswith(("_ns", "_us")) else type(v).__name__
    return type(v).__name__  # numbers: measurements are expected to differ


def run(binary, args, out=None):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def same(what, a, b):
    global failures
    if a == b:
        print(f"same: {what}")
    else:
        failures += 1
        print(f"DIFFERENT: {what}")
        with open(os.path.join(tmp, "old.txt"), "w") as f:
            f.write(a if isinstance(a, str) else json.dumps(a, indent=1, sort_keys=True))
        with open(os.path.join(tmp, "new.txt"), "w") as f:
            f.write(b if isinstance(b, str) else json.dumps(b, indent=1, sort_keys=True))
        subprocess.run(["diff", "-u", os.path.join(tmp, "old.txt"), os.path.join(tmp, "new.txt")])


docs = sorted(os.path.join(ex, f) for f in os.listdir(ex) if f.endswith(".json"))
for fmt in ["gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap"]:
    for d in docs:
        outs = [run(b, ["export", "--to", fmt, d]) for b in (old, new)]
        same(f"export --to {fmt} {os.path.basename(d)}", outs[0], outs[1])
for d in docs:
    for d2 in docs:
        for extra in ([], ["--format", "json"]):
            outs = [run(b, ["compare", d, d2] + extra) for b in (old, new)]
            same(f"compare {os.path.basename(d)} {os.path.basename(d2)} {' '.join(extra)}",
                 outs[0], outs[1])
    for suffix in ("svg", "html"):
        res = []
        for k, b in enumerate((old, new)):
            p = os.path.join(tmp, f"plot{k}.{suffix}")
            rc = run(b, ["plot", d, "--output", p])[0]
            res.append((rc, open(p).read() if os.path.exists(p) else None))
        same(f"plot {os.path.basename(d)} --output .{suffix}", res[0], res[1])

for args in (["list", "--format", "json"], ["info", "--format", "json"]):
    outs = [run(b, args) for b in (old, new)]
    same(" ".join(args), shape(json.loads(outs[0][1])), shape(json.loads(outs[1][1])))

if os.geteuid() == 0:
    # A uid range of our own, away from the defaults that concurrent runs and tests use.
    base = 2140000000 + (os.getpid() % 1000) * 1000
    runargs = ["run", "--workload", "getppid,signal", "--containers", "1,2", "--duration", "0.3",
               "--warmup", "0.1", "--interval", "0.1", "--repeat", "2", "--format", "json", "--quiet", "--uid-base", str(base)]
    outs = [run(b, runargs) for b in (old, new)]
    same("run (shape, config, identities)", shape(json.loads(outs[0][1])),
         shape(json.loads(outs[1][1])))
    outs = [run(b, ["verify", "limits", "--uid-base", str(base)]) for b in (old, new)]
    same("verify limits (TAP)", outs[0], outs[1])
    outs = [run(b, ["verify", "limits", "--format", "json", "--uid-base", str(base)]) for b in (old, new)]
    same("verify limits --format json (shape, verdicts)", shape(json.loads(outs[0][1])),
         shape(json.loads(outs[1][1])))
print(f"{failures} different")
sys.exit(1 if failures else 0)
