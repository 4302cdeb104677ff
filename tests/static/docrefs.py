#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docrefs.py - the documentation stands alone: every document the tree names exists in it.
References: a Markdown file's name anywhere (code comments, --help, the man page, tests,
docs); in the docs (Markdown, the man page) also every path into the tree's own folders
(`bench/density.py`, `docs/plot-example.png`) and every relative Markdown link.  A reference
resolves against the naming file's folder, the top of the tree or, for a bare file name,
docs/.  On a git checkout the tree is the checkout's files (not the ignored ones); on a release
tarball (make distcheck) every file there, so a document the docs name but EXTRA_DIST misses
fails too.  Left alone: a variable's path (`$OUT/matrix.md`), an absolute or install path, a
glob, an output written at run time (GENERATED, OUTPUTS below)."""
import os
import re
import subprocess
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
SCOPE = ("src/", "docs/", "man/", "tests/", "examples/", "bench/", "scripts/", "data/",
         "debian/", ".ci/", "README.md", "Makefile.am", "configure.ac")
SKIP = ("tests/golden/", "docs/results/", "tests/kernels/patches/",
        "tests/static/docrefs.py")  # its self-check names missing documents on purpose
TEXT = (".c", ".h", ".py", ".sh", ".md", ".1", ".am", ".ac", ".yml", ".yaml", ".json", ".txt",
        ".in")
NAMED = {".ci/run", "scripts/quickstart", "scripts/deb-check", "debian/rules",
         "data/bash-completion/ucbench", "examples/lkp/programs/ucbench/run",
         "examples/lkp/programs/ucbench/parse"}
# Folders whose paths name the tree's own files (a path like build/ucbench is an output).
TREE_DIRS = ("docs", "bench", "scripts", "examples", "data", "man", "tests/integration",
             "tests/static", "tests/kernels", "tests/unit", "debian")
# Written by the programs, never shipped: the names they give their outputs.
GENERATED = re.compile(r"(\.log|\.trs|\.out|\.err|\.o|\.deb|-stamp|/__pycache__.*)$")
OUTPUTS = {"matrix.md"}  # tests/kernels/matrix.sh writes it

MD = re.compile(r"(?<![\w/.$%{}@~-])((?:\.\.?/|[\w.-]+/)*[\w.-]+\.md)(?![\w/-])")
PATH = re.compile(r"(?<![\w/.$%{}@~-])((?:\.\./)*(?:" + "|".join(re.escape(d) for d in TREE_DIRS)
                  + r")/[\w./+-]*[\w+-])")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def files(top):
    """The checkout's files (tracked, or new and not ignored), else every file under top (a
    release tarball)."""
    r = subprocess.run(["git", "-C", top, "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True) \
        if os.path.isdir(os.path.join(top, ".git")) else None
    if r is not None and r.returncode == 0:
        return set(r.stdout.split())
    walked = {os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs}
    return {f for f in walked if not f.startswith("_build/")}  # distcheck builds in there


def resolves(ref, where, tree):
    """Does ref, named in the file `where`, name a file or folder of the tree?"""
    ref = ref.rstrip(".")
    bases = [os.path.dirname(where), ""]
    if "/" not in ref:
        bases.append("docs")
    for b in bases:
        p = os.path.normpath(os.path.join(b, ref))
        # a file, a folder, or a program built from p.c
        if p in tree or p + ".c" in tree or any(f.startswith(p + "/") for f in tree):
            return True
    return False


def refs(text, where):
    """(line, reference) for every document text names."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        found = set(MD.findall(line))
        if where.endswith((".md", ".1")):  # the docs: every path into the tree they name
            found |= set(PATH.findall(line))
        if where.endswith(".md"):
            found |= {t for t in LINK.findall(line) if not re.match(r"[a-z]+:", t)}
        for ref in found:
            if ("*" in ref or ref.startswith(("/", "./usr/")) or ref.endswith("-")
                    or ref in OUTPUTS or GENERATED.search(ref)):
                continue
            out.append((i, ref))
    return out


def main():
    tree = files(top)
    scan = sorted(f for f in tree if f.startswith(SCOPE) and not f.startswith(SKIP)
                  and (f.endswith(TEXT) or f in NAMED) and "__pycache__" not in f)
    broken, n_refs = [], 0
    for f in scan:
        with open(os.path.join(top, f), errors="replace") as fh:
            text = fh.read()
        for line, ref in refs(text, f):
            n_refs += 1
            if not resolves(ref, f, tree):
                broken.append(f"{f}:{line}: {ref}")
    print("TAP version 13")
    ok = len(scan) > 100 and n_refs > 100 and not broken
    print(f"{'ok' if ok else 'not ok'} 1 - {n_refs} references to documents in {len(scan)} "
          f"files, each names a file of the tree")
    for b in broken:
        print(f"# not in the tree: {b}")
    # The tree's own documents (a release tarball must ship each one the docs name).
    need = ("docs/kernel-ucounts.md", "docs/json.md", "docs/verify.md", "README.md")
    missing = [p for p in need if p not in tree]
    print(f"{'ok' if not missing else 'not ok'} 2 - the documents the --help and man page "
          f"point to are here: {', '.join(need)}")
    for m in missing:
        print(f"# missing: {m}")
    # The checker itself: a missing document, a link and a comment's bare name are caught.
    probe = refs("see [x](gone.md) and kernel-gone.md §4; docs/gone.json; $OUT/matrix.md",
                 "docs/a.md")
    caught = sorted(r for _, r in probe if not resolves(r, "docs/a.md", tree))
    self_ok = caught == ["docs/gone.json", "gone.md", "kernel-gone.md"]
    print(f"{'ok' if self_ok else 'not ok'} 3 - self-check: references to missing documents are "
          f"caught, a variable's path is not")
    if not self_ok:
        print(f"# caught {caught}")
    print("1..3")
    return 0 if ok and not missing and self_ok else 1


sys.exit(main())
