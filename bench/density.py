#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""density.py - container density: ucbench's setup_s and teardown_s beside the kernel's own
work for the same N, a bare clone(CLONE_NEWUSER|...) + id-maps loop (bench/bare-density),
interleaved, several rounds; the median and the range of each, and of the ratios taken round by
round.  The bare loop runs twice a round: with its children asleep until killed (the reference
of issue 40) and with them busy, as ucbench's tasks are when the window ends (`busy`: they wait
on a start pipe, then loop on getppid for half a second, killed by a real-time parent).  The
one-minute load average and the runnable tasks before each ucbench run are recorded: on a
shared host, say which numbers were taken under load.  A program that prints numbers, not a
test: run it as root.

  bench/density.py [--ucbench PATH] [--bare PATH] [--containers 64,1024,4096,16384]
                   [--rounds 3] [--duration 1] [--uid-base 2230000000] [--isolate user,ipc]
                   [--other PATH] [--json FILE]

Each ucbench run is
  ucbench run -w getppid --owner shared -d 1 --warmup 0 --no-baseline -c N -f json -q
          --uid-base B --isolate user,ipc
--other runs a second ucbench (an older build) the same way beside it, for a before/after.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def runnable():
    """Tasks runnable on the machine now, less this one (/proc/loadavg's fourth field)."""
    with open("/proc/loadavg") as f:
        return int(f.read().split()[3].split("/")[0]) - 1


def run_ucbench(exe, args, n):
    cmd = [exe, "run", "-w", "getppid", "--owner", "shared", "-d", str(args.duration),
           "--warmup", "0", "--no-baseline", "-c", str(n), "-f", "json", "-q",
           "--uid-base", str(args.uid_base), "--isolate", args.isolate]
    load, load1 = runnable(), os.getloadavg()[0]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"density: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    doc = json.loads(r.stdout)
    res = doc["results"][0]
    mem = res.get("memory", {})
    return {"setup_s": res["setup_s"], "teardown_s": res["teardown_s"],
            "window_error_pct": 100 * (res["measured_s"] - args.duration) / args.duration,
            "container_kib": mem.get("container_kib"),
            "peak_rss_kib": doc["run"].get("peak_rss_kib"),
            "runnable": load, "load1": load1}


def run_bare(args, n, busy):
    cmd = [args.bare, str(n), str(args.uid_base), args.isolate] + (["busy"] if busy else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (kv.split("=") for kv in out.split())}


def spread(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return f"{statistics.median(xs):.3g} [{min(xs):.3g}–{max(xs):.3g}]"


def one_round(args, rnd, ns, rows):
    # Interleaved: N forward in odd rounds and backward in even ones; within a point, bare
    # first in odd rounds and ucbench first in even ones.
    for n in ns if rnd % 2 else list(reversed(ns)):
        row = {"n": n, "round": rnd}
        steps = [("bare", lambda: run_bare(args, n, False)),
                 ("bare_busy", lambda: run_bare(args, n, True)),
                 ("ucbench", lambda: run_ucbench(args.ucbench, args, n))]
        if args.other and n <= args.other_max:
            steps.append(("other", lambda: run_ucbench(args.other, args, n)))
        for name, fn in steps if rnd % 2 else list(reversed(steps)):
            row[name] = fn()
        rows.append(row)
        u, b, bb = row["ucbench"], row["bare"], row["bare_busy"]
        print(f"round {rnd} N={n:5d} load1={u['load1']:.1f} runnable={u['runnable']}  "
              f"setup {u['setup_s']:.3f} s / bare {b['create_s']:.3f} = "
              f"x{u['setup_s'] / b['create_s']:.2f}  teardown {u['teardown_s']:.3f} s / bare "
              f"{b['teardown_s']:.3f} (busy {bb['teardown_s']:.3f})"
              + (f"  other: setup {row['other']['setup_s']:.3f} teardown "
                 f"{row['other']['teardown_s']:.3f}" if "other" in row else ""), flush=True)


def table(rows, ns):
    print("\n| N | bare create | `setup_s` | setup / bare | bare teardown (asleep; busy) "
          "| `teardown_s` | teardown / bare (asleep; busy) | window error | container KiB "
          "| peak RSS MiB | load1 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in ns:
        rs = [r for r in rows if r["n"] == n]
        u = [r["ucbench"] for r in rs]
        get = lambda k, src="ucbench": [r[src][k] for r in rs]  # noqa: E731
        print(f"| {n:,} | {spread(get('create_s', 'bare'))} | {spread(get('setup_s'))} "
              f"| {spread([x['setup_s'] / r['bare']['create_s'] for x, r in zip(u, rs)])} "
              f"| {spread(get('teardown_s', 'bare'))}; {spread(get('teardown_s', 'bare_busy'))} "
              f"| {spread(get('teardown_s'))} "
              f"| {spread([x['teardown_s'] / r['bare']['teardown_s'] for x, r in zip(u, rs)])}; "
              f"{spread([x['teardown_s'] / r['bare_busy']['teardown_s'] for x, r in zip(u, rs)])} "
              f"| {spread([abs(x) for x in get('window_error_pct')])} % "
              f"| {spread(get('container_kib'))} "
              f"| {spread([x / 1024 for x in get('peak_rss_kib') if x])} "
              f"| {spread(get('load1'))} |")
        other = [r["other"] for r in rs if "other" in r]
        if other:
            print(f"| {n:,}, --other | | {spread([x['setup_s'] for x in other])} "
                  f"| {spread([x['setup_s'] / r['bare']['create_s'] for x, r in zip(other, rs)])} "
                  f"| | {spread([x['teardown_s'] for x in other])} "
                  f"| {spread([x['teardown_s'] / r['bare']['teardown_s'] for x, r in zip(other, rs)])}; "
                  f"{spread([x['teardown_s'] / r['bare_busy']['teardown_s'] for x, r in zip(other, rs)])} "
                  f"| | | | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ucbench", default="./ucbench")
    ap.add_argument("--bare", default="./bench/bare-density")
    ap.add_argument("--containers", default="64,1024,4096,16384")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--uid-base", type=int, default=2230000000)
    ap.add_argument("--isolate", default="user,ipc")
    ap.add_argument("--other", help="a second ucbench to run beside (an older build)")
    ap.add_argument("--other-max", type=int, default=4096, help="the most N --other takes")
    ap.add_argument("--json")
    args = ap.parse_args()
    ns = [int(x) for x in args.containers.split(",")]
    rows = []
    for rnd in range(1, args.rounds + 1):
        one_round(args, rnd, ns, rows)
    table(rows, ns)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
