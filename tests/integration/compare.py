# SPDX-License-Identifier: GPL-2.0-or-later
"""compare.py - `ucbench compare` on documents with controlled runs: a document against itself
is no change; a head made slower (per-run rates scaled, each op dearer) is a regression with
exit 1, faster an improvement; a change whose interval lies within the threshold is no change;
a wide interval is inconclusive with the repeats needed; fewer ops/s without dearer ops is
"metrics disagree"; one repeat a side and contended repeats are inconclusive; several
documents a side make the document the unit; a verify case that newly fails is exit 1;
host and option differences (seccomp, durations, kernel, within a side too) are named, by key
on the text's note line, a note each under -v, and `differences` in JSON, volatile keys not; a point left with too few clean
repeats shows the ratio of all its repeats, marked, and flagged repeats are said in the row;
no text output of any case says `nan`; bad input is a one-line exit 2."""
import copy
import json
import os
import re

from taplib import Tap, run as run_ucbench
from taplib import doc_scratch

t = Tap()
d, path, write = doc_scratch("ucb-cmp-")
compared = []  # every compare's arguments: each is run again as text at the end, for 'nan'


def run(args, **kw):
    if args[:1] == ["compare"]:
        compared.append(list(args))
    return run_ucbench(args, **kw)


def make(levels, cpu=None, contended=()):
    """The example's points, each with one repeat per value of `levels` (per-container ops/s
    x 1e5) and CPU ns/op `cpu` (default 1e4 / level: each op costs what the rate says);
    repeats whose index is in `contended` carry contention.contended."""
    doc = copy.deepcopy(base0)
    res = []
    for r in base0["results"]:
        for k, lv in enumerate(levels):
            x = copy.deepcopy(r)
            x["repeat"] = k + 1
            c = (cpu[k] if cpu else 1e4 / lv)
            x["summary"]["per_container_ops"] = 1e5 * lv
            x["summary"]["cpu_ns_per_op"] = c
            for pc in x["per_container"]:
                pc["rate_ops_per_s"] = 1e5 * lv
                pc["cpu_ns_per_op"] = c
            if k in contended:
                x["contention"] = {"contended": True, "cpu_share_median": 0.4, "owns_cpu": True}
            res.append(x)
    doc["results"] = res
    doc["config"]["repeat"] = len(levels)
    return doc


def cmp_json(*args, drift="0"):
    """compare as JSON; --drift 0 unless told: these runs have no drift between documents."""
    r = run(["compare", *args, "--format", "json"] + (["--drift", drift] if drift else []))
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = {}
    return r, out, out.get("points", [])


def verdicts(pts):
    return {p["verdict"] for p in pts}


src = os.path.join(os.environ.get("top_srcdir", "."), "examples", "run-small.json")
# A real document (the example, 2 points), its repeats made 3 with controlled levels: +-0.5 %
# about a rate, so that what the test asserts depends on the comparison, not on this machine.
base0 = json.load(open(src))
TIGHT = [1.0, 1.005, 0.995]
b = write("base.json", make(TIGHT))

r = run(["compare", b, b, "--drift", "0"])
t.ok(r.returncode == 0 and "geometric mean" in r.stdout and "Holm" in r.stdout
     and "# note: fewer than 2 documents a side and --drift 0: the verdicts are about these "
     "invocations only" in r.stdout
     and r.stdout.count("no change") == 2 and "regression  " not in r.stdout,
     "a document against itself, --drift 0: no change at both points, what the columns are and "
     "the one-invocation caveat in the header, exit 0", r.stdout + r.stderr)
r = run(["compare", "-v", b, b, "--drift", "0"])
t.ok(r.returncode == 0 and "Welch t interval" in r.stdout and "Holm" in r.stdout
     and "# caveat: fewer than 2 documents a side and --drift 0" in r.stdout
     and "about these invocations only" in r.stdout and r.stdout.count("no change") == 2,
     "-v: the method and the caveat in full", r.stdout + r.stderr)
r = run(["compare", b, b])
t.ok(r.returncode == 0 and "assumed, 3.0% a side (--drift)" in r.stdout
     and r.stdout.count("inconclusive (~") == 2,
     "the same with the default drift: one invocation says little of another, inconclusive "
     "with the documents a side that would settle it", r.stdout)
