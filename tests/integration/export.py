# SPDX-License-Identifier: GPL-2.0-or-later
"""export.py - `ucbench export`: every format of the examples byte-for-byte against
tests/golden, each checked against what its consumer accepts (zod shape, BMF schema, xmllint,
prove, the googlecpp fields); a flagged point in each format (and its golden); the owner
contrast's entries (gab and bmf, tests/golden/run-owners.*); verdicts of every status; --output;
bad usage is one line, exit 2."""
import copy
import json
import math
import os
import shutil
import statistics
import subprocess
import xml.etree.ElementTree as ET

from taplib import SRCDIR, Tap, reachable_copy, run
from taplib import doc_scratch

t = Tap()
d, path, write = doc_scratch("ucb-exp-")
RUN = os.path.join(SRCDIR, "examples", "run-small.json")
VERIFY = os.path.join(SRCDIR, "examples", "verify-small.json")
GOLDEN = os.path.join(SRCDIR, "tests", "golden")


out = {}
for fmt, src in (("gab", RUN), ("gab-smaller", RUN), ("bmf", RUN), ("gbench", RUN),
                 ("lkp", RUN), ("junit", VERIFY), ("ktap", VERIFY), ("kcidb", RUN),
                 ("kcidb", VERIFY)):
    golden = os.path.join(GOLDEN, os.path.basename(src).replace(".json", "." + fmt))
    r = run(["export", "--to", fmt, src])
    with open(golden) as f:
        want = f.read()
    t.ok(r.returncode == 0 and r.stderr == "" and r.stdout == want,
         f"{fmt}: {os.path.basename(src)} matches {os.path.basename(golden)}",
         r.stderr + r.stdout[:1500])
    out[fmt if fmt != "kcidb" else "kcidb-" + os.path.basename(src)] = r.stdout

# github-action-benchmark: zod BenchmarkResult = {name, value, unit, range?, extra?}.
for fmt, unit in (("gab", "ops/s"), ("gab-smaller", "ns/op")):
    a = json.loads(out[fmt] or "null")
    t.ok(isinstance(a, list) and a and all(
        isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("unit"), str)
        and isinstance(e.get("value"), (int, float)) and not isinstance(e.get("value"), bool)
        and all(isinstance(e[k], str) for k in ("range", "extra") if k in e)
        and e["unit"] == unit for e in a), f"{fmt}: the zod shape, unit {unit}", out[fmt])
doc = json.load(open(RUN))
a = json.loads(out["gab"] or "[]")
t.ok([e["value"] for e in a] == [r["summary"]["per_container_ops"] for r in doc["results"]
                                 if r["status"] == "ok"]
     and all(e["range"].startswith("± ") for e in a),
     "gab: value = summary.per_container_ops, range '± X'")
t.ok(len({e["name"] for e in a}) == len(a) and all(
    e["name"].startswith("signal/shared/depth:1/tasks:1/process/containers:") for e in a),
     "gab: stable distinct names from the sweep point", str([e["name"] for e in a]))

# Bencher Metric Format.
BMF = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "propertyNames": {"maxLength": 1024, "minLength": 1},
    "additionalProperties": {
        "type": "object",
        "propertyNames": {"maxLength": 64, "minLength": 1},
        "additionalProperties": {
            "type": "object",
            "required": ["value"],
            "properties": {"value": {"type": "number"}, "lower_value": {"type": "number"},
                           "upper_value": {"type": "number"}},
        },
    },
}
try:
    import jsonschema
except ImportError:
    jsonschema = None
bmf = json.loads(out["bmf"] or "null")
if jsonschema is None:
    t.skip("bmf: valid against the BMF schema", "python3-jsonschema is not installed")
else:
    try:
        jsonschema.validate(bmf, BMF)
        t.ok(True, "bmf: valid against the BMF schema")
    except jsonschema.ValidationError as e:
        t.ok(False, "bmf: valid against the BMF schema", str(e)[:1000])
t.ok(isinstance(bmf, dict) and all(
    m["throughput"]["lower_value"] <= m["throughput"]["value"] <= m["throughput"]["upper_value"]
    and "cpu_ns_per_op" in m and "latency" not in m for m in bmf.values()),
     "bmf: throughput and cpu_ns_per_op measures (no latency), lower <= value <= upper")

