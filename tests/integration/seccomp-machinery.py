# SPDX-License-Identifier: GPL-2.0-or-later
"""seccomp-machinery.py - a --seccomp profile that blocks what the container machinery needs
(issue 16 item 7): a default action that blocks everything still runs, the calls ucbench adds
named on one line; a rule that blocks exit_group is refused (exit 2, naming it); unknown
names are counted and named; a container that dies after loading the filter names the
profile (SIGSYS); nothing waits for the ready timeout; `--seccomp docker` and
examples/seccomp-deny-ns.json run as before, without a word.  "Nothing waits" is timed: over
its bound on a host measured busy (taplib.HostLoad) it skips.
A profile whose program is over the kernel's 4096 instructions (issue 25 item 9) is refused at
once, exit 2, one line naming its size and the limit: before compiling when its rules alone
need more, every comparison of a rule counted (libseccomp took 17 s to compile 4500 argument
rules over 8 calls and 91 s for 2500 rules of two comparisons, then again in every container,
and every seccomp_load failed): the line says so ("its rules need at least"), whatever the
time; else after the one compile; one just under the limit runs; the containers load the
program compiled once (libseccomp compiled it again in each, seconds per container for a large
one)."""
import json
import os
import re
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


def arg_rules(name, n, calls, nargs=1):
    """`n` rules of `nargs` argument comparisons each (distinct values), over `calls` in turn:
    none the workload or the machinery makes."""
    return profile(name, {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
        {"names": [calls[i % len(calls)]], "action": "SCMP_ACT_ERRNO",
         "args": [{"index": k, "value": 1000 + i, "op": "SCMP_CMP_EQ"} for k in range(nargs)]}
        for i in range(n)]})


RARE = ["syslog", "acct", "sethostname", "setdomainname", "swapon", "swapoff", "quotactl",
        "pivot_root", "chroot", "vhangup"]
MAX_INSNS = re.compile(r"\b(\d+) BPF instructions\b.*\b4096\b")
BEFORE = ("its rules need at least", "before compiling")
AFTER = ("its filter compiles to", "once compiled")
for name, n, calls, nargs, bound, when in (
        # 4500 rules need 4500 comparisons at least: known before compiling
        ("over-rules.json", 4500, RARE[:8], 1, 5, BEFORE),
        # 2500 rules of two comparisons need 5000: known before compiling
        ("over-two.json", 2500, RARE[:8], 2, 5, BEFORE),
        # 1500 rules of two comparisons need 3000, about 6 instructions each: known once compiled
        ("over-compiled.json", 1500, RARE[:1], 2, 30, AFTER)):
    path = arg_rules(name, n, calls, nargs)
    r, took, busy = ucb(path)
    lines = r.stderr.splitlines()
    m = MAX_INSNS.search(lines[0]) if lines else None
    said = (r.returncode == 2 and len(lines) == 2 and m is not None and int(m.group(1)) > 4096
            and name in lines[0] and when[0] in lines[0] and lines[1].startswith("Try "))
    t.busy(said and took < bound,
           f"{n} rules of {nargs} comparison(s) over {len(calls)} calls: over 4096 instructions, "
           f"exit 2, one line naming the size and the limit, {when[1]} "
           f"({took:.1f} s)", said and busy, f"rc {r.returncode} in {took:.1f} s: {r.stderr}")

under = arg_rules("under.json", 4000, RARE[:1])
r, took, busy = ucb(under)
with open(os.path.join(d, "out.json")) as f:
    insns = json.load(f)["config"]["runtime"]["seccomp"]["bpf_insns"] if r.returncode == 0 else 0
t.ok(r.returncode == 0 and 4000 < insns <= 4096 and r.stderr == "",
     f"4000 argument rules on one call: {insns} instructions, runs", f"rc {r.returncode}: "
     f"{r.stderr}")

# Slow to compile (2500 rules over 10 calls: about 2 s here), quick to load once compiled.
slow = arg_rules("slow.json", 2500, RARE)
r, took, busy = ucb(slow, "--containers", "2", "--no-baseline", "--owner", "shared")
loads = []
if r.returncode == 0:
    with open(os.path.join(d, "out.json")) as f:
        loads = [c["seccomp_load_us"] / 1e3 for res in json.load(f)["results"]
                 for c in res["per_container"]]
fast = len(loads) == 2 and max(loads) < 500
t.busy(fast, "a profile slow to compile loads in each container in under 0.5 s (compiled "
       f"once: {', '.join(f'{x:.1f}' for x in loads)} ms)", r.returncode == 0 and busy,
       f"rc {r.returncode}: {r.stderr}")

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

# A capability name libcap does not know (a typo, or newer than libcap) is held by no container,
# as in Docker: said once per name on one line, the profile still used.
caps = profile("unknown-caps.json", {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["acct"], "action": "SCMP_ACT_ERRNO", "includes": {"caps": ["CAP_NOPE"]}},
    {"names": ["swapon"], "action": "SCMP_ACT_ERRNO",
     "excludes": {"caps": ["CAP_NOPE", "cap_typo"]}}]})
r, took, busy = ucb(caps)
want = (f"ucbench: warning: 2 capability names libcap does not know in {caps}: CAP_NOPE, "
        "cap_typo (no container holds them: entries that include them are skipped, entries "
        "that exclude them apply)")
t.ok(r.returncode == 0 and want in r.stderr.splitlines() and r.stderr.count("capability name") == 1,
     "unknown capability names in includes/excludes: named once on one warning line",
     f"rc {r.returncode}: {r.stderr}")
r, took, busy = ucb(unknown)
t.ok("capability name" not in r.stderr, "no capability warning for a profile without caps",
     r.stderr)

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