r, out, pts = cmp_json(b, write("slow.json", make([0.8 * x for x in TIGHT])))
t.ok(r.returncode == 1 and len(pts) == 2 and verdicts(pts) == {"regression"}
     and all(abs(p["ratio"] - 0.8) < 0.01 and p["ci_high"] < 0.95 for p in pts)
     and all(p["cpu_ns_per_op"]["ci_low"] > 1 for p in pts),
     "head 20% slower, each op 25% dearer: a regression at every point, interval below 0.95, "
     "exit 1", r.stdout[:2000])
m = out.get("method", {})
t.ok(out.get("schema") == "ucbench-compare/2" and m.get("interval") == "welch-t-log"
     and m.get("adjustment") == "holm" and m.get("alpha") == 0.05 and m.get("level") == 0.95
     and m.get("threshold_pct") == 5 and out.get("base") == [b]
     and all(p["unit"] == "repeat" and p["n_base"] == 3 and p["n_head"] == 3
             and p["base"]["repeats_used"] == 3 and p["base"]["repeats_left_out"] == 0
             and p["p_beyond_adj"] >= p["p_beyond"] for p in pts),
     "the JSON names the method, the unit and the runs used; adjusted p >= raw p",
     json.dumps(out)[:1500])
r, out, pts = cmp_json(b, write("fast.json", make([1.25 * x for x in TIGHT])))
t.ok(r.returncode == 0 and verdicts(pts) == {"improvement"},
     "head 25% faster: improvement, exit 0", r.stdout[:1500])
r, out, pts = cmp_json(b, write("bit.json", make([0.97 * x for x in TIGHT])))
t.ok(r.returncode == 0 and verdicts(pts) == {"no change"}
     and all(p["ci_low"] > 0.95 and p["ci_high"] < 1.05 for p in pts),
     "head 3% slower (interval within the 5% threshold): no change", r.stdout[:1500])
r, out, pts = cmp_json(b, path("bit.json"), "--threshold", "1")
t.ok(r.returncode == 1 and verdicts(pts) == {"regression"},
     "--threshold 1: the same 3% is now a regression (its interval lies below 0.99)",
     r.stdout[:1500])

# The runs decide, not the mean: one repeat 60 % faster moves the mean 20 % but the interval
# over three runs is then wide, and nothing is claimed.
r, out, pts = cmp_json(b, write("outlier.json", make([1.6, 1.005, 0.995])))
t.ok(r.returncode == 0 and pts and all(p["verdict"] == "inconclusive" and p["needed"] for p in pts),
     "one outlier run: inconclusive, with the repeats that would settle it", json.dumps(pts)[:1500])
r = run(["compare", b, path("outlier.json"), "--drift", "0"])
t.ok("inconclusive (~" in r.stdout and "repeats a side)" in r.stdout,
     "the table says how many repeats a side would settle it", r.stdout)
# Fewer ops/s while each op costs the same CPU: the task got less CPU, not more work.
r, out, pts = cmp_json(b, write("starved.json", make([0.7 * x for x in TIGHT],
                                                      cpu=[1e4 / x for x in TIGHT])))
t.ok(r.returncode == 0 and verdicts(pts) == {"inconclusive (metrics disagree)"},
     "30% fewer ops/s, CPU ns/op unchanged: inconclusive (metrics disagree), exit 0",
     json.dumps(pts)[:1500])
# One repeat a side cannot estimate run-to-run variance.
one = write("one.json", base0)
r, out, pts = cmp_json(one, write("one-slow.json", make([0.5])))
t.ok(r.returncode == 0 and verdicts(pts) == {"inconclusive (1 repeat)"},
     "one repeat a side, even 50% slower: inconclusive (1 repeat), exit 0", json.dumps(pts)[:1500])
# Contended repeats are left out; too few left: inconclusive (contended), and the ratio of all
# the repeats is shown, marked.
r, out, pts = cmp_json(b, write("cont.json", make([0.8 * x for x in TIGHT], contended=(0, 1))))
t.ok(r.returncode == 0 and verdicts(pts) == {"inconclusive (contended)"}
     and all(p["head"]["repeats_left_out"] == 2 and p["head"]["repeats_used"] == 1 for p in pts),
     "two of three head repeats contended: left out, inconclusive (contended)",
     json.dumps(pts)[:1500])
