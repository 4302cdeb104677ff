#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""boot.py - boot one kernel in QEMU (TCG) with ucbench inside, run `ucbench info`, `ucbench
verify --keep-going` and a short `ucbench run`, and bring each JSON document back.  The harness
is ucbench-vm's (vm/vmharness.py: the initramfs, QEMU, the framing over the serial console, the
verdict from markers, never from QEMU's exit status): this file only names the commands the
kernel matrix and the mutation score run, and prints their one-line verdict.

usage: boot.py --kernel IMAGE --name NAME --out DIR [--ucbench STATIC] [--timeout S] [--no-run]
prints `NAME: ok (...)` or `NAME: panic|timeout|bad-checksum|no-output|command-failed: ... (see
DIR/NAME.serial.log)`; exit 0 only for ok."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "..", "vm"))
import vmharness as vm  # noqa: E402


# The smoke run is bounded: a hang must come back as a status with the process table (the
# harness prints `ps` after a failing command), not as a lost boot.
SMOKE = ["timeout", "-s", "KILL", "240", "/bin/ucbench", "run", "--workload", "signal,getppid",
         "--containers", "1,2", "--owner", "shared,distinct", "--duration", "1", "--warmup", "0.2",
         "--interval", "0.5", "--format", "json", "--quiet"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ucbench", default=os.environ.get("UCBENCH_STATIC", "ucbench"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--memory", default="1024")
    a = ap.parse_args()
    cmds = [("info", ["info", "--format", "json"], "stdout"),
            ("verify", ["verify", "--format", "json", "--keep-going"], "stdout")]
    if not a.no_run:
        cmds.append(("run", SMOKE, "raw"))
    ident = {"kernel": {"image_sha256": vm.sha256_file(a.kernel),
                        "version": vm.image_version(a.kernel)}, "config_source": None}
    config, how = vm.find_config(a.kernel)
    if config:
        ident = vm.kernel_identity(a.kernel, config, True, False)
    res = vm.boot(a.kernel, a.name, a.out, os.path.abspath(a.ucbench), cmds, accel="tcg",
                  timeout=a.timeout, memory=a.memory, identity=ident, quiet=True)
    for n, text in res["stderr"].items():
        sys.stderr.write(f"{a.name}: ucbench {n} stderr: {text[:500]}\n")
    for tag, ln in vm.oops_said(res):
        sys.stderr.write(f"{a.name}: {tag}: {ln}\n")
    stale = [f"boot {i} hit TCG's stale int3, see {b['log']}"
             for i, b in enumerate(res["stale_int3"], 1)]
    again = f" (booted {len(stale) + 1} times: {'; '.join(stale)})" if stale else ""
    rcs = " ".join(f"{n}={rc}" for n, rc in res["rcs"].items())
    if res["verdict"] == "ok":
        print(f"{a.name}: ok ({res['wall']:.1f} s; exit status {rcs}){again}")
        return 0
    print(f"{a.name}: {res['verdict']} (see {res['log']}){again}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
