# SPDX-License-Identifier: GPL-2.0-or-later
"""verify-unpriv.py - `ucbench verify` without the privileges its cases need (issue 16 item
5): as uid 65534 every case is SKIP naming the capability it lacks, the plan is complete, it
is quick (no probe waits for a timeout) and the exit status is 4 (kselftest's "skipped");
with only some privileges, a case that needs no more than those still runs, and the others
skip naming what is missing.  "Quick" is timed: over its bound on a host measured busy
(taplib.HostLoad) it skips."""
import os
import re
import shutil
import subprocess
import time

from taplib import HostLoad, Tap, UCBENCH, reachable_copy, skip_all, uid_block, userns_works

if os.geteuid() != 0:
    skip_all("dropping to uid 65534 (and keeping chosen capabilities) needs root")
SETPRIV = shutil.which("setpriv")
if SETPRIV is None:
    skip_all("setpriv (util-linux) is missing: no way to drop privileges")

t = Tap()
# Every case: the registry's size, from --list (case i uses --uid-base + 100 i .. + 99).
NCASES = sum(1 for ln in subprocess.run([UCBENCH, "verify", "--list"], capture_output=True,
                                        text=True).stdout.splitlines() if ln.startswith("ULIM-"))
base = uid_block(3060000000, 100 * NCASES + 100)
# uid 65534 may not reach the build tree: a copy it can run.
tmp, exe = reachable_copy("ucb-unpriv-")
NOBODY = [SETPRIV, "--reuid", "65534", "--regid", "65534", "--clear-groups"]


def verify(prefix, *args):
    load = HostLoad()
    t0 = time.monotonic()
    r = subprocess.run(prefix + [exe, "verify", "limits", *args, "--uid-base", str(base)],
                       capture_output=True, text=True, timeout=300, cwd=tmp)
    cases = {m.group(2): (m.group(1), m.group(3))
             for m in (re.match(r"(ok|not ok) \d+ (ULIM-\d+) \S+(.*)", ln)
                       for ln in r.stdout.splitlines()) if m}
    return r, cases, time.monotonic() - t0, load.reason


def skips_naming_a_cap(cases):
    return {k: v for k, v in cases.items()
            if not (v[0] == "ok" and re.match(r" # SKIP needs .*CAP_[A-Z_]+", v[1]))}


for extra in ([], ["--keep-going"]):
    label = " ".join(["verify limits"] + extra)
    r, cases, took, busy = verify(NOBODY, *extra)
    plan = f"1..{NCASES}" in r.stdout.splitlines()
    bad = skips_naming_a_cap(cases)
    t.ok(NCASES >= 20 and plan and len(cases) == NCASES and not bad,
         f"{label} as uid 65534: plan 1..{NCASES}, every case SKIP naming a capability",
         r.stdout[-3000:] + r.stderr + str(bad))
    t.ok(cases and all("CAP_SETUID" in v[1] for v in cases.values()),
         f"{label} as uid 65534: each case names CAP_SETUID", r.stdout[-2000:])
    t.ok(r.returncode == 4 and "no case could run" in r.stderr,
         f"{label} as uid 65534: exit 4, said on stderr", f"rc {r.returncode}: {r.stderr}")
    t.busy(took < 10, f"{label} as uid 65534 is quick (took {took:.1f} s)", busy)

# A case needing only what is present runs; the ones needing more skip, naming it.
keep = "+setuid,+setgid,+kill"
r, cases, _, _ = verify(NOBODY + ["--inh-caps", keep, "--ambient-caps", keep],
                        "ULIM-01", "ULIM-05", "ULIM-18")
if "ambient" in r.stderr.lower() and not cases:
    t.skip("uid 65534 with CAP_SETUID, CAP_SETGID, CAP_KILL", "no ambient capabilities here")
elif not userns_works():  # ULIM-05's containers (a chroot, for one, may not make them)
    t.skip("uid 65534 with CAP_SETUID, CAP_SETGID, CAP_KILL: ULIM-01 and ULIM-05 run",
           "user namespaces cannot be created here")
else:
    t.ok(r.returncode == 0 and cases.get("ULIM-01") == ("ok", "")
         and cases.get("ULIM-05") == ("ok", ""),
         "as uid 65534 with CAP_SETUID, CAP_SETGID and CAP_KILL, ULIM-01 and ULIM-05 run and pass",
         r.stdout + r.stderr)
    st, rest = cases.get("ULIM-18", ("missing", ""))
    t.ok(st == "ok" and "# SKIP" in rest and "CAP_IPC_LOCK" in rest
         and "initial user namespace" in rest and "CAP_SETUID" not in rest,
         "ULIM-18 skips there, naming what is missing (uid 0, CAP_IPC_LOCK), not what is held",
         f"{st}{rest}")

# Root without one capability: only the cases that need it skip.
r, cases, _, _ = verify([SETPRIV, "--bounding-set", "-ipc_lock", "--inh-caps", "-ipc_lock"],
                        "ULIM-01", "ULIM-18")
st, rest = cases.get("ULIM-18", ("missing", ""))
t.ok(r.returncode == 0 and cases.get("ULIM-01") == ("ok", "") and st == "ok"
     and rest == " # SKIP needs CAP_IPC_LOCK (run as root without dropping capabilities)",
     "root without CAP_IPC_LOCK: ULIM-01 passes, ULIM-18 skips naming CAP_IPC_LOCK",
     r.stdout + r.stderr)
t.done()
