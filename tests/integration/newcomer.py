# SPDX-License-Identifier: GPL-2.0-or-later
"""newcomer.py - what a new user sees on a fresh clone: `./autogen.sh` without warnings (aclocal
once warned that m4/ does not exist: m4/ is tracked through m4/.gitignore), and an archiver that
does not warn about the `u` modifier (ARFLAGS=cr, not automake's cru), and the manual reads
as the README says (mandoc, which quickstart installs)."""
import os
import re
import shutil
import subprocess

from taplib import SRCDIR, UCBENCH, Tap, scratch_dir

t = Tap()
BUILD = os.path.dirname(os.path.abspath(UCBENCH))


def makefile_var(name):
    with open(os.path.join(BUILD, "Makefile")) as f:
        for ln in f:
            m = re.match(rf"{name} = (.*)$", ln.rstrip("\n"))
            if m:
                return m.group(1)
    return None


# ---- autogen.sh in a copy of the tracked files, as a fresh clone has them ----
git = shutil.which("git")
ls = subprocess.run([git, "-C", SRCDIR, "ls-files", "-z"], capture_output=True) if git else None
if ls is None or ls.returncode != 0 or not shutil.which("autoreconf"):
    t.skip("autogen.sh on a fresh clone is silent", "needs git, a checkout and autoreconf")
else:
    tree = scratch_dir("ucb-clone-")
    for rel in ls.stdout.decode().split("\0"):
        if rel and os.path.isfile(os.path.join(SRCDIR, rel)):
            os.makedirs(os.path.join(tree, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(SRCDIR, rel), os.path.join(tree, rel))
    t.ok(os.path.isdir(os.path.join(tree, "m4")), "m4/ exists in a fresh clone (m4/.gitignore)")
    r = subprocess.run(["sh", os.path.join(tree, "autogen.sh")], capture_output=True, text=True,
                       timeout=600)
    noise = [ln for ln in (r.stdout + r.stderr).splitlines()
             if re.search(r"warning|does not exist|obsolete", ln, re.I)]
    t.ok(r.returncode == 0 and not noise, "autogen.sh on a fresh clone: no warnings",
         "\n".join(noise) or r.stderr[-1500:])

# ---- the archiver as the build calls it ----
ar, arflags = makefile_var("AR"), makefile_var("ARFLAGS")
t.ok(arflags is not None and "u" not in arflags, "ARFLAGS has no `u` modifier", arflags)
if ar and arflags is not None:
    d = scratch_dir("ucb-ar-")
    obj = os.path.join(d, "x.o")
    with open(obj, "wb") as f:
        f.write(b"not an object; ar does not care\n")
    r = subprocess.run([ar, *arflags.split(), os.path.join(d, "x.a"), obj], capture_output=True,
                       text=True)
    t.ok(r.returncode == 0 and r.stderr == "", f"`{ar} {arflags}` archives without a word",
         r.stderr)
else:
    t.skip("the archiver is silent", "no AR/ARFLAGS in the Makefile")

# ---- the manual as the README says to read it (a minimal Debian has no `man`) ----
with open(os.path.join(SRCDIR, "README.md")) as f:
    cmds = re.findall(r"`(mandoc [^`]*man/ucbench\.1)`", f.read())
t.ok(cmds, "the README says how to read the manual without man", cmds)
if cmds and shutil.which("mandoc"):
    r = subprocess.run(cmds[0].split(), cwd=SRCDIR, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    t.ok(r.returncode == 0 and "UCBENCH(1)" in r.stdout and "--duration" in r.stdout,
         f"`{cmds[0]}` shows the manual", r.stderr[-500:])
else:
    t.skip("the README's manual command works", "no mandoc (scripts/quickstart installs it)")
t.done()
