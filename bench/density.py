#!/usr/bin/env python3
"""density.py - container density: for each N, ucbench's setup, measured-window error, teardown
and wall time beside a bare clone(CLONE_NEWUSER)/map/kill loop of the same N (bench/bare-density),
interleaved in one run, plus the private memory per container (owner + namespace levels + init +
task, from /proc/PID/smaps_rollup while the window runs) and the machine's load. A program that
prints numbers, not a test: run it as root on a quiet machine.

  bench/density.py [--ucbench PATH] [--bare PATH] [--containers 1,64,256,1024,4096]
                   [--duration 2] [--rounds 1] [--uid-base 2230000000] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

NAMES = ("ucb-owner", "ucb-ns", "ucb-init", "ucb-task")


def comm_of(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def private_kib(pid):
    """Private_Clean + Private_Dirty of one process, in KiB (0 when it is gone)."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1])
    except OSError:
        pass
    return total


def container_procs(root):
    """Descendants of `root` that are container processes (by their names)."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            todo.append(c)
            if comm_of(c).startswith(NAMES):
                out.append(c)
    return out


def memory_per_container(proc, n, deadline):
    """Once all n tasks exist: private KiB of every container process, over n; None if the
    run ended first."""
    while time.monotonic() < deadline and proc.poll() is None:
        procs = container_procs(proc.pid)
        if sum(comm_of(p).startswith("ucb-task") for p in procs) >= n:
            return sum(private_kib(p) for p in procs) / n, len(procs) / n
        time.sleep(0.05)
    return None, None


def run_ucbench(args, n, out):
    cmd = [args.ucbench, "run", "--workload", "getppid", "--containers", str(n), "--owner",
           "shared", "--duration", str(args.duration), "--warmup", "0", "--uid-base",
           str(args.uid_base), "--quiet", "--output", out]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd)
    mem, per = memory_per_container(proc, n, t0 + 600)
    rc = proc.wait()
    wall = time.monotonic() - t0
    if rc != 0:
        sys.exit(f"density: {' '.join(cmd)} exited {rc}")
    with open(out) as f:
        r = json.load(f)["results"][0]
    return {"cmd": " ".join(cmd), "setup_s": r["setup_s"], "measured_s": r["measured_s"],
            "window_error_pct": 100 * (r["measured_s"] - args.duration) / args.duration,
            "teardown_s": r.get("teardown_s"), "wall_s": wall,
            "late_readings": r["contention"].get("late_readings"),
            "sampler": r["contention"].get("sampler_policy"),
            "private_kib_per_container": mem, "processes_per_container": per}


def run_bare(args, n):
    out = subprocess.run([args.bare, str(n), str(args.uid_base)], capture_output=True, text=True,
                         check=True).stdout
    return {k: float(v) for k, v in (kv.split("=") for kv in out.split())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ucbench", default="./ucbench")
    ap.add_argument("--bare", default="./bench/bare-density")
    ap.add_argument("--containers", default="1,64,256,1024,4096")
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--uid-base", type=int, default=2230000000)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            for n in (int(x) for x in args.containers.split(",")):
                load = os.getloadavg()[0]
                bare = run_bare(args, n)
                u = run_ucbench(args, n, os.path.join(tmp, "out.json"))
                u.update(n=n, round=rnd + 1, load1=load, bare_create_s=bare["create_s"],
                         bare_teardown_s=bare["teardown_s"])
                rows.append(u)
                print(f"N={n:5d} load={load:5.1f}  setup {u['setup_s']:.3f} s"
                      f" (bare {bare['create_s']:.3f}, x{u['setup_s'] / bare['create_s']:.1f})"
                      f"  window {u['measured_s']:.4f} s ({u['window_error_pct']:+.2f} %)"
                      f"  teardown {u['teardown_s']:.3f} s (bare {bare['teardown_s']:.3f})"
                      f"  wall {u['wall_s']:.2f} s  late {u['late_readings']}"
                      f"  mem {u['private_kib_per_container'] or float('nan'):.0f} KiB/container"
                      f" ({u['processes_per_container'] or float('nan'):.1f} processes)",
                      flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
