# SPDX-License-Identifier: GPL-2.0-or-later
"""modes.py - the run axes: --tasks, --threads, --isolate, --limit, --headroom, checked from
outside while ucbench runs and in its JSON.  "Every task did work" needs the CPU: it skips when
the run measured the host busy (taplib.busy_reason), never on a quiet host."""
import json
import os
import subprocess

from taplib import (HostLoad, RunProcs, Tap, UCBENCH, busy_reason, held, require_root_userns,
                    run, tasks_of, uid_block, wait_for)

require_root_userns("owner modes need root (setresuid to the owner uids)")

t = Tap()
BASE = str(uid_block(2100500000, 100))
SHORT = ["--duration", "0.6", "--warmup", "0.2", "--interval", "0.2", "--uid-base", BASE]


def ns(pid, kind):
    try:
        return os.stat(f"/proc/{pid}/ns/{kind}").st_ino
    except OSError:
        return None


def start(args):
    return subprocess.Popen([UCBENCH, "run", "--output", "/dev/stdout", "--quiet"] + SHORT + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p):
    out, err = p.communicate(timeout=120)
    try:
        return json.loads(out), err
    except ValueError:
        return None, err


# --tasks: 3 task processes per container, each with its own slot and samples.
load = HostLoad()
p = start(["--no-baseline", "--containers", "2", "--tasks", "3", "--owner", "distinct",
           "--duration", "1.5"])
procs = RunProcs(p)
with procs.hold_tasks(6) as seen:
    pass
doc, err = finish(p)
t.busy(p.returncode == 0 and seen and len(seen) == 6,
       "--tasks 3: 6 task processes seen while running", p.returncode == 0 and not seen and procs.busy_missed, err + (procs.missed or ""))
res = doc["results"][0] if doc else {}
pcs = res.get("per_container", [])
sound = res.get("tasks") == 3 and res.get("mode") == "process" and len(pcs) == 2 and all(
    len(c["tasks"]) == 3 for c in pcs)
t.busy(sound and all(x["ops"] > 0 for c in pcs for x in c["tasks"]),
       "--tasks 3: every task did work and has its own figures",
       sound and (lambda: busy_reason(doc, load)), json.dumps(pcs)[:2000])
t.ok(all(c["ops"] == sum(x["ops"] for x in c["tasks"]) for c in pcs)
     and abs(res["summary"]["per_task_ops"] * 6 - res["summary"]["total_ops_per_s"]) < 1,
     "--tasks 3: container = sum of its tasks; per_task_ops = total / (N x T)")
t.ok(procs.gone(), "--tasks 3: nothing left", procs.left())

# --threads: the tasks are threads of one process per container.
load = HostLoad()
p = start(["--no-baseline", "--containers", "2", "--tasks", "2", "--threads", "--owner", "shared"])
doc, err = finish(p)
res = doc["results"][0] if doc else {}
pcs = res.get("per_container", [])
sound = p.returncode == 0 and res.get("mode") == "thread" and len(pcs) == 2 and all(
    len({x["pid"] for x in c["tasks"]}) == 1 for c in pcs)
t.busy(sound and all(x["ops"] > 0 for c in pcs for x in c["tasks"]),
       "--threads: tasks share one process per container and all work",
       sound and (lambda: busy_reason(doc, load)), err + json.dumps(pcs)[:1500])

# --isolate: every namespace asked for is the container's own; others are ours.
p = start(["--containers", "1", "--depth", "2", "--isolate", "user,ipc,pid,mnt,uts,net",
           "--duration", "2"])
task = wait_for(lambda: tasks_of(p.pid))
kinds = ("ipc", "pid", "mnt", "uts", "net", "user")
with held(p):  # read while the task exists: a namespace not read is not "new"
    own = {k: ns(task[0], k) for k in kinds} if task else {}
doc, err = finish(p)
t.ok(p.returncode == 0 and own and None not in own.values()
     and all(own[k] != ns(os.getpid(), k) for k in kinds),
     "--isolate user,ipc,pid,mnt,uts,net: the task is in new namespaces of each kind", err)
t.ok(doc and doc["results"][0]["isolate"] == "user,ipc,pid,mnt,uts,net",
     "--isolate: recorded per point")
p = start(["--containers", "1", "--depth", "1", "--duration", "2"])
task = wait_for(lambda: tasks_of(p.pid))
with held(p):
    got = {k: ns(task[0], k) for k in ("ipc", "pid", "net")} if task else {}
doc, err = finish(p)
t.ok(got and None not in got.values() and got["ipc"] != ns(os.getpid(), "ipc") and got["pid"] == ns(os.getpid(), "pid")
     and got["net"] == ns(os.getpid(), "net"),
     "default isolation is user,ipc: own IPC namespace, our pid and net namespaces", err)

# Bad combinations are usage errors.
for args, needle in ((["--isolate", "ipc", "--depth", "0"], "--isolate"),
                     (["--isolate", "user,cgroup"], "cgroup"),
                     (["--limit", "SIGPENDING=99999999999999"], "hard limit"),
                     (["--limit", "FOO=1"], "FOO"),
                     (["--limit", "NPROC=-1"], "NPROC=-1"),
                     (["--headroom", "close"], "close"),
                     (["--headroom", "near", "--owner", "root"], "non-root"),
                     (["--tasks", "0"], "0"),
                     (["--containers", "4096", "--tasks", "1024"], "tasks")):
    r = run(["run"] + SHORT + args)
    line = r.stderr.splitlines()[0] if r.stderr else ""
    t.ok(r.returncode == 2 and needle in line, f"`run {' '.join(args)}`: exit 2 naming `{needle}`",
         f"rc={r.returncode} {r.stderr!r}")

# --headroom far: soft = hard for the workload's counter, recorded with its source.
r = run(["run", "--containers", "1", "--headroom", "far", "--format", "json", "--quiet"] + SHORT)
lim = json.loads(r.stdout)["results"][0]["limits"]["SIGPENDING"] if r.returncode == 0 else {}
t.ok(lim.get("source") == "headroom far" and lim.get("soft") == lim.get("hard")
     and lim.get("rlimit_max") == [lim.get("soft")],
     "--headroom far: soft = hard, and rlimit_max of the namespace the same", json.dumps(lim))
r = run(["run", "--no-baseline", "--containers", "2", "--tasks", "2", "--owner", "shared",
         "--headroom", "near",
         "--format", "json", "--quiet"] + SHORT)
p0 = json.loads(r.stdout)["results"][0] if r.returncode == 0 else {}
lim = p0.get("limits", {}).get("SIGPENDING", {})
t.ok(lim.get("soft") == 4 and lim.get("source") == "headroom near"
     and p0["summary"]["failed_ops"] == 0,
     "--headroom near: shared owner, 2 containers x 2 tasks x 1 signal = limit 4, no refusal",
     r.stderr + json.dumps(lim))
t.done()
