# SPDX-License-Identifier: GPL-2.0-or-later
"""private-tree.py - the tests that run ucbench as another uid pass from a checkout only its
owner can enter, as root's checkout in /root (mode 0700) is: the README's `scripts/quickstart
check` from a fresh root (issue 24: verify-userns.py failed there with "Permission denied",
its namespace root could not reach the binary).  It copies the binary, the helper and those
tests under a 0700 folder, checks that uid 65534 cannot run the binary there, then runs each
test from it: every check passes or skips, none fails, and some ran."""
import os
import shutil
import subprocess
import sys

from taplib import HELPER, SRCDIR, Tap, UCBENCH, require_root_userns, scratch_dir

require_root_userns("running the binary as another uid needs root")
# Those that run the binary as another uid or as a namespace root that is not its owner.
TESTS = ("verify-unpriv.py", "verify-userns.py")

t = Tap()
tree = scratch_dir("ucb-private-")
os.chmod(tree, 0o700)
build = os.path.join(tree, "build")
tests = os.path.join(tree, "tests", "integration")
os.makedirs(os.path.join(build, "tests"))
os.makedirs(tests)
exe = shutil.copy(shutil.which(UCBENCH) or UCBENCH, os.path.join(build, "ucbench"))
helper = shutil.copy(shutil.which(HELPER) or HELPER, os.path.join(build, "tests", "ucb-helper"))
here = os.path.dirname(os.path.abspath(__file__))
for name in TESTS + ("taplib.py", "hostload.py", "hoststate.py"):
    shutil.copy(os.path.join(here, name), tests)

# Plain setuid then exec (setpriv would keep its capabilities until the exec, and get in).
try:
    r = subprocess.run([exe, "--version"], capture_output=True, text=True, user=65534,
                       group=65534, extra_groups=[])
    why = f"uid 65534 ran it: rc {r.returncode}"
except PermissionError as e:
    why = None
    t.diag(f"uid 65534: {e}")
t.ok(why is None, "the binary in a 0700 tree: uid 65534 cannot run it", why)

env = dict(os.environ, UCBENCH=exe, UCB_HELPER=helper, top_srcdir=os.path.abspath(SRCDIR))
for name in TESTS:
    r = subprocess.run([sys.executable, "-B", os.path.join(tests, name)], capture_output=True,
                       text=True, env=env, cwd=build, timeout=900)
    lines = r.stdout.splitlines()
    bad = [ln for ln in lines if ln.startswith("not ok")]
    ran = [ln for ln in lines if ln.startswith("ok ") and "# SKIP" not in ln]
    whole_skip = [ln for ln in lines if ln.startswith("1..0 # SKIP")]
    if whole_skip and r.returncode == 0:
        t.skip(f"{name} from a 0700 tree", whole_skip[0][len("1..0 # SKIP "):])
        continue
    t.ok(r.returncode == 0 and ran and not bad,
         f"{name} from a 0700 tree: {len(ran)} checks pass, none fails",
         "\n".join(bad) + "\n" + r.stdout[-2000:] + r.stderr[-1000:])
t.done()
