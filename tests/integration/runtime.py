# SPDX-License-Identifier: GPL-2.0-or-later
"""runtime.py - containers as runtimes make them (--cgroup, --seccomp, --caps, --pin, --perf):
each container really has what the options say (read from /proc while ucbench runs), the
document records it, and nothing is left behind - on this host's cgroup layout, on a pure
cgroup v2 mount (a private mount namespace), after SIGKILL, and as an unprivileged user."""
import json
import os
import signal
import subprocess

from taplib import (HostLoad, RunProcs, Tap, UCBENCH, busy_reason, cgroup_lock, proc_status,
                    require_root_userns, run, scratch_dir, uid_block, wait_for)

require_root_userns("cgroups and owner modes need root")

t = Tap()
BASE = uid_block(2100600000, 1000)  # BASE + 100 x section, 8 containers at most
SHORT = ["--duration", "1.2", "--warmup", "0.3", "--interval", "0.3", "--quiet"]
DOCKER_CAPS = ["chown", "dac_override", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap",
               "net_bind_service", "net_raw", "sys_chroot", "mknod", "audit_write", "setfcap"]
CAPNUM = {"chown": 0, "dac_override": 1, "fowner": 3, "fsetid": 4, "kill": 5, "setgid": 6,
          "setuid": 7, "setpcap": 8, "net_bind_service": 10, "net_raw": 13, "sys_chroot": 18,
          "mknod": 27, "audit_write": 29, "setfcap": 31}
DOCKER_MASK = sum(1 << CAPNUM[c] for c in DOCKER_CAPS)


def cgroup_lines(pid):
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            return f.read().splitlines()
    except OSError:
        return []


def ucbench_groups():
    """Every ucbench-* directory in any cgroup hierarchy mounted here."""
    found = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        for d in dirs:
            if d.startswith("ucbench-"):
                found.append(os.path.join(root, d))
        if root.count("/") > 6:
            dirs[:] = []
    return found


def groups_of(*pids):
    """The cgroups of these ucbench runs (ucbench-PID and its leaf ucbench-PID-self): what
    "nothing left" is about, whatever other runs on this host have made meanwhile."""
    names = {f"ucbench-{q}" for q in pids} | {f"ucbench-{q}-self" for q in pids}
    return [g for g in ucbench_groups() if os.path.basename(g) in names]


def run_pid(args):
    """`ucbench ARGS` to its end: the result and its pid (the name of its cgroups)."""
    p = subprocess.Popen([UCBENCH] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    out, err = p.communicate(timeout=300)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), p.pid


def unified_root():
    for p in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
        if os.path.exists(os.path.join(p, "cgroup.subtree_control")):
            return p
    return None


def subtree_control():
    r = unified_root()
    if not r:
        return None
    with open(os.path.join(r, "cgroup.subtree_control")) as f:
        return f.read().strip()


def start(args, prefix=None):
    cmd = (prefix or []) + [UCBENCH, "run", "--format", "json"] + SHORT + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, timeout=180):
    out, err = p.communicate(timeout=timeout)
    try:
        return json.loads(out), err
    except ValueError:
        return None, err


def observe(p, n):
    """The status and cgroup lines of the `n` tasks (read with the run held from before its
    start barrier: seccomp, capabilities and cgroup are set before a task reports ready), or
    [] when they were not all seen (procs.busy_missed() says whether the host was busy), and
    the run's processes."""
    procs = RunProcs(p)
    with procs.hold_tasks(n) as seen:
        return [(q, proc_status(q), cgroup_lines(q)) for q in (seen or [])], procs


lock = cgroup_lock(t)  # held to the end
sc_before = subtree_control()
leftover_before = ucbench_groups()
if leftover_before:
    t.diag(f"ucbench groups present before the test: {leftover_before}")

# ---- 1. the command, on this host's layout ----------------------------------------
ARGS = ["--cgroup", "--seccomp", "docker", "--caps", "drop", "--isolate",
        "user,ipc,pid,mnt,uts,net", "--pin", "spread", "--no-baseline", "--containers", "8",
        "--owner", "distinct", "--uid-base", str(BASE), "--pids-max", "64", "--cpuset"]
p = start(ARGS)
run1 = p.pid
tasks, procs = observe(p, 8)
doc, err = finish(p)
t.ok(p.returncode == 0 and doc is not None, "the issue's command runs (cgroup, seccomp docker, "
     "caps drop, six namespaces, pin spread, 8 containers)", err)