# Google Benchmark, as github-action-benchmark's googlecpp extractor reads it.
g = json.loads(out["gbench"] or "{}")
rows = g.get("benchmarks", [])
t.ok(rows and all(all(k in b for k in ("name", "real_time", "time_unit", "iterations",
                                       "cpu_time", "threads")) and b["run_type"] == "iteration"
                  and b["time_unit"] == "ns" for b in rows)
     and g["context"].get("executable") == "ucbench"
     and g["context"].get("json_schema_version") == 1,
     "gbench: the googlecpp fields, iteration rows only, context", out["gbench"][:1500])
t.ok(all(abs(b["real_time"] * r["summary"]["total_ops_per_s"] - 1e9) < 1e3
         and b["threads"] == r["containers"] * r["tasks"]
         and b["iterations"] == sum(c["ops"] for c in r["per_container"])
         for b, r in zip(rows, doc["results"]))
     and not {"mhz_per_cpu", "cpu_scaling_enabled", "caches"} & set(g["context"]),
     "gbench: as Google Benchmark counts threads: real_time = 1e9 / total_ops_per_s, "
     "iterations = all ops; no invented context")

# LKP: flat key: value lines.
lines = out["lkp"].splitlines()
t.ok(lines and all(len(ln.split(": ")) == 2 and ln.startswith("signal.shared.")
                   and float(ln.split(": ")[1]) >= 0 for ln in lines)
     and "signal.shared.2.per_container_ops: 239908.4642" in lines
     and "signal.shared.2.per_process_ops: 239908.4642" in lines
     and "signal.shared.2.workload: 479816.9283" in lines
     and any(ln.startswith("signal.shared.2.per_container_ops_stddev: ") for ln in lines),
     "lkp: key: value lines WORKLOAD.OWNER.N.FIELD (dump-stat adds ucbench.), will-it-scale's "
     "per_process_ops and workload", out["lkp"])

# A flagged point (ucb_point_flags: results[1] starved and contended): every format says so in
# its consumer's own terms (docs/exporters.md "Flagged points"), byte-for-byte against
# tests/golden/run-small-flagged.*; the clean point's output is the same as in run-small.*.
fdoc = copy.deepcopy(doc)
fdoc["results"][1]["contention"] = {"contended": True, "starved": True}
fpath = write("run-small-flagged.json", fdoc)
fout = {}
for fmt in ("gab", "gab-smaller", "bmf", "gbench", "lkp", "kcidb"):
    r = run(["export", "--to", fmt, fpath])
    with open(os.path.join(GOLDEN, "run-small-flagged." + fmt)) as f:
        want = f.read()
    t.ok(r.returncode == 0 and r.stderr == "" and r.stdout == want,
         f"{fmt}: a flagged document matches run-small-flagged.{fmt}", r.stderr + r.stdout[:1500])
    fout[fmt] = r.stdout
for fmt in ("gab", "gab-smaller"):
    a, b = json.loads(out[fmt] or "[]"), json.loads(fout[fmt] or "[]")
    t.ok(len(a) == len(b) == 2 and a[0] == b[0] and "flagged" not in b[0]["extra"]
         and b[1]["extra"] == a[1]["extra"] + "\nflagged: starved,contended"
         and {k: v for k, v in b[1].items() if k != "extra"}
         == {k: v for k, v in a[1].items() if k != "extra"},
         f"{fmt}: a flagged point's extra ends 'flagged: FLAGS', nothing else changes",
         fout[fmt])
a, b = json.loads(out["bmf"] or "{}"), json.loads(fout["bmf"] or "{}")
name2 = "signal/shared/depth:1/tasks:1/process/containers:2"
t.ok(set(b) == {k if k != name2 else k + "-bencher-ignore" for k in a}
     and b[name2 + "-bencher-ignore"] == a[name2],
     "bmf: a flagged point's name ends in -bencher-ignore, its measures unchanged", fout["bmf"])
a, b = json.loads(out["gbench"] or "{}"), json.loads(fout["gbench"] or "{}")
rows = b.get("benchmarks", [])
t.ok(len(rows) == 2 and "label" not in rows[0]
     and rows[1].get("label") == "flagged: starved,contended"
     and not any("error_occurred" in x for x in rows)
     and {k: v for k, v in rows[1].items() if k != "label"} == a["benchmarks"][1],
     "gbench: a flagged repeat has label 'flagged: FLAGS' (data, not error_occurred)",
     fout["gbench"][:1500])
