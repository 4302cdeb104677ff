#!/usr/bin/env python3
"""layers.py - the include rule of docs/architecture.md, checked over src/ (TAP).

    cli -> {engine, verify, report} -> host -> core;  workloads -> engine/workload.h, core

Every quoted include names its layer ("core/util.h"); an include may go to its own layer or
down the rule, never up or sideways between engine, verify and report.  Also: no include
circle, and no source file over 700 lines.  Run by `make check` and `make check-layers`."""
import os
import re
import sys
import tempfile

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
src = os.path.join(top, "src")

BELOW = {  # layer -> the layers it may include besides itself
    "main": {"cli", "engine", "verify", "report", "host", "core"},
    "cli": {"engine", "verify", "report", "host", "core"},
    "engine": {"host", "core"},
    "verify": {"host", "core"},
    "report": {"host", "core"},
    "host": {"core"},
    "core": set(),
    "workloads": {"core"},
}
# The one header of the engine that plug-ins see, and the plug-in table the engine reads.
EXCEPTIONS = {("workloads", "engine/workload.h"), ("engine", "workloads/list.h")}
MAX_LINES = 700

n = 0
failed = 0


def check(ok, what, details=()):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok") + f" {n} - {what}")
    if not ok:
        failed += 1
        for d in details:
            print(f"# {d}")


def layer_of(rel):
    return "main" if "/" not in rel else rel.split("/", 1)[0]


def findings(src):
    """What is wrong with the tree under `src`: four lists, one per rule."""
    files = []
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith((".c", ".h")) and name != "seccomp-docker.c":
                files.append(os.path.relpath(os.path.join(root, name), src))
    files.sort()
    graph = {}
    unqualified, against, over = [], [], []
    for rel in files:
        layer = layer_of(rel)
        graph[rel] = []
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            text = f.readlines()
        if len(text) > MAX_LINES:
            over.append(f"{rel}: {len(text)} lines")
        for no, line in enumerate(text, 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m or m.group(1) == "config.h":
                continue
            inc = m.group(1)
            if not os.path.exists(os.path.join(src, inc)):
                unqualified.append(f'{rel}:{no}: "{inc}" does not name a file under src/')
                continue
            graph[rel].append(inc)
            to = layer_of(inc)
            if to != layer and to not in BELOW.get(layer, set()) and (layer, inc) not in EXCEPTIONS:
                against.append(f'{rel}:{no}: {layer} -> {to} ("{inc}")')
    circles, state = [], {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for rel in files:
        if rel not in state:
            visit(rel, [rel])
    return unqualified, against, circles, over


unq, against, circles, over = findings(src)
check(not unq, "every quoted include names its layer folder", unq)
check(not against, "no include runs against cli -> {engine, verify, report} -> host -> core", against)
check(not circles, "no include circle", circles)
check(not over, f"no source file over {MAX_LINES} lines", over)

# The checker itself must be able to fail: a small tree with one fault of each kind.
with tempfile.TemporaryDirectory(prefix="ucb-layers-") as bad:
    tree = {
        "core/a.h": '#include "host/b.h"\n',          # core -> host: against the rule
        "host/b.h": '#include "core/c.h"\n',
        "core/c.h": '#include "core/d.h"\n',
        "core/d.h": '#include "core/c.h"\n',          # a circle c -> d -> c
        "engine/e.c": '#include "report/f.h"\n#include "util.h"\n',  # sideways; unqualified
        "report/f.h": "\n" * (MAX_LINES + 1),        # too long
    }
    for rel, text in tree.items():
        os.makedirs(os.path.dirname(os.path.join(bad, rel)), exist_ok=True)
        with open(os.path.join(bad, rel), "w", encoding="utf-8") as f:
            f.write(text)
    u, a, c, o = findings(bad)
    check(len(u) == 1 and len(a) == 2 and len(c) == 1 and len(o) == 1,
          "self-test: a tree with one fault of each kind is caught on every rule",
          [f"unqualified {u}", f"against {a}", f"circles {c}", f"over {o}"])
print(f"1..{n}")
sys.exit(1 if failed else 0)
