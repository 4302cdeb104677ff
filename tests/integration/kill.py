# SPDX-License-Identifier: GPL-2.0-or-later
"""kill.py - whatever happens to ucbench, no child survives: SIGKILL, SIGINT, SIGTERM.

Uses its own --uid-base so it can run beside the other integration tests.  Every wait is for a
condition (taplib.wait_for); "stops promptly" is timed: over its bound on a host measured busy
(taplib.HostLoad) it skips."""
import os
import signal
import subprocess
import time

from taplib import DEADLINE, HostLoad, RunProcs, Tap, UCBENCH, require_root_userns, uid_block

require_root_userns("needs root (setresuid to the owner uids)")

t = Tap()
BASE = uid_block(2100100000, 4000)  # + 1000 x depth, 4 containers


def start(depth):
    # A uid range per round: the previous round's orphans may still await their reaper.
    return subprocess.Popen([UCBENCH, "run", "--no-baseline", "--containers", "4", "--owner",
                             "distinct",
                             "--uid-base", str(BASE + 1000 * depth), "--depth",
                             str(depth), "--duration", "60", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


for sig, depth, want_rc in ((signal.SIGKILL, 2, -9), (signal.SIGINT, 1, 130),
                            (signal.SIGTERM, 3, 143)):
    name = f"{signal.Signals(sig).name} of ucbench (depth {depth})"
    p = start(depth)
    run = RunProcs(p.pid)
    ready = run.until_tasks(4)
    t.ok(ready, f"{name}: 4 tasks running before the signal")
    procs = run.snapshot
    load = HostLoad()
    t0 = time.monotonic()
    os.kill(p.pid, sig)
    hung = False
    try:
        _, err = p.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        hung = True  # ended by SIGKILL below: its own status is unknown
        p.kill()
        _, err = p.communicate()
    took = time.monotonic() - t0
    t.busy(p.returncode == want_rc, f"{name}: exit status {want_rc}", hung and load.reason,
           f"got {p.returncode} after {took:.1f} s{' (killed: still running)' if hung else ''}"
           f"\n{err}")
    if sig != signal.SIGKILL:
        t.busy(took < 5 and "interrupted" in err, f"{name}: stops promptly and says why",
               "interrupted" in err and load.reason, f"{took:.1f}s: {err}")
    gone = run.gone()
    # The spawner, and per container the owner (the task at depth 1), the intermediate levels
    # and the task, which is the init.
    t.ok(gone and len(procs) >= 4 * (depth + 1 if depth > 1 else 1) + 1,
         f"{name}: none of its {len(procs)} processes survives", run.left())
t.done()
