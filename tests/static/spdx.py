#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""spdx.py - every source file of the tree says its license: an SPDX line
(`SPDX-License-Identifier: GPL-2.0-or-later`) in its first lines, and COPYING holds the GPL
version 2 it names.  Source files: C, Python and shell, the build files, the man page, the CI
entry and the example integrations (YAML and LKP's scripts); data (JSON, goldens, patches,
docs) carries none.  A file made without the line fails here, naming it (TAP)."""
import os
import subprocess
import sys
import tempfile

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
ID = "SPDX-License-Identifier: GPL-2.0-or-later"
NAMED = {".ci/run", "scripts/quickstart", "Makefile.am", "configure.ac", "autogen.sh", "vm/ucbench-vm",
         "examples/lkp/programs/ucbench/run", "examples/lkp/programs/ucbench/parse"}
SUFFIXES = (".c", ".h", ".py", ".sh", ".1", ".yml", ".yaml")


def sources(top):
    """The tracked files (a git checkout), else every file under top (a release tarball)."""
    r = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True, text=True) \
        if os.path.isdir(os.path.join(top, ".git")) else None
    if r is not None and r.returncode == 0:
        names = r.stdout.split()
    else:
        names = [os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top)
                 for f in fs]
    # _build/: where make distcheck builds, inside the unpacked tarball
    skip = ("docs/results/", "tests/golden/", "data/", "m4/", "build", "_build/")
    return sorted(n for n in names if not n.startswith(skip)
                  and (n in NAMED or n.endswith(SUFFIXES)) and "autom4te" not in n)


def unlicensed(top, files):
    out = []
    for f in files:
        with open(os.path.join(top, f), errors="replace") as fh:
            head = "".join(fh.readline() for _ in range(3))
        if ID not in head:
            out.append(f)
    return out


n = 0
print("TAP version 13")
files = sources(top)
missing = unlicensed(top, files)
n += 1
ok = len(files) > 200 and not missing
print(f"{'ok' if ok else 'not ok'} {n} - an SPDX line in each of {len(files)} source files")
for f in missing:
    print(f"# no `{ID}` in the first 3 lines of {f}")
# The check can fail: a tree (no git) with one licensed and one unlicensed file.
with tempfile.TemporaryDirectory() as tree:
    for name, body in (("a.c", f"/* {ID} */\n"), ("b.py", "#!/usr/bin/env python3\n")):
        with open(os.path.join(tree, name), "w") as fh:
            fh.write(body)
    neg = unlicensed(tree, sources(tree)) == ["b.py"]
n += 1
print(f"{'ok' if neg else 'not ok'} {n} - a file without the line is found")
n += 1
with open(os.path.join(top, "COPYING"), errors="replace") as fh:
    text = fh.read()
lic = "GNU GENERAL PUBLIC LICENSE" in text and "Version 2, June 1991" in text
print(f"{'ok' if lic else 'not ok'} {n} - COPYING is the GNU GPL version 2")
print(f"1..{n}")
sys.exit(0 if ok and lic and neg else 1)
