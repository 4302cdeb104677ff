# SPDX-License-Identifier: GPL-2.0-or-later
"""run-owners.py - `ucbench run` for every owner mode at depth 0, 1 and 3, checked from outside.

While it runs, each task is inspected through /proc and NS_GET_OWNER_UID/NS_GET_PARENT: it must
sit at the expected depth, in namespaces owned by the expected uid, as that uid.  Afterwards
the JSON must hold work from every container, and nothing may be left: no process, and no user
namespace of the run still pinned by anything.  That every container did work depends on the
CPU it got: on a host the run measured as too busy, a container with no ops skips
(taplib.busy_reason)."""
import json
import os
import subprocess
import tempfile

from taplib import (HostLoad, RunProcs, Tap, UCBENCH, all_userns_inodes, busy_reason, nsinfo,
                    require_root_userns, uid_block, wait_for)
from taplib import scratch_dir

BASE = uid_block(2100800000, 100)  # a range of its own: runs beside the other tests

require_root_userns("owner modes need root (setresuid to the owner uids)")

t = Tap()
tmp = scratch_dir("ucb-test-")


def expected_uid(owner, i):
    return {"shared": BASE, "distinct": BASE + i, "root": 0}[owner]


def one(owner, depth):
    name = f"owner={owner} depth={depth}"
    out = os.path.join(tmp, f"{owner}-{depth}.json")
    load = HostLoad()
    p = subprocess.Popen([UCBENCH, "run", "--no-baseline", "--containers", "2", "--owner", owner,
                          "--depth",
                          str(depth), "--uid-base", str(BASE), "--duration", "1.2", "--warmup",
                          "0.3", "--interval", "0.3", "--output", out, "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = RunProcs(p)
    seen = {}
    with run.hold_tasks(2) as tasks:  # however slow the helper is, the tasks are still there
        procs = list(run.snapshot)
        for pid in tasks or []:
            info = nsinfo(pid)
            if info:
                seen[pid] = info
    stdout, stderr = p.communicate(timeout=60)
    t.ok(p.returncode == 0, f"{name}: exit status 0", stderr)
    missed = not tasks and run.busy_missed  # a starved observer: skip what it did not see
    t.busy(len(seen) == 2, f"{name}: two tasks seen from outside while running", missed,
           run.missed or seen)
    try:
        with open(out) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        t.ok(False, f"{name}: JSON document parses", e)
        return
    t.ok(doc.get("schema") == "ucbench-result/1", f"{name}: JSON document parses, schema")
    res = doc["results"]
    pcs = res[0]["per_container"] if len(res) == 1 else []
    t.ok(len(pcs) == 2 and all(len(c["samples"]) >= 3 for c in pcs),
         f"{name}: every container has samples", json.dumps([len(c["samples"]) for c in pcs]))
    t.busy(len(pcs) == 2 and all(c["ops"] > 0 for c in pcs), f"{name}: every container did work",
           len(pcs) == 2 and (lambda: busy_reason(doc, load)), json.dumps([c["ops"] for c in pcs]))
    want = [expected_uid(owner, i) for i in range(2)]
    t.ok([c["owner_uid"] for c in pcs] == want and all(c["depth"] == depth for c in pcs),
         f"{name}: JSON owner uids and depth", [(c["owner_uid"], c["depth"]) for c in pcs])
    # From outside: depth, owner of every level, and the task's real uid on the host.
    by_pid = {c["task_pid"]: c for c in pcs}
    good = True
    why = []
    for pid, info in seen.items():
        c = by_pid.get(pid)
        if c is None:
            good = False
            why.append(f"task {pid} not in JSON")
            continue
        u = expected_uid(owner, c["index"])
        if info["depth"] != depth or info["uid"] != u or any(o != u for o in info["owners"]):
            good = False
            why.append(f"task {pid}: {info}, expected depth {depth} owner/uid {u}")
        if depth > 0 and info["userns_inode"] != c["userns_inode"]:
            good = False
            why.append(f"task {pid}: userns inode {info['userns_inode']} vs {c['userns_inode']}")
    t.busy(good and len(seen) == 2,
           f"{name}: namespaces seen from outside match (depth, owners, uid)", missed,
           "\n".join(why))
    if depth > 0:
        inodes = {c["userns_inode"] for c in pcs}
        t.ok(len(inodes) == 2, f"{name}: each container has its own user namespace", inodes)
        # User namespaces are freed asynchronously: wait for it, with a deadline.
        left = wait_for(lambda: not (inodes & all_userns_inodes()))
        t.ok(left, f"{name}: no user namespace of the run is left", inodes & all_userns_inodes())
    gone = run.gone()
    # The spawner, and per container: at depth 0 the owner (the init) and the task; at depth 1
    # the owner, which is the task; deeper, the owner, depth-1 intermediate levels and the task,
    # which is the init (docs/architecture.md, the process tree).
    per = 2 if depth == 0 else 1 if depth == 1 else depth + 1
    t.busy(gone and len(procs) == 2 * per + 1,
           f"{name}: none of its {len(procs)} processes is left", gone and missed, run.left())


for owner in ("shared", "distinct", "root"):
    for depth in (0, 1, 3):
        one(owner, depth)

# Density: 64 containers on this small machine, each with its own samples.
out = os.path.join(tmp, "64.json")
# A warm-up long enough to see all 64 tasks from outside even on a loaded machine.
load = HostLoad()
p = subprocess.Popen([UCBENCH, "run", "--no-baseline", "--containers", "64", "--owner", "shared",
                      "--uid-base",
                      str(BASE), "--duration", "1", "--warmup", "3", "--interval", "0.25",
                      "--output", out, "--quiet"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
run = RunProcs(p)
with run.hold_tasks(64) as tasks:
    procs = list(run.snapshot)  # below ucbench with all 64 tasks up: the whole fleet
_, err = p.communicate(timeout=120)
r = subprocess.CompletedProcess(p.args, p.returncode, "", err)
t.ok(r.returncode == 0, "64 containers: exit status 0", r.stderr)
try:
    with open(out) as f:
        doc = json.load(f)
    pcs = doc["results"][0]["per_container"]
except (OSError, ValueError, KeyError, IndexError) as e:
    doc, pcs = None, []
    t.diag(e)
t.ok(len(pcs) == 64 and sorted(c["index"] for c in pcs) == list(range(64)),
     "64 containers: 64 per_container entries")
t.ok(pcs and all(len(c["samples"]) == 4 for c in pcs), "64 containers: each has its own 4 samples",
     [(c["index"], len(c["samples"])) for c in pcs if len(c["samples"]) != 4][:5])
# 64 tasks take turns on the CPUs: 1 s gives each a few slices, unless the host takes them.
t.busy(len(pcs) == 64 and all(c["ops"] > 0 for c in pcs), "64 containers: each did work",
       len(pcs) == 64 and (lambda: busy_reason(doc, load)),
       [(c["index"], c["ops"]) for c in pcs if c["ops"] == 0][:5])
t.ok(len({c["task_pid"] for c in pcs}) == 64 and len({c["userns_inode"] for c in pcs}) == 64,
     "64 containers: 64 distinct tasks and user namespaces")
gone = run.gone()
t.busy(gone and len(procs) == 65,  # the spawner and 64 owners, each its one task
       f"64 containers: none of its {len(procs)} processes is left",
       gone and not tasks and run.busy_missed, run.missed or run.left())

for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
t.done()