missed = not tasks and procs.busy_missed  # a starved observer: skip the checks on the tasks
t.busy(len(tasks) == 8, f"8 tasks seen while running ({len(tasks)})", missed, procs.missed)
bad = [(q, s.get("Seccomp"), s.get("Seccomp_filters"), s.get("NoNewPrivs")) for q, s, _ in tasks
       if not (s.get("Seccomp") == "2" and s.get("Seccomp_filters") == "1"
               and s.get("NoNewPrivs") == "1")]
t.busy(tasks and not bad, "every task: Seccomp 2 (filter), one filter, NoNewPrivs 1", missed, bad)
bad = [(q, s.get("CapBnd"), s.get("CapEff"), s.get("CapPrm")) for q, s, _ in tasks
       if not (int(s.get("CapBnd", "0"), 16) == DOCKER_MASK
               and int(s.get("CapEff", "0"), 16) == DOCKER_MASK
               and int(s.get("CapPrm", "0"), 16) == DOCKER_MASK
               and int(s.get("CapAmb", "1"), 16) == 0)]
t.busy(tasks and not bad, f"every task: bounding/effective/permitted = Docker's set "
       f"({DOCKER_MASK:#x}), no ambient", missed, bad)
groups = {}
for q, s, lines in tasks:
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and ("pids" in parts[1].split(",") or parts[1] == ""):
            groups.setdefault(q, []).append(parts[2])
bad = [(q, g) for q, g in groups.items() if not any("/ucbench-" in x and "/c" in x for x in g)]
t.busy(tasks and len(groups) == len(tasks) and not bad,
       "every task sits in its container's cgroup (…/ucbench-PID/cN)", missed,
       json.dumps(groups)[:2000])
paths = sorted({next(x for x in g if "/ucbench-" in x) for g in groups.values()})
t.busy(len(paths) == 8, f"8 containers, 8 distinct cgroups ({len(paths)})", missed, paths)
res = doc["results"][0] if doc else {}
rt = (doc or {}).get("config", {}).get("runtime") or {}
sc = rt.get("seccomp") or {}
t.ok(sc.get("rules", 0) >= 300 and sc.get("bpf_insns", 0) > 0 and sc.get("optimize") == 1
     and sc.get("names_unknown", -1) >= 0 and sc.get("source") == "docker",
     "config.runtime.seccomp: rules, BPF instructions, optimisation level, unknown names",
     json.dumps(sc))
caps = rt.get("caps") or {}
t.ok(caps.get("mode") == "drop" and set((caps.get("keep") or "").split(","))
     == {"cap_" + c for c in DOCKER_CAPS} and rt.get("no_new_privs") is True,
     "config.runtime.caps records drop and the kept set", json.dumps(caps))
cg = rt.get("cgroup") or {}
t.ok(cg.get("layout") in ("legacy", "hybrid", "unified"), "config.runtime.cgroup records the "
     "layout", json.dumps(cg)[:1500])
pcs = res.get("per_container", [])
t.ok(len(pcs) == 8 and all(c.get("cgroup") and (c.get("seccomp_load_us") or 0) > 0
                           and c.get("caps_applied") is True and c.get("ops", 0) > 0
                           for c in pcs),
     "every per_container record: cgroup path, seccomp load time, caps applied, work done",
     json.dumps([{k: c.get(k) for k in ("cgroup", "seccomp_load_us", "caps_applied", "ops")}
                 for c in pcs])[:2000])
pin = (doc or {}).get("config", {}).get("pin", {})
topo = pin.get("topology", {})
t.ok(pin.get("mode") == "spread" and topo.get("l3_domains", 0) >= 1 and len(topo.get("map", []))
     == topo.get("cpus"), "config.pin: spread, with the topology map", json.dumps(pin)[:1500])
t.ok(pcs and all(x.get("l3") is not None and x.get("cpu") is not None for c in pcs for x in c["tasks"])
     and res.get("placement", {}).get("l3_domains", 0) >= 1,
     "every task records its CPU and L3 domain; the point records the domains spanned",
     json.dumps(res.get("placement")))
t.ok(procs.gone(), "no process left", procs.left())
t.ok(wait_for(lambda: not groups_of(run1)), "no ucbench cgroup left", groups_of(run1))
t.ok(subtree_control() == sc_before, "cgroup.subtree_control as before",
     f"{sc_before!r} -> {subtree_control()!r}")

