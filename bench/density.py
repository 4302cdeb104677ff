#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""density.py - container density: for each N, ucbench's setup, measured-window error, teardown
and wall time beside a bare clone(CLONE_NEWUSER)/map/kill loop of the same N (bench/bare-density),
interleaved in one run, plus the private memory per container (owner + namespace levels + init +
task, from /proc/PID/smaps_rollup while the window of a second, untimed run is open), how many
tasks were runnable on the machine just before each row, and the one-minute load average then
(which includes the previous rows' own tasks). A program that prints numbers, not a test: run it
as root on a quiet machine.

  bench/density.py [--ucbench PATH] [--bare PATH] [--containers 1,64,256,1024,4096]
                   [--duration 2] [--rounds 1] [--uid-base 2230000000] [--isolate user,ipc]
                   [--json FILE]

--isolate is given to both: ucbench's containers and the bare loop's children get the same
namespaces (ucbench's default, user,ipc: an IPC namespace costs the kernel about half as much
again as the user namespace).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

NAMES = ("ucb-owner", "ucb-ns", "ucb-init", "ucb-task")  # not ucb-spawner: one per run


def runnable():
    """Tasks runnable on the machine right now, less this one (/proc/loadavg's fourth field):
    the load average would still count the previous point's thousands of tasks."""
    with open("/proc/loadavg") as f:
        return int(f.read().split()[3].split("/")[0]) - 1


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


def run_ucbench(args, n, out, memory=False):
    cmd = [args.ucbench, "run", "--workload", "getppid", "--containers", str(n), "--owner",
           "shared", "--duration", str(args.duration), "--warmup", "0", "--uid-base",
           str(args.uid_base), "--isolate", args.isolate, "--quiet", "--output", out]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd)
    mem = per = None
    if memory:
        # A run of its own: the /proc walk competes with N busy tasks, so it runs at
        # SCHED_FIFO (root), which would slow the timed run's setup; reset on fork.
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(1))
        except OSError:
            pass
        mem, per = memory_per_container(proc, n, t0 + 600)
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
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
    out = subprocess.run([args.bare, str(n), str(args.uid_base), args.isolate],
                         capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (kv.split("=") for kv in out.split())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ucbench", default="./ucbench")
    ap.add_argument("--bare", default="./bench/bare-density")
    ap.add_argument("--containers", default="1,64,256,1024,4096")
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--uid-base", type=int, default=2230000000)
    ap.add_argument("--isolate", default="user,ipc")
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            for n in (int(x) for x in args.containers.split(",")):
                load, load1 = runnable(), os.getloadavg()[0]
                bare = run_bare(args, n)
                u = run_ucbench(args, n, os.path.join(tmp, "out.json"))
                m = run_ucbench(args, n, os.path.join(tmp, "mem.json"), memory=True)
                u.update(private_kib_per_container=m["private_kib_per_container"],
                         processes_per_container=m["processes_per_container"])
                u.update(n=n, round=rnd + 1, runnable=load, isolate=args.isolate,
                         loadavg=load1, bare_create_s=bare["create_s"],
                         bare_teardown_s=bare["teardown_s"])
                rows.append(u)
                print(f"N={n:5d} runnable={load:3d} load1={u['loadavg']:.1f}  setup {u['setup_s']:.3f} s"
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