extra = [ln for ln in fout["lkp"].splitlines() if ln not in out["lkp"].splitlines()]
t.ok(fout["lkp"].startswith(out["lkp"].split("signal.shared.2.")[0])
     and extra == ["signal.shared.2.flagged.starved: 1", "signal.shared.2.flagged.contended: 1"],
     "lkp: a flagged point adds POINT.flagged.FLAG: 1 per flag", fout["lkp"])

# A document with repeats, tasks, thread mode and depth 0: names and the median over repeats.
rep = copy.deepcopy(doc)
rep["results"] = []
for k, f in enumerate((1.0, 3.0, 2.0)):
    e = copy.deepcopy(doc["results"][1])
    e.update(repeat=k + 1, depth=3, tasks=2, mode="thread")
    e["summary"]["per_container_ops"] *= f
    rep["results"].append(e)
e = copy.deepcopy(doc["results"][0])
e.update(depth=0)
e["summary"]["scalability"] = None
rep["results"].append(e)
sk = copy.deepcopy(doc["results"][0])
sk.update(status="skipped", workload="seccomp", per_container=[])
rep["results"].append(sk)
pr = write("rep.json", rep)
r = run(["export", "--to", "lkp", pr])
want = "signal.shared.d3.t2.thread.2.per_container_ops: %.10g" % (
    doc["results"][1]["summary"]["per_container_ops"] * 2.0)
t.ok(r.returncode == 0 and want in r.stdout.splitlines()
     and r.stdout.count(".d3.t2.thread.2.per_container_ops: ") == 1
     and "signal.shared.d0.1.fairness: 1" in r.stdout
     and ".d3.t2.thread.2.per_thread_ops: " in r.stdout
     and "d0.1.scalability" not in r.stdout and "seccomp" not in r.stdout,
     "lkp: depth/tasks/mode in the name when not default, median over repeats, null and "
     "skipped left out", r.stdout + r.stderr)
r = run(["export", "--to", "gab", pr])
names = [e["name"] for e in json.loads(r.stdout or "[]")]
gab_rep = json.loads(r.stdout or "[]")
t.ok(r.returncode == 0 and len(names) == 2 and len(set(names)) == 2
     and "signal/shared/depth:3/tasks:2/thread/containers:2" in names
     and gab_rep[0]["value"] == doc["results"][1]["summary"]["per_container_ops"] * 2.0
     and gab_rep[0]["range"] == "± %.1f" % doc["results"][1]["summary"]["per_container_ops"],
     "gab with repeats: one series per point, the median, half the repeats' spread as range; "
     "skipped points left out", r.stdout)
r = run(["export", "--to", "gbench", pr])
rows = json.loads(r.stdout or "{}").get("benchmarks", [])
base = "signal/shared/depth:3/tasks:2/thread/containers:2"
t.ok(r.returncode == 0 and not any("label" in b for b in rows),
     "gbench: no label without a flagged repeat", r.stdout[:500])
# One of the three repeats contended: its row says so, the aggregates (over all three) too, and
# the dashboards that show the median say in how many repeats.
rf = copy.deepcopy(rep)
rf["results"][1]["contention"] = {"contended": True}
prf = write("rep-flagged.json", rf)
fr = json.loads(run(["export", "--to", "gbench", prf]).stdout or "{}").get("benchmarks", [])
fg = json.loads(run(["export", "--to", "gab", prf]).stdout or "[]")
fl = run(["export", "--to", "lkp", prf]).stdout.splitlines()
t.ok(len(fr) == 8 and [b.get("label") for b in fr[:7]]
     == [None, "flagged: contended", None] + ["flagged: contended in 1 of 3 repeats"] * 4
     and "label" not in fr[7]
     and fg[0]["extra"].endswith("\nflagged: contended in 1 of 3 repeats")
     and "flagged" not in fg[1]["extra"]
     and "signal.shared.d3.t2.thread.2.flagged.contended: 1" in fl
     and sum(".flagged." in ln for ln in fl) == 1,
     "1 of 3 repeats contended: gbench labels that row and the aggregates, gab's extra and lkp "
     "name the point", json.dumps(fr[:8])[:2000] + json.dumps(fg))
