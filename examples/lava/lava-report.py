#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lava-report.py - ucbench's JSON documents as LAVA test cases: one `lava-test-case` call per
verify case and per metric of every run point.

  verify.ULIM-01 --result pass                       (a case; worst status over --repeat)
  run.signal.shared.depth1.tasks1.process.c2.per_container_ops --result pass
      --measurement 233516 --units ops/s             (the median over the point's repeats)

Statuses: pass -> pass, fail -> fail, known-bug -> fail (the kernel has the bug; LAVA has no
expected-failure result), skip -> skip, error -> unknown (no verdict).  A metric that is null
in every repeat (or a skipped point) is --result skip, without a measurement.  Names keep
letters, digits, `.`, `_` and `-` only (no spaces, `=` or `/`), and a name never depends on
--repeat, so a LAVA query follows one series across jobs.  --dry-run prints the calls instead.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

VERIFY_RESULT = {"pass": "pass", "fail": "fail", "known-bug": "fail", "skip": "skip",
                 "error": "unknown"}
WORST = ["error", "fail", "known-bug", "skip", "pass"]  # worst first
# summary key -> units; the same keys as the document and `run --format csv`.
METRICS = [("per_container_ops", "ops/s"), ("total_ops_per_s", "ops/s"),
           ("per_task_ops", "ops/s"), ("cpu_ns_per_op", "ns/op"), ("scalability", "ratio"),
           ("fairness", "ratio"), ("failed_ops", "ops")]


def name(*parts):
    """A LAVA test case name: [A-Za-z0-9._-], starting and ending with a letter or digit."""
    s = ".".join(re.sub(r"[^A-Za-z0-9_-]+", "_", str(p)) for p in parts)
    return s.strip("._-") or "unnamed"


class Reporter:
    def __init__(self, dry_run):
        self.dry_run = dry_run
        self.failed_calls = 0

    def case(self, test, result, measurement=None, units=None):
        argv = ["lava-test-case", test, "--result", result]
        if measurement is not None:
            argv += ["--measurement", f"{measurement:.10g}", "--units", units]
        if self.dry_run:
            print(" ".join(argv))
        elif subprocess.run(argv).returncode != 0:
            self.failed_calls += 1


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"lava-report: {path}: {e}", file=sys.stderr)
        return None


def report(rep, step, path, status, cases):
    """The step's own case (its exit status), then, when its document loads, `cases` of it."""
    doc = load(path)
    rep.case(step, "pass" if status == 0 else "fail")
    if doc is not None:
        cases(rep, doc)


def verify_cases(rep, doc):
    worst = {}
    for c in doc.get("verify") or []:
        old = worst.get(c["id"])
        if old is None or WORST.index(c["status"]) < WORST.index(old):
            worst[c["id"]] = c["status"]
    for cid, st in worst.items():
        rep.case(name("verify", cid), VERIFY_RESULT.get(st, "unknown"))


def point_key(e):
    return (e["workload"], e["owner"], e["depth"], e["tasks"], e["mode"], e["containers"])


def run_cases(rep, doc):
    points = {}
    for e in doc.get("results") or []:
        points.setdefault(point_key(e), []).append(e)
    for (wl, owner, depth, tasks, mode, n), entries in points.items():
        ok = [e for e in entries if e.get("status") == "ok"]
        for key, units in METRICS:
            test = name("run", wl, owner, f"depth{depth}", f"tasks{tasks}", mode, f"c{n}", key)
            vals = [e["summary"][key] for e in ok
                    if isinstance(e.get("summary", {}).get(key), (int, float))]
            if vals:
                rep.case(test, "pass", statistics.median(vals), units)
            else:
                rep.case(test, "skip")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verify", help="the document of `ucbench verify --output`")
    ap.add_argument("--verify-status", type=int, default=0, help="its exit status")
    ap.add_argument("--run", help="the document of `ucbench run --output`")
    ap.add_argument("--run-status", type=int, default=0, help="its exit status")
    ap.add_argument("--dry-run", action="store_true", help="print the calls, do not make them")
    a = ap.parse_args()
    rep = Reporter(a.dry_run)
    if a.verify:
        report(rep, "verify", a.verify, a.verify_status, verify_cases)
    if a.run:
        report(rep, "run", a.run, a.run_status, run_cases)
    return 1 if rep.failed_calls else 0


if __name__ == "__main__":
    sys.exit(main())
