# SPDX-License-Identifier: GPL-2.0-or-later
"""version.py - `ucbench --version` names the release and, built from a git checkout, the
commit (`git describe --always --dirty`); a document's tool.version is the same string;
scripts/gen-version.sh gives the release alone outside a git work tree (a release tarball,
also one unpacked inside another checkout), the commit and -dirty inside one, and rewrites its
output only when the text changes (so an unchanged version relinks nothing)."""
import json
import os
import re
import shutil
import subprocess

from taplib import SRCDIR, Tap, UCBENCH, run, scratch_dir

t = Tap()
GEN = os.path.join(SRCDIR, "scripts", "gen-version.sh")
with open(os.path.join(SRCDIR, "configure.ac")) as f:
    release = re.search(r"AC_INIT\(\[ucbench\], \[([^]]+)\]", f.read()).group(1)
have_git = shutil.which("git") is not None


def git(*args, cwd=SRCDIR):
    return subprocess.run(["git", "-C", cwd] + list(args), capture_output=True, text=True)


def git_top(d):
    """Whether d is the top of a git work tree (what gen-version.sh asks)."""
    r = git("rev-parse", "--show-toplevel", cwd=d) if have_git else None
    return bool(r and r.returncode == 0 and os.path.realpath(r.stdout.strip()) ==
                os.path.realpath(d))


r = run(["--version"])
m = re.fullmatch(r"ucbench (\S+)(?: \(git (\S+)\))?\n", r.stdout)
t.ok(r.returncode == 0 and m and m.group(1) == release,
     f"--version names the release {release}", r.stdout + r.stderr)
version = r.stdout[len("ucbench "):].rstrip("\n")
if git_top(SRCDIR):
    # The commit of the build: HEAD, or, when something was committed since the build, an
    # ancestor of it (dirtiness too may change between the build and this test).
    head = git("describe", "--always").stdout.strip()
    named = re.sub(r"-dirty$", "", m.group(2) or "") if m else ""
    later = int(git("log", "-1", "--format=%ct").stdout or 0) >= os.stat(UCBENCH).st_mtime - 1
    t.ok(named == head or (named and later and git("merge-base", "--is-ancestor", named.split(
        "-g")[-1], "HEAD").returncode == 0),
         f"built from git: --version names the commit ({head})", r.stdout)
else:
    t.ok(m and m.group(2) is None, "built from a tarball: --version is the release alone",
         r.stdout)

# The document records the same string: `run` at depth 0 needs no user namespace.
d = scratch_dir("ucb-version-")
doc = os.path.join(d, "run.json")
r = run(["run", "-w", "getppid", "-c", "1", "--depth", "0", "--no-baseline", "-d", "100ms",
         "--interval", "50ms", "--warmup", "0", "-q", "-o", doc])
if r.returncode == 0:
    with open(doc) as f:
        tool = json.load(f)["tool"]
    t.ok(tool == {"name": "ucbench", "version": version},
         f"run's document: tool.version == --version ({version})", str(tool))
else:
    t.ok(False, "run writes a document", r.stderr)


def gen(srcdir, out):
    r = subprocess.run(["sh", GEN, srcdir, release, out], capture_output=True, text=True)
    with open(out) as f:
        text = f.read()
    m = re.search(r'ucb_version\[\] = "([^"]*)";', text)
    return (m.group(1) if m else None), r.stderr


out = os.path.join(d, "version.c")
tarball = os.path.join(d, "ucbench-" + release)
os.makedirs(tarball)
v, err = gen(tarball, out)
t.ok(v == release and not err, "gen-version.sh: no .git (a tarball): the release alone",
     f"{v!r} {err}")

if not have_git:
    t.skip("gen-version.sh in a git work tree", "git is not installed")
else:
    repo = os.path.join(d, "repo")
    os.makedirs(repo)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for cmd in (["init", "-q"], ["add", "f"], ["commit", "-q", "-m", "x"]):
        if cmd[0] == "add":
            with open(os.path.join(repo, "f"), "w") as f:
                f.write("1\n")
        subprocess.run(["git", "-C", repo] + cmd, env=env, capture_output=True, check=True)
    commit = git("rev-parse", "--short", "HEAD", cwd=repo).stdout.strip()
    v, err = gen(repo, out)
    t.ok(v == f"{release} (git {commit})", "gen-version.sh: a clean checkout: the commit",
         f"{v!r} {err}")
    before = os.stat(out).st_mtime_ns
    os.utime(out, ns=(before - 10**9, before - 10**9))
    v, err = gen(repo, out)
    t.ok(os.stat(out).st_mtime_ns == before - 10**9,
         "gen-version.sh: the same version again leaves the file untouched (no relink)")
    with open(os.path.join(repo, "f"), "w") as f:
        f.write("2\n")
    v, err = gen(repo, out)
    t.ok(v == f"{release} (git {commit}-dirty)", "gen-version.sh: a changed tracked file: -dirty",
         f"{v!r} {err}")
    inner = os.path.join(repo, "ucbench-" + release)
    os.makedirs(inner)
    v, err = gen(inner, out)
    t.ok(v == release, "gen-version.sh: a tarball unpacked inside a checkout: the release alone",
         f"{v!r} {err}")

t.done()