t.ok(r.returncode == 0 and [b["repetition_index"] for b in rows[:3]] == [0, 1, 2]
     and all(b["repetitions"] == 3 for b in rows[:7]) and rows[0]["threads"] == 4
     and [b["name"] for b in rows[:7]] == [base] * 3 + [base + "_" + a for a in
                                                       ("mean", "median", "stddev", "cv")]
     and [b["run_type"] for b in rows[:7]] == ["iteration"] * 3 + ["aggregate"] * 4
     and [b.get("aggregate_unit") for b in rows[3:7]] == ["time"] * 3 + ["percentage"]
     and all(b["run_name"] == base for b in rows[:7]) and rows[7]["repetitions"] == 1,
     "gbench with repeats: one name, repetition_index 0..2, then _mean/_median/_stddev/_cv",
     r.stdout[:1500])

# JUnit and KTAP: the example, and one verdict of every status.
try:
    root = ET.fromstring(out["junit"])
    cases = root.findall("./testsuite/testcase")
    t.ok(root.tag == "testsuites" and len(cases) == 20
         and root.find("./testsuite/testcase/skipped").get("type") == "known-bug"
         and root.find("./testsuite/testcase/skipped").get("message").startswith(
             "known kernel bug memlock-units (since d7c9e99aee48 "),
         "junit: parses, 20 testcases, known-bug as <skipped type=known-bug> naming its bug")
except ET.ParseError as e:
    t.ok(False, "junit: parses", str(e))
vd = json.load(open(VERIFY))
vd["verify"] = vd["verify"][:5]
for v, st, why in zip(vd["verify"], ("pass", "fail", "error", "skip", "known-bug"),
                      ("", "over-admission: 3 > 2 & <x>", "fork: \"EAGAIN\"", "no userns",
                       "intended 0, observed 16")):
    v["status"], v["detail"] = st, why
pv = write("verdicts.json", vd)
r = run(["export", "--to", "junit", pv, "--output", path("v.xml")])
try:
    root = ET.parse(path("v.xml")).getroot()
    ts = root.find("testsuite")
    c = ts.findall("testcase")
    t.ok(r.returncode == 0 and r.stdout == "" and len(c) == 5 and len(c[0]) == 0
         and c[1].find("failure").get("message") == "over-admission: 3 > 2 & <x>"
         and c[2].find("error").get("message") == "fork: \"EAGAIN\""
         and c[3].find("skipped").get("message") == "no userns"
         and c[4].find("skipped").get("message") == "known kernel bug: intended 0, observed 16"
         and (ts.get("tests"), ts.get("failures"), ts.get("errors"), ts.get("skipped"))
         == ("5", "1", "1", "2"), "junit --output: each status, escaped messages, counts")
except (ET.ParseError, OSError) as e:
    t.ok(False, "junit --output: parses", str(e))
if shutil.which("xmllint"):
    x = subprocess.run(["xmllint", "--noout", path("v.xml")], capture_output=True, text=True)
    with open(path("ex.xml"), "w") as f:
        f.write(out["junit"])
    y = subprocess.run(["xmllint", "--noout", path("ex.xml")], capture_output=True, text=True)
    t.ok(x.returncode == 0 and y.returncode == 0, "junit: xmllint --noout", x.stderr + y.stderr)
else:
    t.skip("junit: xmllint --noout", "xmllint is not installed")
r = run(["export", "--to", "ktap", pv])
k = r.stdout.splitlines()
t.ok(r.returncode == 0 and k[:2] == ["KTAP version 1", "1..5"]
     and k[2] == "ok 1 " + vd["verify"][0]["id"] + " " + vd["verify"][0]["name"]
     and k[3] == "# over-admission: 3 > 2 & <x>" and k[4].startswith("# checks: ")
     and any(ln.startswith("not ok 2 ") for ln in k)
     and any(ln.startswith("not ok 3 ") and "# ERROR fork"
                                              in ln for ln in k)
     and any(ln.startswith("ok 4 ") and ln.endswith("# SKIP no userns") for ln in k)
     and any(ln.startswith("ok 5 ") and "# XFAIL known kernel bug: intended 0" in ln for ln in k)
     and k[-1] == "# Totals: pass:1 fail:1 xfail:1 xpass:0 skip:1 error:1",
     "ktap: ok / not ok, diagnostics before the result line, SKIP, XFAIL and ERROR "
     "directives, totals", r.stdout)
