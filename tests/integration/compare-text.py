# SPDX-License-Identifier: GPL-2.0-or-later
"""compare-text.py - `ucbench compare`'s default text can be checked by its reader (issue 34):
on every row the head ops/s column divided by the base one, as printed, rounds to the printed
ratio (the columns are what the ratio is of, the geometric means, to enough digits), and at
most three lines come before the table.  Over real and golden pairs (examples/run-small.json,
tests/golden/*) and documents made from the example: random levels at rates from under 1 to
millions of ops/s, one repeat, contended repeats (the ratio of all of them), several documents
a side (the document is the unit), --normalize canary with a moved canary, differences within a
side; a verify pair.  What changes what a reader may conclude stays in the default text (the
caveat, the keys that differ, a flagged or contended row); -v has the method and every note."""
import copy
import json
import os
import random

from taplib import SRCDIR, Tap, doc_scratch, run

t = Tap()
d, path, write = doc_scratch("ucb-cmptext-")
EX = os.path.join(SRCDIR, "examples")
GOLD = os.path.join(SRCDIR, "tests", "golden")
base0 = json.load(open(os.path.join(EX, "run-small.json")))
rng = random.Random(34)  # fixed: the same documents every run


def make(levels, scale=1e5, contended=(), canary=None, moved=(), kernel=None):
    """The example's points, a repeat per level (per-container ops/s `scale` x level, each op's
    CPU time what the rate says); repeats in `contended` contended; with `canary` (loops/s per
    repeat) a canary object, `moved` among them flagged as having moved."""
    doc = copy.deepcopy(base0)
    if kernel:
        doc["host"]["kernel"]["release"] = kernel
    doc["results"] = []
    for r in base0["results"]:
        for k, lv in enumerate(levels):
            x = copy.deepcopy(r)
            x["repeat"] = k + 1
            x["summary"]["per_container_ops"] = scale * lv
            x["summary"]["cpu_ns_per_op"] = 1e9 / (scale * lv)
            for pc in x["per_container"]:
                pc["rate_ops_per_s"] = scale * lv
                pc["cpu_ns_per_op"] = 1e9 / (scale * lv)
            if k in contended:
                x["contention"] = {"contended": True, "cpu_share_median": 0.4, "owns_cpu": True}
            if canary:
                x["canary"] = {"unit": "loops/s", "cpus": [0], "before": canary[k],
                               "after": canary[k] * (1.2 if k in moved else 1.0),
                               "change_pct": 20.0 if k in moved else 0.0, "threshold_pct": 10.0,
                               "moved": k in moved}
            doc["results"].append(x)
    doc["config"]["repeat"] = len(levels)
    return doc


def jitter(n, level=1.0, spread=0.05):
    return [level * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def table(text):
    """(lines before the table, its rows as lists of fields, the problems of its rows)."""
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines) if ln.startswith("workload ")), None)
    if at is None:
        return None, [], ["no table header"]
    rows, bad = [], []
    for ln in lines[at + 1:]:
        if ln.startswith("#"):
            break
        f = ln.split()
        rows.append(f)
        b, h, ratio = f[6], f[7], f[8]
        if ratio == "-":
            if b != "-" and h != "-":
                bad.append(f"no ratio, yet both columns: {ln}")
            continue
        try:
            got = f"{float(h) / float(b):.3f}"
        except (ValueError, ZeroDivisionError):
            got = None
        if got != ratio:
            bad.append(f"{h} / {b} = {got}, printed {ratio}: {ln}")
    return at, rows, bad


cases = []  # (what, compare's arguments)
ex, gs, gr = (os.path.join(EX, "run-small.json"), os.path.join(GOLD, "usl-signal1-stock.json"),
              os.path.join(GOLD, "usl-signal1-rlimit-cache.json"))
cases += [("the example against itself", [ex, ex]),
          ("golden: stock against rlimit-cache", [gs, gr]),
          ("golden: the other way, --drift 0", [gr, gs, "--drift", "0"]),
          ("golden: --normalize canary without a canary (a warning)",
           [gs, gr, "--normalize", "canary"])]
