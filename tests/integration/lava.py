# SPDX-License-Identifier: GPL-2.0-or-later
"""lava.py - examples/lava/: the test definition and the job validate (Debian's lava-common
schemas when installed, and a strict structural check always), and the definition's run steps,
run as LAVA runs them (parameters as environment variables, from the repository root), report
every verify case and every metric of real ucbench output through a stub `lava-test-case` that
checks and records each call."""
import json
import os
import re
import statistics
import subprocess
import sys

from taplib import SRCDIR, UCBENCH, Tap, scratch_dir, skip_all, uid_block, userns_works

try:
    import yaml
except ImportError:
    skip_all("python3-yaml is not installed")

t = Tap()
LAVA = os.path.join(SRCDIR, "examples", "lava")
with open(os.path.join(LAVA, "ucbench.yaml")) as f:
    testdef = yaml.safe_load(f)
with open(os.path.join(LAVA, "job.yaml")) as f:
    job = yaml.safe_load(f)

# ---- the schemas: lava-common's own, where Debian's package is installed ----
try:
    from lava_common.schemas import validate as validate_job
    from lava_common.schemas.test.testdef import validate as validate_testdef
except ImportError:
    validate_job = validate_testdef = None
if validate_job:
    for what, fn, doc in (("test definition", validate_testdef, testdef),
                          ("job", lambda d: validate_job(d, strict=True), job)):
        try:
            fn(doc)
            t.ok(True, f"lava-common accepts the {what}")
        except Exception as e:  # voluptuous.Invalid and its subclasses
            t.ok(False, f"lava-common accepts the {what}", f"{type(e).__name__}: {e}")
    # The schema is no rubber stamp: a wrong format string is refused.
    try:
        validate_testdef(dict(testdef, metadata=dict(testdef["metadata"], format="Lava 2")))
        t.ok(False, "lava-common refuses a wrong metadata.format")
    except Exception:
        t.ok(True, "lava-common refuses a wrong metadata.format")
else:
    t.skip("lava-common accepts the test definition and the job",
           "lava-common is not installed (apt-get install lava-common)")

# ---- strict structure (LAVA's testdef schema allows extra keys; this does not) ----
md = testdef.get("metadata", {})
t.ok(set(testdef) <= {"metadata", "install", "params", "parse", "run"}
     and set(md) <= {"format", "name", "description", "environment", "devices", "maintainer",
                     "scope", "os"}, "test definition: only the keys LAVA knows", list(testdef))
t.ok(md.get("format") == "Lava-Test Test Definition 1.0"
     and re.fullmatch(r"[-_a-zA-Z0-9.]+", md.get("name", "")) and isinstance(
         md.get("description"), str), "metadata: format, name, description", md)
steps = testdef.get("run", {}).get("steps")
t.ok(isinstance(steps, list) and steps and all(isinstance(s, str) for s in steps),
     "run.steps: a list of shell lines", steps)
params = testdef.get("params", {})
t.ok(params and all(isinstance(v, str) for v in params.values()),
     "params: strings (LAVA exports them as shell variables)", params)
tests = [a["test"] for a in job.get("actions", []) if "test" in a]
defs = [d for a in tests for d in a.get("definitions", [])]
t.ok(len(defs) == 1 and defs[0].get("path") == "examples/lava/ucbench.yaml"
     and defs[0].get("from") == "git" and defs[0].get("name") == md.get("name")
     and set(defs[0].get("parameters", {})) <= set(params),
     "job: the test action runs examples/lava/ucbench.yaml with its own parameters", defs)

# ---- the steps, on real output, against a stub lava-test-case ----
if not (userns_works() and os.geteuid() == 0):
    t.skip("the steps report every case and metric", "needs root and user namespaces")
    t.done()

stubs = scratch_dir("ucb-lava-")
calls_path = os.path.join(stubs, "calls.jsonl")
with open(os.path.join(stubs, "lava-test-case"), "w") as f:
    f.write(f"""#!{sys.executable}
import json, re, sys
a = sys.argv[1:]
ok = len(a) >= 3 and a[1] == "--result" and a[2] in ("pass", "fail", "skip", "unknown")
rest = a[3:]
if ok and rest:
    ok = (len(rest) == 4 and rest[0] == "--measurement" and rest[2] == "--units"
          and re.fullmatch(r"-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?", rest[1]) is not None
          and re.fullmatch(r"[^\\s=]+", rest[3]) is not None)
with open({calls_path!r}, "a") as out:
    out.write(json.dumps({{"argv": a, "valid": ok}}) + "\\n")
sys.exit(0 if ok else 1)
""")
os.chmod(os.path.join(stubs, "lava-test-case"), 0o755)
out = scratch_dir("ucb-lava-out-")
vbase, rbase = uid_block(2102160000, 10000, 1000000), uid_block(2103200000, 10)
env = dict(os.environ, PATH=stubs + ":" + os.environ["PATH"], OUTDIR=out, **params)
env.update(SKIP_BUILD="true", UCBENCH=os.path.abspath(UCBENCH),
           RUN_ARGS=f"-w getppid,signal -c 1,2 -d 300ms --warmup 0 --interval 100ms -r 2 "
                    f"--owner shared --uid-base {rbase}",
           VERIFY_ARGS=f"--uid-base {vbase}")
for step in steps:
    r = subprocess.run(["sh", "-c", step], cwd=SRCDIR, env=env, capture_output=True, text=True,
                       timeout=600)
    t.ok(r.returncode == 0, f"step `{step}` exits 0", r.stderr[-2000:])