# ---- 2. the same on a pure cgroup v2 mount --------------------------------------------------
V2 = ["unshare", "-m", "--propagation", "private", "sh", "-c",
      'umount -l /sys/fs/cgroup 2>/dev/null; mount -t cgroup2 none /sys/fs/cgroup && exec "$@"',
      "ucb-v2"]
probe = subprocess.run(V2 + ["true"], capture_output=True, text=True)
if probe.returncode != 0:
    t.skip("pure cgroup v2", f"cannot mount cgroup2 in a private mount namespace: {probe.stderr}")
else:
    p = start(["--cgroup", "--seccomp", "docker", "--caps", "drop", "--isolate",
               "user,ipc,pid,mnt,uts,net", "--pin", "spread", "--no-baseline", "--containers", "8",
               "--owner", "distinct", "--uid-base", str(BASE + 100)], prefix=V2)
    tasks, procs = observe(p, 8)
    doc, err = finish(p)
    run2 = p.pid
    t.ok(p.returncode == 0 and doc is not None, "the same command on a cgroup-v2-only mount", err)
    v2 = [line for _, _, lines in tasks for line in lines if line.startswith("0::")]
    missed = not tasks and procs.busy_missed
    t.busy(len(tasks) == 8 and len(v2) == 8 and all("/ucbench-" in x for x in v2)
           and len(set(v2)) == 8, "v2: every task in its own 0::/…/ucbench-PID/cN", missed,
           v2 or procs.missed)
    cg = ((doc or {}).get("config", {}).get("runtime") or {}).get("cgroup") or {}
    t.ok(cg.get("layout") == "unified", "v2: the layout is recorded as unified", json.dumps(cg))
    t.busy(tasks and all(s.get("Seccomp") == "2" and int(s.get("CapBnd", "0"), 16) == DOCKER_MASK
                         for _, s, _ in tasks),
           "v2: seccomp and capabilities as on the host layout", missed)
    t.ok(procs.gone(), "v2: no process left", procs.left())
    t.ok(wait_for(lambda: not groups_of(run2)) and subtree_control() == sc_before,
         "v2: no cgroup left, subtree_control as before",
         f"{groups_of(run2)} {subtree_control()!r}")
    # --cgroup-set enables the controller in the parent's subtree_control, and undoes it.
    ctl = open("/sys/fs/cgroup/unified/cgroup.controllers").read().split() \
        if os.path.exists("/sys/fs/cgroup/unified/cgroup.controllers") else []
    if "hugetlb" in ctl:
        p = start(["--cgroup", "--cgroup-set", "hugetlb.2MB.max=0", "--no-baseline",
                   "--containers", "2",
                   "--owner", "distinct", "--uid-base", str(BASE + 200)], prefix=V2)
        doc, err = finish(p)
        t.ok(p.returncode == 0, "v2: --cgroup-set hugetlb.2MB.max=0 runs", err)
        t.ok(subtree_control() == sc_before, "v2: the controller ucbench enabled is disabled again",
             f"{sc_before!r} -> {subtree_control()!r}")
    else:
        t.skip("v2 --cgroup-set", "no controller is free in the unified hierarchy here")

# ---- 2b. legacy (v1 only): the unified mount hidden in a private mount namespace -------------
V1 = ["unshare", "-m", "--propagation", "private", "sh", "-c",
      'umount /sys/fs/cgroup/unified && exec "$@"', "ucb-v1"]
probe = subprocess.run(V1 + ["true"], capture_output=True, text=True)
if probe.returncode != 0 or not os.path.isdir("/sys/fs/cgroup/pids"):
    t.skip("legacy cgroup v1", "no hybrid layout with a v1 pids hierarchy to reduce to legacy here")
else:
    p = start(["--cgroup", "--pids-max", "64", "--no-baseline", "--containers", "2", "--owner",
               "distinct",
               "--uid-base", str(BASE + 250)], prefix=V1)
    tasks, procs = observe(p, 2)
    doc, err = finish(p)
    run3 = p.pid
    cg = ((doc or {}).get("config", {}).get("runtime") or {}).get("cgroup") or {}
    pids = [line for _, _, lines in tasks for line in lines if ":pids:" in line]
    t.busy(p.returncode == 0 and cg.get("layout") == "legacy" and len(pids) == 2
           and all("/ucbench-" in x for x in pids),
           "legacy v1: detected, every task in its pids group",
           p.returncode == 0 and cg.get("layout") == "legacy" and not tasks and procs.busy_missed,
           f"{err} {json.dumps(cg)} {pids} {procs.missed}")
    t.ok(wait_for(lambda: not groups_of(run3)), "legacy v1: no cgroup left", groups_of(run3))