t.ok(all(p.get("ratio_from_contended") and abs(p["ratio"] - 0.8) < 0.01 and p["n_head"] == 3
         and p["ci_low"] < 0.8 < p["ci_high"] and p["p_beyond_adj"] is None
         and p["head"].get("flags") == ["contended"] and p["base"].get("flags") == [] for p in pts),
     "... its ratio from all three repeats, ratio_from_contended, no p-value; head.flags",
     json.dumps(pts)[:1500])
allc = write("allcont.json", make([0.8 * x for x in TIGHT], contended=(0, 1, 2)))
r, out, pts = cmp_json(allc, allc)
t.ok(r.returncode == 0 and verdicts(pts) == {"inconclusive (contended)"}
     and all(p.get("ratio_from_contended") and p["ratio"] == 1 and p["base"]["median_ops_per_s"]
             for p in pts),
     "every repeat contended a side: the ratio and medians of the contended repeats",
     json.dumps(pts)[:1500])
r = run(["compare", b, path("cont.json"), "--drift", "0"])
rows = [ln for ln in r.stdout.splitlines() if ln.startswith("signal ")]
t.ok(len(rows) == 2 and all(re.search(r" 0\.8\d\d \[\d\.\d+, \d\.\d+\] c ", ln)
                            and ln.endswith("inconclusive (contended) [head: contended]")
                            for ln in rows)
     and "# c: the ratio of every repeat" in r.stdout, "the table marks the ratio with c and "
     "says which side's repeats are flagged", r.stdout)
# A repeat flagged by the model (ucb_point_flags) but used: the row says so.
stv = make([0.8 * x for x in TIGHT])
stv["results"][1]["contention"] = {"contended": False, "starved": True, "starved_containers": 1}
r, out, pts = cmp_json(b, write("starved-flag.json", stv))
t.ok(r.returncode == 1 and [p["head"].get("flags") for p in pts] == [["starved"], []]
     and not any(p.get("ratio_from_contended") for p in pts),
     "a starved repeat: head.flags of its point says so, nothing left out", json.dumps(pts)[:1500])
r = run(["compare", b, path("starved-flag.json"), "--drift", "0"])
t.ok(r.stdout.count("[head: starved]") == 1, "and its row", r.stdout)
r, out, pts = cmp_json(b, write("cont1.json", make([0.8, 0.804, 0.796, 0.3], contended=(3,))))
t.ok(r.returncode == 1 and verdicts(pts) == {"regression"}
     and all(p["head"]["repeats_left_out"] == 1 and p["n_head"] == 3 for p in pts),
     "one contended (starved) repeat of four left out: the other three decide", json.dumps(pts)[:1500])

# Several documents a side: each document is a unit, so the drift between invocations is seen.
bs = [write(f"b{i}.json", make([lv * x for x in TIGHT])) for i, lv in enumerate((1.0, 1.06, 0.95))]
hs = [write(f"h{i}.json", make([lv * x for x in TIGHT])) for i, lv in enumerate((0.97, 1.03, 0.92))]
r, out, pts = cmp_json(bs[0], hs[2])
t.ok(r.returncode == 1 and verdicts(pts) == {"regression"},
     "one document a side, --drift 0: an 8% drift between two invocations reads as a "
     "regression (about these invocations only)", json.dumps(pts)[:1200])
r, out, pts = cmp_json(bs[0], hs[2], drift=None)
t.ok(r.returncode == 0 and verdicts(pts) == {"inconclusive"}
     and all(p["needed_unit"] == "document" for p in pts)
     and out["method"]["drift_pct"] == 3,
     "the same with the default --drift 3: inconclusive, more documents needed",
     json.dumps(out)[:1500])
r, out, pts = cmp_json(b, path("slow.json"), drift=None)
t.ok(r.returncode == 1 and verdicts(pts) == {"regression"},
     "a 20% slowdown is a regression even with the default drift assumed", json.dumps(pts)[:800])
