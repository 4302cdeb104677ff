# SPDX-License-Identifier: GPL-2.0-or-later
"""export-consumers.py - each exporter against the rules of the consumer that reads it.

KCIDB: the rules of KCIDB I/O schema v5.3 (kcidb-io, kcidb_io/schema/v05_03.py) for every
field ucbench emits, written out here as a checker (no nulls, no properties the schema does not
name, the id / origin / path patterns, statuses, number, log_excerpt <= 16384, links), on real
output of a verify and a run document; a test per verify case, metric tests with numbers, a
known bug as FAIL + issue + incident.  KTAP: each diagnostic before its own result line, as the
kernel's kunit_parser.py reads it (and by kunit_parser.py itself when a linux-source tree or
tarball is installed).  JUnit: the junit-10.xsd rules (Jenkins xunit) for what we emit.  Series
names: the same with and without --repeat.  LKP: examples/lkp's parse on the result file as
lkp-tests leaves it (log_cmd's line first), run + parse on a real run, and a direction in
examples/lkp/etc/index-perf-all.yaml for every key.
A flagged point: KCIDB DONE with its number and an incident of each flag's issue (culprit: the
harness); Bencher's -bencher-ignore rule; lkp-tests' function-stat patterns (none matches);
compare.py's own report (Debian's libbenchmark-tools) with its label.
One meaning through every consumer: a verify document (every status, one known bug in several
cases) and a flagged run document through KTAP, JUnit, LAVA (lava-report.py), KCIDB, gab, bmf,
gbench, lkp and the CI examples' own filters, each read by its consumer's rules, give the same
meaning per case and per point (docs/exporters.md, "One table of meanings"); the comparison
fails on a mutated output of any one consumer."""
import copy
import json
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

try:
    import yaml
except ImportError:
    yaml = None

from taplib import SRCDIR, UCBENCH, Tap, doc_scratch, kunit_dir, run, uid_block, userns_works

t = Tap()
d, path, write = doc_scratch("ucb-expc-")
RUN = os.path.join(SRCDIR, "examples", "run-small.json")
VERIFY = os.path.join(SRCDIR, "examples", "verify-small.json")

# ---- KCIDB v5.3 ---------------------------------------------------------------------------

