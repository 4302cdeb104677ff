#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""busy.py - taplib's rule for checks that depend on time or CPU (Tap.busy, busy_reason,
HostLoad): a check that held is ok whatever the host; one that failed skips only with a
measured reason the host was busy, and fails without one.  The evidence is tried on crafted
documents (a quiet run, a contended one, tasks short of CPU on a full host or on an idle one,
steal) and on a real competing process."""
import contextlib
import io
import os
import subprocess
import sys

from taplib import HostLoad, Tap, busy_reason, wait_for

t = Tap()


def point(shares, idle, contended=False, pinned=True, cpus=1, mode="process", steal=0.0):
    """A results[] entry: one container per list in `shares` (a task's cpu_share per interval),
    `idle` the host's idle_pct per interval."""
    n = len(idle)
    pcs = [{"tasks": [{"samples": [{"cpu_share": s} for s in task]}]} for task in shares]
    return {"mode": mode, "per_container": pcs,
            "placement": {"pinned": pinned, "cpus": cpus if pinned else None},
            "host_samples": [{"idle_pct": i, "steal_pct": 0.0} for i in idle[:n]],
            "contention": {"contended": contended, "late_readings": 0, "steal_pct_max": steal}}


def doc(*points):
    return {"host": {"cpus_online": 2},
            "config": {"contention_threshold": 0.9, "pin": {"allowed": [0, 1]}},
            "results": list(points)}


QUIET = doc(point([[0.99, 0.98, 0.99, 0.99]], [50, 49, 51, 50]))
t.ok(busy_reason(QUIET) is None, "a quiet run (share 0.99, half the host idle): no reason",
     busy_reason(QUIET))
HOG = doc(point([[0.5, 0.49, 0.52, 0.5]], [0, 0, 0, 0], contended=True))
why = busy_reason(HOG)
t.ok(why == "host busy: 1 of 1 points short of CPU, got 0.50 of their CPUs, the rest of the host "
     "used up to 1.5 of 2 CPUs", "a contended point on a full host: said, with the share", why)
WAITS = doc(point([[0.5, 0.5, 0.5, 0.5]], [75, 75, 75, 75], contended=True))
t.ok(busy_reason(WAITS) is None,
     "a task short of CPU while the host had an idle one: no reason (the workload waits)",
     busy_reason(WAITS))
# 8 unpinned tasks on 2 CPUs, never contended by ucbench's rule: they got 1.2 of 2 CPUs together
OVER = doc(point([[0.15] * 4] * 8, [0, 0, 0, 0], pinned=False))
why = busy_reason(OVER)
t.ok(why and "1 of 1 points short of CPU, got 0.60 of their CPUs" in why,
     "oversubscribed and unpinned: the tasks' CPUs together against the 2 they could use", why)
FAIR = doc(point([[0.25] * 4] * 8, [0, 0, 0, 0], pinned=False))
t.ok(busy_reason(FAIR) is None, "8 tasks sharing 2 idle-less CPUs fairly: no reason",
     busy_reason(FAIR))
# Flagged contended, but its own 4 tasks filled the host: no evidence (else a check of the flag
# itself could never fail).
SELF = doc(point([[0.4] * 4] * 2 + [[0.6] * 4] * 2, [0, 0, 0, 0], contended=True, cpus=2))
t.ok(busy_reason(SELF) is None, "contended by its own tasks, nothing else ran: no reason",
     busy_reason(SELF))
THREADS = doc(point([[0.39] * 4], [50, 50, 50, 50], mode="thread"))
t.ok(busy_reason(THREADS) is None, "--threads shares (a thread's own clock): no reason",
     busy_reason(THREADS))
STEAL = doc(point([[0.99] * 4], [50] * 4, steal=23.0))
t.ok("steal up to 23 %" in (busy_reason(STEAL) or ""), "steal >= 10 %: said", busy_reason(STEAL))
t.ok(busy_reason(None) is None and busy_reason({}) is None, "no document: no reason")


def tap_lines(f):
    """What `f(tap)` prints, as lines (a Tap of its own, so this test's count is not touched)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        inner = Tap()
        f(inner)
    return out.getvalue().splitlines()[1:], inner.failed


lines, failed = tap_lines(lambda u: u.busy(True, "held", "host busy: x"))
t.ok(lines == ["ok 1 - held"] and not failed, "Tap.busy: a check that held is ok, busy or not",
     lines)
lines, failed = tap_lines(lambda u: u.busy(False, "failed", lambda: "host busy: 3 of 3 points"))
t.ok(lines == ["ok 1 - failed # SKIP host busy: 3 of 3 points"] and not failed,
     "Tap.busy: a failed check on a busy host skips with the reason", lines)
lines, failed = tap_lines(lambda u: u.busy(False, "failed", lambda: None, "why"))
t.ok(lines == ["not ok 1 - failed", "# why"] and failed == 1,
     "Tap.busy: a failed check on a quiet host fails", lines)

# A real competitor: a process that burns a CPU (not reaped while it runs: not ours to count).
burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
try:
    hz = os.sysconf("SC_CLK_TCK")

    def burnt():
        with open(f"/proc/{burner.pid}/stat") as f:
            v = f.read().rsplit(")", 1)[1].split()
        return (int(v[11]) + int(v[12])) / hz

    wait_for(lambda: burnt() > 0.05)
    load = HostLoad()
    b0 = burnt()
    wait_for(lambda: burnt() - b0 >= 1.0, 30)
    o = load.others()
    got = burnt() - b0
    t.ok(o and o[0] * o[1] >= 0.8 * got,
         "HostLoad: another process's CPU time counts as the host's other load",
         f"others {o}, the burner used {got:.2f} s")
finally:
    burner.kill()
    burner.wait()
t.done()
