# SPDX-License-Identifier: GPL-2.0-or-later
"""interrupt.py - Ctrl-C keeps what was measured: a SIGINT (or SIGTERM) in the last point of a
6-point sweep leaves a document and a table with the 5 points finished before, marked as
interrupted (run.interrupted), and the exit status 128 + N; the point that was cut short and
nothing else of the run survives.  --repeat auto keeps its finished repeats alike.  The signal
is sent when the last point's tasks are all running (counted in /proc), never by a timer."""
import json
import os
import signal
import subprocess

from taplib import (DEADLINE, HostLoad, RunProcs, SRCDIR, Tap, UCBENCH, require_root_userns,
                    scratch_dir, uid_block)

require_root_userns("needs root (setresuid to the owner uids)")

t = Tap()
BASE = uid_block(2100300000, 4000)
tmp = scratch_dir("ucb-interrupt-")

try:
    import jsonschema
    with open(os.path.join(SRCDIR, "docs", "ucbench-result.schema.json")) as f:
        VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
except (ImportError, AttributeError):
    VALIDATOR = None


busy = {}  # name -> why the host was too busy for a sweep to reach its last point in time


def sweep(sig, extra, last_tasks, name, slot):
    out = os.path.join(tmp, f"{name}.json")
    args = [UCBENCH, "run", "-w", "getppid", "--owner", "distinct", "--uid-base",
            str(BASE + 1000 * slot), "--no-baseline", "-o", out] + extra
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = RunProcs(p.pid)
    load = HostLoad()
    ready = run.until_tasks(last_tasks, timeout=DEADLINE * 4)
    if not ready and p.poll() is None:  # slow, not broken: a busy host may skip it
        busy[name] = load.reason()
    if ready:
        os.kill(p.pid, sig)
    try:
        stdout, stderr = p.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, stderr = p.communicate()
    doc = None
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        pass
    return ready, p.returncode, stdout, stderr, doc, run


# Six points (1..6 containers, one task each): the last one is the only one with 6 tasks.
for sig in (signal.SIGINT, signal.SIGTERM):
    sname = signal.Signals(sig).name
    ready, rc, out, err, doc, run = sweep(
        sig, ["-c", "1,2,3,4,5,6", "-d", "1.5"], 6, sname.lower(), int(sig == signal.SIGTERM))
    if not t.busy(ready, f"{sname}: the 6th point's tasks ran before the signal",
                  busy.get(sname.lower()), err):
        continue
    t.ok(rc == 128 + sig, f"{sname}: exit status {128 + sig}", f"rc={rc}\n{err}")
    t.ok("5 points finished before were written out" in err and "interrupted" in err,
         f"{sname}: the error line says the finished points were written out", err)
    got = [r.get("containers") for r in (doc or {}).get("results", [])]
    t.ok(got == [1, 2, 3, 4, 5], f"{sname}: the document holds the 5 finished points", got)
    intr = ((doc or {}).get("run") or {}).get("interrupted")
    t.ok(intr is not None and intr.get("signal") == sig and intr.get("points_finished") == 5
         and intr.get("points_planned") == 6 and "containers=6" in intr.get("reason", ""),
         f"{sname}: run.interrupted: signal {sig}, 5 of 6 points, the cut point named", intr)
    t.ok(all(r.get("status") == "ok" for r in (doc or {}).get("results", [])),
         f"{sname}: each finished point is measured whole (status ok)")
    lines = [ln for ln in out.splitlines() if ln.startswith("getppid")]
    t.ok(len(lines) == 5 and "interrupted:" in out and "5 of 6 points finished" in out,
         f"{sname}: the table shows the 5 points and an interrupted: line", out)
    if VALIDATOR is None:
        t.skip(f"{sname}: the document validates against the schema", "no python3-jsonschema 4")
    else:
        errs = [e.message for e in VALIDATOR.iter_errors(doc)] if doc else ["no document"]
        t.ok(not errs, f"{sname}: the document validates against the schema", errs[:3])
    # The readers take it: every reader loads through the model.
    r = subprocess.run([UCBENCH, "export", "--to", "gab", os.path.join(tmp, f"{sname.lower()}.json")],
                       capture_output=True, text=True)
    t.ok(r.returncode == 0 and len(json.loads(r.stdout or "[]")) >= 5,
         f"{sname}: export reads the interrupted document", r.stderr)
    t.ok(run.gone(), f"{sname}: no process of the run survives", run.left())

# --repeat auto: 2 points of 1 and 2 containers; the signal in a repeat of the 2-container
# point once the first round is done (its tasks are running in round 2).
ready, rc, out, err, doc, run = sweep(
    signal.SIGINT, ["-c", "1,2", "-d", "1", "-r", "auto", "--precision", "0.1", "--max-time", "120"], 2, "auto", 2)
if ready:
    res = (doc or {}).get("results", [])
    intr = ((doc or {}).get("run") or {}).get("interrupted") or {}
    t.ok(rc == 130 and len(res) >= 1 and intr.get("points_planned", 0) is None
         and intr.get("points_finished") == len(res) and "precision" in (doc or {}),
         "--repeat auto: the finished repeats are written, planned is null, precision kept",
         f"rc={rc} results={len(res)} interrupted={intr}\n{err}")
else:
    t.busy(False, "--repeat auto: the 2-container point's tasks ran before the signal",
           busy.get("auto"), err)
t.ok(run.gone(), "--repeat auto: no process of the run survives", run.left())
t.done()