ORIGIN = re.compile(r"^[a-z0-9_]+$")
ORIGIN_ID = re.compile(r"^[a-z0-9_]+:[^\0]*$")
PATH = re.compile(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$")
ARCH = re.compile(r"^[a-z0-9_]*$")
DATE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
STATUS = {"FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"}
NOT_NUL = re.compile(r"^[^\0]*$")

# Per object: property -> kind ("id", "origin", "str", "date", "num", "bool", "int>=0",
# "obj", "path", "status", "arch", "log", or a nested spec); required properties.
RESOURCES = "resources"
KCIDB = {
    "checkout": ({"_timestamp": "date", "id": "id", "origin": "origin", "tree_name": "str",
                  "git_repository_url": "url", "git_commit_hash": "sha1",
                  "git_commit_name": "str", "git_commit_tags": "strs",
                  "git_commit_message": "str", "git_repository_branch": "str",
                  "git_repository_branch_tip": "bool", "patchset_files": RESOURCES,
                  "patchset_hash": "str", "message_id": "str", "comment": "str",
                  "start_time": "date", "origin_builds_finish_time": "date",
                  "origin_tests_finish_time": "date", "log_url": "url", "log_excerpt": "log",
                  "valid": "bool", "misc": "obj"}, ("id", "origin")),
    "build": ({"_timestamp": "date", "checkout_id": "id", "id": "id", "origin": "origin",
               "comment": "str", "start_time": "date", "duration": "num", "architecture": "arch",
               "command": "str", "compiler": "str", "input_files": RESOURCES,
               "output_files": RESOURCES, "config_name": "str", "config_url": "url",
               "log_url": "url", "log_excerpt": "log", "status": "status", "misc": "obj"},
              ("checkout_id", "id", "origin")),
    "test": ({"_timestamp": "date", "build_id": "id", "id": "id", "origin": "origin",
              "environment": "environment", "path": "path", "comment": "str", "log_url": "url",
              "log_excerpt": "log", "status": "status", "number": "number",
              "start_time": "date", "duration": "num", "input_files": RESOURCES,
              "output_files": RESOURCES, "misc": "obj"}, ("build_id", "id", "origin")),
    "issue": ({"_timestamp": "date", "id": "id", "version": "int>=0", "origin": "origin",
               "categories": "paths", "report_url": "url", "report_subject": "str",
               "culprit": "culprit", "comment": "str", "misc": "obj"},
              ("id", "version", "origin")),
    "incident": ({"_timestamp": "date", "id": "id", "origin": "origin", "issue_id": "id",
                  "issue_version": "int>=0", "build_id": "id", "test_id": "id",
                  "present": "bool", "comment": "str", "misc": "obj"},
                 ("id", "origin", "issue_id", "issue_version")),
}
SECTIONS = {"checkouts": "checkout", "builds": "build", "tests": "test", "issues": "issue",
            "incidents": "incident"}


def nulls(v, where):
    """Every null in v: the schema says no property can be null."""
    if v is None:
        return [where]
    if isinstance(v, dict):
        return [n for k, x in v.items() for n in nulls(x, f"{where}.{k}")]
    if isinstance(v, list):
        return [n for i, x in enumerate(v) for n in nulls(x, f"{where}[{i}]")]
    return []


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_value(kind, v, where):
    s = isinstance(v, str)
    ok = {
        "id": s and ORIGIN_ID.match(v or ""), "origin": s and ORIGIN.match(v or ""),
        "str": s and NOT_NUL.match(v or ""), "date": s and DATE_TIME.match(v or ""),
        "num": is_num(v), "bool": isinstance(v, bool), "obj": isinstance(v, dict),
        "int>=0": isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "path": s and PATH.match(v or ""), "status": s and v in STATUS,
        "arch": s and ARCH.match(v or ""),
        "log": s and len(v) <= 16384 and NOT_NUL.match(v or ""),
        "url": s and v.startswith("https://"), "sha1": s and re.match(r"^[0-9a-f]{40}$", v),
        "strs": isinstance(v, list) and all(isinstance(x, str) for x in v),
        "paths": isinstance(v, list) and all(isinstance(x, str) and PATH.match(x) for x in v),
    }.get(kind)
    if kind == "environment":
        ok = isinstance(v, dict) and set(v) <= {"compatible", "comment", "misc"} and \
            isinstance(v.get("comment", ""), str) and isinstance(v.get("misc", {}), dict)
    elif kind == "number":
        ok = isinstance(v, dict) and set(v) <= {"value", "unit", "prefix"} and \
            is_num(v.get("value")) and isinstance(v.get("unit", ""), str) and \
            v.get("prefix", "metric") in ("metric", "binary")
    elif kind == "culprit":
        ok = isinstance(v, dict) and set(v) <= {"code", "tool", "harness"} and \
            all(isinstance(x, bool) for x in v.values())
    elif kind == RESOURCES:
        ok = isinstance(v, list) and all(isinstance(r, dict) and set(r) == {"name", "url"}
                                         for r in v)
    return [] if ok else [f"{where}: {kind} expected, got {json.dumps(v)[:80]}"]


def kcidb_errors(data):
    """The v5.3 rules broken by data: [] when it passes."""
    errs = nulls(data, "$")
    if not isinstance(data, dict):
        return errs + ["$: not an object"]
    errs += [f"$.{k}: not in the schema" for k in data if k != "version" and k not in SECTIONS]
    v = data.get("version")
    if not (isinstance(v, dict) and set(v) <= {"major", "minor"} and v.get("major") == 5
            and isinstance(v.get("minor", 0), int) and 0 <= v.get("minor", 0) <= 3):
        errs.append(f"$.version: {{major: 5, minor: 0..3}} expected, got {v}")
    ids = {}
    for sec, kind in SECTIONS.items():
        props, req = KCIDB[kind]
        objs = data.get(sec, [])
        if not isinstance(objs, list):
            errs.append(f"$.{sec}: not an array")
            continue
        ids[sec] = [o.get("id") for o in objs if isinstance(o, dict)]
        if len(set(ids[sec])) != len(ids[sec]):
            errs.append(f"$.{sec}: duplicate ids")
        for i, o in enumerate(objs):
            where = f"$.{sec}[{i}]"
            if not isinstance(o, dict):
                errs.append(f"{where}: not an object")
                continue
            errs += [f"{where}.{k}: not in the schema" for k in o if k not in props]
            errs += [f"{where}.{k}: required" for k in req if k not in o]
            for k, x in o.items():
                if k in props:
                    errs += check_value(props[k], x, f"{where}.{k}")
    # Links: not the schema's rule, but what makes the data complete in the database.
    for sec, key, target in (("builds", "checkout_id", "checkouts"), ("tests", "build_id", "builds"),
                             ("incidents", "issue_id", "issues"), ("incidents", "test_id", "tests"),
                             ("incidents", "build_id", "builds")):
        for o in data.get(sec, []):
            if isinstance(o, dict) and key in o and o[key] not in ids.get(target, []):
                errs.append(f"$.{sec}: {key} {o[key]} not in {target}")
    return errs


def kcidb(args):
    r = run(["export", "--to", "kcidb"] + args)
    try:
        return r, json.loads(r.stdout)
    except ValueError:
        return r, None


# The checker fails on what the schema forbids (each rule can fail).
_, good = kcidb([VERIFY])
bad = []
for mutate in (lambda x: x["tests"][0].update(status=None),
               lambda x: x["tests"][0].update(extra=1),
               lambda x: x["tests"][0].update(origin="Bad-Origin"),
               lambda x: x["tests"][0].update(path="a..b"),
               lambda x: x["tests"][0].update(status="OK"),
               lambda x: x["tests"][0].update(log_excerpt="x" * 16385),
               lambda x: x["tests"][0].update(number={"value": 1, "units": "s"}),
               lambda x: x["tests"][0].update(start_time="yesterday"),
               lambda x: x["tests"][0].pop("build_id"),
               lambda x: x["incidents"][0].update(issue_id="ucbench:nothing"),
               lambda x: x["version"].update(minor=4),
               lambda x: x.update(extra=[])):
    if good is None:
        break
    m = copy.deepcopy(good)
    mutate(m)
    bad.append(bool(kcidb_errors(m)))
t.ok(good is not None and len(bad) == 12 and all(bad), "kcidb checker: rejects a null, an extra property, a bad "
     "origin, path, status, a long log_excerpt, a bad number, date, a missing build_id, a "
     "dangling link, minor 4", str(bad))

# A verify document: a test per case, the known bug as FAIL + issue + incident.
vd = json.load(open(VERIFY))
r, kv = kcidb([VERIFY])
errs = kcidb_errors(kv) if kv else ["no JSON"]
t.ok(r.returncode == 0 and not errs, "kcidb verify document: valid v5.3", "\n".join(errs[:20]))
tests = (kv or {}).get("tests", [])
vt = [x for x in tests if x["path"].startswith("ucbench.verify.")]
want_paths = ["ucbench.verify." + v["id"].replace("-", "_") for v in vd["verify"]]
t.ok([x["path"] for x in vt] == want_paths and len(vt) == len(vd["verify"])
     and all(x["status"] == {"pass": "PASS", "known-bug": "FAIL"}[v["status"]]
             for x, v in zip(vt, vd["verify"])),
     "kcidb: one test per verify case, path ucbench.verify.ULIM_NN, PASS / FAIL",
     str([(x["path"], x["status"]) for x in vt]))
bug = [v["id"] for v in vd["verify"] if v["status"] == "known-bug"]
iss, inc = (kv or {}).get("issues", []), (kv or {}).get("incidents", [])
bug_test = [x for x in vt if x["misc"]["case"] in bug]
t.ok(bug and len(iss) == len(bug) == len(inc) and bug_test
     and inc[0]["test_id"] == bug_test[0]["id"] and inc[0]["issue_id"] == iss[0]["id"]
     and inc[0]["present"] is True and iss[0]["culprit"] == {"code": True, "tool": False,
                                                             "harness": False}
     and "observed 16" in bug_test[0]["log_excerpt"],
     "kcidb: the known bug is a FAIL test, an issue (culprit: code) and an incident linking both",
     json.dumps([iss, inc])[:1500])
co, bu = (kv or {}).get("checkouts", [{}])[0], (kv or {}).get("builds", [{}])[0]
t.ok(co.get("git_commit_name") == vd["host"]["kernel"]["release"]
     and bu.get("architecture") == "x86_64" and bu.get("config_name")
     and bu.get("checkout_id") == co.get("id") and kv["version"] == {"major": 5, "minor": 3},
     "kcidb: version 5.3, a checkout (uname -r) and its build (architecture, config name)",
     json.dumps([co, bu]))

# A run document: a DONE test with a number per metric of each point.
doc = json.load(open(RUN))
r, kr = kcidb([RUN, "--origin", "my_lab"])
errs = kcidb_errors(kr) if kr else ["no JSON"]
t.ok(r.returncode == 0 and not errs, "kcidb run document: valid v5.3", "\n".join(errs[:20]))
mt = (kr or {}).get("tests", [])
pc = {x["path"]: x for x in mt}
p2 = "ucbench.run.signal.shared.d1.t1.process.c2."
t.ok(mt and all(x["status"] == "DONE" and is_num(x["number"]["value"]) for x in mt)
     and pc[p2 + "per_container_ops"]["number"] == {
         "value": doc["results"][1]["summary"]["per_container_ops"], "unit": "ops/s",
         "prefix": "metric"}
     and pc[p2 + "cpu_ns_per_op"]["number"]["unit"] == "ns"
     and "unit" not in pc[p2 + "scalability"]["number"]
     and all(x["id"].startswith("my_lab:") and x["origin"] == "my_lab" for x in mt),
     "kcidb: metric tests DONE with number {value, unit, prefix}; --origin in ids and origin",
     json.dumps(mt[:2]))

# Every status, a repeat, a long detail with control characters, unmeasured points.
vx = copy.deepcopy(vd)
vx["verify"] = copy.deepcopy(vd["verify"][:5]) + copy.deepcopy(vd["verify"][:1])
# (A status outside the schema's enum is refused by every reader: reader-ranges.py.)
for v, st in zip(vx["verify"], ("pass", "fail", "error", "skip", "known-bug", "error")):
    v["status"] = st
vx["verify"][1]["detail"] = "over-admission\r\n\x01" + "é" * 20000
vx["run"]["start_time"] = ""  # none (the schema's pattern: a date-time or nothing), so left out
vx["results"] = copy.deepcopy(doc["results"])
vx["results"][0].update(status="skipped", reason="needs CAP_SYS_RESOURCE")
vx["results"].append(copy.deepcopy(doc["results"][1]))
vx["results"][-1].update(repeat=2)
r, kx = kcidb([write("all.json", vx)])
errs = kcidb_errors(kx) if kx else ["no JSON"]
st = [x["status"] for x in (kx or {}).get("tests", []) if x["path"].startswith("ucbench.verify")]
ids = [x["id"] for x in (kx or {}).get("tests", [])]
skipped = [x for x in (kx or {}).get("tests", []) if x["path"].endswith(".c1")]
t.ok(r.returncode == 0 and not errs and st == ["PASS", "FAIL", "ERROR", "SKIP", "FAIL", "ERROR"]
     and ids[5].endswith(".r2") and len(set(ids)) == len(ids)
     and skipped and skipped[0]["status"] == "SKIP"
     and not any("start_time" in x for x in kx["tests"])
     and all(x["start_time"] == vd["run"]["start_time"] for x in kv["tests"])
     and "CAP_SYS_RESOURCE" in skipped[0]["log_excerpt"],
     "kcidb: every status, a repeated case (.r2), a 60 kB detail cut to 16384, an unmeasured "
     "point as SKIP with its reason, a start time that is no date-time left out; valid v5.3", "\n".join(errs[:10]) + str(st))
r = run(["export", "--to", "kcidb", "--origin", "Bad", RUN])
t.ok(r.returncode == 2 and "invalid --origin `Bad`" in r.stderr and r.stdout == "",
     "kcidb: --origin outside [a-z0-9_]+ is exit 2", r.stderr)

# A flagged point (ucb_point_flags): its metric tests are DONE, "the test completed ... produced a
# performance measurement result" (ERROR, "didn't complete", made a busy host read as a test that
# could not run), with the flags in misc and log_excerpt and an incident per flag of the flag's
# one issue, whose culprit is the harness alone: the build's summary status stays DONE.
fd = copy.deepcopy(doc)
fd["results"][1]["contention"] = {"contended": True, "starved": True}
fpath = write("flagged.json", fd)
r, kf = kcidb([fpath])
errs = kcidb_errors(kf) if kf else ["no JSON"]
ft = (kf or {}).get("tests", [])
flagged = [x for x in ft if ".c2." in x["path"]]
clean = [x for x in ft if ".c1." in x["path"]]
PRIORITY = ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]
summary = min((x["status"] for x in ft), key=PRIORITY.index, default=None)
fiss = {i["id"]: i for i in (kf or {}).get("issues", [])}
finc = (kf or {}).get("incidents", [])
t.ok(r.returncode == 0 and not errs and flagged and clean
     and all(x["status"] == "DONE" and is_num(x["number"]["value"])
             and x["misc"]["flags"] == "starved,contended" and x["misc"]["flagged_repeats"] == 1
             and "starved,contended" in x["log_excerpt"] for x in flagged)
     and all(x["status"] == "DONE" and "flags" not in x["misc"] and "log_excerpt" not in x
             for x in clean)
     and sorted(fiss) == ["ucbench:ucbench.flag.contended", "ucbench:ucbench.flag.starved"]
     and all(i["culprit"] == {"code": False, "tool": False, "harness": True}
             for i in fiss.values())
     and len(finc) == 2 * len(flagged)
     and {i["test_id"] for i in finc} == {x["id"] for x in flagged}
     and summary == "DONE",
     "kcidb: a flagged point's metrics are DONE with their number, misc.flags, a log_excerpt and "
     "an incident per flag of the flag's one issue (culprit: harness); the clean point's DONE "
     "without; the build's summary status DONE; valid v5.3",
     "\n".join(errs[:10]) + json.dumps(flagged[:1]) + json.dumps(list(fiss.values())))

