# SPDX-License-Identifier: GPL-2.0-or-later
"""info-list.py - `ucbench info` and `ucbench list`: text and JSON, with real host facts."""
import json
import os

from taplib import Tap, run, uid_block

t = Tap()

r = run(["info", "--format", "json"])
t.ok(r.returncode == 0, "info --format json exits 0", r.stderr)
try:
    doc = json.loads(r.stdout)
except ValueError as e:
    doc = {}
    t.diag(e)
host = doc.get("host", {})
t.ok(doc.get("schema") == "ucbench-info/1", "info: schema ucbench-info/1")
t.ok(host.get("kernel", {}).get("release") == os.uname().release, "info: kernel release",
     host.get("kernel"))
t.ok(host.get("cpus_online") == os.cpu_count(), "info: online CPUs", host.get("cpus_online"))
t.ok(host.get("cgroup_layout") in ("unified", "hybrid", "legacy"), "info: cgroup layout",
     host.get("cgroup_layout"))
t.ok(isinstance(host.get("userns", {}).get("can_create"), bool), "info: userns probe answered")
with open("/proc/sys/user/max_user_namespaces") as f:
    t.ok(host["userns"].get("max_user_namespaces") == int(f.read()), "info: max_user_namespaces")
t.ok(isinstance(host.get("capabilities", {}).get("effective"), str), "info: effective caps")
for lib in ("jansson", "libcap"):
    t.ok(isinstance(host.get("libraries", {}).get(lib), str), f"info: {lib} version")
feats = host.get("features", {})
t.ok(all(k in feats for k in ("seccomp", "cgroup")), "info: seccomp/cgroup availability reported",
     feats)

r = run(["info"])
t.ok(r.returncode == 0 and "kernel.release" in r.stdout, "info: text output", r.stdout[:300])

# info and a run tell one story of the L3 domains (issue 24): with level-3 caches in sysfs the
# same count; without, info's null says what --pin and run assume, and how many that makes.
l3_line = next((ln for ln in r.stdout.splitlines() if ln.startswith("l3_domains:")), "")
rr = run(["run", "--workload", "getppid", "--containers", "1", "--duration", "0.2", "--interval",
          "0.1", "--warmup", "0", "--uid-base", str(uid_block(2100230000, 10, room=10000)), "--output", "/dev/stdout",
          "--quiet"])
try:
    topo = json.loads(rr.stdout)["config"]["pin"]["topology"]
except (ValueError, KeyError) as e:
    topo = None
    t.diag(f"run: rc={rr.returncode} {rr.stderr!r} {e}")
if topo is None or "error" in topo:
    t.skip("info's l3_domains agrees with run's", "run recorded no topology here")
else:
    # info counts the online CPUs, run the allowed ones: the counts agree when those are one
    same_cpus = host.get("cpus_online") == host.get("cpus_allowed") == topo["cpus"]
    if topo["l3_source"] == "cache":
        t.ok(not same_cpus or host.get("l3_domains") == topo["l3_domains"],
             "info's l3_domains is the count run records (L3 caches in sysfs)",
             (host.get("l3_domains"), topo))
    else:
        want = (f"{topo['l3_domains']} " if same_cpus else "") + f"(l3_source {topo['l3_source']})"
        t.ok(host.get("l3_domains") is None and want in l3_line,
             f"no L3 cache in sysfs: info says what run assumes ({want})", (l3_line, topo))

r = run(["list", "--format", "json"])
t.ok(r.returncode == 0, "list --format json exits 0", r.stderr)
ws = {w["name"]: w for w in json.loads(r.stdout or "{}").get("workloads", [])}
ALL = {"signal", "sigqueue", "timer", "systrap", "mqueue", "shmlock", "fork", "vfork", "thread",
       "getppid"}
t.ok(set(ws) == ALL, "list: all ten workloads listed", list(ws))
COUNTER = {"signal": "SIGPENDING", "sigqueue": "SIGPENDING", "timer": "SIGPENDING",
           "systrap": "SIGPENDING", "mqueue": "MSGQUEUE", "shmlock": "MEMLOCK", "fork": "NPROC",
           "vfork": "NPROC", "thread": "NPROC"}
t.ok(all(ws[n]["rlimits"] == [c] for n, c in COUNTER.items() if n in ws),
     "list: each rlimit workload names the one rlimit it charges",
     {n: ws[n]["rlimits"] for n in ws})
t.ok(ws.get("signal", {}).get("counter") == "SIGPENDING"
     and ws.get("signal", {}).get("rlimits") == ["SIGPENDING"], "list: signal hits SIGPENDING")
t.ok(ws.get("getppid", {}).get("counter") == "none" and ws["getppid"].get("rlimits") == [],
     "list: getppid is the control, no counter")
t.ok(all(w.get("op") and w.get("locks") for w in ws.values()), "list: every workload says its op "
     "and the global locks it takes")
r = run(["list"])
t.ok(r.returncode == 0 and "signal" in r.stdout and "SIGPENDING" in r.stdout, "list: text",
     r.stdout)
t.done()
