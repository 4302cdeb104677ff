#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""contention.py - a task that should own a CPU but shares it with a CPU hog comes out
contended: its CPU share (~0.5) is recorded per sample and per point, the text table marks the
row, stderr warns once and config.notes keeps the warning (also under --quiet, which only
silences stderr).  Without the hog this shared machine cannot promise quiet, so that run is
checked for consistency (every flag agrees with the recorded shares and the threshold), and
--contention-threshold 0.01 gives the deterministic negative.  Bad thresholds are usage
errors."""
import json
import os
import statistics
import subprocess
import sys

from taplib import (UCBENCH, HostLoad, Tap, busy_reason, loadavg, ran, run, scratch_dir,
                    skip_all, uid_block, userns_works, wait_for)

if not userns_works():
    skip_all("user namespaces cannot be created here")
if 0 not in os.sched_getaffinity(0):
    skip_all("CPU 0 is not in this process's allowed set")

t = Tap()
BASE = uid_block(2101300000, 100)  # a range of its own: 1 container per run
TMP = scratch_dir("contention")
ARGS = ["run", "--workload", "getppid", "--containers", "1", "--owner", "shared", "--pin", "0",
        "--duration", "1", "--warmup", "0.3", "--interval", "0.25", "--uid-base", str(BASE)]
if os.geteuid() != 0:
    ARGS[ARGS.index("shared")] = "self"


def ucbench(name, extra=()):
    """One run: (the completed process, its document or None)."""
    out = os.path.join(TMP, name + ".json")
    r = run(ARGS + ["--output", out] + list(extra), timeout=120)
    try:
        with open(out) as f:
            return r, json.load(f)
    except (OSError, ValueError):
        return r, None


def task_samples(doc):
    return [s for c in doc["results"][0]["per_container"] for tk in c["tasks"]
            for s in tk["samples"]]


def consistent(doc):
    """Every flag of the only point agrees with its shares and its threshold: '' or why not."""
    p = doc["results"][0]
    c = p["contention"]
    th = doc["config"]["contention_threshold"]
    samples = task_samples(doc)
    shares = [s["cpu_share"] for s in samples if s["cpu_share"] is not None]
    flagged = [s for s in samples if s["contended"]]
    # a late reading (ucbench itself waited for the CPU) makes its interval contended too
    want = [s for s in samples if s.get("late") or (c["owns_cpu"] and s["cpu_share"] is not None
                                                    and s["cpu_share"] < th)]
    if c["threshold"] != th:
        return f"threshold {c['threshold']} is not config's {th}"
    if len(flagged) != len(want) or c["contended_samples"] != len(want):
        return f"{len(flagged)} flagged, {c['contended_samples']} counted, {len(want)} below {th}"
    if c["samples"] != len(samples):
        return f"samples {c['samples']} != {len(samples)}"
    if c["contended"] != (10 * len(want) > len(samples)):
        return f"contended {c['contended']} with {len(want)} of {len(samples)}"
    if not shares or abs(c["cpu_share_median"] - statistics.median(shares)) > 1e-6:
        return f"median {c['cpu_share_median']} of {shares}"
    if abs(c["cpu_share_min"] - min(shares)) > 1e-6:
        return f"min {c['cpu_share_min']} of {shares}"
    for cs in p["per_container"][0]["samples"]:
        if cs["contended"] != any(s["contended"] for s in samples if s["t"] == cs["t"]):
            return f"container sample at {cs['t']} disagrees with its task"
    if len(p["host_samples"]) != len(samples):
        return f"{len(p['host_samples'])} host samples for {len(samples)} intervals"
    return ""


def row_marked(stdout):
    rows = [ln for ln in stdout.splitlines() if ln.startswith("getppid")]
    # The mark lists every flag of the point: beside the hog the canary may see the host's speed
    # move too (`* contended,speed-moved`).
    marks = rows[0].rstrip().rsplit("* ", 1) if len(rows) == 1 else []
    return len(marks) == 2 and "contended" in marks[1].split(",")


def cpu_of_fair(stdout, c):
    """Whether the row's cpu/fair cell is cpu_share_median / fair_share of the same run."""
    rows = [ln.split() for ln in stdout.splitlines() if ln.startswith("getppid")]
    if len(rows) != 1 or len(rows[0]) < 12 or c.get("cpu_share_median") is None:
        return False
    return rows[0][10] == f"{c['cpu_share_median'] / c['fair_share']:.2f}"


def warned(stderr):
    return stderr.count("the host was busy") == 1