# ---- flagged points, as each benchmark consumer reads them ----------------------------------

# Bencher: bencher_json BenchmarkName::to_strip_ignore, the rule its report ingest applies to a
# BMF key (lib/bencher_json/src/project/benchmark/name.rs): a name ending in one of these is
# the name without it, its alerts suppressed.
BENCHER_IGNORE = ("_bencher_ignore", "BencherIgnore", "-bencher-ignore")


def bencher_strip(name):
    for suffix in BENCHER_IGNORE:
        if name.endswith(suffix):
            return name[:-len(suffix)], True
    return name, False


clean_bmf = json.loads(run(["export", "--to", "bmf", RUN]).stdout or "{}")
flag_bmf = json.loads(run(["export", "--to", "bmf", fpath]).stdout or "{}")
seen = {bencher_strip(k): v for k, v in flag_bmf.items()}
t.ok(clean_bmf and {k: v for (k, _), v in seen.items()} == clean_bmf
     and [k for (k, ign) in seen if ign] == ["signal/shared/depth:1/tasks:1/process/containers:2"]
     and not any(bencher_strip(k)[1] for k in clean_bmf),
     "bmf: as Bencher reads it, the flagged point is the same benchmark with the same values, "
     "its alerts suppressed; no clean point is", json.dumps(flag_bmf)[:1500])

# LKP: lkp-tests' etc/failure, the patterns of a function stat (lib/stats.rb function_stat?),
# matched against the stat as dump-stat stores it (ucbench.KEY).
LKP_FAILURE = [r".+killed_by.*", r".+\.(error|warn|fail)[^_]*$", r"dmesg.*",
               r"kmemleak\..+unreferenced_object\..+", r"kmsg.*", r"last_state.*",
               r"locktoture\..+lock_hotplug", r"rcutoture\..+rcu_hotplug", r"stderr.*",
               r"xfstests\..+fail$"]
LKP_PASS = [r".+\.pass$"]  # etc/pass: function stats too (lib/stats.rb __function_stat?)


def lkp_function_stat(key):
    """lib/stats.rb __function_stat?: a stat that lkp compare lists among a run's failures."""
    return any(re.match("^" + p, key) for p in LKP_FAILURE + LKP_PASS)


lk = [ln.split(": ", 1)[0] for ln in run(["export", "--to", "lkp", fpath]).stdout.splitlines()]
fn = [k for k in lk if lkp_function_stat("ucbench." + k)]
fk = [k for k in lk if ".flagged." in k]
t.ok(fk == ["signal.shared.2.flagged.starved", "signal.shared.2.flagged.contended"] and not fn
     and len(lk) > len(fk),
     "lkp: a flagged point adds POINT.flagged.FLAG keys, none a function stat by lkp-tests' "
     "etc/failure or etc/pass (never counted as a failure of the run); the measured keys "
     "neither", str(lk))


def gbench_tools():
    """tools/ of google/benchmark: $GBENCH_TOOLS, or Debian's libbenchmark-tools."""
    for p in (os.environ.get("GBENCH_TOOLS"), "/usr/share/benchmark"):
        if p and os.path.exists(os.path.join(p, "gbench", "report.py")):
            return p
    return None


gtools = gbench_tools()
if gtools is None:
    t.skip("gbench: compare.py's report carries the label of a flagged point",
           "no libbenchmark-tools (/usr/share/benchmark) and no $GBENCH_TOOLS")
