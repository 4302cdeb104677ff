# SPDX-License-Identifier: GPL-2.0-or-later
"""lava.py - examples/lava/: the test definition and the job validate (Debian's lava-common
schemas when installed, and a strict structural check always); then the job's test action goes
through lava-dispatcher's own code (Debian's package): its deploy pipeline clones the definition
from git and writes the overlay, run.sh included (TestRunnerAction: the params as plain shell
variables, then the definition's steps), and the overlay's own lava-test-runner runs it here,
with the real ucbench and the real lava-test-case.  Every TESTCASE signal goes through the
dispatcher's own parsing (handle_testcase, SignalMatch); the documents show that the job's
parameters arrived (RUN_ARGS, VERIFY_ARGS, SKIP_BUILD, UCBENCH), and every verify case and every
metric is reported with the right result, measurement and units."""
import glob
import json
import logging
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

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
     "params: strings (LAVA writes them into run.sh as shell variables)", params)
tests = [a["test"] for a in job.get("actions", []) if "test" in a]
defs = [d for a in tests for d in a.get("definitions", [])]
t.ok(len(defs) == 1 and defs[0].get("path") == "examples/lava/ucbench.yaml"
     and defs[0].get("from") == "git" and defs[0].get("name") == md.get("name")
     and set(defs[0].get("parameters", {})) <= set(params),
     "job: the test action runs examples/lava/ucbench.yaml with its own parameters", defs)

# ---- the job's test action through lava-dispatcher's own code ----
try:
    import lava_dispatcher.job as lava_job
    from lava_common.log import YAMLLogger
    from lava_dispatcher.actions.test.shell import TestShellAction, handle_testcase
    from lava_dispatcher.connection import SignalMatch
    from lava_dispatcher.device import NewDevice
    from lava_dispatcher.parser import JobParser
except ImportError:
    t.skip("LAVA's deploy writes run.sh, its lava-test-runner runs it",
           "lava-dispatcher is not installed (apt-get install lava-dispatcher)")
    t.done()
if not os.path.exists("/usr/bin/git"):  # lava_dispatcher.utils.vcs.GitHelper runs /usr/bin/git
    t.skip("LAVA's deploy writes run.sh, its lava-test-runner runs it", "needs /usr/bin/git")
    t.done()

scratch = scratch_dir("ucb-lava-")
JOB_ID = str(os.getpid())
# The definition's repository: this tree's examples/lava (not HEAD: what is being tested), in
# a git repository on branch main, as job.yaml names it.
repo = os.path.join(scratch, "repo")
shutil.copytree(LAVA, os.path.join(repo, "examples", "lava"),
                ignore=shutil.ignore_patterns("__pycache__"))
for cmd in (["init", "-q", "-b", "main"], ["add", "-A"],
            ["-c", "user.name=ucbench", "-c", "user.email=ucbench@localhost", "commit", "-qm",
             "examples/lava"]):
    subprocess.run(["git", "-C", repo, *cmd], check=True, capture_output=True)

# The device: "/" of the test device is scratch/device, so the overlay's absolute paths (run.sh
# cd's into its test directory) work here.  The constants any device dictionary has.
device_root = os.path.join(scratch, "device")
results_dir = os.path.join(device_root, "lava-%s")
device = NewDevice({
    "constants": {"failure_retry": 1, "boot_retry": 1,
                  "posix": {"lava_test_sh_cmd": "/bin/sh", "lava_test_results_dir": results_dir,
                            "lava_test_shell_file": "~/.bashrc"}},
    "actions": {"deploy": {"methods": {"overlay": None}}}})
vbase, rbase = uid_block(2102160000, 10000, 1000000), uid_block(2103200000, 10)
JOB_PARAMS = {"SKIP_BUILD": "true", "UCBENCH": os.path.abspath(UCBENCH),
              "RUN_ARGS": f"-w getppid,signal -c 1,2 -d 300ms --warmup 0 --interval 100ms -r 2 "
                          f"--owner shared --uid-base {rbase}",
              "VERIFY_ARGS": f"--uid-base {vbase}"}
# job.yaml's test action as it is, but for the repository and the parameters; deployed "to:
# overlay" (the lab's own deploy and boot put the same overlay on a real device).
test_action = json.loads(json.dumps(tests[0]))
tdef = test_action["definitions"][0]
tdef["repository"] = repo
tdef["parameters"] = dict(tdef.get("parameters", {}), **JOB_PARAMS)
lava_doc = dict(job, actions=[{"deploy": {"to": "overlay", "timeout": {"minutes": 5}}},
                              {"test": test_action}])
