# SPDX-License-Identifier: GPL-2.0-or-later
"""schema.py - docs/ucbench-result.schema.json: a valid JSON Schema (draft 2020-12) that accepts
the documents `ucbench run` and `ucbench verify` write now, and examples/run-small.json, and
rejects broken ones.  Uses uids of its own (2100950000 ...) so it can run beside the other
integration tests."""
import contextlib
import copy
import statistics
import json
import os

from taplib import SRCDIR, Tap, cgroup_lock, run, run_json, skip_all, userns_works

try:
    import jsonschema
except ImportError:
    skip_all("python3-jsonschema (module jsonschema) is not installed")
if not hasattr(jsonschema, "Draft202012Validator"):
    skip_all("this jsonschema has no Draft202012Validator (needs 4.0 or later)")

SCHEMA = os.path.join(SRCDIR, "docs", "ucbench-result.schema.json")
EXAMPLE = os.path.join(SRCDIR, "examples", "run-small.json")
SHORT = ["--duration", "0.4", "--warmup", "0.1", "--interval", "0.2", "--format", "json",
         "--quiet"]

t = Tap()

with open(SCHEMA) as f:
    schema = json.load(f)
try:
    jsonschema.Draft202012Validator.check_schema(schema)
    bad_schema = None
except jsonschema.exceptions.SchemaError as e:
    bad_schema = e
t.ok(bad_schema is None, "the schema is a valid draft 2020-12 schema", bad_schema)
t.ok(schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
     and schema.get("$id") and schema.get("title") and schema.get("description"),
     "the schema names draft 2020-12 and has $id, title and description")
V = jsonschema.Draft202012Validator(schema)


def errors(doc):
    return sorted(V.iter_errors(doc), key=lambda e: list(e.absolute_path))


def report(errs):
    return "\n".join(f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}"
                     for e in errs[:20])


def valid(doc, name):
    errs = errors(doc)
    t.ok(doc is not None and not errs, name, report(errs))


def ucbench_json(args, ok_rc=(0,)):
    return run_json(t, args, ok_rc)


with open(EXAMPLE) as f:
    example = json.load(f)
valid(example, "examples/run-small.json validates")

# The kernel matrix's documents (docs/results/kernels/), labelled as emulated.
KDIR = os.path.join(SRCDIR, "docs", "results", "kernels")
for name in sorted(os.listdir(KDIR)) if os.path.isdir(KDIR) else []:
    if name.endswith((".verify.json", ".run.json")):
        with open(os.path.join(KDIR, name)) as f:
            kdoc = json.load(f)
        valid(kdoc, f"docs/results/kernels/{name} validates")

# Real documents, written now.
can_run = userns_works() and os.geteuid() == 0
why = ("user namespaces cannot be created here" if not userns_works()
       else "owner modes need root (setresuid to the owner uids)")
RUNS = [
    ("run: 1,2 containers x shared,distinct",
     ["--containers", "1,2", "--owner", "shared,distinct", "--uid-base", "2100950000"]),
    ("run: 2 tasks as threads, --limit SIGPENDING=0 (every op fails)",
     ["--containers", "1,2", "--owner", "shared", "--tasks", "2", "--threads", "--limit",
      "SIGPENDING=0", "--uid-base", "2100951000"]),
    ("run: mqueue with --headroom near",
     ["--workload", "mqueue", "--headroom", "near", "--containers", "1,2", "--owner",
      "shared,distinct", "--uid-base", "2100952000"]),
    ("run: control workload at depth 0 and 2, unpinned, repeated",
     ["--workload", "getppid", "--depth", "0,2", "--pin", "none", "--repeat", "2",
      "--no-baseline", "--containers", "2", "--owner", "distinct", "--uid-base", "2100953000"]),
    ("run: --repeat auto (precision[], config.repeat \"auto\")",
     ["--workload", "getppid", "--containers", "1", "--owner", "shared", "--repeat", "auto",
      "--precision", "0.01", "--max-time", "2", "--uid-base", "2100955000"]),
    ("run: cgroup, seccomp docker, caps drop, perf, pin l3",
     ["--cgroup", "--pids-max", "64", "--seccomp", "docker", "--caps", "drop", "--perf",
      "--pin", "l3", "--containers", "1,2", "--owner", "distinct", "--uid-base", "2100954000"]),
]
docs = {}
for name, args in RUNS:
    if not can_run:
        t.skip(f"{name}: the document validates", why)
        continue
    with cgroup_lock(t) if "--cgroup" in args else contextlib.nullcontext():
        doc = ucbench_json(["run"] + args + SHORT)
    docs[name] = doc
    valid(doc, f"{name}: the document validates")