def recorded():
    try:
        with open(calls_path) as f:
            return [json.loads(ln) for ln in f]
    except OSError:
        return []


calls = recorded()
t.ok(calls and all(c["valid"] for c in calls), f"{len(calls)} lava-test-case calls, all valid",
     [c for c in calls if not c["valid"]][:5])
names = [c["argv"][0] for c in calls]
bad = [n for n in names if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]", n)]
t.ok(not bad, "names: letters, digits, . _ - (no spaces, `=` or `/`)", bad)
t.ok(len(set(names)) == len(names), "every name once", sorted(n for n in names
                                                              if names.count(n) > 1)[:5])
res = {c["argv"][0]: c["argv"][2] for c in calls}
meas = {c["argv"][0]: (float(c["argv"][4]), c["argv"][6]) for c in calls if len(c["argv"]) > 3}
t.ok(res.get("build") == "pass" and res.get("run") == "pass", "build and run: pass",
     {k: res.get(k) for k in ("build", "run", "verify")})

with open(os.path.join(out, "verify.json")) as f:
    vdoc = json.load(f)
MAP = {"pass": "pass", "fail": "fail", "known-bug": "fail", "skip": "skip", "error": "unknown"}
cases = {c["id"]: c["status"] for c in vdoc["verify"]}
t.ok(len(cases) >= 20 and all(res.get(f"verify.{cid}") == MAP[st] for cid, st in cases.items()),
     f"each of the {len(cases)} verify cases reported with its status",
     {cid: (st, res.get(f"verify.{cid}")) for cid, st in cases.items()
      if res.get(f"verify.{cid}") != MAP[st]})
t.ok(res.get("verify") == ("pass" if all(s in ("pass", "skip", "known-bug")
                                         for s in cases.values()) else "fail"),
     "verify: the overall verdict as ucbench's exit status", res.get("verify"))

with open(os.path.join(out, "run.json")) as f:
    rdoc = json.load(f)
METRICS = {"per_container_ops": "ops/s", "total_ops_per_s": "ops/s", "per_task_ops": "ops/s",
           "cpu_ns_per_op": "ns/op", "scalability": "ratio", "fairness": "ratio",
           "failed_ops": "ops"}
groups = {}
for e in rdoc["results"]:
    groups.setdefault((e["workload"], e["owner"], e["depth"], e["tasks"], e["mode"],
                       e["containers"]), []).append(e)
t.ok(len(groups) == 4 and all(len(g) == 2 for g in groups.values()),
     "4 points of 2 repeats in the run document", {k: len(g) for k, g in groups.items()})
wrong = []
for (wl, owner, depth, tasks, mode, n), g in groups.items():
    for key, units in METRICS.items():
        name = f"run.{wl}.{owner}.depth{depth}.tasks{tasks}.{mode}.c{n}.{key}"
        vals = [e["summary"][key] for e in g if e["summary"].get(key) is not None]
        if not vals:
            if res.get(name) != "skip":
                wrong.append((name, "expected skip", res.get(name)))
        elif name not in meas or meas[name][1] != units or abs(
                meas[name][0] - statistics.median(vals)) > 1e-6 * max(1, abs(meas[name][0])):
            wrong.append((name, statistics.median(vals), units, meas.get(name)))
t.ok(not wrong, "every metric of every point: the median over its repeats, with units", wrong[:5])
scal = meas.get("run.getppid.shared.depth1.tasks1.process.c1.scalability", (0,))[0]
t.ok(abs(scal - 1) < 1e-6, "a 1-container point's scalability is 1 (the median of its repeats')",
     scal)

# Names do not depend on --repeat: the same document cut to its first repeats.
one = dict(rdoc, results=[e for e in rdoc["results"] if e["repeat"] == 1])
with open(os.path.join(out, "run1.json"), "w") as f:
    json.dump(one, f)
report = [sys.executable, os.path.join(LAVA, "lava-report.py"), "--dry-run"]
r1 = subprocess.run(report + ["--run", os.path.join(out, "run1.json")], capture_output=True,
                    text=True)
r2 = subprocess.run(report + ["--run", os.path.join(out, "run.json")], capture_output=True,
                    text=True)
n1 = [ln.split()[1] for ln in r1.stdout.splitlines()]
n2 = [ln.split()[1] for ln in r2.stdout.splitlines()]
t.ok(n1 and n1 == n2, "the same test case names with and without --repeat", (n1[:3], n2[:3]))

# Every status maps: a document with fail, error, skip and known-bug cases.
bad_doc = dict(vdoc, verify=[dict(c, status=s) for c, s in
                             zip(vdoc["verify"], ["fail", "error", "skip", "known-bug", "pass"])])
with open(os.path.join(out, "v2.json"), "w") as f:
    json.dump(bad_doc, f)
r = subprocess.run(report + ["--verify", os.path.join(out, "v2.json"), "--verify-status", "1"],
                   capture_output=True, text=True)
got = dict(ln.split()[1:4:2] for ln in r.stdout.splitlines())
ids = [c["id"] for c in vdoc["verify"][:5]]
t.ok(got.get("verify") == "fail" and [got.get(f"verify.{i}") for i in ids]
     == ["fail", "unknown", "skip", "fail", "pass"],
     "fail -> fail, error -> unknown, skip -> skip, known-bug -> fail; exit 1 -> verify fail",
     got)
r = subprocess.run(report + ["--run", os.path.join(out, "missing.json"), "--run-status", "1"],
                   capture_output=True, text=True)
t.ok(r.stdout.split() == ["lava-test-case", "run", "--result", "fail"],
     "a run without a document: run fail, and no metrics", r.stdout)
t.done()
