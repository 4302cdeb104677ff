#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lava-report.py - ucbench's JSON documents as LAVA test cases: a case for each step (its
exit status), then the calls `ucbench export --to lava` writes for its document.

  verify --result pass                                (ucbench verify exited 0)
  verify.ULIM-01 --result pass                        (a case; worst status over --repeat)
  run.signal.shared.depth1.tasks1.process.c2.per_container_ops --result pass
      --measurement 233516 --units ops/s              (the median over the point's repeats)

What each result means is ucbench's table of meanings (docs/exporters.md), the same as in
every other output: known-bug -> fail, recorded with lava-test-reference and the bug's page;
error -> unknown (no verdict); a flagged point's metrics -> unknown with their measurement, and
a case per flag (POINT.flagged.contended).  Names keep letters, digits, `.`, `_` and `-` only
and never depend on --repeat, so a LAVA query follows one series across jobs.  --dry-run
prints the calls instead of making them.
"""
import argparse
import os
import subprocess
import sys


class Reporter:
    def __init__(self, dry_run):
        self.dry_run = dry_run
        self.failed_calls = 0

    def call(self, argv):
        if self.dry_run:
            print(" ".join(argv))
        elif subprocess.run(argv).returncode != 0:
            self.failed_calls += 1


def report(rep, ucbench, step, path, status):
    """The step's own case (its exit status), then, when its document reads, its cases."""
    rep.call(["lava-test-case", step, "--result", "pass" if status == 0 else "fail"])
    if not os.path.isfile(path):
        print(f"lava-report: {path}: no such document", file=sys.stderr)
        return
    r = subprocess.run([ucbench, "export", "--to", "lava", path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        print(f"lava-report: {r.stderr.strip()}", file=sys.stderr)
        return
    for line in r.stdout.splitlines():
        rep.call(line.split())  # no word of a line holds a space (export-lava.c)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ucbench", default=os.environ.get("UCBENCH") or "ucbench",
                    help="the ucbench binary (default: $UCBENCH, else ucbench in PATH)")
    ap.add_argument("--verify", help="the document of `ucbench verify --output`")
    ap.add_argument("--verify-status", type=int, default=0, help="its exit status")
    ap.add_argument("--run", help="the document of `ucbench run --output`")
    ap.add_argument("--run-status", type=int, default=0, help="its exit status")
    ap.add_argument("--dry-run", action="store_true", help="print the calls, do not make them")
    a = ap.parse_args()
    rep = Reporter(a.dry_run)
    if a.verify:
        report(rep, a.ucbench, "verify", a.verify, a.verify_status)
    if a.run:
        report(rep, a.ucbench, "run", a.run, a.run_status)
    return 1 if rep.failed_calls else 0


if __name__ == "__main__":
    sys.exit(main())