else:
    # compare.py's own code (gbench.report.get_difference_report, print_difference_report) on
    # the clean example against the flagged one.  scipy serves only its U test and its geomean
    # row: without python3-scipy a stand-in takes their place, the rest is compare.py's code.
    prog = r"""
import json, math, sys, types
sys.path.insert(0, sys.argv[1])
try:
    import scipy.stats, numpy
    stub = False
except ImportError:
    class Row(list):
        def any(self):
            return len(self) > 0
    def gmean(rows):
        return Row(math.exp(sum(math.log(r[c]) for r in rows) / len(rows))
                   for c in range(len(rows[0])))
    scipy = types.ModuleType("scipy"); scipy.stats = types.ModuleType("scipy.stats")
    scipy.stats.gmean = gmean; scipy.stats.mannwhitneyu = None
    numpy = types.ModuleType("numpy"); numpy.array = Row
    sys.modules.update({"scipy": scipy, "scipy.stats": scipy.stats, "numpy": numpy})
    stub = True
from gbench import report, util
def load(p):  # its signature grew a filter argument after 1.7
    try:
        return util.load_benchmark_results(p, None)
    except TypeError:
        return util.load_benchmark_results(p)
out = {"stub": stub}
for key, base, head in (("base", sys.argv[3], sys.argv[2]), ("head", sys.argv[2], sys.argv[3])):
    diff = report.get_difference_report(load(base), load(head), utest=False)
    out[key] = {d["name"]: d["label"] for d in diff}
    out[key + "_lines"] = len(report.print_difference_report(diff, use_color=False))
print(json.dumps(out))
"""
    with open(path("clean.gbench.json"), "w") as f:
        f.write(run(["export", "--to", "gbench", RUN]).stdout)
    with open(path("flagged.gbench.json"), "w") as f:
        f.write(run(["export", "--to", "gbench", fpath]).stdout)
    p = subprocess.run([sys.executable, "-c", prog, gtools, path("clean.gbench.json"),
                        path("flagged.gbench.json")], capture_output=True, text=True)
    try:
        got = json.loads(p.stdout.splitlines()[-1])
    except (ValueError, IndexError):
        got = {}
    base, head = got.get("base", {}), got.get("head", {})
    n1, n2 = ("signal/shared/depth:1/tasks:1/process/containers:" + c for c in "12")
    # compare.py labels a benchmark with the label of its first row in the first (baseline)
    # file: a flagged contender shows no label there (docs/exporters.md says so).
    t.ok(base.get(n2) == "flagged: starved,contended" and base.get(n1) == ""
         and head.get(n2) == "" and got.get("base_lines", 0) >= 4
         and got.get("head_lines", 0) >= 4,
         "gbench: compare.py's report carries the label of a flagged baseline point (none for "
         f"the clean one){' (scipy stand-in)' if got.get('stub') else ''}",
         p.stdout[-2000:] + p.stderr[-2000:])

# ---- KTAP, as the kernel's kunit_parser.py reads it ----------------------------------------

kd = copy.deepcopy(vd)
kd["verify"] = copy.deepcopy(vd["verify"][:6])
for v, s, why in zip(kd["verify"], ("pass", "fail", "pass", "error", "fail", "known-bug"),
                     ("", "first\r\nsecond", "", "fork: EAGAIN", "under\radmission", "bug")):
    v["status"], v["detail"] = s, why
kf = write("ktap.json", kd)
r = run(["export", "--to", "ktap", kf])
lines = r.stdout.splitlines()


def ktap_logs(lines):
    """kunit_parser's reading: the lines since the previous result line belong to the next."""
    logs, log = [], []
    for ln in lines[2:]:
        if re.match(r"^(ok|not ok) \d+ ", ln):
            logs.append((ln, log))
            log = []
        else:
            log.append(ln)
    return logs


logs = ktap_logs(lines)
t.ok(r.returncode == 0 and len(logs) == 6 and "\r" not in r.stdout
     and all(ln.startswith("# ") for _, log in logs for ln in log)
     and logs[0][1] == [] and logs[2][1] == []
     and logs[1][1][:2] == ["# first\\r", "# second"] and logs[1][0].startswith("not ok 2 ")
     and logs[3][1][0] == "# fork: EAGAIN" and logs[4][1][0] == "# under\\radmission"
     and logs[5][0].startswith("ok 6 ") and "# XFAIL" in logs[5][0],
     "ktap: every diagnostic before its own result line, passing cases without any, \\r "
     "escaped", r.stdout)


kdir = kunit_dir(path("kunit-src"))
if kdir is None:
    t.skip("ktap: kunit_parser.py parses it, each diagnostic under its own case",
           "no linux-source-* installed (Debian's linux-source-6.1 ships it) and no $KUNIT_DIR")
else:
    prog = ("import json, sys\nsys.path.insert(0, sys.argv[1])\nimport kunit_parser\n"
            "t = kunit_parser.parse_run_tests(open(sys.argv[2]).read().splitlines(True))\n"
            "print(json.dumps([[s.name, s.status.name, [l.strip() for l in s.log]]"
            " for s in t.subtests]))\n")
    with open(path("k.ktap"), "w") as f:
        f.write(r.stdout)
    p = subprocess.run([sys.executable, "-c", prog, kdir, path("k.ktap")], capture_output=True,
                       text=True)
    try:
        got = json.loads(p.stdout.splitlines()[-1])
    except (ValueError, IndexError):
        got = []
    t.ok(len(got) == 6 and [g[1] for g in got] == ["SUCCESS", "FAILURE", "SUCCESS", "FAILURE",
                                                   "FAILURE", "SUCCESS"]
         and got[0][2] == [] and got[2][2] == [] and "# first\\r" in got[1][2]
         and "# fork: EAGAIN" in got[3][2] and "# under\\radmission" in got[4][2],
         "ktap: kunit_parser.py parses it, each diagnostic under its own case",
         p.stdout[-3000:] + p.stderr[-1000:])

# ---- JUnit, by the rules of junit-10.xsd (Jenkins xunit plugin) ---------------------------

SUREFIRE_TIME = re.compile(r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$")
JUNIT = {  # element: (allowed attributes, required attributes, allowed children)
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set(), {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors", "group", "time", "skipped",
                   "timestamp", "hostname", "id", "package", "file", "log", "url"},
                  {"name", "tests", "failures", "errors"},
                  {"testsuite", "properties", "testcase", "system-out", "system-err"}),
    "testcase": ({"name", "time", "classname", "group"}, {"name"},
                 {"skipped", "error", "failure", "system-out", "system-err"}),
    "failure": ({"type", "message"}, set(), set()),
    "error": ({"type", "message"}, set(), set()),
    "skipped": ({"type", "message"}, set(), set()),
}


def junit_errors(text):
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return [str(e)]
    errs = [] if root.tag == "testsuites" else [f"root {root.tag}"]
    names = set()
    for el in root.iter():
        allowed, req, kids = JUNIT.get(el.tag, (None, None, None))
        if allowed is None:
            errs.append(f"<{el.tag}> not in junit-10.xsd")
            continue
        errs += [f"<{el.tag} {a}=>: not allowed" for a in el.attrib if a not in allowed]
        errs += [f"<{el.tag}>: {a}= required" for a in req if a not in el.attrib]
        errs += [f"<{el.tag}> in <{el.tag}>" for c in el if c.tag not in kids]
        if el.tag in ("testsuites", "testsuite") and "time" in el.attrib \
                and not SUREFIRE_TIME.match(el.get("time")):
            errs.append(f"<{el.tag} time={el.get('time')}>")
        if el.tag == "testcase":
            key = (el.get("classname"), el.get("name"))
            if key in names:
                errs.append(f"duplicate testcase {key}")
            names.add(key)
    return errs


