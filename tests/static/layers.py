#!/usr/bin/env python3
"""layers.py - the include rule of docs/architecture.md, checked over src/ (TAP).

    cli -> {engine, verify, report} -> host -> core;  workloads -> engine/workload.h, core

Every quoted include names its layer ("core/util.h"); an include may go to its own layer or
down the rule, never up or sideways between engine, verify and report.  Also: no include
circle, and no source file over 700 lines.  Run by `make check` and `make check-layers`."""
import os
import re
import sys

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
    for d in details:
        print(f"# {d}")
    if not ok:
        failed += 1


def layer_of(rel):
    return "main" if "/" not in rel else rel.split("/", 1)[0]


files = []
for root, _, names in os.walk(src):
    for name in names:
        if name.endswith((".c", ".h")) and name != "seccomp-docker.c":
            files.append(os.path.relpath(os.path.join(root, name), src))
files.sort()

graph = {}
unqualified, against, lines_over = [], [], []
for rel in files:
    layer = layer_of(rel)
    graph[rel] = []
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        text = f.readlines()
    if len(text) > MAX_LINES:
        lines_over.append(f"{rel}: {len(text)} lines")
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
        if to != layer and to not in BELOW[layer] and (layer, inc) not in EXCEPTIONS:
            against.append(f'{rel}:{no}: {layer} -> {to} ("{inc}")')

check(not unqualified, "every quoted include names its layer folder", unqualified)
check(not against, "no include runs against cli -> {engine, verify, report} -> host -> core", against)

# Circles: a header or source reachable from itself (DFS over the include graph).
circles = []
state = {}


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
check(not circles, "no include circle", circles)
check(not lines_over, f"no source file over {MAX_LINES} lines", lines_over)
print(f"1..{n}")
sys.exit(1 if failed else 0)
