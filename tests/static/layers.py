#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""layers.py - the include rule of docs/architecture.md, checked over src/ (TAP).

    cli -> {engine, verify, report} -> host -> core;  workloads -> engine/workload.h, core

Every quoted include names its layer ("core/util.h"); an include may go to its own layer or
down the rule, never up or sideways between engine, verify and report.  Also: no include
circle, no source file over 700 lines, and no JSON below the CLI: engine/, host/, verify/ and
workloads/ hand up C structs and include neither <jansson.h> nor "core/json-util.h", not even
through their own headers (an exception would be listed with its reason; none is left).  Run by
`make check` and `make check-layers`."""
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
# Calls: plug-ins call the engine's workload API (engine/workload.c); the registry in
# engine/workload.c names every plug-in's descriptor.
CALL_EXCEPTIONS = {("workloads", "engine/workload.c")}
# A registry names its plug-ins' descriptors (an X-macro table), and the plug-ins call the
# framework: that is the plug-in contract, not a circle.
REGISTRIES = {"engine/workload.c": "workloads/", "verify/verify.c": "verify/cases/"}
MAX_LINES = 700
# report/ in rooms: a folder report/ROOM/ (compare, export, model, plot) is one command's unit,
# and its one way in is report/ROOM/ROOM.h.  A file outside the room includes that header only;
# the shared files directly under report/ include no room and call none (an arrow back up).
ROOMS_OF = "report/"


def room_of(rel):
    """'report/export' for report/export/gab.c; None for a shared report file or another layer."""
    parts = rel.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 and rel.startswith(ROOMS_OF) else None


def room_way_in(room):
    return f"{room}/{room.rsplit('/', 1)[1]}.h"


# The result document is written by the CLI (cli/doc-*.c) from the structs the layers below
# hand up, and JSON inputs are read there too (a seccomp profile: cli/seccomp-profile.c reads
# the C form host/seccomp.c compiles); these folders may not reach jansson.  An exception, file ->
# why it still does, would go here; none is left, and one that no longer needs it fails.
JSON_FREE = ("engine/", "host/", "verify/", "workloads/")
JSON_EXCEPTIONS = {}
JSON_INCLUDE = re.compile(r'\s*#\s*include\s+(<jansson\.h>|"core/json-util\.h")')

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
    unqualified, against, over, rooms = [], [], [], []
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
            room, to_room = room_of(rel), room_of(inc)
            if to_room and to_room != room and (rel.startswith(ROOMS_OF) and not room
                                                or inc != room_way_in(to_room)):
                rooms.append(f'{rel}:{no}: a shared report file includes room {to_room} ("{inc}")'
                             if rel.startswith(ROOMS_OF) and not room else
                             f'{rel}:{no}: into room {to_room} other than by {room_way_in(to_room)} ("{inc}")')
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
    findings.rooms = rooms
    return unqualified, against, circles, over


def json_findings(src, exceptions):
    """Files of JSON_FREE that include jansson, directly or through quoted includes, and
    exceptions that no longer need to (or name no file): the list stays honest."""
    direct, quoted = {}, {}
    for root, _, names in os.walk(src):
        for name in names:
            if not name.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(root, name), src)
            quoted[rel] = []
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                for no, line in enumerate(f, 1):
                    if JSON_INCLUDE.match(line) and rel not in direct:
                        direct[rel] = f"{rel}:{no}: {line.strip()}"
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if m:
                        quoted[rel].append(m.group(1))

    def reaches(rel):
        """The include chain from `rel` to a file that includes jansson, or None."""
        seen, todo = {rel}, [[rel]]
        while todo:
            path = todo.pop(0)
            if path[-1] in direct:
                return path
            for nxt in quoted.get(path[-1], []):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(path + [nxt])
        return None

    bad = []
    for rel in sorted(quoted):
        if not rel.startswith(JSON_FREE) or rel in exceptions:
            continue
        chain = reaches(rel)
        if chain and len(chain) == 1:
            bad.append(direct[rel])
        elif chain:
            bad.append(f"{rel}: reaches {direct[chain[-1]]} through {' -> '.join(chain)}")
    stale = [f"{rel}: listed as an exception, but it {'is gone' if rel not in quoted else 'needs none'}"
             for rel in sorted(exceptions) if rel not in quoted or not reaches(rel)]
    return bad, stale


unq, against, circles, over = findings(src)
check(not unq, "every quoted include names its layer folder", unq)
check(not against, "no include runs against cli -> {engine, verify, report} -> host -> core", against)
check(not circles, "no include circle", circles)
check(not over, f"no source file over {MAX_LINES} lines", over)
check(not findings.rooms, "report/ rooms: entered only by their one header, never from the shared "
      "report/ files", findings.rooms)
jbad, jstale = json_findings(src, JSON_EXCEPTIONS)
check(not jbad, f"no <jansson.h> or \"core/json-util.h\" under {', '.join(JSON_FREE)}: the CLI writes "
      "the document", jbad)
check(not jstale, "every JSON exception still needs its exception", jstale)


def call_findings(objdir, srcdir):
    """The same rule for calls, read from the objects (`nm`): a file that calls a function or
    uses a variable defined in another file depends on it, included or not.  Returns the calls
    against the rule and the circles of files that call each other (strongly connected sets)."""
    import subprocess
    defined, uses = {}, {}
    for root, _, names in os.walk(objdir):
        for name in names:
            if not name.endswith(".o"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, objdir)[:-2] + ".c"
            if not os.path.exists(os.path.join(srcdir, rel)) or rel.endswith("seccomp-docker.c"):
                continue
            out = subprocess.run(["nm", path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBR":
                    defined[parts[2]] = rel
                elif len(parts) == 2 and parts[0] == "U":
                    uses.setdefault(rel, set()).add(parts[1])
    edges = {}
    for rel, syms in uses.items():
        for sym in syms:
            to = defined.get(sym)
            if to and to != rel and not to.startswith(REGISTRIES.get(rel, "\0")):
                edges.setdefault(rel, {}).setdefault(to, set()).add(sym)
    against = []
    for a, tos in sorted(edges.items()):
        for b, syms in sorted(tos.items()):
            la, lb = layer_of(a), layer_of(b)
            if la != lb and lb not in BELOW.get(la, set()) and (la, b) not in CALL_EXCEPTIONS:
                against.append(f"{a} -> {b}: {', '.join(sorted(syms)[:4])}")
            elif a.startswith(ROOMS_OF) and not room_of(a) and room_of(b):
                against.append(f"{a} -> {b}: a shared report file calls room {room_of(b)}: "
                               f"{', '.join(sorted(syms)[:4])}")
    # Tarjan's strongly connected components: every set of more than one file is a circle.
    index, low, stack, on, circles = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(" <-> ".join(sorted(comp)))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return against, circles


objdir = os.environ.get("UCB_OBJDIR") or os.path.join(os.getcwd(), "src")
if os.path.exists(os.path.join(objdir, "core", "error.o")):
    cagainst, ccircles = call_findings(objdir, src)
    check(not cagainst, "no call runs against the rule (nm over the objects)", cagainst)
    check(not ccircles, "no circle of files that call each other", ccircles)
else:
    for what in ("no call runs against the rule", "no circle of files that call each other"):
        n += 1
        print(f"ok {n} - {what} # SKIP no objects under {objdir} (run from the build directory)")

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
    # Rooms: a shared report file into a room, a room into another's inner file, the CLI into
    # a room's inner file are faults; a room's own files, another room's way in, the CLI's
    # include of the way in and a room's include of a shared file are not.
    for rel, text in {"report/r/r.h": "", "report/r/inner.h": '#include "report/r/r.h"\n',
                      "report/s.h": '#include "report/r/inner.h"\n',
                      "report/q/q.c": '#include "report/r/r.h"\n#include "report/r/inner.h"\n'
                                      '#include "report/s.h"\n',
                      "cli/x.c": '#include "report/r/r.h"\n#include "report/q/inner.h"\n',
                      "report/q/inner.h": ""}.items():
        os.makedirs(os.path.dirname(os.path.join(bad, rel)), exist_ok=True)
        with open(os.path.join(bad, rel), "w", encoding="utf-8") as f:
            f.write(text)
    u, a, c, o = findings(bad)
    r = findings.rooms
    check(len(u) == 1 and len(a) == 2 and len(c) == 1 and len(o) == 1 and len(r) == 3,
          "self-test: a tree with one fault of each kind is caught on every rule",
          [f"unqualified {u}", f"against {a}", f"circles {c}", f"over {o}", f"rooms {r}"])
    # JSON below the CLI: directly, through a header, and exceptions that need none or name no
    # file (JSON_EXCEPTIONS is empty: only this keeps the stale-exception rule tested).
    for rel, text in {"engine/g.c": "#include <jansson.h>\n", "host/h.h": '#include "core/json-util.h"\n',
                      "host/i.c": '#include "host/h.h"\n', "core/json-util.h": "",
                      "verify/l.c": '#include "host/h.h"\n', "workloads/m.c": "#include <jansson.h>\n",
                      "host/j.c": "\n", "cli/k.c": "#include <jansson.h>\n"}.items():
        os.makedirs(os.path.dirname(os.path.join(bad, rel)), exist_ok=True)
        with open(os.path.join(bad, rel), "w", encoding="utf-8") as f:
            f.write(text)
    jb, js = json_findings(bad, {"host/j.c": "no longer includes it", "host/gone.c": "was removed"})
    check(len(jb) == 5 and len(js) == 2 and not any(x.startswith("cli/") for x in jb),
          "self-test: JSON in engine/, host/, verify/ or workloads/ is caught, directly or through a "
          "header; an exception that needs none or names no file is caught",
          [f"json {jb}", f"stale {js}"])
    # Calls without includes: core/x.c calls host/y.c (against the rule), which calls back.
    import shutil
    import subprocess
    cc = os.environ.get("CC", "cc").split()[0]
    if shutil.which(cc) and shutil.which("nm"):
        for rel, text in {"core/x.c": "int y (void);\nint x (void) { return y (); }\n",
                          "host/y.c": "int x (void);\nint y (void) { return x () + 1; }\n",
                          "report/s.c": "int t (void);\nint s (void) { return t (); }\n",
                          "report/r/t.c": "int t (void) { return 1; }\n"}.items():
            with open(os.path.join(bad, rel), "w", encoding="utf-8") as f:
                f.write(text)
            subprocess.run([cc, "-c", os.path.join(bad, rel), "-o", os.path.join(bad, rel[:-2] + ".o")],
                           check=True)
        ca, cc_ = call_findings(bad, bad)
        check(len(ca) == 2 and len(cc_) == 1,
              "self-test: a call against the rule, a shared report file's call into a room and a call "
              "circle are caught",
              [f"against {ca}", f"circles {cc_}"])
print(f"1..{n}")
sys.exit(1 if failed else 0)