# ---- without a hog: whatever the machine does, the flags agree with the numbers ----
r, doc = ucbench("plain")
t.ok(r.returncode == 0 and doc is not None, "a run without a hog succeeds", r.stderr)
if doc:
    c = doc["results"][0]["contention"]
    why = consistent(doc)
    t.ok(why == "", "without a hog: every flag agrees with the shares and the threshold", why)
    t.ok(c["owns_cpu"] is True, "one task pinned alone to CPU 0 should own it", json.dumps(c))
    t.ok(row_marked(r.stdout) == c["contended"] and warned(r.stderr) == c["contended"],
         "without a hog: the table marks the row and stderr warns exactly when contended",
         r.stdout + r.stderr)
    t.ok(cpu_of_fair(r.stdout, c), "without a hog: the cpu/fair cell is cpu_share_median / "
         "fair_share of the document", r.stdout + json.dumps(c))
    t.diag(f"no hog: cpu_share_median {c['cpu_share_median']}, contended {c['contended']}")

r, doc = ucbench("low", ["--contention-threshold", "0.01"])
if doc:
    c = doc["results"][0]["contention"]
    below = [s for s in task_samples(doc) if s.get("late") or (s["cpu_share"] is not None
                                                              and s["cpu_share"] < 0.01)]
    t.ok(doc["config"]["contention_threshold"] == 0.01 and c["threshold"] == 0.01
         and consistent(doc) == "" and c["contended_samples"] == len(below)
         and (not c["contended"] or 10 * len(below) > c["samples"]),
         "--contention-threshold 0.01: not contended unless the task really got < 0.01 of a CPU",
         json.dumps(c))
    t.ok(c["contended"] or (not row_marked(r.stdout) and not warned(r.stderr)),
         "--contention-threshold 0.01: no mark and no warning", r.stdout + r.stderr)
else:
    t.ok(False, "a run with --contention-threshold 0.01 succeeds", r.stderr)

# ---- with a CPU hog on the same CPU ----
REPEAT3 = ["--repeat", "3", "--duration", "0.5", "--warmup", "0.2", "--quiet"]
r3, base3 = ucbench("base3", REPEAT3)  # compare's base: before the hog
hog = subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c", "while True: pass"])
try:
    t.ok(wait_for(lambda: ran([hog.pid], 0.2)), "the hog runs on CPU 0")
    r, doc = ucbench("hog")
    rq, docq = ucbench("hog-quiet", ["--quiet"])
    h3, hog3 = ucbench("hog3", REPEAT3)
finally:
    hog.kill()
    hog.wait()
# The hog halves the ops/s; compare must see that the head's runs were starved, not slower:
# its contended repeats are left out, so the verdict is inconclusive, never a regression.
if base3 and hog3:
    rc = run(["compare", os.path.join(TMP, "base3.json"), os.path.join(TMP, "hog3.json"),
              "--format", "json"])
    pts = json.loads(rc.stdout).get("points", []) if rc.stdout else []
    v = pts[0]["verdict"] if len(pts) == 1 else None
    t.ok(rc.returncode == 0 and v == "inconclusive (contended)",
         f"compare before/beside the hog: {v}, never a regression", rc.stdout[-1500:] + rc.stderr)
else:
    t.ok(False, "the --repeat 3 runs before and beside the hog succeed", r3.stderr + h3.stderr)
t.ok(r.returncode == 0 and doc is not None, "a run beside the hog succeeds", r.stderr)
if doc:
    c = doc["results"][0]["contention"]
    t.diag(f"hog: cpu_share_median {c['cpu_share_median']}, {c['contended_samples']} of "
           f"{c['samples']} samples contended, nivcsw {c['nivcsw']}")
    t.ok(c["contended"] is True and c["owns_cpu"] is True, "beside the hog: the point is contended",
         json.dumps(c))
    t.ok(c["cpu_share_median"] < 0.9, "beside the hog: cpu_share_median < 0.9 (about 0.5)",
         json.dumps(c))
    t.ok(consistent(doc) == "", "beside the hog: the flags agree with the shares", consistent(doc))
    t.ok(isinstance(c["nivcsw"], int) and c["nivcsw"] > 0,
         "beside the hog: the task was preempted (involuntary context switches)", json.dumps(c))
    t.ok(row_marked(r.stdout)
         and "(contended: its tasks got less CPU than their fair share;" in r.stdout,
         "beside the hog: the table marks the row and explains the mark", r.stdout)
    t.ok(cpu_of_fair(r.stdout, c) and "cpu/fair" in r.stdout.splitlines()[0],
         "beside the hog: the cpu/fair cell is cpu_share_median / fair_share of the document",
         r.stdout + json.dumps(c))
    t.ok(warned(r.stderr) and "1 of 1 measured points contended" in r.stderr,
         "beside the hog: stderr warns once", r.stderr)
    t.ok(any("the host was busy" in n for n in doc["config"]["notes"]),
         "beside the hog: config.notes keeps the warning", json.dumps(doc["config"]["notes"]))
