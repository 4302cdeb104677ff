#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sampler.py - ucbench samples at SCHED_FIFO (issue 17): as root the document says
SCHED_FIFO and no reading is late, while every container process runs as SCHED_OTHER
(SCHED_RESET_ON_FORK); without CAP_SYS_NICE it says SCHED_OTHER and why. With many more
containers than CPUs the measured window stays within 2 % of --duration, and teardown_s is
recorded, and a terminal sees the phases of a point (ready k/N, measuring, stopping). Late
readings flagging their intervals as contended is tested in
tests/unit/test-contention.c (a crafted point: a real late reading cannot be forced).
Being on time needs the CPU: a late reading or a long window skips when the host was measured
busy (other processes' CPU time, steal), never on a quiet host."""
import json
import os
import shutil
import subprocess

from taplib import (UCBENCH, HostLoad, RunProcs, Tap, busy_reason, scratch_dir, skip_all,
                    uid_block, userns_works)

if os.geteuid() != 0:
    skip_all("needs root: SCHED_FIFO and owner uids")
if not userns_works():
    skip_all("user namespaces cannot be created here")

t = Tap()
BASE = uid_block(2103900000, 10)  # one shared owner uid per run
TMP = scratch_dir("sampler")


def args(n, out, duration="1"):
    return [UCBENCH, "run", "--workload", "getppid", "--no-baseline", "--containers", str(n),
            "--owner", "shared",
            "--duration", duration, "--warmup", "0", "--interval", "0.25", "--uid-base",
            str(BASE), "--quiet", "--output", out]


def point(out):
    with open(out) as f:
        return json.load(f)["results"][0]


# As root: SCHED_FIFO, its container processes SCHED_OTHER, no late reading.
out = os.path.join(TMP, "root.json")
load = HostLoad()
p = subprocess.Popen(args(4, out, "2"))
procs = RunProcs(p)


def policy(q):
    """Field 41 of /proc/PID/stat: 0 SCHED_OTHER, 1 SCHED_FIFO; None once it is gone."""
    try:
        with open(f"/proc/{q}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[38])
    except (OSError, IndexError, ValueError):
        return None


with procs.hold_tasks(4) as tasks:  # held from before the barrier: nothing measured is late
    policies = {q: policy(q) for q in [p.pid] + (procs.snapshot if tasks else [])}
    policies = {q: v for q, v in policies.items() if v is not None}
rc = p.wait()
r = point(out) if rc == 0 else {}
c = r.get("contention", {})
t.ok(rc == 0 and c.get("sampler_policy") == "SCHED_FIFO" and c.get("sampler_policy_reason") is None,
     "as root ucbench samples at SCHED_FIFO", json.dumps(c))
kids = [v for q, v in policies.items() if q != p.pid]
t.busy(tasks and policies.get(p.pid) == 1 and kids and all(v == 0 for v in kids),
       f"ucbench itself is SCHED_FIFO, its {len(kids)} container processes SCHED_OTHER",
       not tasks and procs.busy_missed, procs.missed or repr(policies))


def busy():
    """What says the host was busy: other processes' CPU time and steal, not the late
    readings themselves (they are what is checked)."""
    steal = c.get("steal_pct_max") or 0
    return c and (load.reason() or (steal >= 10 and f"host busy: steal up to {steal:.0f} %"))


t.busy(c.get("late_readings") == 0 and c.get("late_max_s") is not None
       and c["late_max_s"] < 0.25, f"no late reading (the latest {c.get('late_max_s')} s past due)",
       busy)
samples = [s for pc in r.get("per_container", []) for s in pc["samples"]]
t.busy(samples and all(s["late"] is False for s in samples), "every sample says late: false",
       bool(samples) and busy)
t.ok(isinstance(r.get("teardown_s"), (int, float)) and r["teardown_s"] >= 0,
     f"teardown_s recorded ({r.get('teardown_s')} s)")
t.ok(procs.gone(), "nothing of the run is left")

# Without CAP_SYS_NICE (and RLIMIT_RTPRIO 0): SCHED_OTHER, and the reason.
if shutil.which("capsh") is None:
    t.skip("without CAP_SYS_NICE: SCHED_OTHER and why", "capsh is missing (libcap2-bin)")
else:
    out = os.path.join(TMP, "nonice.json")
    r1 = subprocess.run(["prlimit", "--rtprio=0", "capsh", "--drop=cap_sys_nice", "--",
                         "-c", " ".join(args(1, out))], capture_output=True, text=True)
    c = point(out).get("contention", {}) if r1.returncode == 0 else {}
    t.ok(c.get("sampler_policy") == "SCHED_OTHER"
         and "CAP_SYS_NICE" in (c.get("sampler_policy_reason") or ""),
         "without CAP_SYS_NICE: SCHED_OTHER, and the reason names it", r1.stderr + json.dumps(c))

# Started real-time (chrt): ucbench keeps its policy, its containers still start SCHED_OTHER.
if shutil.which("chrt") is None:
    t.skip("under chrt -f 10: containers SCHED_OTHER", "chrt is missing (util-linux)")
else:
    out = os.path.join(TMP, "chrt.json")
    p = subprocess.Popen(["chrt", "-f", "10"] + args(2, out, "2"))
    procs = RunProcs(p)
    with procs.hold_tasks(2) as tasks:
        kids = [v for v in map(policy, procs.snapshot if tasks else []) if v is not None]
    rc = p.wait()
    c = point(out).get("contention", {}) if rc == 0 else {}
    fifo = rc == 0 and c.get("sampler_policy") == "SCHED_FIFO"
    t.busy(fifo and kids and all(v == 0 for v in kids),
           f"under chrt -f 10: ucbench SCHED_FIFO, its {len(kids)} container processes SCHED_OTHER",
           fifo and not tasks and procs.busy_missed,
           (procs.missed or repr(kids)) + json.dumps(c))

# Far more containers than CPUs: the window is still on time.
n = 64 * max(1, len(os.sched_getaffinity(0)))
out = os.path.join(TMP, "many.json")
load = HostLoad()
r2 = subprocess.run(args(n, out), capture_output=True, text=True)
doc = None
if r2.returncode == 0:
    with open(out) as f:
        doc = json.load(f)
r = doc["results"][0] if doc else {}
m = r.get("measured_s")
t.ok(m is not None, f"{n} containers: measured_s recorded", r2.stderr[-2000:])
t.busy(m is not None and abs(m - 1.0) <= 0.02,
       f"{n} containers: measured_s {m} within 2 % of --duration 1",
       lambda: m is not None and busy_reason(doc, load))

# On a terminal the progress line says, within a point, what is going on: containers getting
# ready (k of N), the window's intervals, then the stop. Not without a terminal.
import pty  # noqa: E402  (only this check needs it)

out = os.path.join(TMP, "progress.json")
pid, fd = pty.fork()
if pid == 0:
    os.execv(UCBENCH, [UCBENCH] + args(32, out)[1:-3] + ["--output", out])
seen = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
text = seen.decode(errors="replace").replace("\x1b[K", "")
t.ok(os.waitstatus_to_exitcode(status) == 0 and "ready " in text and "/32" in text
     and "measuring 0/4" in text and "stopping 32 containers" in text,
     "on a terminal the progress line shows ready k/N, measuring k/n and stopping", text[-800:])
r3 = subprocess.run(args(2, os.path.join(TMP, "quiet.json"))[:-3] + ["--output", out],
                    capture_output=True, text=True)
t.ok(r3.returncode == 0 and "ready" not in r3.stderr and "measuring" not in r3.stderr,
     "without a terminal no progress line", r3.stderr)
t.done()