def scalability_wrong(doc):
    """Entries whose summary.scalability is not total / (N x the median total of the
    1-container points of its series: workload, owner, depth, tasks, mode), null without one."""
    res = doc["results"]
    key = lambda e: (e["workload"], e["owner"], e["depth"], e["tasks"], e["mode"])
    wrong = []
    for e in res:
        ones = [x["summary"]["total_ops_per_s"] for x in res if key(x) == key(e)
                and x["containers"] == 1 and x["summary"]["total_ops_per_s"] is not None]
        base = statistics.median(ones) if ones else None
        want = ((e["summary"]["total_ops_per_s"] or 0) / (e["containers"] * base)
                if base else None)
        got = e["summary"]["scalability"]
        # The document keeps 10 digits; run divides the unrounded totals.
        if (want is None) != (got is None) or (want is not None
                                               and abs(want - got) > 1e-8 * max(abs(want), 1e-9)):
            wrong.append(f"{key(e)} N={e['containers']} repeat={e['repeat']}: {got}, want {want}")
    return wrong


for name, doc in docs.items():
    bad = scalability_wrong(doc)
    t.ok(not bad, f"{name}: every summary.scalability is total / (N x its series' "
         "1-container median)", "; ".join(bad[:3]))

if can_run:
    vdoc = ucbench_json(["verify", "--format", "json", "--uid-base", "2100970000"], ok_rc=(0, 1))
    valid(vdoc, "verify --format json: the document validates")
else:
    vdoc = None
    t.skip("verify --format json: the document validates",
           why if not userns_works() else "the cases need root (fresh uids per case)")

# A skipped point, as ucb_report_skipped() writes it (no build here may skip one for real).
skipped = copy.deepcopy(example)
pt = skipped["results"][0]
for k in ("limits", "setup_s", "measured_s"):
    del pt[k]
pt.update(status="skipped", reason="built without libseccomp (--without-seccomp)",
          per_container=[])
pt["summary"] = dict({k: None for k in ("total_ops_per_s", "per_container_ops", "per_task_ops",
                                         "scalability", "fairness", "cv", "cpu_ns_per_op")},
                     failed_ops=0, failed_by_errno={})
valid(skipped, "a skipped point (as ucb_report_skipped writes it) validates")

# Compatibility rule: new keys may appear in any object.
extra = copy.deepcopy(example)
pc = extra["results"][0]["per_container"][0]
for o in (extra, extra["tool"], extra["run"], extra["host"], extra["host"]["kernel"],
          extra["config"], extra["config"]["pin"], extra["results"][0],
          extra["results"][0]["summary"], extra["results"][0]["limits"]["NPROC"], pc,
          pc["ops_per_s"], pc["samples"][0], pc["tasks"][0], pc["tasks"][0]["samples"][0]):
    o["x_new_key"] = {"added": "later"}
valid(extra, "unknown keys are accepted at every level (compatibility rule)")

# The base documents for the rejection checks must themselves validate.
run_base = docs.get(RUNS[0][0]) or example
verify_base = vdoc
if verify_base is None:  # the shape of cmd-verify.c's document, when verify cannot run here
    verify_base = copy.deepcopy(example)
    verify_base.update(config={}, results=[], verify_kernel="6.18.44", verify=[{
        "id": "ULIM-01", "name": "sigpending-own-level", "title": "SIGPENDING: own limit",
        "rlimit": "SIGPENDING", "checks": "sig_get_ucounts", "depends_on": "5.14+",
        "status": "pass", "expected": {"SigQ when full": 5}, "observed": {"SigQ when full": 5},
        "detail": "", "duration_s": 0.01}])
    verify_base["run"]["argv"] = ["ucbench", "verify", "--format", "json"]
base_ok = not errors(run_base) and not errors(verify_base)
t.ok(base_ok, "the base documents of the rejection checks validate",
     report(errors(run_base) + errors(verify_base)))


