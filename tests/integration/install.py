# SPDX-License-Identifier: GPL-2.0-or-later
"""install.py - `make install DESTDIR=...` from this build installs the binary, the man page,
the JSON schema ($(datadir)/ucbench), every example ($(docdir)/examples) and the bash
completion (bash-completion's completionsdir); the installed ucbench's --help then says the man
page is there, and says how to read it once it is gone; `make uninstall` removes every file."""
import os
import re
import shutil
import subprocess

from taplib import SRCDIR, Tap, UCBENCH, scratch_dir, skip_all

builddir = os.path.dirname(os.path.abspath(UCBENCH))
if not os.path.exists(os.path.join(builddir, "Makefile")) or not shutil.which("make"):
    skip_all("no Makefile beside $UCBENCH (not run from a build tree)")

t = Tap()
dest = scratch_dir("ucb-install-")
# Everything is built before the tests run: -o keeps make from rebuilding anything here (a
# version that changed since would relink ucbench under the other tests' feet).
KEEP = ["-o", "src/core/version.c", "-o", "libucbench.a", "-o", "ucbench"]


# A make of its own, not a job of the `make check` that runs this test.
ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def make(target):
    return subprocess.run(["make", "-s", "-C", builddir, target, f"DESTDIR={dest}"] + KEEP,
                          capture_output=True, text=True, timeout=300, env=ENV)


def installed():
    return sorted(os.path.relpath(os.path.join(root, n), dest)
                  for root, _, names in os.walk(dest) for n in names)


def one(suffix):
    hits = [f for f in files if f.endswith(suffix)]
    return os.path.join(dest, hits[0]) if len(hits) == 1 else None


r = make("install")
files = installed()
t.ok(r.returncode == 0, "make install DESTDIR=...", r.stdout + r.stderr)
t.diag("\n".join(f for f in files if "/examples/" not in f))

exe = one("/bin/ucbench")
t.ok(exe and os.access(exe, os.X_OK), "bin/ucbench", "\n".join(files))
man = one("/man/man1/ucbench.1")
t.ok(man is not None, "man/man1/ucbench.1")
for name in ("ucbench-result", "ucbench-model", "ucbench-compare"):
    schema = one(f"/share/ucbench/{name}.schema.json")
    with open(os.path.join(SRCDIR, "docs", f"{name}.schema.json"), "rb") as f:
        want = f.read()
    t.ok(schema and open(schema, "rb").read() == want,
         f"share/ucbench/{name}.schema.json, the schema of docs/")
examples = sorted(os.path.relpath(os.path.join(root, n), SRCDIR)
                  for root, dirs, names in os.walk(os.path.join(SRCDIR, "examples"))
                  for n in names if "__pycache__" not in root and not n.endswith(".pyc"))
missing = [e for e in examples if not one("/share/doc/ucbench/" + e)]
t.ok(examples and not missing, f"share/doc/ucbench/examples: all {len(examples)} example files",
     "missing: " + " ".join(missing))
with open(os.path.join(builddir, "Makefile")) as f:
    m = re.search(r"^bashcompletiondir = (.*)$", f.read(), re.M)
if m and m.group(1).strip():
    comp = one("/bash-completion/completions/ucbench") or one("/ucbench")
    with open(os.path.join(SRCDIR, "data", "bash-completion", "ucbench"), "rb") as f:
        want = f.read()
    t.ok(comp and open(comp, "rb").read() == want,
         f"the bash completion in {m.group(1).strip()}")
else:
    t.skip("the bash completion", "configured --without-bash-completion-dir")

if exe:
    r = subprocess.run([exe, "--help"], capture_output=True, text=True)
    t.ok(r.returncode == 0 and "see also ucbench(1)." in r.stdout and
         "not installed" not in r.stdout, "installed: --help points to ucbench(1), no `not installed`",
         r.stdout[-300:])
    build_tree = subprocess.run([UCBENCH, "--help"], capture_output=True, text=True).stdout
    os.unlink(man)
    r = subprocess.run([exe, "--help"], capture_output=True, text=True)
    if "not installed" in build_tree:
        t.ok("not installed: mandoc -a man/ucbench.1" in r.stdout,
             "the man page removed: --help says how to read it from the source tree",
             r.stdout[-300:])
    else:
        t.skip("the man page removed: --help says it is not installed",
               "ucbench(1) is installed in this build's mandir on this machine")

r = make("uninstall")
t.ok(r.returncode == 0 and installed() == [], "make uninstall removes every installed file",
     r.stderr + "\n".join(installed()))

t.done()