lava_job.DISPATCHER_DOWNLOAD_DIR = os.path.join(scratch, "dispatcher")  # not /var/lib/lava
logging.setLoggerClass(YAMLLogger)
logger = logging.getLogger("dispatcher")
logger.setLevel(logging.DEBUG)
lava_log = os.path.join(scratch, "lava.log")
logger.addHandler(logging.FileHandler(lava_log))


def lava_tail():
    with open(lava_log) as f:
        return f.read()[-3000:]


try:
    ljob = JobParser().parse(yaml.safe_dump(lava_doc), device, JOB_ID, logger, None)
    ljob.validate()
    deploy = ljob.pipeline.actions[0]
    deploy.run(None, time.monotonic() + 300)  # the deploy: the overlay and its tarball
    overlay = deploy.get_namespace_data(action="compress-overlay", label="output", key="file")
    with tarfile.open(overlay) as tar:  # what the device's ApplyOverlay does, at its "/"
        tar.extractall(device_root)
    err = None
except Exception as e:  # LAVA's JobError, InfrastructureError, ... or a missing overlay
    err = f"{type(e).__name__}: {e}"
lava = results_dir % JOB_ID
test_dir = os.path.join(lava, "0", "tests", f"0_{md.get('name')}")
run_sh = os.path.join(test_dir, "run.sh")
t.ok(err is None and os.path.isfile(run_sh), "lava-dispatcher deploys the job's test action: "
     "the definition cloned from git, run.sh written", (err, lava_tail()))
if err is not None or not os.path.isfile(run_sh):
    t.done()
with open(run_sh) as f:
    run_text = f.read()
assigned = re.findall(r"^([A-Z_]+)='", run_text, re.M)
t.ok(set(params) | set(JOB_PARAMS) <= set(assigned)
     and all(ln in run_text.splitlines() for ln in steps),
     "run.sh as LAVA writes it: the params as shell variables (not exported), then the steps",
     run_text)

if not (userns_works() and os.geteuid() == 0):
    t.skip("LAVA's lava-test-runner runs run.sh: every case and metric reported",
           "needs root and user namespaces")
    t.done()

# The runner as the device's shell starts it (lava-test-runner puts its bin/ first in PATH).
# No ucbench in PATH: with SKIP_BUILD=true, only the UCBENCH parameter can name the binary.
no_ucbench = [p for p in os.environ["PATH"].split(":")
              if p and not os.access(os.path.join(p, "ucbench"), os.X_OK)]
r = subprocess.run([os.path.join(lava, "bin", "lava-test-runner"), os.path.join(lava, "0")],
                   env=dict(os.environ, SHELL="/bin/sh", PATH=":".join(no_ucbench)),
                   capture_output=True, text=True, timeout=900)
shell = TestShellAction()
shell._reset_patterns()
SIGNAL = re.compile(shell.patterns["signal"])
signals = SIGNAL.findall(r.stdout)
calls, bad_signals, refs = [], [], {}
for name, sparams in signals:
    if name == "TESTREFERENCE":  # signal_test_reference: case, result, reference
        ref = sparams.split()
        if len(ref) == 3:
            refs[ref[0]] = (ref[1], ref[2])
        else:
            bad_signals.append((sparams, "TESTREFERENCE of other than 3 words"))
        continue
    if name != "TESTCASE":
        continue
    try:  # the dispatcher's own reading of a TESTCASE signal
        calls.append(SignalMatch().match(handle_testcase(sparams.split())))
    except Exception as e:  # JobError / TestError: LAVA would log an error, no result
        bad_signals.append((sparams, f"{type(e).__name__}: {e}"))
rcs = []  # lava-test-shell writes run.sh's exit status to RESULTS/NAME-TIME/return_code
for rc_file in glob.glob(os.path.join(lava, "0", "results", "*", "return_code")):
    with open(rc_file) as f:
        rcs.append(f.read().strip())
t.ok(r.returncode == 0 and rcs == ["0"] and [n for n, _ in signals][:1] == ["STARTRUN"]
     and [n for n, _ in signals][-1:] == ["ENDRUN"] and "<LAVA_TEST_RUNNER EXIT>" in r.stdout,
     "lava-test-runner runs run.sh from start to end, exit status 0",
     (rcs, r.stdout[-1500:] + r.stderr[-2000:]))
t.ok(calls and not bad_signals, f"{len(calls)} TESTCASE signals, each read by the dispatcher",
     bad_signals[:5])
out = os.path.join(test_dir, "lava-output")  # ucbench-lava.sh's default OUTDIR
names = [c["test_case_id"] for c in calls]
bad = [n for n in names if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]", n)]
t.ok(not bad, "names: letters, digits, . _ - (no spaces, `=` or `/`)", bad)
t.ok(len(set(names)) == len(names), "every name once", sorted(n for n in names
                                                              if names.count(n) > 1)[:5])