old = ('<?xml version="1.0"?>\n<testsuites skipped="1"><testsuite name="a" tests="2" '
       'failures="0" errors="0"><testcase name="x"/><testcase name="x"/></testsuite>'
       '</testsuites>')
t.ok(len(junit_errors(old)) == 2, "junit checker: rejects skipped= on <testsuites> and a "
     "duplicate testcase", str(junit_errors(old)))
rep = copy.deepcopy(kd)
rep["verify"] = kd["verify"] + copy.deepcopy(kd["verify"])  # `verify --repeat 2`
r = run(["export", "--to", "junit", write("rep.json", rep)])
errs = junit_errors(r.stdout)
root = ET.fromstring(r.stdout) if not errs else None
fail = root.find(".//testcase/failure") if root is not None else None
t.ok(r.returncode == 0 and not errs and fail is not None and "expected" in (fail.text or "")
     and "observed" in fail.text and fail.get("message").startswith("first")
     and fail.get("message").endswith("\nsecond")
     and len(root.findall(".//testcase")) == 12,
     "junit: valid by junit-10.xsd's rules, repeats named apart, <failure> text with the "
     "expected and observed values", "\n".join(errs) + r.stdout[:2000])

# ---- one meaning through every consumer (docs/exporters.md, "One table of meanings") -------
# A verify document with every status and one known bug in three cases (plus another bug in one),
# and the flagged run document, through each consumer's own reading: every consumer must say
# the same of each case (pass / kernel-fail / kernel-known-bug / skipped / no-verdict, and which
# bug) and of each point (clean / flagged-environment).  TAP 13 (`ucbench verify`'s own output)
# has no document to read: the same walker and rows are tests/unit/test-tap-walker.c's.

MEMLOCK_BUG = vd["verify"][[v["id"] for v in vd["verify"]].index("ULIM-19")]["known_bug"]
SIG_BUG = {"id": "sigpending-override", "title": "SIGPENDING: an override signal refused",
           "reference": "CVE-2024-50271, fixed by 9e05e5c7ee87",
           "url": "https://www.cve.org/CVERecord?id=CVE-2024-50271"}
md = copy.deepcopy(vd)
md["verify"] = copy.deepcopy(vd["verify"][:8])
WANT = {}
for v, (st, bug) in zip(md["verify"], (("pass", None), ("fail", None), ("known-bug", MEMLOCK_BUG),
                                       ("skip", None), ("known-bug", MEMLOCK_BUG),
                                       ("error", None), ("known-bug", SIG_BUG),
                                       ("known-bug", MEMLOCK_BUG))):
    v["status"], v["detail"] = st, f"detail of {v['id']}"
    v.pop("known_bug", None)
    if bug:
        v["known_bug"] = bug
    WANT[v["id"]] = ({"pass": "pass", "fail": "kernel-fail", "known-bug": "kernel-known-bug",
                      "skip": "skipped", "error": "no-verdict"}[st], bug and bug["id"])
mpath = write("meanings-verify.json", md)
POINTS = {"c1": "clean", "c2": "flagged-environment"}  # fd: results[1] starved and contended


def bug_of(text):
    """The bug id a line names: "known kernel bug ID (REFERENCE): ..."."""
    m = re.search(r"known kernel bug ([a-z0-9-]+) \(", text or "")
    return m.group(1) if m else None


def ktap_meanings(text):
    """KTAP v1 (ktap.rst): ok/not ok; the directives SKIP, XFAIL (expected failure, kselftest's
    `ok N # XFAIL`), ERROR."""
    out = {}
    for ln in text.splitlines():
        m = re.match(r"^(ok|not ok) \d+ (\S+) [^#]*(?:# (\S+) ?(.*))?$", ln)
        if not m:
            continue
        word, cid, directive, rest = m.groups()
        meaning = {("ok", None): "pass", ("not ok", None): "kernel-fail",
                   ("ok", "SKIP"): "skipped", ("not ok", "SKIP"): "skipped",
                   ("ok", "XFAIL"): "kernel-known-bug", ("not ok", "ERROR"): "no-verdict"}.get(
                       (word, directive), "?")
        out[cid] = (meaning, bug_of(rest) if meaning == "kernel-known-bug" else None)
    return out


def junit_meanings(text):
    """junit-10.xsd's elements; an expected failure is <skipped> with a type (pytest's
    type="pytest.xfail", ucbench's type="known-bug"), a plain <skipped> a skip."""
    out = {}
    for tc in ET.fromstring(text).iter("testcase"):
        el = next(iter(tc), None)
        if el is None:
            meaning = "pass"
        elif el.tag == "skipped":
            meaning = "kernel-known-bug" if el.get("type") in ("known-bug", "pytest.xfail") \
                else "skipped"
        else:
            meaning = {"failure": "kernel-fail", "error": "no-verdict"}.get(el.tag, "?")
        cid = tc.get("name").split()[0]
        out[cid] = (meaning, bug_of(el.get("message")) if meaning == "kernel-known-bug" else None)
    return out


def kcidb_meanings(data):
    """KCIDB v5.3: the test's status, and for a FAIL whether an incident ties it to an issue
    whose culprit is the code (a known bug: the issue names it)."""
    issues = {i["id"]: i for i in data.get("issues", [])}
    inc = {}
    for i in data.get("incidents", []):
        inc.setdefault(i.get("test_id"), []).append(issues.get(i["issue_id"], {}))
    cases, points = {}, {}
    for x in data.get("tests", []):
        known = [i for i in inc.get(x["id"], []) if i.get("culprit", {}).get("code")]
        harness = [i for i in inc.get(x["id"], []) if i.get("culprit") == {
            "code": False, "tool": False, "harness": True}]
        if x["path"].startswith("ucbench.verify."):
            meaning = {"PASS": "pass", "SKIP": "skipped", "ERROR": "no-verdict",
                       "MISS": "no-verdict"}.get(x["status"])
            if x["status"] == "FAIL":
                meaning = "kernel-known-bug" if known else "kernel-fail"
            bug = known[0]["id"].rsplit("ucbench.bug.", 1)[-1] if known else None
            cases[x["misc"]["case"]] = (meaning, bug)
        else:
            c = x["path"].split(".")[7]
            m = "flagged-environment" if x["status"] == "DONE" and harness else \
                "clean" if x["status"] == "DONE" and not inc.get(x["id"]) else x["status"]
            points.setdefault(c, set()).add(m)
    return cases, points


def lava_meanings(lines):
    """LAVA: lava-test-case's result (pass, fail, skip, unknown), and lava-test-reference's,
    which links a result to a page: a fail with the bug's page is the known bug."""
    cases, points = {}, {}
    for ln in lines:
        w = ln.split()
        if len(w) < 4 or not w[1].startswith(("verify.", "run.")):
            continue
        result = w[w.index("--result") + 1]
        if w[1].startswith("verify."):
            ref = w[w.index("--reference") + 1] if "--reference" in w else None
            meaning = {"pass": "pass", "skip": "skipped", "unknown": "no-verdict"}.get(result)
            if result == "fail":
                meaning = "kernel-known-bug" if w[0] == "lava-test-reference" and ref \
                    else "kernel-fail"
            bug = next((b["id"] for b in (MEMLOCK_BUG, SIG_BUG) if ref == b["url"]), None)
            cases[w[1][len("verify."):]] = (meaning, bug if meaning == "kernel-known-bug" else None)
        else:
            c = w[1].split(".")[6]
            points.setdefault(c, set()).add({"pass": "clean", "unknown": "flagged-environment",
                                            "skip": "clean"}.get(result, result))
    return cases, points