# ---- 3. SIGKILL of ucbench: the janitor removes the cgroups ---------------------------------
p = subprocess.Popen([UCBENCH, "run", "--cgroup", "--no-baseline", "--containers", "3", "--owner",
                      "distinct",
                      "--uid-base", str(BASE + 300), "--duration", "30", "--quiet"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
procs = RunProcs(p.pid)
seen = wait_for(lambda: len(procs.scan().tasks()) >= 3)
made = groups_of(p.pid)
p.send_signal(signal.SIGKILL)
p.wait()
t.ok(seen and made, "a --cgroup run made its groups", made)
t.ok(wait_for(lambda: not groups_of(p.pid)), "after SIGKILL of ucbench no cgroup is left",
     groups_of(p.pid))
t.ok(procs.gone(), "after SIGKILL no process is left", procs.left())
t.ok(subtree_control() == sc_before, "after SIGKILL subtree_control as before")

# ---- 4. --perf: counted where the host can, said why not where it cannot --------------------
r = run(["run", "--perf", "--workload", "getppid", "--no-baseline", "--containers", "2", "--owner",
         "distinct",
         "--uid-base", str(BASE + 400), "--format", "json"] + SHORT)
doc = json.loads(r.stdout) if r.returncode == 0 else {}
perf = (doc.get("config", {}).get("runtime") or {}).get("perf") or {}
ev = perf.get("events", {})
t.ok(r.returncode == 0 and "available" in perf and (perf["available"] or perf.get("reason"))
     and set(ev) >= {"cycles", "instructions", "cache_misses", "hitm", "context_switches"},
     "--perf: config.runtime.perf says what is available, with a reason where not",
     r.stderr + json.dumps(perf)[:1500])
pcs = doc.get("results", [{}])[0].get("per_container", []) if doc else []
cs = [(c.get("perf") or {}).get("context_switches_per_op") for c in pcs]
t.ok(len(pcs) == 2 and all(isinstance(x, (int, float)) and x >= 0 for x in cs)
     if ev.get("context_switches", {}).get("available") else len(pcs) == 2,
     "--perf: per-container context switches per op are numbers", cs)
cyc = [(c.get("perf") or {}).get("cycles_per_op") for c in pcs]
if ev.get("cycles", {}).get("available"):
    t.ok(all(isinstance(x, (int, float)) and x > 0 for x in cyc), "--perf: cycles per op", cyc)
else:
    t.ok(all(x is None for x in cyc), "--perf: cycles unavailable here, null per container", cyc)

# ---- 5. caps list and seccomp FILE ---------------------------------------------------------
d = scratch_dir("ucb-runtime-")
prof = os.path.join(d, "deny-reboot.json")
with open(prof, "w") as f:
    json.dump({"defaultAction": "SCMP_ACT_ALLOW",
               "syscalls": [{"names": ["reboot", "no_such_syscall"], "action": "SCMP_ACT_ERRNO"}]},
              f)
p = start(["--caps", "kill,chown", "--seccomp", prof, "--containers", "1", "--owner", "distinct",
           "--uid-base", str(BASE + 500)])
tasks, procs = observe(p, 1)
doc, err = finish(p)
s = tasks[0][1] if tasks else {}
t.busy(p.returncode == 0 and int(s.get("CapBnd", "1"), 16) == (1 << 0 | 1 << 5)
       and s.get("Seccomp") == "2", "--caps kill,chown and a profile FILE: bounding set "
       "cap_chown,cap_kill and a filter", p.returncode == 0 and not tasks and procs.busy_missed,
       f"{err} {s.get('CapBnd')} {s.get('Seccomp')} {procs.missed}")
sc = ((doc or {}).get("config", {}).get("runtime") or {}).get("seccomp") or {}
t.ok(sc.get("rules") == 1 and sc.get("names_unknown") == 1, "FILE: one rule, one unknown name "
     "counted", json.dumps(sc))

# ---- 6. --pin l3: the scaling-by-cache-domain table ----------------------------------------
r = run(["run", "--pin", "l3", "--containers", "1,2", "--owner", "distinct", "--uid-base",
         str(BASE + 600), "--workload", "getppid"] + SHORT[:-1])
t.ok(r.returncode == 0 and "Scaling by L3 cache domain" in r.stdout and "L3 domains" in r.stdout,
     "--pin l3 prints the scaling-by-L3-domain table", r.stdout + r.stderr)

# ---- 7. bad input: one line, exit 2 --------------------------------------------------------
refused = []
for args, what in [(["--seccomp", "/nonexistent.json"], "/nonexistent.json"),
                   (["--cpuset"], "--cgroup"), (["--pids-max", "5"], "--cgroup"),
                   (["--caps", "cap_bogus"], "cap_bogus"),
                   (["--cgroup", "--cgroup-set", "../x=1"], "cgroup-set"),
                   (["--cgroup=/no/such/parent"], "/no/such/parent"),
                   (["--seccomp-optimize", "3", "--seccomp", "docker"], "seccomp-optimize"),
                   (["--pin", "diagonal"], "diagonal")]:
    r, pid = run_pid(["run", "--containers", "1", "--owner", "distinct", "--uid-base",
                      str(BASE + 700)] + SHORT + args)
    refused.append(pid)
    # One line of error; usage errors add the usual "Try 'ucbench --help'" hint.
    lines = [x for x in r.stderr.strip().splitlines() if not x.startswith("Try ")]
    want = 2 if args[0] != "--cgroup=/no/such/parent" else (1, 2)
    t.ok((r.returncode in want if isinstance(want, tuple) else r.returncode == want)
         and len(lines) == 1 and what in lines[0],
         f"{' '.join(args)}: one-line error naming {what}, status {want}",
         f"rc={r.returncode} {r.stderr}")
t.ok(wait_for(lambda: not groups_of(*refused)), "no cgroup left after the errors",
     groups_of(*refused))

# ---- 8. unprivileged: owner self, no cgroups, and it says so -------------------------------
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
          "--bounding-set=-all"]
load = HostLoad()
r = subprocess.run(NOBODY + [UCBENCH, "run", "--no-baseline", "--containers", "2", "--format",
                             "json",
                             "--workload", "signal,getppid"] + SHORT[:-1],
                   capture_output=True, text=True)
doc = json.loads(r.stdout) if r.returncode == 0 else {}
res = doc.get("results", [])
sound = r.returncode == 0 and res and all(x.get("owner") == "self" for x in res)
# that every point did work needs the CPU: a host measured busy skips it
t.busy(sound and all((x["summary"]["total_ops_per_s"] or 0) > 0 for x in res),
       "as nobody: the smoke run works, every container owned by self",
       sound and (lambda: busy_reason(doc, load)), r.stderr)
t.ok("CAP_SETUID" in r.stderr and any("self" in n for n in doc.get("config", {}).get("notes", [])),
     "as nobody: it says why (stderr and config.notes)", r.stderr)
t.ok(all(w in r.stderr for w in ("one owner", "contrasted", "need root", "subuid", "newuidmap")),
     "as nobody: the note says self is one owner (no contrast), what needs root, and that no "
     "subuid range or newuidmap is used", r.stderr)
r = subprocess.run(NOBODY + [UCBENCH, "run", "--cgroup", "--containers", "1"] + SHORT,
                   capture_output=True, text=True)
lines = r.stderr.strip().splitlines()
t.ok(r.returncode != 0 and len(lines) == 1 and "cgroup" in lines[0] and "Delegate" in lines[0],
     "as nobody: --cgroup is refused in one line that says how to get a delegated subtree",
     r.stderr)
r = subprocess.run(NOBODY + [UCBENCH, "run", "--owner", "distinct", "--containers", "1"] + SHORT,
                   capture_output=True, text=True)
t.ok(r.returncode != 0 and "CAP_SETUID" in r.stderr and "self" in r.stderr
     and "subuid" in r.stderr and "newuidmap" in r.stderr and "contrast" in r.stderr,
     "as nobody: an explicit --owner distinct is refused with the reason, what self gives, and "
     "that no subuid range or newuidmap is used", r.stderr)
r = subprocess.run(NOBODY + [UCBENCH, "info"], capture_output=True, text=True)
t.ok(r.returncode == 0 and "capabilities.missing.cap_setuid" in r.stdout
     and "capabilities.missing.cap_sys_admin" in r.stdout,
     "as nobody: `ucbench info` lists what each missing capability disables", r.stdout[-1500:])
t.done()