args = [a for f in bs for a in ("--base", f)] + [a for f in hs for a in ("--head", f)]
r, out, pts = cmp_json(*args)
t.ok(r.returncode == 0 and pts and all(p["unit"] == "document" and p["n_base"] == 3
                                       and p["verdict"] == "inconclusive" for p in pts)
     and out.get("caveat") is None and out.get("base") == bs,
     "three documents a side with drift between them: the document is the unit, inconclusive, "
     "no caveat", json.dumps(out)[:2000])
r = run(["compare", *args, "--drift", "0"])
t.ok("documents a side)" in r.stdout and "fewer than 2 documents" not in r.stdout
     and all(f in r.stdout.splitlines()[0] for f in bs + hs),
     "the table names every document and the documents a side that would settle it", r.stdout)
r = run(["compare", "-v", *args, "--drift", "0"])
t.ok("# caveat" not in r.stdout and r.stdout.count("# base:") == 3,
     "-v: a line per document", r.stdout)
r, out, pts = cmp_json(*[a for f in bs for a in ("--base", f)], "--head", hs[0], "--head",
                       write("h-slow.json", make([0.7 * x for x in TIGHT])), "--head",
                       write("h-slow2.json", make([0.69 * x for x in TIGHT])))
t.ok(pts and all(p["unit"] == "document" for p in pts)
     and verdicts(pts) <= {"regression", "inconclusive"},
     "documents a side, two of three heads 30% slower: a regression or inconclusive, never "
     "an improvement", json.dumps(pts)[:1200])

# Verify: a case that newly fails is exit 1; host differences are a warning header.
vb = {"schema": "ucbench-result/1", "host": {"kernel": {"release": "6.1.0"}},
      "results": [], "verify": [{"id": "ULIM-01", "status": "pass"},
                                {"id": "ULIM-19", "status": "known-bug"}]}
vh = copy.deepcopy(vb)
vh["host"]["kernel"]["release"] = "6.18.44"
vh["verify"][0]["status"] = "fail"
r = run(["compare", write("vb.json", vb), write("vh.json", vh)])
t.ok(r.returncode == 1 and "ULIM-01: pass -> fail" in r.stdout and "NEWLY FAILING" in r.stdout,
     "a verify case pass -> fail: listed, exit 1", r.stdout)
t.ok("# note: the documents differ in host.kernel.release (-v: how)\n" in r.stdout,
     "host differences: named on the header's note line", r.stdout)
r = run(["compare", "-v", path("vb.json"), path("vh.json")])
t.ok("# note: base and head differ in host.kernel.release: 6.1.0 (base) vs 6.18.44 (head)\n"
     in r.stdout, "-v: a note each, with the values", r.stdout)

# Options that change what is measured are named, one note each, in the text and the JSON;
# a note is not a failure.  The example has no config.runtime (written before those options):
# no filter.  The head is the same document as `ucbench run --seccomp docker` records it.
SECCOMP = {"arches": 3, "bpf_insns": 1109, "default_action": "SCMP_ACT_ERRNO",
           "default_errno": 1, "entries": 33, "entries_skipped": 7, "entries_used": 26,
           "names_unknown": 12, "optimize": 1, "profile": "docker", "rules": 415,
           "source": "docker"}
ex = write("ex.json", base0)
sec = copy.deepcopy(base0)
sec["config"]["runtime"] = {"caps": {"keep": None, "mode": "keep"}, "cgroup": None,
                            "no_new_privs": False, "perf": None, "seccomp": SECCOMP}
# volatile keys: no difference
sec["run"]["start_time"] = "2027-01-01T00:00:00Z"
sec["run"]["argv"] = ["ucbench", "run", "--seccomp", "docker"]
sec["host"]["hostname"] = "elsewhere"
sec["config"]["notes"] = ["the host was busy: ..."]
sec["config"]["output"] = "head.json"
sec = write("seccomp.json", sec)
r = run(["compare", "-v", ex, sec])
notes = [ln for ln in r.stdout.splitlines() if ln.startswith("# note:")]
t.ok(r.returncode == 0 and notes == ["# note: base and head differ in config.runtime.seccomp: "
                                     "none (base) vs docker (head)"],
     "another seccomp filter: named in one note, exit 0; start time, argv, hostname, notes "
     "are not differences", r.stdout)