def dashboard_meanings(outs):
    """The benchmark consumers, per point: gab's extra (its last line), Bencher's ignore
    suffix, gbench's label (not error_occurred), lkp's keys (a function stat would be a failure
    of the run), and the GitHub example's gate filter."""
    got = {}
    for e in json.loads(outs["gab"]):
        c = e["name"].rsplit(":", 1)[1]
        got.setdefault("gab", {})["c" + c] = "flagged-environment" if \
            e.get("extra", "").split("\n")[-1].startswith("flagged: ") else "clean"
    for k in json.loads(outs["bmf"]):
        name, ign = bencher_strip(k)
        got.setdefault("bmf", {})["c" + name.rsplit(":", 1)[1]] = \
            "flagged-environment" if ign else "clean"
    for b in json.loads(outs["gbench"])["benchmarks"]:
        c = "c" + b["run_name"].rsplit(":", 1)[1]
        m = "kernel-fail" if b.get("error_occurred") else "flagged-environment" if \
            (b.get("label") or "").startswith("flagged: ") else "clean"
        got.setdefault("gbench", {})[c] = m
    for ln in outs["lkp"].splitlines():
        key = ln.split(": ", 1)[0]
        c = "c" + key.split(".")[2]
        m = "kernel-fail" if lkp_function_stat("ucbench." + key) else \
            "flagged-environment" if ".flagged." in key else "clean"
        prev = got.setdefault("lkp", {}).get(c, "clean")
        got["lkp"][c] = m if prev == "clean" else prev
    gate = outs.get("gate")
    if gate is not None:
        got["github gate"] = {"c" + e["name"].rsplit(":", 1)[1]: "clean" for e in json.loads(gate)}
        for c in POINTS:
            got["github gate"].setdefault(c, "flagged-environment")
    return got


def disagreements(outs):
    """Where a consumer's reading differs from the meaning wanted: [] when all agree."""
    try:
        return disagreements_of(outs)
    except (ValueError, KeyError, IndexError, ET.ParseError) as e:  # unreadable: no agreement
        return [("unreadable", repr(e))]


def disagreements_of(outs):
    bad = []
    kc, kp = kcidb_meanings(json.loads(outs["kcidb-verify"]))
    _, kp = kcidb_meanings(json.loads(outs["kcidb-run"]))
    lc, _ = lava_meanings(outs["lava-verify"].splitlines())
    _, lp = lava_meanings(outs["lava-run"].splitlines())
    for name, got in (("ktap", ktap_meanings(outs["ktap"])), ("junit", junit_meanings(outs["junit"])),
                      ("kcidb", kc), ("lava", lc)):
        bad += [(name, cid, got.get(cid), w) for cid, w in WANT.items() if got.get(cid) != w]
    for name, got in (("kcidb", kp), ("lava", lp)):
        bad += [(name, c, got.get(c), w) for c, w in POINTS.items() if got.get(c) != {w}]
    for name, got in dashboard_meanings(outs).items():
        bad += [(name, c, got.get(c), w) for c, w in POINTS.items() if got.get(c) != w]
    return bad


report_py = [sys.executable, os.path.join(SRCDIR, "examples", "lava", "lava-report.py"),
             "--ucbench", shutil.which(UCBENCH) or UCBENCH, "--dry-run"]
mouts = {f: run(["export", "--to", f, mpath]).stdout for f in ("ktap", "junit")}
mouts["kcidb-verify"] = run(["export", "--to", "kcidb", mpath]).stdout
mouts["kcidb-run"] = run(["export", "--to", "kcidb", fpath]).stdout
mouts["lava-verify"] = subprocess.run(report_py + ["--verify", mpath], capture_output=True,
                                      text=True).stdout
mouts["lava-run"] = subprocess.run(report_py + ["--run", fpath], capture_output=True,
                                   text=True).stdout
for f in ("gab", "bmf", "gbench", "lkp"):
    mouts[f] = run(["export", "--to", f, fpath]).stdout
# The GitHub example's own gate filter (its jq line, run as the workflow runs it).
gh = yaml.safe_load(open(os.path.join(SRCDIR, "examples", "github", "ucbench.yml"))) \
    if yaml else None
steps = gh["jobs"]["ucbench"]["steps"] if gh else []
gate_step = next((st for st in steps if st.get("id") == "gate"), {})
jq_line = next((ln for ln in gate_step.get("run", "").splitlines() if "gab-gate.json" in ln
                and ln.strip().startswith("jq ")), None)
if jq_line and shutil.which("jq"):
    with open(path("gab.json"), "w") as f:
        f.write(mouts["gab"])
    subprocess.run(["sh", "-c", jq_line.strip()], cwd=d, check=False)
    with open(path("gab-gate.json")) as f:
        mouts["gate"] = f.read()
bad = disagreements(mouts)
t.ok(not bad and len(WANT) == 8,
     "one meaning: KTAP, JUnit, KCIDB and LAVA (lava-report.py) read each of 8 cases alike "
     "(pass, kernel-fail, kernel-known-bug naming its bug, skipped, no-verdict), and KCIDB, "
     "LAVA, gab, bmf, gbench, lkp and the GitHub example's gate read the clean point clean, the "
     "flagged one flagged-environment (never a failure)"
     + ("" if "gate" in mouts else " (no jq: the gate filter not run)"), bad[:12])
kv = json.loads(mouts["kcidb-verify"] or "{}")
bug_inc = {}
for i in kv.get("incidents", []):
    bug_inc.setdefault(i["issue_id"], []).append(i["test_id"])
memlock = [v["id"] for v in md["verify"] if v.get("known_bug", {}).get("id") == "memlock-units"]
t.ok(not kcidb_errors(kv) and sorted(i["id"] for i in kv.get("issues", []))
     == ["ucbench:ucbench.bug.memlock-units", "ucbench:ucbench.bug.sigpending-override"]
     and len(bug_inc["ucbench:ucbench.bug.memlock-units"]) == len(memlock) == 3
     and len(bug_inc["ucbench:ucbench.bug.sigpending-override"]) == 1
     and all(i.get("report_subject", "").startswith("known kernel bug ")
             and i.get("comment") and i["culprit"]["code"] for i in kv["issues"]),
     "kcidb: one known kernel bug is one issue (its title, reference and page) with an incident "
     "per case that saw it: 3 for memlock-units, 1 for sigpending-override; valid v5.3",
     json.dumps([kv.get("issues"), bug_inc])[:2000])
# The comparison is no rubber stamp: one consumer's form mutated (a table row changed) fails it.
MUTANTS = {
    "junit: known-bug as <failure>": ("junit", lambda x: re.sub(
        r'<skipped type="known-bug"(.*?)</skipped>', r"<failure\1</failure>", x, 1, re.S)),
    "ktap: known-bug as not ok": ("ktap", lambda x: x.replace("ok 3 ", "not ok 3 ")),
    "kcidb: a flagged metric ERROR": ("kcidb-run", lambda x: x.replace('"status": "DONE"',
                                                                      '"status": "ERROR"')),
    "lava: error as fail": ("lava-verify", lambda x: x.replace("--result unknown",
                                                               "--result fail")),
    "lava: a flagged metric pass": ("lava-run", lambda x: x.replace("--result unknown",
                                                                    "--result pass")),
    "lkp: a flag as .warn": ("lkp", lambda x: x.replace(".flagged.starved", ".starved.warn")),
}
caught = {}
for name, (key, mutate) in MUTANTS.items():
    m = dict(mouts)
    m[key] = mutate(m[key])
    caught[name] = m[key] != mouts[key] and bool(disagreements(m))