for k, scale in enumerate((0.8, 150.7, 1234.5, 9876.5, 7.3e4, 2.4e5, 3.1e6)):
    for j in range(3):
        b = write(f"r{k}b{j}.json", make(jitter(3), scale))
        h = write(f"r{k}h{j}.json", make(jitter(3, rng.uniform(0.6, 1.4), 0.1), scale))
        cases.append((f"3 repeats a side at about {scale} ops/s, pair {j}", [b, h]))
cases.append(("one repeat a side",
              [write("one-b.json", make([1.0], 73157.0)), write("one-h.json", make([1.1], 80989))]))
cb = write("cont-b.json", make(jitter(3)))
cases.append(("two of three head repeats contended (the ratio of all of them, c)",
              [cb, write("cont-h.json", make(jitter(3, 0.8), contended=(0, 1)))]))
cases.append(("one of four head repeats contended, left out",
              [cb, write("cont1-h.json", make(jitter(4, 0.9) , contended=(3,)))]))
docs = []
for side, lv in (("b", 1.0), ("h", 0.93)):
    docs.append([write(f"doc{side}{i}.json", make(jitter(3, lv * rng.uniform(0.97, 1.03), 0.02),
                                                  kernel=f"6.{i}" if side == "h" else None))
                 for i in range(3)])
cases.append(("three documents a side, their kernels differing on head (the document is the unit)",
              [a for f in docs[0] for a in ("--base", f)] + [a for f in docs[1] for a in ("--head", f)]))
cases.append(("--normalize canary, a moved canary on base",
              [write("can-b.json", make(jitter(3), canary=[8e8, 8.4e8, 7.7e8], moved=(1,))),
               write("can-h.json", make(jitter(3, 1.1), canary=[6e8, 6.2e8, 5.9e8])),
               "--normalize", "canary"]))

rows_seen = 0
for what, args in cases:
    r = run(["compare"] + args)
    at, rows, bad = table(r.stdout)
    rows_seen += len(rows)
    t.ok(r.returncode in (0, 1) and rows and not bad,
         f"{what}: head/base of the printed ops/s gives the printed ratio on each of "
         f"{len(rows)} rows", "\n".join(bad) + "\n" + r.stdout + r.stderr)
    t.ok(at is not None and at <= 3, f"{what}: at most 3 lines before the table ({at})",
         r.stdout)
t.ok(rows_seen >= 50, f"{rows_seen} rows checked")

# What changes the reading stays in the default text, briefly.
r = run(["compare", cb, path("cont-h.json")])
t.ok("[head: contended]" in r.stdout and "# c: the ratio of every repeat" in r.stdout
     and "assumed, 3.0% a side (--drift)" in r.stdout and "# method" not in r.stdout,
     "default: contended rows marked, the one-invocation caveat said; the method not", r.stdout)
r = run(["compare"] + cases[-2][1])
t.ok("# note: the documents differ in host.kernel.release (-v: how)" in r.stdout,
     "default: a difference named by its key", r.stdout)
r = run(["compare"] + cases[-1][1])
t.ok("[base: speed-moved]" in r.stdout and "head's at base's host speed" in r.stdout,
     "--normalize canary: the moved canary flags its row; the columns say what they are",
     r.stdout)
r = run(["compare", "-v"] + cases[-2][1])
t.ok(r.stdout.count("# base:") == 3 and "# method: ratio head/base of the geometric means"
     in r.stdout and "# runs b/h:" in r.stdout
     and "# note: the documents of a side differ in host.kernel.release" in r.stdout,
     "-v: every document, the method, the legend and each note in full", r.stdout)
r2 = run(["compare", "--verbose"] + cases[-2][1])
t.ok(r2.stdout == r.stdout, "--verbose is -v")
if os.environ.get("SHOW"):  # to read the outputs: SHOW=1 python3 compare-text.py
    for what, args in cases:
        t.diag(f"{what}:\n" + run(["compare"] + args).stdout)

# A verify pair has no row: still at most 3 lines before the (empty) table.
vs = os.path.join(EX, "verify-small.json")
r = run(["compare", vs, vs])
at, rows, bad = table(r.stdout)
t.ok(r.returncode == 0 and at is not None and at <= 3 and not rows,
     f"verify documents: {at} lines before the table, no row", r.stdout)

t.done()