if shutil.which("prove"):
    for name, text, good in (("ex.ktap", out["ktap"], True), ("v.ktap", r.stdout, False)):
        with open(path(name), "w") as f:
            f.write(text)
        p = subprocess.run(["prove", "--exec", "cat", path(name)], capture_output=True,
                           text=True)
        t.ok((p.returncode == 0) == good and ("Result: PASS" in p.stdout) == good,
             f"ktap: prove {'passes' if good else 'fails'} {name}", p.stdout + p.stderr)
else:
    t.skip("ktap: prove", "prove is not installed")

# --output: JSON formats atomically, text directly; nothing on stdout.
r = run(["export", "--to", "bmf", RUN, "--output", path("bmf.json")])
t.ok(r.returncode == 0 and r.stdout == "" and open(path("bmf.json")).read() == out["bmf"]
     and oct(os.stat(path("bmf.json")).st_mode & 0o777) == "0o644",
     "--output (JSON): the same bytes, mode 0644", r.stderr)
r = run(["export", "--to", "lkp", RUN, "--output", path("lkp.txt")])
t.ok(r.returncode == 0 and open(path("lkp.txt")).read() == out["lkp"], "--output (text)")
r = run(["export", "--to", "lkp", RUN, "--output", path("no/such/dir")])
t.ok(r.returncode == 2 and len(r.stderr.splitlines()) <= 2,
     "--output unwritable: exit 2 (a usage error)", r.stderr)

# Bad usage: one line naming the problem, exit 2, nothing on stdout.  Bad documents among
# them: of the other kind, nothing measured, verify: [{}], a number or a name of the wrong type.
with open(VERIFY) as f:
    vdoc = json.load(f)
skipped = write("skipped.json", dict(doc, results=[dict(x, status="skipped", per_container=[])
                                                  for x in doc["results"]]))
vjunk = write("vjunk.json", dict(vdoc, verify=[{}]))
vname = write("vname.json", dict(vdoc, verify=[dict(vdoc["verify"][0], name=3)]))
vdur = write("vdur.json", dict(vdoc, verify=[dict(vdoc["verify"][0], duration_s="1.5")]))
cpus = write("cpus.json", dict(doc, host=dict(doc["host"], cpus_online="2")))
norun = write("norun.json", {"schema": "ucbench-result/1"})
for args, needle in ((["--to", "csv", RUN], "invalid --to `csv`"),
                     ([RUN], "needs --to"),
                     (["--to", "gab", RUN, VERIFY], "exactly one document"),
                     (["--to", "gab"], "exactly one document"),
                     (["--to", "junit", RUN], f"`{RUN}`: a `ucbench run` document"),
                     (["--to", "ktap", RUN], f"`{RUN}`: a `ucbench run` document"),
                     (["--to", "gab", VERIFY], f"`{VERIFY}`: a `ucbench verify` document"),
                     (["--to", "bmf", skipped], f"{skipped}: no measured results[]"),
                     (["--to", "junit", vjunk], f"`{vjunk}`: verify[0]: missing \"id\""),
                     (["--to", "junit", vname], f"`{vname}`: verify[0]: \"name\" is not a"),
                     (["--to", "junit", vdur], f"`{vdur}`: verify[0]: \"duration_s\" is not"),
                     (["--to", "gbench", cpus], f"`{cpus}`: host: \"cpus_online\" is not an"),
                     (["--to", "lkp", norun], f"`{norun}`: neither \"results\""),
                     (["--to", "gbench", path("missing.json")], "missing.json"),
                     (["--to"], "--to"),
                     (["--bogus", RUN], "--bogus")):
    r = run(["export"] + args)
    lines = r.stderr.splitlines()
    # One error line; the usual "Try 'ucbench --help'" hint may follow it.
    t.ok(r.returncode == 2 and lines and needle in lines[0] and r.stdout == ""
         and all(ln.startswith("Try ") for ln in lines[1:]),
         f"bad usage {' '.join(args)[-60:]}: exit 2, one line", r.stderr)
r = run(["export", "--help"])
t.ok(r.returncode == 0 and r.stdout.startswith("Usage: ucbench export"), "--help")