t.ok(all(caught.values()), "one meaning: each mutated form (JUnit known-bug as <failure>, KTAP "
     "known-bug as not ok, KCIDB flagged ERROR, LAVA error as fail, LAVA flagged pass, lkp flag "
     "as .warn) is a disagreement", caught)
# The CI examples never fail a job on a flagged point: GitHub's only fail-on-alert suite reads
# the gate file, GitLab's job exits with verify's status alone and only prints the flags.
gl = yaml.safe_load(open(os.path.join(SRCDIR, "examples", "gitlab", ".gitlab-ci.yml"))) \
    if yaml else None
if gh is None or gl is None:
    t.skip("CI examples: no job fails on a flagged point", "python3-yaml is not installed")
else:
    gated = [st["with"].get("output-file-path") for st in steps
             if str(st.get("with", {}).get("fail-on-alert", "")).lower() == "true"]
    script = gl["ucbench-verify"]["script"]
    warn = next((ln for ln in script if "export --to lkp" in ln and "flagged" in ln), None)
    wp = subprocess.run(["sh", "-c", "ucbench() { \"$UCB\" \"$@\"; }; " + warn.replace(
        "./ucbench", "ucbench").replace("run.json", fpath)], capture_output=True, text=True,
        env=dict(os.environ, UCB=shutil.which(UCBENCH) or UCBENCH)) if warn else None
    t.ok(gated == ["build/gab-gate.json"] and jq_line is not None
         and gate_step.get("run", "").count("gab-gate.json") >= 2
         and script[-1] == "exit ${rc:-0}" and wp is not None and wp.returncode == 0
         and wp.stdout.splitlines() == ["warning: flagged point signal.shared.2: starved",
                                        "warning: flagged point signal.shared.2: contended"],
         "CI examples: GitHub fails on an alert only for the clean points' file (flagged ones "
         "warn); GitLab prints a warning per flag and exits with verify's status alone",
         (gated, jq_line, script[-2:], wp and wp.stdout + wp.stderr))

# ---- series names: the same with and without --repeat -------------------------------------

rd = copy.deepcopy(doc)
rd["config"]["repeat"] = 3
rd["results"] = []
for k in range(3):
    for e in doc["results"]:
        e = copy.deepcopy(e)
        e["repeat"] = k + 1
        e["summary"]["per_container_ops"] *= (1.0, 1.2, 0.9)[k]
        rd["results"].append(e)
rp = write("rep3.json", rd)


def names(fmt, src):
    out = run(["export", "--to", fmt, src]).stdout
    try:
        j = json.loads(out)
    except ValueError:
        return None
    if fmt in ("gab", "gab-smaller"):
        return [e["name"] for e in j]
    if fmt == "bmf":
        return sorted(j)
    if fmt == "gbench":
        return sorted({b["name"] for b in j["benchmarks"] if b["run_type"] == "iteration"})
    return sorted({x["path"] for x in j["tests"]})


for fmt in ("gab", "gab-smaller", "bmf", "gbench", "kcidb"):
    a, b = names(fmt, RUN), names(fmt, rp)
    t.ok(a and a == b, f"{fmt}: every series name the same with and without --repeat",
         f"{a}\n{b}")
g = json.loads(run(["export", "--to", "gab", rp]).stdout or "[]")
want = doc["results"][1]["summary"]["per_container_ops"]
t.ok(g and math.isclose(g[1]["value"], want, rel_tol=1e-9)
     and g[1]["range"] == "± %.1f" % ((1.2 - 0.9) * want / 2),
     "gab with 3 repeats: the median, half the repeats' spread as range", json.dumps(g))
bm = json.loads(run(["export", "--to", "bmf", rp]).stdout or "{}")
m = bm.get("signal/shared/depth:1/tasks:1/process/containers:2", {}).get("throughput", {})
t.ok(m and math.isclose(m["value"], want, rel_tol=1e-9)
     and math.isclose(m["lower_value"], 0.9 * want, rel_tol=1e-9)
     and math.isclose(m["upper_value"], 1.2 * want, rel_tol=1e-9),
     "bmf with 3 repeats: the median, the smallest and largest repeat", json.dumps(bm))

# ---- LKP: examples/lkp as lkp-tests runs it ----------------------------------------------
# bin/run-test tees the stdout of programs/ucbench/run into $RESULT_ROOT/ucbench (`tee -a`, one
# output per instance), and run's log_cmd (lib/reproduce-log.sh: log_echo prints
# `$(date +'%F %T') COMMAND` first) puts LKP's own line before ucbench's document; then
# bin/run-stats runs `parse FILE < FILE` and sbin/dump-stat stores each line as ucbench.KEY.
# With $LKP_SRC (an lkp-tests checkout) run uses its real log_cmd, and the directions are
# checked against its etc/index-perf-all.yaml too; without it the file is built as they do.

LKP_EX = os.path.join(SRCDIR, "examples", "lkp")
LKP = os.path.join(LKP_EX, "programs", "ucbench")
LKP_SRC = os.environ.get("LKP_SRC", "")
if not os.path.isfile(os.path.join(LKP_SRC, "lib", "reproduce-log.sh")):
    LKP_SRC = None
LOG_CMD_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S*ucbench run ")
env = dict(os.environ, UCBENCH=shutil.which(UCBENCH) or UCBENCH)
env.pop("LKP_SRC", None)


def lkp_file(name, *docs):
    """$RESULT_ROOT/ucbench as run-test leaves it: per instance, log_cmd's line, then run's
    stdout (the document)."""
    with open(path(name), "w") as f:
        for i, doc in enumerate(docs):
            f.write(f"2026-05-04 10:20:3{i} ucbench run --workload signal --containers 1,2 "
                    f"--format json --quiet\n")
            with open(doc) as dfh:
                f.write(dfh.read())
    return path(name)


def lkp_parse(file):
    """bin/run-stats: `$program_path "$log" <"$log"`."""
    with open(file) as fh:
        return subprocess.run([os.path.join(LKP, "parse"), file], stdin=fh, capture_output=True,
                              text=True, env=env)


def export_lkp(doc):
    return run(["export", "--to", "lkp", doc]).stdout


with open(RUN) as fh:
    p = subprocess.run([os.path.join(LKP, "parse")], stdin=fh, capture_output=True, text=True,
                       env=env)
t.ok(p.returncode == 0 and p.stdout == export_lkp(RUN) and p.stdout,
     "lkp: parse reads a bare document on stdin", p.stderr + p.stdout[:500])
res = lkp_file("lkp-one", RUN)
p = lkp_parse(res)
t.ok(p.returncode == 0 and p.stdout == export_lkp(RUN) and p.stdout,
     "lkp: parse reads $RESULT_ROOT/ucbench as run-stats hands it, log_cmd's line first",
     p.stderr + p.stdout[:500])
