# SPDX-License-Identifier: GPL-2.0-or-later
"""seccomp-machinery.py - a --seccomp profile that blocks what the container machinery needs
(issue 16 item 7): a default action that blocks everything still runs, the calls ucbench adds
named on one line; a rule that blocks exit_group is refused (exit 2, naming it); unknown
names are counted and named; a container that dies after loading the filter names the
profile (SIGSYS); nothing waits for the ready timeout; `--seccomp docker` and
examples/seccomp-deny-ns.json run as before, without a word.  "Nothing waits" is timed: over
its bound on a host measured busy (taplib.HostLoad) it skips."""
import json
import os
import time

from taplib import SRCDIR, HostLoad, Tap, require_root_userns, run, scratch_dir, uid_block

require_root_userns("containers of other owners need root")

t = Tap()
BASE = uid_block(3070000000, 100)
d = scratch_dir("ucb-seccomp-machinery-")
READY_TIMEOUT = 120   # what a hang would cost; every run here ends in seconds


def profile(name, doc):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def ucb(seccomp, *extra, workload="getppid"):
    """One run: (its process, its wall time, why the host was busy meanwhile: a function)."""
    load = HostLoad()
    t0 = time.monotonic()
    r = run(["run", "--workload", workload, "--containers", "1", "--duration", "0.5",
             "--warmup", "0", "--uid-base", str(BASE), "--seccomp", seccomp, "--quiet",
             "--output", os.path.join(d, "out.json"), *extra], timeout=2 * READY_TIMEOUT)
    return r, time.monotonic() - t0, load.reason


deny_all = profile("deny-all.json", {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": []})
for mode in ([], ["--threads"], ["--depth", "0"]):
    r, took, busy = ucb(deny_all, *mode)
    lines = r.stderr.splitlines()
    said = (r.returncode == 0 and len(lines) == 1 and "allowing" in lines[0]
            and "exit_group" in lines[0] and "deny-all.json" in lines[0])
    t.busy(said and took < 30,
           f"defaultAction SCMP_ACT_ERRNO, no rules {' '.join(mode)}: runs, the added calls "
           f"named on one line ({took:.1f} s)", said and busy,
           f"rc {r.returncode}: {r.stderr}")

no_exit = profile("no-exit.json", {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["exit_group"], "action": "SCMP_ACT_ERRNO"}]})
r, took, busy = ucb(no_exit)
said = r.returncode == 2 and "exit_group" in r.stderr and "no-exit.json" in r.stderr
t.busy(said and took < 10, "a rule that blocks exit_group: exit 2 naming it, before any container",
       said and busy, f"rc {r.returncode} in {took:.1f} s: {r.stderr}")

unknown = profile("unknown.json", {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["getppid_typo", "acct", "frobnicate"], "action": "SCMP_ACT_ERRNO"}]})
r, took, busy = ucb(unknown)
want = f"ucbench: warning: 2 unknown syscall names in {unknown}: getppid_typo, frobnicate (ignored)"
t.ok(r.returncode == 0 and want in r.stderr.splitlines(),
     "unknown syscall names: counted and named on one warning line", f"rc {r.returncode}: "
     f"{r.stderr}")

kill = profile("kill-getppid.json", {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["getppid"], "action": "SCMP_ACT_KILL_PROCESS"}]})
for mode, needle in (([], "a task was killed by SIGSYS after loading the seccomp profile"),
                     (["--threads"], "(SIGSYS) before reporting, after loading the seccomp "
                                     "profile")):
    r, took, busy = ucb(kill, *mode)
    said = r.returncode == 1 and needle in r.stderr and "kill-getppid.json" in r.stderr
    t.busy(said and took < 30,
           f"a workload call the profile kills {' '.join(mode)}: the death names seccomp and "
           f"the profile ({took:.1f} s)", said and busy, f"rc {r.returncode}: {r.stderr}")

for seccomp in ("docker", os.path.join(SRCDIR, "examples", "seccomp-deny-ns.json")):
    for mode in ([], ["--threads"]):
        r, took, busy = ucb(seccomp, *mode, workload="thread")
        t.ok(r.returncode == 0 and r.stderr == "",
             f"--seccomp {os.path.basename(seccomp)} {' '.join(mode)}: runs, nothing said",
             f"rc {r.returncode}: {r.stderr}")
t.done()
