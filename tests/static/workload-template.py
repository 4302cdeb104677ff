#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""workload-template.py - the template of docs/adding-a-workload.md ("The file") builds (TAP).

The doc's first ```c block is taken as src/workloads/NAME.c: its quoted includes must keep the
include rule of tests/static/layers.py (BELOW, EXCEPTIONS and JSON_INCLUDE are read from that
file, not copied), and it must compile against the tree's headers with the build's warnings as
errors (`-c`, so the registry's `extern` finds a non-static `ucb_workload_NAME`).  Run from the
build directory (make check) it uses that build's CC, WARN_CFLAGS and config.h; elsewhere cc,
-Wall -Wextra -Werror and an empty config.h.  It checks itself: the template the doc had before
(includes "../util.h"), one that includes cli/, and one with a type error must each fail."""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
src = os.path.join(top, "src")
n = 0
failed = 0


def check(ok, what, details=()):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok") + f" {n} - {what}")
    if not ok:
        failed += 1
        for d in details:
            for line in str(d).splitlines():
                print(f"# {line}")


def layer_rule():
    """BELOW, EXCEPTIONS and the JSON include pattern, as layers.py states them."""
    with open(os.path.join(top, "tests", "static", "layers.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("BELOW", "EXCEPTIONS", "JSON_INCLUDE"):
            value = node.value
            if node.targets[0].id == "JSON_INCLUDE":  # re.compile(r'...')
                value = value.args[0]
            found[node.targets[0].id] = ast.literal_eval(value)
    return found["BELOW"], found["EXCEPTIONS"], re.compile(found["JSON_INCLUDE"])


def template(doc):
    """The first ```c block after the heading "## The file"."""
    at = doc.find("\n## The file")
    m = re.search(r"^```c\n(.*?)^```", doc[at:], re.M | re.S) if at >= 0 else None
    return m.group(1) if m else None


def layer_faults(code, rule):
    """What breaks the include rule in `code`, a file of src/workloads/."""
    below, exceptions, json_include = rule
    faults = []
    for no, line in enumerate(code.splitlines(), 1):
        if json_include.match(line):
            faults.append(f"line {no}: {line.strip()}: no JSON below the CLI")
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m or m.group(1) == "config.h":
            continue
        inc = m.group(1)
        layer = inc.split("/", 1)[0] if "/" in inc else "main"
        if not os.path.exists(os.path.join(src, inc)):
            faults.append(f'line {no}: "{inc}" does not name a file under src/')
        elif layer != "workloads" and layer not in below.get("workloads", set()) \
                and ("workloads", inc) not in exceptions:
            faults.append(f'line {no}: workloads -> {layer} ("{inc}")')
    return faults


def build_flags():
    """The build's compiler and warnings when run from its directory, else defaults."""
    cc, warn = os.environ.get("CC", ""), None
    if os.path.exists("Makefile") and os.path.exists("config.h"):
        with open("Makefile", encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"(CC|WARN_CFLAGS) = (.*)", line.rstrip("\n"))
                if m and m.group(1) == "CC" and not cc:
                    cc = m.group(2)
                elif m and m.group(1) == "WARN_CFLAGS":
                    warn = m.group(2).split() + ["-Werror"]  # a build without --enable-werror too
        return cc.split() or ["cc"], warn or ["-Wall", "-Wextra", "-Werror"], os.getcwd()
    return (cc or "cc").split(), ["-Wall", "-Wextra", "-Werror"], None


def compile_errors(code, tmp, tools):
    """The compiler's complaints about `code` as src/workloads/NAME.c, or "" when it builds and
    defines ucb_workload_NAME for the registry (a global symbol)."""
    cc, warn, builddir = tools
    path = os.path.join(tmp, "NAME.c")
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    if builddir is None:
        open(os.path.join(tmp, "config.h"), "w").close()
    inc = ["-iquote", builddir or tmp, "-iquote", src]
    r = subprocess.run(cc + warn + ["-DHAVE_CONFIG_H"] + inc
                       + ["-c", "-o", os.path.join(tmp, "NAME.o"), path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return r.stderr.strip() or f"{cc[0]} exited {r.returncode}"
    if shutil.which("nm"):
        syms = subprocess.run(["nm", os.path.join(tmp, "NAME.o")], capture_output=True,
                              text=True).stdout
        if not re.search(r"^\S*\s+[DRB] ucb_workload_NAME$", syms, re.M):
            return "ucb_workload_NAME is not a global symbol (static?): the registry cannot find it"
    return ""


print("TAP version 13")
with open(os.path.join(top, "docs", "adding-a-workload.md"), encoding="utf-8") as f:
    code = template(f.read())
check(code is not None, "docs/adding-a-workload.md has a ```c template under \"## The file\"")
code = code or ""
rule = layer_rule()
faults = layer_faults(code, rule)
check(not faults, "the template keeps the include rule of tests/static/layers.py", faults)
tools = build_flags()
with tempfile.TemporaryDirectory(prefix="ucb-template-") as tmp:
    if shutil.which(tools[0][0]):
        errors = compile_errors(code, tmp, tools)
        check(not errors, f"the template compiles as src/workloads/NAME.c ({' '.join(tools[0])}, "
              f"{'the build' if tools[2] else 'default'} warnings as errors)", [errors])
        # The checker itself: the doc's old includes, an include of cli/, a type error.
        old = code.replace('"core/util.h"', '"../util.h"').replace('"engine/workload.h"',
                                                                   '"../workload.h"')
        up = code.replace('#include "core/util.h"', '#include "core/util.h"\n#include "cli/doc.h"')
        bad = code.replace(".loop = NAME_loop", ".loop = 42")
        caught = (len(layer_faults(old, rule)) == 2, len(layer_faults(up, rule)) == 1,
                  bool(compile_errors(bad, tmp, tools)), bool(compile_errors(old, tmp, tools)))
        check(code != old and code != bad and all(caught),
              "self-check: the old \"../util.h\" includes, an include of cli/ and a type error "
              "are each caught", [f"caught {caught}"])
    else:
        n += 2
        print(f"ok {n - 1} - the template compiles # SKIP no compiler {tools[0][0]}")
        print(f"ok {n} - self-check # SKIP no compiler")
print(f"1..{n}")
sys.exit(1 if failed else 0)