p = lkp_parse(lkp_file("lkp-two", RUN, fpath))
t.ok(p.returncode == 0 and p.stdout == export_lkp(RUN) + export_lkp(fpath)
     and ".flagged." in p.stdout,
     "lkp: two instances (run-test's nr_instances): each document in turn, the flagged one's "
     ".flagged. keys as export writes them", p.stderr + p.stdout[-800:])
with open(RUN) as fh:
    cut = fh.read()[:3000]
with open(path("lkp-cut"), "w") as f:
    f.write(open(res).read() + "2026-05-04 10:20:31 ucbench run --workload signal\n" + cut)
p = lkp_parse(path("lkp-cut"))
t.ok(p.returncode == 1 and p.stdout == export_lkp(RUN) and "has no end" in p.stderr,
     "lkp: a document cut off (a run that died): parse fails and says so, the complete one's "
     "keys still printed", p.stderr + p.stdout[-300:])
with open(path("lkp-none"), "w") as f:
    f.write("2026-05-04 10:20:30 ucbench run --workload signal\n")
p = lkp_parse(path("lkp-none"))
t.ok(p.returncode == 1 and not p.stdout and "no ucbench-result document" in p.stderr,
     "lkp: no document at all: parse fails", p.stderr)

# Directions: every key parse can print (both modes, depth and tasks in the name, every flag) has
# exactly one line in examples/lkp/etc/index-perf-all.yaml, matched as lkp-tests matches it
# (lib/stats.rb: the first key with stat =~ /^KEY$/), with the direction it should have; the
# flags have none (they are failure stats by etc/failure), the metrics are no failure stats.
DIRECTION = {"per_process_ops": 1, "per_thread_ops": 1, "workload": 1, "scalability": 1,
             "per_container_ops": 1, "per_container_ops_stddev": -1, "fairness": 1,
             "cpu_ns_per_op": -1}
vd = copy.deepcopy(fd)
for e in vd["results"]:
    e.update(mode="thread", depth=2, tasks=3)
vd["results"][0]["canary"] = {"moved": True}
keys = []
for docp in (RUN, fpath, write("lkp-variant.json", vd)):
    keys += ["ucbench." + ln.split(": ", 1)[0]
             for ln in lkp_parse(lkp_file("lkp-keys", docp)).stdout.splitlines()]
flags = [k for k in keys if ".flagged." in k]
metrics = [k for k in keys if ".flagged." not in k]


def lkp_matches(index, stat):
    """The patterns of an index-perf-all.yaml that match, in order: lib/stats.rb matches each
    as /^KEY$/ and kpi_stat_direction takes the first."""
    return [k for k in index if re.search(f"^{k}$", stat)]


def lkp_direction(index, stat):
    m = lkp_matches(index, stat)
    return index[m[0]] if m else None


if yaml is None:
    t.skip("lkp: the directions of every key in examples/lkp/etc/index-perf-all.yaml",
           "python3-yaml is not installed")
else:
    try:
        with open(os.path.join(LKP_EX, "etc", "index-perf-all.yaml")) as fh:
            frag = yaml.safe_load(fh) or {}
    except OSError:
        frag = {}
    named = {k.rsplit(".", 1)[1] for k in metrics}
    wrong = [(k, lkp_matches(frag, k)) for k in metrics
             if len(lkp_matches(frag, k)) != 1
             or lkp_direction(frag, k) != DIRECTION.get(k.rsplit(".", 1)[1])]
    t.ok(named == set(DIRECTION) and not wrong and set(frag.values()) <= {1, -1}
         and all(k.startswith("ucbench\\.") for k in frag),
         f"lkp: each of the {len(metrics)} metric keys parse printed (all {len(DIRECTION)} "
         "names, process and thread, depth and tasks in the name) has one line in "
         "examples/lkp/etc/index-perf-all.yaml, with its direction", (sorted(named), wrong[:5]))
    t.ok(sorted({k.rsplit(".", 1)[1] for k in flags}) == ["contended", "speed-moved", "starved"]
         and all(not lkp_function_stat(k) and lkp_direction(frag, k) is None for k in flags)
         and not any(lkp_function_stat(k) for k in metrics),
         "lkp: each flag key parse passes through (starved, contended, speed-moved) is no "
         "function stat (etc/failure, etc/pass: never a failure of the run) and has no direction "
         "(no KPI); no metric key is a function stat", flags)
    if LKP_SRC:
        with open(os.path.join(LKP_SRC, "etc", "index-perf-all.yaml")) as fh:
            real = yaml.safe_load(fh)
        # Our lines in the file's sorted place, as the README says to insert them.
        rest = [(k, v) for k, v in real.items() if not k.startswith("ucbench")]
        at = next((i for i, (k, _) in enumerate(rest) if k > "ucbench"), len(rest))
        merged = dict(rest[:at] + list(frag.items()) + rest[at:])
        bad = [(k, lkp_direction(merged, k)) for k in metrics
               if lkp_direction(merged, k) != DIRECTION[k.rsplit(".", 1)[1]]]
        bad += [(k, lkp_direction(merged, k)) for k in flags
                if lkp_direction(merged, k) is not None]
        t.ok(metrics and not bad, "lkp: within $LKP_SRC's own etc/index-perf-all.yaml "
             f"({len(real)} lines), every key still gets our direction (no other line matches "
             "first)", bad)
    else:
        t.skip("lkp: our lines within lkp-tests' own etc/index-perf-all.yaml",
               "set LKP_SRC to an lkp-tests checkout")

if os.geteuid() != 0 or not userns_works():
    t.skip("lkp: run + parse on a real run, will-it-scale's keys", "needs root and user "
           "namespaces")
else:
    base = uid_block(2101700000, 100)
    renv = dict(env, workload="signal", containers="2", nr_task="4", runtime="0.5",
                warmup="0.1", repeat="2", owner="distinct", uid_base=str(base))
    if LKP_SRC:
        renv.update(LKP_SRC=LKP_SRC, TMP_RESULT_ROOT=d)  # log_cmd appends to reproduce.sh
    rr = subprocess.run([os.path.join(LKP, "run")], capture_output=True, text=True, env=renv,
                        timeout=120)
    out = rr.stdout
    if not LKP_SRC:
        out = "2026-05-04 10:20:30 ucbench run --workload signal\n" + out
    with open(path("lkp-real"), "w") as f:
        f.write(out)
    p = lkp_parse(path("lkp-real"))
    kv = dict(ln.split(": ", 1) for ln in p.stdout.splitlines() if ": " in ln)
    want = {"signal.distinct.t2.2." + k for k in ("per_process_ops", "workload",
                                                  "per_container_ops", "fairness")}
    t.ok(rr.returncode == 0 and p.returncode == 0 and want <= set(kv)
         and (not LKP_SRC or LOG_CMD_LINE.match(out))
         and all(float(v) >= 0 for v in kv.values())
         and not any(k.startswith("ucbench.") for k in kv)
         and abs(float(kv["signal.distinct.t2.2.workload"])
                 - 4 * float(kv["signal.distinct.t2.2.per_process_ops"]))
         < 1e-6 * float(kv["signal.distinct.t2.2.workload"]) + 1,
         "lkp: run (nr_task 4 over 2 containers = 2 tasks each, 2 repeats; "
         + ("with $LKP_SRC's log_cmd" if LKP_SRC else "log_cmd's line added") +
         ") + parse: will-it-scale's keys, workload = 4 x per_process_ops",
         out[:200] + rr.stderr[-1500:] + p.stdout + p.stderr)

shutil.rmtree(d)
t.done()