r, out, pts = cmp_json(ex, sec)
t.ok(r.returncode == 0 and out.get("differences") == [
    {"key": "config.runtime.seccomp", "base": "none", "head": "docker"}]
     and out.get("warnings") == [notes[0][len("# note: "):]] if notes else False,
     "the JSON names it in differences[] {key, base, head}, and the note in warnings[]",
     json.dumps(out.get("differences")))
opts = json.load(open(sec))
opts["config"]["runtime"]["seccomp"]["rules"] = 400
opts["config"]["runtime"]["caps"] = {"keep": "chown,kill", "mode": "list"}
opts["config"]["duration_s"] = 2.0
opts["config"]["pin"]["mode"] = "none"
opts["host"]["kernel"]["cmdline"] = "mitigations=off"
r, out, pts = cmp_json(sec, write("opts.json", opts))
keys = {x["key"]: (x["base"], x["head"]) for x in out.get("differences", [])}
t.ok(keys == {"config.runtime.seccomp.rules": (415, 400),
              "config.runtime.caps.mode": ("keep", "list"),
              "config.runtime.caps.keep": (None, "chown,kill"),
              "config.duration_s": (1.0, 2.0), "config.pin.mode": ("auto", "none"),
              "host.kernel.cmdline": (base0["host"]["kernel"]["cmdline"], "mitigations=off")},
     "the filter's rules, the capabilities, the duration, pinning, the kernel command line: "
     "each a difference", json.dumps(out.get("differences")))
r = run(["compare", "-v", sec, path("opts.json")])
t.ok("# note: base and head differ in config.runtime.caps.keep: - (base) vs chown,kill (head)"
     in r.stdout and "# note: base and head differ in config.duration_s: 1.0 (base) vs 2.0 (head)"
     in r.stdout, "null is - in a note", r.stdout)
# Several documents a side: a key whose values differ within a side is said too.
r, out, pts = cmp_json("--base", ex, "--base", path("opts.json"), "--head", sec, "--head", sec)
dur = [x for x in out.get("differences", []) if x["key"] == "config.duration_s"]
t.ok(dur == [{"key": "config.duration_s", "base": [1.0, 2.0], "head": 1.0}],
     "documents of a side that differ: that side's value is each document's",
     json.dumps(out.get("differences")))
r = run(["compare", "-v", "--base", ex, "--base", path("opts.json"), "--head", sec, "--head",
         sec])
t.ok(f"# note: the documents of a side differ in config.duration_s: base 1.0 ({ex}), 2.0 "
     f"({path('opts.json')}); head 1.0\n" in r.stdout, "and the note names the documents",
     r.stdout)

# Bad input: one line naming the file and the problem, exit 2.
with open(path("text.json"), "w") as f:
    f.write("this is not json")
with open(path("trunc.json"), "w") as f:
    f.write(json.dumps(base0)[:100])
for name, doc, needle in (("text.json", None, "not valid JSON"),
                          ("trunc.json", None, "not valid JSON"),
                          ("other.json", {"hello": 1}, "not a ucbench result document"),
                          ("v2.json", {"schema": "ucbench-result/2", "results": []}, "upgrade"),
                          ("res.json", {"schema": "ucbench-result/1", "results": 3}, "results"),
                          ("missing.json", None, "No such file")):
    p = write(name, doc) if doc is not None else path(name)
    r = run(["compare", b, p])
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and lines and p in lines[0] and needle in lines[0] and r.stdout == "",
         f"bad input {name}: exit 2, one line naming the file ({needle})", r.stderr)
# A comparison of nothing is bad input too, or a CI gate would pass on the wrong file: a
# document of the other kind, one with nothing to compare, no point in common, a field of the
# wrong type (a number written as a string).
vsrc = os.path.join(os.environ.get("top_srcdir", "."), "examples", "verify-small.json")
other = make(TIGHT)
for x in other["results"]:
    x["workload"] = "getppid"
