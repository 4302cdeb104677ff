# SPDX-License-Identifier: GPL-2.0-or-later
"""info-list.py - `ucbench info` and `ucbench list`: text and JSON, with real host facts."""
import json
import os
import subprocess

from taplib import UCBENCH, Tap, run, scratch_dir, uid_block

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
RUN = ["run", "--workload", "getppid", "--containers", "1", "--duration", "0.2", "--interval",
       "0.1", "--warmup", "0", "--uid-base", str(uid_block(2100230000, 10, room=10000)),
       "--output", "/dev/stdout", "--quiet"]


def line_of(text, key):
    return next((ln for ln in text.splitlines() if ln.startswith(key + ":")), "")


def one_l3_story(host, text, where, prefix=()):
    """Check info's l3_domains (`host`, its text `text`) against a run's config.pin.topology
    (run under `prefix`, as info was); the topology run recorded, or None."""
    rr = subprocess.run(list(prefix) + [UCBENCH] + RUN, capture_output=True, text=True)
    try:
        topo = json.loads(rr.stdout)["config"]["pin"]["topology"]
    except (ValueError, KeyError) as e:
        topo = None
        t.diag(f"run{where}: rc={rr.returncode} {rr.stderr!r} {e}")
    if topo is None or "error" in topo:
        t.skip(f"info's l3_domains agrees with run's{where}", "run recorded no topology here")
        return None
    # info counts the online CPUs, run the allowed ones: the counts agree when those are one
    same_cpus = host.get("cpus_online") == host.get("cpus_allowed") == topo["cpus"]
    l3_line = line_of(text, "l3_domains")
    if topo["l3_source"] == "cache":
        t.ok(not same_cpus or host.get("l3_domains") == topo["l3_domains"],
             f"info's l3_domains is the count run records (L3 caches in sysfs){where}",
             (host.get("l3_domains"), topo))
    else:
        want = (f"{topo['l3_domains']} " if same_cpus else "") + f"(l3_source {topo['l3_source']})"
        t.ok(host.get("l3_domains") is None and want in l3_line,
             f"no L3 cache in sysfs: info says what run assumes ({want}){where}", (l3_line, topo))
    return topo


one_l3_story(host, r.stdout, "")

# The reasons for a null are what the probe found, handed up with the host's facts (info never
# looks at the host again to word them).  Here no level-3 cache and no securityfs: an empty
# tmpfs over every cpuN/cache and securityfs unmounted, in a private mount namespace.
HIDE = ["unshare", "-m", "--propagation", "private", "sh", "-c",
        'umount -l /sys/kernel/security 2>/dev/null; '
        'for d in /sys/devices/system/cpu/cpu[0-9]*/cache; do [ -d "$d" ] || continue; '
        'mount -t tmpfs ucb-nocache "$d" || exit 99; done; exec "$@"', "ucb-nocache"]
LSM_ENOENT = ("unknown: cannot read /sys/kernel/security/lsm: No such file or directory "
              "(securityfs not mounted, or a kernel without it)")
hj = subprocess.run(HIDE + [UCBENCH, "info", "--format", "json"], capture_output=True, text=True)
if hj.returncode == 99 or (hj.returncode != 0 and "unshare" in hj.stderr):
    t.skip("info's null texts for l3_domains and lsms", f"no private mount namespace here: "
           f"{hj.stderr.strip()}")
else:
    ht = subprocess.run(HIDE + [UCBENCH, "info"], capture_output=True, text=True)
    try:
        hidden = json.loads(hj.stdout)["host"]
    except (ValueError, KeyError) as e:
        hidden = {}
        t.diag(f"info --format json without caches: rc={hj.returncode} {hj.stderr!r} {e}")
    t.ok(ht.returncode == 0 and "l3_domains" in hidden and hidden["l3_domains"] is None,
         "no L3 cache in sysfs: l3_domains is null", (ht.returncode, hidden.get("l3_domains")))
    topo = one_l3_story(hidden, ht.stdout, " (caches hidden)", HIDE)
    t.ok(topo is None or topo["l3_source"] != "cache", "run saw no L3 cache there either", topo)
    if isinstance(hidden.get("lsms"), list):  # a locked mount (a container's) stays
        t.skip("no securityfs: lsms' text", "securityfs cannot be unmounted here")
    else:
        t.ok("lsms" in hidden and line_of(ht.stdout, "lsms").split(None, 1)[1:] == [LSM_ENOENT],
             "no securityfs: lsms is null, and the text gives the errno the probe got (ENOENT)",
             line_of(ht.stdout, "lsms"))
    # A topology that cannot be read: the text says the error the probe met.
    bad = os.path.join(scratch_dir("ucb-info-"), "online")
    with open(bad, "w") as f:
        f.write("garbage\n")
    BAD = ["unshare", "-m", "--propagation", "private", "sh", "-c",
           'mount --bind "$0" /sys/devices/system/cpu/online || exit 99; exec "$@"', bad]
    bt = subprocess.run(BAD + [UCBENCH, "info"], capture_output=True, text=True)
    if bt.returncode == 99:
        t.skip("an unreadable topology: info says the error", bt.stderr.strip())
    else:
        t.ok(bt.returncode == 0 and line_of(bt.stdout, "l3_domains").split(None, 1)[1:]
             == ["unknown: malformed CPU list in `/sys/devices/system/cpu/online`: `garbage`"],
             "an unreadable topology: l3_domains' text is the error the probe met",
             (bt.returncode, line_of(bt.stdout, "l3_domains"), bt.stderr))

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
