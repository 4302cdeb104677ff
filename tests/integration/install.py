# SPDX-License-Identifier: GPL-2.0-or-later
"""install.py - `make install DESTDIR=...` from this build installs the binary, the man page,
the JSON schema ($(datadir)/ucbench), every example ($(docdir)/examples; its programs
executable, and they run), the documents that --help and the man page cite ($(docdir)/docs,
every citation resolves) and the bash completion (bash-completion's completionsdir); the
installed ucbench's --help then says the man page is there, and says how to read it once it is
gone; `make uninstall` removes every file."""
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
vm = one("/bin/ucbench-vm")
t.ok(vm and os.access(vm, os.X_OK) and one("/share/ucbench/vmharness.py"),
     "bin/ucbench-vm and its harness share/ucbench/vmharness.py")
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
# The examples that are programs (executable in the tree) are installed executable, and run.
progs = [e for e in examples if os.access(os.path.join(SRCDIR, e), os.X_OK)]
not_x = [e for e in progs if not (one("/share/doc/ucbench/" + e)
                                  and os.access(one("/share/doc/ucbench/" + e), os.X_OK))]
t.ok(len(progs) >= 5 and not not_x, f"the {len(progs)} example programs are installed executable",
     "not executable: " + " ".join(not_x))
ex_dir = os.path.dirname(one("/share/doc/ucbench/examples/README.md") or dest)
if exe and not not_x:
    env = dict(os.environ, UCBENCH=exe, OUT=scratch_dir("ucb-install-ck-"))
    for side in ("base", "head"):
        shutil.copy(os.path.join(SRCDIR, "examples", "run-small.json"),
                    os.path.join(env["OUT"], f"{side}.json"))
        shutil.copy(os.path.join(SRCDIR, "examples", "verify-small.json"),
                    os.path.join(env["OUT"], f"{side}-verify.json"))
    r = subprocess.run([os.path.join(ex_dir, "compare-kernels.sh"), "compare"], env=env,
                       capture_output=True, text=True, timeout=120)
    t.ok(r.returncode == 0 and "# 0 regression(s)" in r.stdout,
         "installed compare-kernels.sh compare: the two kernels' documents compared",
         f"rc={r.returncode} {r.stderr[-500:]}")
    with open(os.path.join(SRCDIR, "examples", "run-small.json")) as f:
        r = subprocess.run([os.path.join(ex_dir, "lkp", "programs", "ucbench", "parse")], env=env,
                           stdin=f, capture_output=True, text=True, timeout=120)
    t.ok(r.returncode == 0 and re.search(r"^\S+\.per_process_ops: [0-9.]+$", r.stdout, re.M),
         "installed lkp/programs/ucbench/parse: a document to LKP stats",
         f"rc={r.returncode} {r.stdout[:300]} {r.stderr[-500:]}")
    r = subprocess.run([os.path.join(ex_dir, "lava", "lava-report.py"), "--help"], env=env,
                       capture_output=True, text=True, timeout=60)
    t.ok(r.returncode == 0 and "--verify" in r.stdout, "installed lava/lava-report.py --help",
         r.stderr[-500:])
    r = subprocess.run(["bash", "-n", os.path.join(ex_dir, "lkp", "programs", "ucbench", "run")],
                       capture_output=True, text=True)
    r2 = subprocess.run(["sh", "-n", os.path.join(ex_dir, "lava", "ucbench-lava.sh")],
                        capture_output=True, text=True)
    t.ok(r.returncode == 0 and r2.returncode == 0,
         "installed lkp run and lava/ucbench-lava.sh parse (they run sweeps: deb-check runs them)",
         r.stderr + r2.stderr)
else:
    t.skip("the installed example programs run", "not installed executable")

# Every document under docs/ (or examples/) that --help, a command's help or the man page cites is
# installed under $(docdir), as it is named.
docs = sorted(n for n in os.listdir(os.path.join(SRCDIR, "docs")) if n.endswith(".md"))
missing = [d for d in docs if not one("/share/doc/ucbench/docs/" + d)]
t.ok(docs and not missing, f"share/doc/ucbench/docs: all {len(docs)} documents of docs/",
     "missing: " + " ".join(missing))
cite = re.compile(r"\b((?:docs|examples)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)")
cited = set()
if exe:
    for cmd in ([], ["run"], ["verify"], ["compare"], ["export"], ["plot"], ["model"], ["list"],
                ["info"]):
        cited |= set(cite.findall(subprocess.run([exe] + cmd + ["--help"], capture_output=True,
                                                 text=True).stdout))
with open(os.path.join(SRCDIR, "man", "ucbench.1")) as f:
    cited |= set(cite.findall(f.read().replace("\\-", "-")))
doc_root = os.path.dirname(ex_dir)
unresolved = sorted(c for c in cited if not os.path.isfile(os.path.join(doc_root, c)))
t.ok(len(cited) >= 5 and not unresolved,
     f"every one of the {len(cited)} paths --help and the man page cite is installed in "
     "$(docdir)", "unresolved: " + " ".join(unresolved) + f" (of {sorted(cited)})")

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
