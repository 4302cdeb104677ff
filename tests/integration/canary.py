#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""canary.py - the host-speed canary: every results[] entry of a run has `canary` (positive
before and after rates on the CPUs its tasks ran on, the change and the moved flag agreeing
with them); `compare --normalize canary` on hand-edited documents divides each repeat's ops/s
by its canary (a head whose canary halved with the same ops/s is a doubling; its CPU ns/op
ratio halves), `none` ignores it, and a document without a canary is compared raw with a
warning."""
import copy
import json
import math
import os

from taplib import Tap, doc_scratch, run, uid_block, userns_works

t = Tap()
d, path, write = doc_scratch("ucb-canary-")

# ---- a run: every entry has its canary ------------------------------------------------------
if not userns_works():
    t.skip("every entry of a run has a canary", "user namespaces cannot be created here")
else:
    base = uid_block(2106100000, 100)
    owner = "shared" if os.geteuid() == 0 else "self"
    r = run(["run", "--workload", "getppid", "--containers", "1", "--owner", owner, "--repeat",
             "2", "--duration", "0.3", "--warmup", "0.1", "--interval", "0.1", "--uid-base", str(base), "--quiet",
             "--output", path("run.json")], timeout=120)
    doc = json.load(open(path("run.json"))) if r.returncode == 0 else {"results": []}
    res = doc["results"]
    t.ok(r.returncode == 0 and len(res) == 2, "the run wrote two entries", r.stderr)
    for e in res:
        c = e.get("canary", {})
        cpus = sorted({cpu for pc in e["per_container"] for cpu in pc["cpus"]})
        t.ok(c.get("unit") == "loops/s" and all(
            isinstance(c.get(k), float) and c[k] > 0
            for k in ("before", "after", "before_wall", "after_wall")),
            f"repeat {e['repeat']}: positive before/after rates in loops/s", json.dumps(c))
        t.ok(c.get("cpus") == cpus, f"repeat {e['repeat']}: measured on the tasks' CPUs {cpus}",
             json.dumps(c))
        ch = 100 * (c["after"] - c["before"]) / c["before"] if c.get("before") else None
        t.ok(ch is not None and abs(c["change_pct"] - ch) < 1e-6
             and c["moved"] == (abs(ch) > c["threshold_pct"]),
             f"repeat {e['repeat']}: change_pct and moved agree with the rates", json.dumps(c))

# ---- compare --normalize on hand-edited documents -------------------------------------------
src = os.path.join(os.environ.get("top_srcdir", "."), "examples", "run-small.json")
ex = json.load(open(src))
one = ex["results"][0]


def doc_of(levels, canary):
    """One point, a repeat per level (per-container ops/s x 1e5, CPU ns/op 1e4 / level), each
    with canary rate `canary` (None: no canary object)."""
    doc = copy.deepcopy(ex)
    doc["results"] = []
    for k, lv in enumerate(levels):
        x = copy.deepcopy(one)
        x["repeat"] = k + 1
        x["summary"]["per_container_ops"] = 1e5 * lv
        x["summary"]["cpu_ns_per_op"] = 1e4 / lv
        x.pop("contention", None)
        x.pop("canary", None)
        if canary is not None:
            x["canary"] = {"unit": "loops/s", "cpus": [0], "before": canary, "after": canary,
                           "change_pct": 0.0, "threshold_pct": 10.0, "moved": False}
        doc["results"].append(x)
    return doc


def cmp(b, h, norm):
    r = run(["compare", b, h, "--format", "json", "--drift", "0", "--normalize", norm])
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = {}
    return r, out, (out.get("points") or [{}])[0]


levels = [1.0, 1.005, 0.995]
b = write("b.json", doc_of(levels, 8e8))
h = write("h.json", doc_of(levels, 4e8))  # the same ops/s on a host half as fast
r, out, p = cmp(b, h, "none")
t.ok(r.returncode == 0 and abs(p.get("ratio", 0) - 1) < 1e-9
     and out["method"]["normalize"] == "none", "--normalize none: the ratio of raw ops/s (1)",
     r.stdout + r.stderr)
r, out, p = cmp(b, h, "canary")
t.ok(abs(p.get("ratio", 0) - 2) < 1e-9 and out["method"]["normalize"] == "canary",
     "--normalize canary: ops/s over a canary halved is a ratio of 2", r.stdout + r.stderr)
t.ok(abs(p.get("cpu_ns_per_op", {}).get("ratio", 0) - 0.5) < 1e-9,
     "--normalize canary: CPU ns/op times the canary, its ratio 0.5", r.stdout + r.stderr)
t.ok(p.get("verdict") == "improvement", "... and that is an improvement", p.get("verdict"))
# The canary of each repeat, not a document-wide one: base repeats whose ops/s follow their
# canary exactly give one normalised level (no spread), a head 10 % faster per canary loop.
speed = [1.0, 1.1, 0.9]
bd = doc_of(speed, 8e8)
hd = doc_of([1.1 * s for s in speed], 8e8)
for k in range(3):
    for x in (bd, hd):
        x["results"][k]["canary"].update(before=8e8 * speed[k], after=8e8 * speed[k])
r, out, p = cmp(write("bs.json", bd), write("hs.json", hd), "canary")
t.ok(abs(p.get("ratio", 0) - 1.1) < 1e-9 and abs(p["ci_high"] - p["ci_low"]) < 1e-6,
     "per repeat: ops/s that follow the canary normalise to one level (ratio 1.1, no width)",
     r.stdout + r.stderr)
r, out, p = cmp(write("bs.json", bd), write("hs.json", hd), "none")
t.ok(p.get("ci_high", 0) - p.get("ci_low", 0) > 0.1,
     "... while raw they spread by the canary's 10 %", r.stdout + r.stderr)
# An older document (no canary): compared raw, said so.
old = write("old.json", doc_of(levels, None))
r, out, p = cmp(old, h, "canary")
t.ok(r.returncode == 0 and out.get("method", {}).get("normalize") == "none"
     and abs(p.get("ratio", 0) - 1) < 1e-9
     and any("--normalize canary" in w and "old.json" in w for w in out.get("warnings", [])),
     "a document without a canary: raw ratio, normalize none, a warning naming it",
     r.stdout + r.stderr)
r = run(["compare", b, h, "--normalize", "canary"])
t.ok("head's at base's host speed (--normalize canary)" in r.stdout,
     "the text table says the ratios are normalised, and what its ops/s columns are", r.stdout)
r = run(["compare", "-v", b, h, "--normalize", "canary"])
t.ok("# normalize canary:" in r.stdout, "-v: how", r.stdout)
r = run(["compare", b, h, "--normalize", "cpu"])
t.ok(r.returncode == 2 and "invalid --normalize `cpu`" in r.stderr.splitlines()[0],
     "--normalize cpu: a usage error naming it, exit 2", r.stderr)
t.done()