strnum = make(TIGHT)
strnum["host"]["cpus_online"] = "2"
strcont = make(TIGHT)
strcont["results"][0]["contention"] = {"contended": "true"}
vother = copy.deepcopy(vb)
for c in vother["verify"]:
    c["id"] = "ULIM-09"
for name, args, needle in (
        ("verify.json against run.json", [vsrc, b], "compare documents of one kind"),
        ("run.json against verify.json", [b, vsrc], "compare documents of one kind"),
        ("no results[] and no verify[]",
         [write("nores.json", {"schema": "ucbench-result/1"}), b], "neither \"results\""),
        ("results[] empty", [b, write("empty.json", dict(base0, results=[]))],
         "nothing to compare"),
        ("results[] of garbage", [b, write("junk.json", dict(base0, results=[1, "x"]))],
         "results[0]: not an object"),
        ("no point in common", [b, write("other.json", other)], "no point"),
        ("no verify case in common", [path("vb.json"), write("vother.json", vother)],
         "no verify case in common"),
        ("a number written as a string", [write("strnum.json", strnum), b],
         'host: "cpus_online" is not an integer'),
        ("a boolean written as a string", [b, write("strcont.json", strcont)],
         'results[0].contention: "contended" is not true or false')):
    r = run(["compare", *args])
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and lines and needle in lines[0] and r.stdout == ""
         and any(a in lines[0] for a in args) and all(ln.startswith("Try ") for ln in lines[1:]),
         f"{name}: exit 2, one line naming the file ({needle})", r.stderr)
r = run(["compare", "--base", b, "--head", b, "--head", write("vh2.json", vb)])
t.ok(r.returncode == 2 and "one kind" in r.stderr and "vh2.json" in r.stderr,
     "a verify document among several heads: exit 2", r.stderr)

r = run(["compare", b])
t.ok(r.returncode == 2 and "two documents" in r.stderr, "one file only: exit 2")
r = run(["compare", b, b, "--threshold", "x"])
t.ok(r.returncode == 2 and "--threshold" in r.stderr, "bad --threshold: exit 2")
r = run(["compare", b, b, "--drift", "x"])
t.ok(r.returncode == 2 and "--drift" in r.stderr, "bad --drift: exit 2")
r = run(["compare", b, b, "--threshold", "0"])
t.ok(r.returncode == 2 and "--threshold" in r.stderr, "--threshold 0 (no band): exit 2")
r = run(["compare", "--base", b, b])
t.ok(r.returncode == 2 and "not both" in r.stderr, "positional documents with --base: exit 2",
     r.stderr)
r = run(["compare", "--base", b])
t.ok(r.returncode == 2 and "--head" in r.stderr, "--base without --head: exit 2", r.stderr)
r = run(["compare", "--base", b, "--head", path("text.json")])
t.ok(r.returncode == 2 and "not valid JSON" in r.stderr and r.stdout == "",
     "a bad --head document: exit 2", r.stderr)

# A point one side lacks is an "only in" line naming the file, escaped: a file name that is not
# UTF-8 (JSON's `file` is then null) once crashed the text, which read it back from the JSON.
one = make(TIGHT)
one["results"] = [x for x in one["results"] if x["containers"] == 1]
odd = write(os.fsdecode(b"only-\xff.json"), make(TIGHT))
r = run(["compare", write("one-n.json", one), odd, "--drift", "0"])
t.ok(r.returncode == 0 and "# only in " + os.path.join(d, "only-\\xff.json") + ": signal|2|"
     in r.stdout, "a point only in a head whose name is not UTF-8: its line, the name escaped",
     r.stdout + r.stderr)

# Never `nan` in the text: every comparison above, as text.
seen, nans = set(), []
for args in compared:
    a = [x for x in args if x not in ("--format", "json")]
    if tuple(a) in seen:
        continue
    seen.add(tuple(a))
    r = run_ucbench(a)
    if re.search(r"(?i)\bnan\b", (r.stdout + r.stderr).replace(d, "DIR")):
        nans.append(" ".join(a) + "\n" + r.stdout)
t.ok(len(seen) > 30 and not nans, f"no 'nan' in the text of any of {len(seen)} comparisons",
     "\n".join(nans)[:3000])

for f in os.listdir(d):
    os.unlink(path(f))
os.rmdir(d)
t.done()