# A file that cannot be read says why, not "not valid JSON: line -1 column -1" (as another uid:
# root reads anything; the binary copied where that uid can reach it).
if os.geteuid() == 0:
    sub, ucb = reachable_copy("ucb-export-")
    locked = os.path.join(sub, "locked.json")
    shutil.copy(RUN, locked)
    os.chmod(locked, 0)
    r = subprocess.run([ucb, "export", "--to", "gab", locked], capture_output=True, text=True,
                       user=65534, group=65534, cwd=sub)
    first = r.stderr.splitlines()[0] if r.stderr else ""
    t.ok(r.returncode == 2 and "Permission denied" in first and "line -1" not in first,
         "an unreadable file: exit 2 and why, no line -1", r.stderr)
else:
    t.skip("an unreadable file: exit 2 and why", "needs root to run as another uid")

# The owner contrast (docs/statistics.md): a document with both owner modes, 3 repeats each,
# in the order run writes them (the modes in turns); gab and bmf add an entry per pair,
# byte-for-byte against tests/golden/run-owners.*, their ratio recomputed here.
odoc = copy.deepcopy(doc)
odoc["results"] = []
SCALE = {"shared": {1: (1.0, 1.01, 0.99), 2: (0.60, 0.62, 0.61)},
         "distinct": {1: (1.0, 0.995, 1.005), 2: (0.95, 0.96, 0.97)}}
for e0 in doc["results"]:
    for k in range(3):
        for owner in ("shared", "distinct"):
            e = copy.deepcopy(e0)
            f = SCALE[owner][e["containers"]][k]
            e["owner"], e["repeat"] = owner, k + 1
            e["summary"]["per_container_ops"] *= f
            e["summary"]["total_ops_per_s"] *= f
            e["summary"]["cpu_ns_per_op"] /= f
            odoc["results"].append(e)
opath = write("run-owners.json", odoc)
oout = {}
for fmt in ("gab", "bmf"):
    r = run(["export", "--to", fmt, opath])
    with open(os.path.join(GOLDEN, "run-owners." + fmt)) as f:
        want = f.read()
    t.ok(r.returncode == 0 and r.stderr == "" and r.stdout == want,
         f"{fmt}: a document with both owner modes matches run-owners.{fmt}",
         r.stderr + r.stdout[:1500])
    oout[fmt] = r.stdout
ga = [e for e in json.loads(oout["gab"] or "[]") if "/shared-vs-distinct/" in e["name"]]


def geo(owner, n):
    return math.exp(statistics.fmean(math.log(v) for v in SCALE[owner][n]))


want = {n: geo("shared", n) / geo("distinct", n) for n in (1, 2)}
t.ok([e["name"] for e in ga] == [f"signal/shared-vs-distinct/depth:1/tasks:1/process/containers:{n}"
                                 for n in (1, 2)]
     and all(e["unit"] == "shared/distinct" and isinstance(e["range"], str)
             and isinstance(e["extra"], str) and math.isclose(e["value"], want[n], rel_tol=1e-9)
             for e, n in zip(ga, (1, 2)))
     and "verdict: none" in ga[0]["extra"] and "verdict: penalty" in ga[1]["extra"],
     "gab: a shared-vs-distinct entry per N (zod shape), the ratio of geometric means, the "
     "verdict in extra", json.dumps(ga))
ob = json.loads(oout["bmf"] or "{}")
om = {k: v for k, v in ob.items() if "/shared-vs-distinct/" in k}
ok_schema = True
if jsonschema is not None:
    try:
        jsonschema.validate(ob, BMF)
    except jsonschema.ValidationError:
        ok_schema = False
t.ok(ok_schema and len(om) == 2 and all(
    set(m) == {"owner_ratio"}
    and m["owner_ratio"]["lower_value"] <= m["owner_ratio"]["value"] <= m["owner_ratio"]["upper_value"]
    for m in om.values()),
     "bmf: valid, an owner_ratio measure per pair with its interval as lower/upper_value",
     json.dumps(om))
odoc["results"][-1]["contention"] = {"contended": True}
r = run(["export", "--to", "bmf", write("run-owners-flagged.json", odoc)])
keys = sorted(k for k in json.loads(r.stdout or "{}") if "/shared-vs-distinct/" in k)
t.ok(keys == ["signal/shared-vs-distinct/depth:1/tasks:1/process/containers:1",
              "signal/shared-vs-distinct/depth:1/tasks:1/process/containers:2-bencher-ignore"],
     "bmf: a pair with a contended repeat is -bencher-ignore, as a flagged point", str(keys))

shutil.rmtree(d)
t.done()