res = {c["test_case_id"]: c["result"] for c in calls}
meas = {c["test_case_id"]: (c["measurement"], c.get("units")) for c in calls
        if "measurement" in c}
t.ok(res.get("build") == "pass" and res.get("run") == "pass", "build and run: pass",
     {k: res.get(k) for k in ("build", "run", "verify")})



def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


vdoc, rdoc = load("verify.json"), load("run.json")
argv = {k: (d or {}).get("run", {}).get("argv") for k, d in (("verify", vdoc), ("run", rdoc))}
t.ok(argv["verify"] and argv["run"] and res.get("build") == "pass"
     and argv["verify"][1:2 + len(JOB_PARAMS["VERIFY_ARGS"].split())]
     == ["verify", *JOB_PARAMS["VERIFY_ARGS"].split()]
     and argv["run"][1:2 + len(JOB_PARAMS["RUN_ARGS"].split())]
     == ["run", *JOB_PARAMS["RUN_ARGS"].split()]
     and not os.path.exists(os.path.join(test_dir, "build")),
     "the job's parameters reach ucbench-lava.sh: SKIP_BUILD (nothing built), UCBENCH (no "
     "ucbench in PATH, yet build passes), VERIFY_ARGS and RUN_ARGS (each document's run.argv)",
     (argv, r.stdout[-1500:], r.stderr[-1500:]))
if not (vdoc and rdoc):
    t.done()
# The table of meanings (docs/exporters.md): a known bug is a fail with its bug's page as the
# reference (lava-test-reference), no verdict is unknown.
MAP = {"pass": "pass", "fail": "fail", "known-bug": "fail", "skip": "skip", "error": "unknown"}
cases = {c["id"]: c["status"] for c in vdoc["verify"]}
bugs = {c["id"]: c.get("known_bug", {}).get("url") for c in vdoc["verify"]}


def lava_result(cid, st):
    if st == "known-bug" and bugs[cid]:
        return refs.get(f"verify.{cid}") == ("fail", bugs[cid]) and f"verify.{cid}" not in res
    return res.get(f"verify.{cid}") == MAP[st]


t.ok(len(cases) >= 20 and all(lava_result(cid, st) for cid, st in cases.items()),
     f"each of the {len(cases)} verify cases reported with its status; a known bug with "
     "lava-test-reference and its bug's page",
     {cid: (st, res.get(f"verify.{cid}"), refs.get(f"verify.{cid}")) for cid, st in
      cases.items() if not lava_result(cid, st)})
t.ok(res.get("verify") == ("pass" if all(s in ("pass", "skip", "known-bug")
                                         for s in cases.values()) else "fail"),
     "verify: the overall verdict as ucbench's exit status", res.get("verify"))

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
        # A point the host disturbed (a case POINT.flagged.FLAG): its numbers unknown, not pass.
        elif res.get(name) != ("unknown" if any(
                k.startswith(f"run.{wl}.{owner}.depth{depth}.tasks{tasks}.{mode}.c{n}.flagged.")
                for k in res) else "pass"):
            wrong.append((name, "pass, or unknown when flagged", res.get(name)))
t.ok(groups and not wrong, "every metric of every point: the median over its repeats, with "
     "units; pass, or unknown (with its measurement) when the point is flagged", wrong[:5])
scal = meas.get("run.getppid.shared.depth1.tasks1.process.c1.scalability", (0,))[0]
t.ok(abs(scal - 1) < 1e-6, "a 1-container point's scalability is 1 (the median of its repeats')",
     scal)

# Names do not depend on --repeat: the same document cut to its first repeats.
one = dict(rdoc, results=[e for e in rdoc["results"] if e["repeat"] == 1])
with open(os.path.join(out, "run1.json"), "w") as f:
    json.dump(one, f)
report = [sys.executable, os.path.join(LAVA, "lava-report.py"), "--dry-run", "--ucbench",
          os.path.abspath(UCBENCH)]
r1 = subprocess.run(report + ["--run", os.path.join(out, "run1.json")], capture_output=True,
                    text=True)
r2 = subprocess.run(report + ["--run", os.path.join(out, "run.json")], capture_output=True,
                    text=True)
# A point's POINT.flagged.FLAG cases follow what the host did to the repeats kept (a busy host
# may flag the second repeat alone): the measurement names are what must not change.
n1 = [ln.split()[1] for ln in r1.stdout.splitlines() if ".flagged." not in ln.split()[1]]
n2 = [ln.split()[1] for ln in r2.stdout.splitlines() if ".flagged." not in ln.split()[1]]
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
