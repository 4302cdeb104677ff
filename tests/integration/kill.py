# SPDX-License-Identifier: GPL-2.0-or-later
"""kill.py - whatever happens to ucbench, no child survives: SIGKILL, SIGINT, SIGTERM.

Uses its own --uid-base so it can run beside the other integration tests.  Every wait is for a
condition (taplib.wait_for); "stops promptly" is timed: over its bound on a host measured busy
(taplib.HostLoad) it skips.  An interrupted verify case says how long it ran: more than 0 s,
no longer than since ucbench started, under 5 s (not its time limit); on a host measured busy a
miss skips."""
import os
import re
import signal
import subprocess
import time

from taplib import DEADLINE, HostLoad, RunProcs, Tap, UCBENCH, require_root_userns, uid_block
from taplib import wait_for

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

# An interrupted verify case says how long it ran, not its time limit (issue 25 item 10):
# SIGINT 0.2 s into ULIM-84 (0.8 s long here), once its case process runs.
load = HostLoad()
t0 = time.monotonic()
p = subprocess.Popen([UCBENCH, "verify", "ULIM-84", "--uid-base",
                      str(uid_block(2101600000, 100))],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
run = RunProcs(p.pid)
started = wait_for(lambda: run.scan().snapshot, DEADLINE)
time.sleep(0.2)
sent = time.monotonic() - t0
os.kill(p.pid, signal.SIGINT)
try:
    out, err = p.communicate(timeout=DEADLINE)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
m = re.search(r"^ok 1 ULIM-84 .*# SKIP not run: interrupted by signal 2 after (\d+(?:\.\d+)?) s$", out, re.M)
said = float(m.group(1)) if m else None
# elapsed: more than nothing, at most the time since ucbench started, far from the budget
t.busy(started and p.returncode == 130 and said is not None and 0 < said < 5
       and said <= sent + 0.1,
       f"SIGINT of verify ULIM-84 after {sent:.1f} s: the case says it was interrupted after "
       f"{said} s, the time it ran", load.reason,
       f"rc {p.returncode}, signal {sent:.2f} s after the start\n{out}{err}")
run.gone()
t.done()
