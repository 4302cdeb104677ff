# SPDX-License-Identifier: GPL-2.0-or-later
"""workloads.py - every workload runs, and proves it hits its counter.

For each workload: 2 containers x {shared, distinct} x depth {1, 3} for a short while, every
container does work and no op fails.  Then the proof: with a soft limit that leaves no headroom
for its counter, every op fails with the errno of kernel-ucounts.md; with --headroom near (the
limit exactly at its peak use) none does.  "Did work" needs the CPU: a container with no ops
skips when the run measured the host busy (taplib.busy_reason), and fails on a quiet one."""
import json
import time

from taplib import DEADLINE, HostLoad, Tap, busy_reason, require_root_userns, run, uid_block

require_root_userns("owner modes need root (setresuid to the owner uids)")

BASE = str(uid_block(2100400000, 100))  # a range of its own: runs beside the other tests
SHORT = ["--duration", "0.5", "--warmup", "0.2", "--interval", "0.25", "--uid-base", BASE,
         "--format", "json", "--quiet"]

# No headroom: the limit at which one op of the workload cannot be charged, and the errno.
# (1 container, distinct owner, depth 1, 1 task: NPROC counts its one process, the owner, which
# is the init and the task.)
PROOF = {
    "signal": ("SIGPENDING=0", "EAGAIN"),   # delivered without siginfo: counted as refused
    "sigqueue": ("SIGPENDING=0", "EAGAIN"),
    "timer": ("SIGPENDING=0", "EAGAIN"),
    "mqueue": ("MSGQUEUE=1", "EMFILE"),
    "shmlock": ("MEMLOCK=4095", "ENOMEM"),
    "fork": ("NPROC=1", "EAGAIN"),
    "vfork": ("NPROC=1", "EAGAIN"),
    "thread": ("NPROC=1", "EAGAIN"),
}

t = Tap()
lst = json.loads(run(["list", "--format", "json"]).stdout)["workloads"]


def doc_of(r):
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def starved(doc):
    """A container that did nothing because it got (almost) no CPU in the window: on a loaded
    machine that says nothing about the workload, so the run is tried again."""
    return any(x["ops"] == 0 and (x.get("cpu_utilization") or 0) < 0.05
               for p in doc["results"] for c in p["per_container"] for x in [c] + c["tasks"])


def run_worked(args):
    """Run until no container was starved (bounded by taplib's DEADLINE); the last run, and
    why the host was busy in it (a function for Tap.busy)."""
    end = time.monotonic() + DEADLINE
    while True:
        load = HostLoad()
        r = run(args)
        doc = doc_of(r)
        if r.returncode != 0 or doc is None or not starved(doc) or time.monotonic() > end:
            return r, doc, lambda: busy_reason(doc, load)


def ran_once(args):
    """One run: (its process, document, why the host was busy in it)."""
    load = HostLoad()
    r = run(args)
    doc = doc_of(r)
    return r, doc, lambda: busy_reason(doc, load)


for w in lst:
    name = w["name"]
    if not w["supported"]:
        t.skip(f"{name}: runs in every owner mode and depth", w["unsupported_reason"])
        continue
    r, doc, busy = run_worked(["run", "--workload", name, "--no-baseline", "--containers", "2",
                               "--owner",
                               "shared,distinct", "--depth", "1,3"] + SHORT)
    res = doc["results"] if doc else []
    sound = r.returncode == 0 and len(res) == 4 and all(
        c["failed_ops"] == 0 for p in res for c in p["per_container"])
    good = sound and all(c["ops"] > 0 for p in res for c in p["per_container"])
    # no op may fail, whatever the host: only "did work" can wait for a quieter one
    t.busy(good, f"{name}: works in 2 containers x shared,distinct x depth 1,3", sound and busy,
           r.stderr + json.dumps([(p["owner"], p["depth"], [(c["ops"], c["failed_by_errno"])
                                                            for c in p["per_container"]])
                                  for p in res]))
    t.ok(res and all(p["charges"]["counter"] == w["counter"] and p["charges"]["locks"] for p in res),
         f"{name}: results name the counter and the locks it takes")
    # The other axes: 2 tasks as processes and as threads, every namespace, --headroom far.
    for mode in ([], ["--threads"]):
        r, doc, busy = run_worked(["run", "--workload", name, "--no-baseline", "--containers", "2",
                                   "--tasks",
                                   "2", "--depth", "2", "--owner", "shared", "--isolate",
                                   "user,ipc,pid,mnt,uts,net", "--headroom", "far"] + mode + SHORT)
        res = doc["results"] if doc else []
        sound = r.returncode == 0 and len(res) == 1 and all(
            x["failed_ops"] == 0 for c in res[0]["per_container"] for x in c["tasks"])
        good = sound and all(x["ops"] > 0 for c in res[0]["per_container"] for x in c["tasks"])
        t.busy(good, f"{name}: 2 tasks {'as threads' if mode else 'as processes'}, all namespaces, "
               "--headroom far", sound and busy,
               r.stderr + json.dumps([[(x["ops"], x["failed_ops"]) for x in c["tasks"]]
                                      for p in res for c in p["per_container"]]))
    if name not in PROOF:
        continue
    limit, errno = PROOF[name]
    r, doc, busy = ran_once(["run", "--workload", name, "--containers", "1", "--owner",
                             "distinct", "--depth", "1", "--limit", limit] + SHORT)
    p = doc["results"][0] if doc else {}
    s = p.get("summary", {})
    # every op fails, and with the errno; that there was an op at all needs the CPU
    sound = (r.returncode == 0 and bool(p) and p["per_container"][0]["ops"] == 0
             and set(s.get("failed_by_errno", {})) <= {errno})
    t.busy(sound and s.get("failed_ops", 0) > 0 and set(s.get("failed_by_errno", {})) == {errno},
           f"{name}: with {limit} every op fails with {errno}", sound and busy,
           r.stderr + json.dumps(s))
    t.ok(p.get("limits", {}).get(limit.split("=")[0], {}).get("source") == "limit",
         f"{name}: the limit in force is recorded")
    # An owner uid of its own: the runs above used BASE, and what their namespaces held is
    # released asynchronously (an IPC namespace is freed from a workqueue), so a charge of
    # theirs could still sit at the owner's level and take the one unit of headroom.
    r, doc, busy = ran_once(["run", "--workload", name, "--containers", "1", "--owner",
                             "distinct", "--depth", "1", "--headroom", "near"] + SHORT
                            + ["--uid-base", str(int(BASE) + 50)])
    p = doc["results"][0] if doc else {}
    s = p.get("summary", {})
    sound = r.returncode == 0 and s.get("failed_ops") == 0
    t.busy(sound and p["per_container"][0]["ops"] > 0,
           f"{name}: with --headroom near (limit = peak use) no op fails", sound and busy,
           r.stderr + json.dumps(p.get("limits")) + json.dumps(s))
t.done()
