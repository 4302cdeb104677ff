# SPDX-License-Identifier: GPL-2.0-or-later
"""verify-userns.py - `ucbench verify` as root of a child user namespace (a container's root):
no case may fail because of where it runs.  The cases that need uid 0 of the initial user
namespace (the NPROC exemptions of ULIM-14/15, the CAP_IPC_LOCK bypass of ULIM-18, all
capable() checks there) skip, naming why; everything else passes as on the host (issue 16
item 4: ULIM-18 reported an early denial there)."""
import re
import subprocess

from taplib import HELPER, Tap, UCBENCH, reachable_copy, require_root_userns, uid_block

require_root_userns("mapping a range into a child user namespace needs root")

t = Tap()
INSIDE = 50000000                       # the cases' --uid-base inside the namespace
# Every case: the registry's size, from --list (case i uses --uid-base + 100 i .. + 99).
NCASES = sum(1 for ln in subprocess.run([UCBENCH, "verify", "--list"], capture_output=True,
                                        text=True).stdout.splitlines() if ln.startswith("ULIM-"))
outside = uid_block(3050000000, 100 * NCASES + 100)  # where those uids are outside: free here
# The namespace's root is uid outside - INSIDE here, not the build tree's owner: a copy it can
# reach (a checkout in /root, mode 0700, is "Permission denied" to it).
tmp, exe = reachable_copy("ucb-userns-")
r = subprocess.run([HELPER, "userns-root", str(outside - INSIDE), "60000000", exe, "verify",
                    "limits", "--uid-base", str(INSIDE)], capture_output=True, text=True,
                   timeout=600, cwd=tmp)
lines = r.stdout.splitlines()
cases = {m.group(2): (m.group(1), m.group(3) or "")
         for m in (re.match(r"(ok|not ok) \d+ (ULIM-\d+) \S+(.*)", ln) for ln in lines) if m}
t.ok(r.returncode == 0 and NCASES >= 20 and len(cases) == NCASES,
     f"verify in a child user namespace: {NCASES} cases, exit 0",
     r.stdout[-3000:] + r.stderr)
bad = {k: v for k, v in cases.items() if v[0] != "ok" and "# TODO known kernel bug" not in v[1]}
# none ran is no pass: an exec that failed leaves no case to fail
t.ok(cases and not bad, f"no case fails or errors there ({len(cases)} ran)",
     str(bad) if cases else "no case ran: " + (r.stdout[-2000:] + r.stderr))
for case in ("ULIM-14", "ULIM-15", "ULIM-18"):
    st, rest = cases.get(case, ("missing", ""))
    t.ok(st == "ok" and "# SKIP" in rest and "initial user namespace" in rest,
         f"{case} skips, naming the initial user namespace", f"{st}{rest}")
t.done()