def rejects(name, base, mutate, path, keyword):
    """The mutated copy of `base` is invalid, for the reason `keyword` at instance `path`."""
    doc = copy.deepcopy(base)
    mutate(doc)
    errs = errors(doc)
    hit = any(tuple(e.absolute_path) == tuple(path) and e.validator == keyword for e in errs)
    t.ok(base_ok and hit, f"rejects {name}",
         f"expected `{keyword}` at /{'/'.join(map(str, path))}; got:\n{report(errs) or 'valid'}")


def pc0(d):
    return d["results"][0]["per_container"][0]


def drop(key):
    return lambda o: o.pop(key)


def setkey(key, v):
    return lambda o: o.__setitem__(key, v)


rejects("a wrong schema string", run_base, setkey("schema", "ucbench-result/2"), ["schema"],
        "const")
rejects("a document without `results`", run_base, drop("results"), [], "required")
rejects("a string where ops_per_s.mean must be a number", run_base,
        lambda d: pc0(d)["ops_per_s"].__setitem__("mean", "240242.8"),
        ["results", 0, "per_container", 0, "ops_per_s", "mean"], "type")
rejects("a negative container count", run_base,
        lambda d: d["results"][0].__setitem__("containers", -1), ["results", 0, "containers"],
        "minimum")
rejects("a zero container count in config", run_base,
        lambda d: d["config"]["containers"].__setitem__(0, 0), ["config", "containers", 0],
        "minimum")
rejects("an unknown verify status", verify_base,
        lambda d: d["verify"][0].__setitem__("status", "ok"), ["verify", 0, "status"], "enum")
rejects("a per_container entry without `index`", run_base, lambda d: pc0(d).pop("index"),
        ["results", 0, "per_container", 0], "required")
rejects("a sample without `t`", run_base, lambda d: pc0(d)["samples"][0].pop("t"),
        ["results", 0, "per_container", 0, "samples", 0], "required")
rejects("a task sample without `t`", run_base,
        lambda d: pc0(d)["tasks"][0]["samples"][0].pop("t"),
        ["results", 0, "per_container", 0, "tasks", 0, "samples", 0], "required")
rejects("a fractional op count", run_base, lambda d: pc0(d).__setitem__("ops", 1.5),
        ["results", 0, "per_container", 0, "ops"], "type")
rejects("an unknown results[].status", run_base,
        lambda d: d["results"][0].__setitem__("status", "failed"), ["results", 0, "status"],
        "enum")
rejects("a measured point without `limits`", run_base, lambda d: d["results"][0].pop("limits"),
        ["results", 0], "required")
rejects("a null total_ops_per_s in a measured point", run_base,
        lambda d: d["results"][0]["summary"].__setitem__("total_ops_per_s", None),
        ["results", 0, "summary", "total_ops_per_s"], "type")
rejects("an unknown limits source", run_base,
        lambda d: d["results"][0]["limits"]["NPROC"].__setitem__("source", "inherited"),
        ["results", 0, "limits", "NPROC", "source"], "enum")
rejects("an unknown config.mode", run_base, lambda d: d["config"].__setitem__("mode", "fiber"),
        ["config", "mode"], "enum")
rejects("an unknown config.headroom", run_base,
        lambda d: d["config"].__setitem__("headroom", "close"), ["config", "headroom"], "enum")
rejects("an unknown pin.mode", run_base,
        lambda d: d["config"]["pin"].__setitem__("mode", "diagonal"), ["config", "pin", "mode"],
        "enum")
rejects("config.repeat neither an integer nor \"auto\"", run_base,
        lambda d: d["config"].__setitem__("repeat", "sometimes"), ["config", "repeat"], "oneOf")
rejects("a precision[] entry without `reached`", run_base,
        lambda d: d.__setitem__("precision", [{
            "workload": "getppid", "owner": "shared", "depth": 1, "tasks": 1, "mode": "process",
            "containers": 1, "repeats": 3, "repeats_counted": 3, "ci_pct": 0.5}]),
        ["precision", 0], "required")
rejects("a verify document without `verify_kernel`", verify_base, drop("verify_kernel"), [],
        "required")
rejects("a verify entry with a non-integer observation", verify_base,
        lambda d: d["verify"][0]["observed"].__setitem__(
            next(iter(d["verify"][0]["observed"]), "x"), "5"),
        ["verify", 0, "observed", next(iter(verify_base["verify"][0]["observed"]), "x")], "type")
t.done()