if docq:
    t.ok(rq.stderr == "" and any("the host was busy" in n for n in docq["config"]["notes"]),
         "--quiet: no warning on stderr, still in config.notes", rq.stderr)
else:
    t.ok(False, "a --quiet run beside the hog succeeds", rq.stderr)

# ---- the schema knows the new fields: it accepts the document and rejects broken ones ----
try:
    import copy
    import jsonschema
    from taplib import SRCDIR
    with open(os.path.join(SRCDIR, "docs", "ucbench-result.schema.json")) as f:
        V = jsonschema.Draft202012Validator(json.load(f))
except (ImportError, AttributeError):
    V = None
if V is None or doc is None:
    t.skip("the schema accepts contention and rejects broken values", "no jsonschema 4 or no document")
else:
    def broken(change):
        d = copy.deepcopy(doc)
        change(d)
        return any(True for _ in V.iter_errors(d))
    p0 = lambda d: d["results"][0]  # noqa: E731
    t.ok(not any(True for _ in V.iter_errors(doc))
         and broken(lambda d: p0(d)["contention"].__setitem__("contended", "yes"))
         and broken(lambda d: p0(d)["contention"].pop("owns_cpu"))
         and broken(lambda d: p0(d)["contention"].__setitem__("threshold", 1.5))
         and broken(lambda d: p0(d)["per_container"][0]["tasks"][0]["samples"][0]
                    .__setitem__("cpu_share", -1))
         and broken(lambda d: p0(d)["host_samples"][0].pop("idle_pct"))
         and broken(lambda d: d["config"].__setitem__("contention_threshold", 0)),
         "the schema accepts contention and rejects broken values")

# ---- fair share: oversubscribed (2 tasks on each CPU) and unpinned points are judged too ----
# Each is run on its own, then beside hogs that take CPU from it: quiet, no point is marked
# (or the host measured busy: skip with the reason); beside the hogs, every one is.
ALL2 = {0, 1} <= os.sched_getaffinity(0)
FAIR = {"oversubscribed": ["--containers", "4", "--pin", "auto"],
        "unpinned": ["--containers", "1", "--pin", "none"]}


def taken(doc, load):
    """Why a point whose tasks were short of CPU may have lost it: another process ran
    meanwhile (a tenth of a CPU is plenty: the tasks' fair share is judged within 10 %), or the
    document's own evidence."""
    o = load.others()
    if o is not None and o[0] >= 0.1:
        return (f"host busy: other processes used {o[0]:.2f} CPUs over {o[1]:.1f} s while the "
                f"point's tasks needed every CPU, load average {loadavg()}")
    return busy_reason(doc, load)


def fair_run(name, extra):
    return ucbench(name, ["--no-baseline", "--quiet", "--duration", "1.5", "--interval", "0.5"]
                   + extra)


if not ALL2:
    for kind in FAIR:
        t.skip(f"{kind}: judged against the fair share", "CPUs 0 and 1 are not both allowed")
else:
    for kind, extra in FAIR.items():
        load = HostLoad()
        r, doc = fair_run("fair-" + kind, extra)
        if doc is None:
            t.ok(False, f"{kind}: a run succeeds", r.stderr)
            continue
        c = doc["results"][0]["contention"]
        want = 0.5 if kind == "oversubscribed" else 1.0
        t.ok(c["fair_share"] == want and c["owns_cpu"] is False,
             f"{kind}: fair share {want}, owns no CPU", json.dumps(c))
        t.busy(not c["contended"], f"{kind}: quiet, not contended (cpu {c['cpu_share_median']})",
               lambda: taken(doc, load), json.dumps(c))
        hogs = [subprocess.Popen(["taskset", "-c", str(k), sys.executable, "-c",
                                  "while True: pass"]) for k in (0, 1)]
        try:
            t.ok(wait_for(lambda: ran([h.pid for h in hogs], 0.2)), f"{kind}: the hogs run")
            r, doc = fair_run("fair-hog-" + kind, extra)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        c = doc["results"][0]["contention"] if doc else {}
        t.ok(c.get("contended") is True,
             f"{kind}: beside two hogs, contended (cpu {c.get('cpu_share_median')} of a fair "
             f"{c.get('fair_share')})", json.dumps(c))

# ---- bad thresholds: one line, exit 2 ----
for bad in ("0", "1.5", "-0.5", "abc", ""):
    r = run(ARGS + ["--contention-threshold", bad])
    first = r.stderr.splitlines()[0] if r.stderr else ""
    t.ok(r.returncode == 2 and first.startswith("ucbench: ") and "--contention-threshold" in first
         and f"`{bad}`" in first and r.stdout == "",
         f"--contention-threshold `{bad}`: a one-line error naming it, exit 2", r.stderr)
t.done()
