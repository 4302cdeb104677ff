# SPDX-License-Identifier: GPL-2.0-or-later
"""schema-docs.py - docs/ucbench-model.schema.json and docs/ucbench-compare.schema.json: valid
JSON Schemas (draft 2020-12) that accept what `ucbench model --format json` and `ucbench compare
--format json` write now (the seed's USL goldens, examples/*.json, variants of them that reach
the rarer branches, and two small real runs when this host can make them), and reject a
document with a required field removed, a field added or a value out of range.  docs/json.md
links each schema, and its tables for the two documents name exactly the schema's properties,
object by object, both ways; every key the writers emitted here is in those tables.  Uses uids
of its own (2104300000 ...) so it can run beside the other integration tests."""
import copy
import itertools
import json
import os
import re

from taplib import (SRCDIR, Tap, doc_scratch, run, run_json, scaled, skip_all, uid_block,
                    userns_works)

try:
    import jsonschema
except ImportError:
    skip_all("python3-jsonschema (module jsonschema) is not installed")
if not hasattr(jsonschema, "Draft202012Validator"):
    skip_all("this jsonschema has no Draft202012Validator (needs 4.0 or later)")

DOCS = os.path.join(SRCDIR, "docs")
GOLDEN = os.path.join(SRCDIR, "tests", "golden")
EXAMPLES = os.path.join(SRCDIR, "examples")
STOCK = os.path.join(GOLDEN, "usl-signal1-stock.json")
PATCHED = os.path.join(GOLDEN, "usl-signal1-rlimit-cache.json")
RUN_SMALL = os.path.join(EXAMPLES, "run-small.json")
VERIFY_SMALL = os.path.join(EXAMPLES, "verify-small.json")
# (schema file, the `schema` string, the heading of its section in docs/json.md)
KINDS = {
    "model": ("ucbench-model.schema.json", "ucbench-model/1",
              "## `ucbench model --format json` (`ucbench-model/1`)"),
    "compare": ("ucbench-compare.schema.json", "ucbench-compare/2",
                "## `ucbench compare --format json` (`ucbench-compare/2`)"),
}

t = Tap()
d, path, write = doc_scratch("ucb-schema-docs-")


def load(name):
    with open(name) as f:
        return json.load(f)


# ---- the schemas themselves ----
schemas, V = {}, {}
for kind, (fname, const, _) in KINDS.items():
    schema = load(os.path.join(DOCS, fname))
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        bad = None
    except jsonschema.exceptions.SchemaError as e:
        bad = e
    t.ok(bad is None, f"{fname} is a valid draft 2020-12 schema", bad)
    t.ok(schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
         and schema.get("$id") and schema.get("title") and schema.get("description")
         and schema.get("properties", {}).get("schema", {}).get("const") == const,
         f"{fname} names draft 2020-12, has $id, title and description, and `schema` {const}")
    schemas[kind] = schema
    V[kind] = jsonschema.Draft202012Validator(schema)


def errors(kind, doc):
    return sorted(V[kind].iter_errors(doc), key=lambda e: list(e.absolute_path))


def report(errs):
    return "\n".join(f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}"
                     for e in errs[:20])


# Every document validated, by name, for the docs check and the rejections below.
produced = {"model": {}, "compare": {}}


def ucbench_json(kind, name, args, ok_rc=(0,)):
    """Run `ucbench ARGS`, its stdout a document of `kind`; it validates.  The document, or
    None (said) when ucbench failed."""
    doc = run_json(t, args, ok_rc)
    valid(kind, name, doc)
    return doc


def valid(kind, name, doc):
    errs = errors(kind, doc) if doc is not None else []
    t.ok(doc is not None and not errs, f"{kind}: {name} validates", report(errs))
    if doc is not None and not errs:
        produced[kind][name] = doc


# ---- inputs that reach the rarer branches, made from the goldens and the examples ----
stock = load(STOCK)
# The contention object of a real run (one task per CPU, judged over its intervals).
CONTENTION = {
    "contended": False, "contended_samples": 0, "cpu_share_median": 0.99,
    "cpu_share_min": 0.98, "fair_share": 1.0, "idle_pct_min": 0.0, "judged_over": "interval",
    "late_max_s": 5e-05, "late_readings": 0, "nivcsw": 3, "owns_cpu": True,
    "sampler_policy": "SCHED_FIFO", "sampler_policy_reason": None, "samples": 5,
    "starved": False, "starved_containers": 0, "starved_min_ops": 100, "steal_pct_max": 0.0,
    "tasks_per_cpu": 1, "threshold": 0.9, "window_needed_s": 0.03}


def with_contention(r, **kw):
    r = copy.deepcopy(r)
    r["contention"] = dict(CONTENTION, **kw)
    return r


# A second repeat of N=8 contended and of N=16 starved: a fit with left_out[] entries.
left = copy.deepcopy(stock)
left["results"] += [dict(with_contention(left["results"][2], contended=True), repeat=2),
                    dict(with_contention(left["results"][3], starved=True), repeat=2)]
LEFT = write("stock-left-out.json", left)
# N=1,4,8 only: 3 observations for 3 parameters, refused.
few = copy.deepcopy(stock)
few["results"] = few["results"][:3]
FEW = write("stock-three.json", few)
# 5 repeats a N (spread +-1 %): the stock shape to N=32, which the lack-of-fit test rejects
# (a prediction beyond refused), and a USL curve, which it does not.
def five(values, max_n):
    out = copy.deepcopy(stock)
    out["results"] = []
    for r0 in stock["results"]:
        for k, f in enumerate((0.99, 0.995, 1, 1.005, 1.01) if r0["containers"] <= max_n else ()):
            out["results"].append(copy.deepcopy(r0))
            out["results"][-1]["repeat"] = k + 1
            out["results"][-1]["summary"]["per_container_ops"] = values(r0) * f
    return out


MISFIT = write("stock-five.json", five(lambda r: r["summary"]["per_container_ops"], 32))
LAW = write("law-five.json", five(lambda r: 380000 / (1 + 0.02 * (r["containers"] - 1) + 3e-4
                                                      * r["containers"] * (r["containers"] - 1)),
                                  64))
# Its only N=4 repeat contended: compare shows that point's ratio from contended repeats.
cont = copy.deepcopy(stock)
cont["results"][1] = with_contention(cont["results"][1], contended=True)
CONT = write("stock-contended.json", cont)

small = load(RUN_SMALL)
# Several documents a side (the unit is the document), which disagree on the base side.
b2 = scaled(small, 0.99)
b2["tool"]["version"] = "0.0.9"
h1, h2 = scaled(small, 1.2), scaled(small, 1.21)
for h in (h1, h2):
    h["config"]["duration_s"] = 2.0
B1, B2, H1, H2 = (write(n, x) for n, x in
                  (("b1.json", small), ("b2.json", b2), ("h1.json", h1), ("h2.json", h2)))
# A point only on the head side (N=3 instead of 2).
other = copy.deepcopy(small)
other["results"][1]["containers"] = 3
OTHER = write("run-small-n3.json", other)
# File names that are not valid UTF-8: written as null in name fields; a sentence that quotes
# one writes the byte as \xHH.
BAD_RUN = write(os.fsdecode(b"run-small-\xfe.json"), small)
BAD_B2 = write(os.fsdecode(b"b2-\xff.json"), b2)
BAD_STOCK = write(os.fsdecode(b"stock-\xfd.json"), load(STOCK))
# A verify case that newly fails.
vfail = load(VERIFY_SMALL)
vfail["verify"][0]["status"] = "fail"
VFAIL = write("verify-small-fail.json", vfail)

# ---- model ----
for name, args, rc in [
        ("the stock golden, --predict 384,1,2", [STOCK, "--predict", "384,1,2"], (0,)),
        ("the stock golden without --predict", [STOCK], (0,)),
        ("the patched golden, --predict 384,128", [PATCHED, "--predict", "384,128"], (0,)),
        ("repeats left out (contended, starved)", [LEFT, "--predict", "64"], (0,)),
        ("a lack of fit: a prediction refused", [MISFIT, "--predict", "16,64"], (0,)),
        ("5 repeats a N of a USL curve", [LAW, "--predict", "128"], (0,)),
        ("a refusal: 3 observations for 3 parameters", [FEW, "--predict", "16"], (1,)),
        ("a refusal: examples/run-small.json (N=1,2)", [RUN_SMALL, "--predict", "4"], (1,)),
        ("a file name that is not valid UTF-8", [BAD_RUN], (1,)),
        ("a warning quoting a file name that is not valid UTF-8", [BAD_STOCK], (0,))]:
    ucbench_json("model", name, ["model"] + args + ["--format", "json"], rc)
warned = [w for w in (produced["model"].get("a warning quoting a file name that is not valid "
                                            "UTF-8") or {}).get("warnings") or [] if w]
t.ok(any("stock-\\xfd.json" in w for w in warned),
     "model: a warning quotes a file name that is not UTF-8 with \\xHH (it aborted before)",
     repr(warned))
r = run(["model", STOCK, "--predict", "384", "--format", "json", "-o", path("model-o.json")])
try:
    valid("model", "the stock golden, written with -o", load(path("model-o.json")))
except (OSError, ValueError) as e:
    t.ok(False, "model: the stock golden, written with -o validates", f"rc={r.returncode} {e}")

m = produced["model"]
t.ok(any(s["status"] == "fitted" and s["predictions"] and s["left_out"]
         for x in m.values() for s in x["series"])
     and any(s["status"] == "refused" for x in m.values() for s in x["series"])
     and any(x["warnings"] for x in m.values()),
     "model: the documents cover a fit with predictions and left-out repeats, a refusal and "
     "a warning", sorted(m))

# ---- compare ----
for name, args, rc in [
        ("the stock golden against the patched one", [STOCK, PATCHED], (0, 1)),
        ("the patched golden against the stock one", [PATCHED, STOCK], (0, 1)),
        ("flags and left-out repeats", [STOCK, LEFT], (0, 1)),
        ("a ratio from contended repeats", [STOCK, CONT], (0, 1)),
        ("a point on one side only", [RUN_SMALL, OTHER], (0, 1)),
        ("several documents a side that disagree",
         ["--base", B1, "--base", B2, "--head", H1, "--head", H2], (0, 1)),
        ("--drift 0 --threshold 10", [RUN_SMALL, H1, "--drift", "0", "--threshold", "10"],
         (0, 1)),
        ("--normalize canary without a canary", [RUN_SMALL, H1, "--normalize", "canary"],
         (0, 1)),
        ("a verify case that newly fails", [VERIFY_SMALL, VFAIL], (1,)),
        ("file names that are not valid UTF-8",
         ["--base", B1, "--base", BAD_B2, "--head", BAD_RUN, "--head", OTHER], (0, 1)),
        ("--normalize canary, the document without one not UTF-8-named",
         [BAD_RUN, H1, "--normalize", "canary"], (0, 1))]:
    ucbench_json("compare", name, ["compare"] + args + ["--format", "json"], rc)

# Every pair of examples/*.json that compare accepts (it refuses other kinds, exit 2).
examples = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".json"))
accepted = 0
for a, b in itertools.product(examples, repeat=2):
    args = ["compare", os.path.join(EXAMPLES, a), os.path.join(EXAMPLES, b), "--format", "json"]
    if run(args, timeout=300).returncode == 2:
        continue
    accepted += 1
    ucbench_json("compare", f"examples/{a} against examples/{b}", args, (0, 1))
t.ok(accepted >= 2, f"compare accepts at least 2 pairs of examples/*.json ({accepted})")

c = produced["compare"]
pts = [p for x in c.values() for p in x["points"]]
t.ok(any(p["ci_low"] is not None and p["cpu_ns_per_op"] for p in pts)
     and any(p["ratio_from_contended"] for p in pts)
     and any(p["unit"] == "document" for p in pts)
     and any(p["base"]["flags"] or p["head"]["flags"] for p in pts)
     and any(x["only_in"] for x in c.values()) and any(x["verify"] for x in c.values())
     and any(isinstance(df["base"], list) for x in c.values() for df in x["differences"])
     and any(s["scale"] for x in c.values() for s in x["scalability"])
     and any(x["method"]["normalize"] == "none" and x["warnings"] for x in c.values()),
     "compare: the documents cover intervals, contended ratios, the document unit, flags, "
     "only_in, verify, a side that disagrees, a fitted scalability and a warning", sorted(c))

# Two small real runs, when this host can make them (user namespaces, owners need root).
if userns_works() and os.geteuid() == 0:
    base_uid = uid_block(2104300000, 1000)
    real = []
    for k in range(2):
        out = path(f"real{k}.json")
        rr = run(["run", "-w", "getppid", "-c", "1", "-d", "0.5", "--interval", "100ms",
                  "--warmup", "0", "-r", "2", "--uid-base", str(base_uid + 500 * k), "--quiet",
                  "--output", out], timeout=300)
        if rr.returncode == 0:
            real.append(out)
        else:
            t.diag(f"run {k}: exit {rr.returncode}: {rr.stderr.strip()}")
    if len(real) == 2:
        ucbench_json("compare", "two small real runs", ["compare"] + real + ["--format", "json"],
                     (0, 1))
        ucbench_json("model", "a small real run", ["model", real[0], "--format", "json"], (1,))
    else:
        t.ok(False, "two small real runs: both ran")
else:
    t.skip("compare: two small real runs validate",
           "user namespaces cannot be created here" if not userns_works()
           else "owner modes need root (setresuid to the owner uids)")

# ---- rejections: each schema can fail ----


def rejects(kind, name, base, mutate, where, keyword):
    """The mutated copy of `base` is invalid, for the reason `keyword` at instance `where`
    (an error there, or one inside an anyOf/oneOf/if branch that is reported at or above it)."""
    doc = copy.deepcopy(base)
    mutate(doc)
    errs, seen = errors(kind, doc), []
    todo = list(errs)
    while todo:
        e = todo.pop()
        seen.append((tuple(e.absolute_path), e.validator))
        todo.extend(e.context or [])
    t.ok(base is not None and (tuple(where), keyword) in seen, f"{kind}: rejects {name}",
         f"expected `{keyword}` at /{'/'.join(map(str, where))}; got:\n{report(errs) or 'valid'}")


def drop(*keys):
    def f(doc):
        o = doc
        for k in keys[:-1]:
            o = o[k]
        o.pop(keys[-1])
    return f


def put(*keys_value):
    *keys, v = keys_value

    def f(doc):
        o = doc
        for k in keys[:-1]:
            o = o[k]
        o[keys[-1]] = v
    return f


mb = m.get("the stock golden, --predict 384,1,2")
mr = m.get("a refusal: examples/run-small.json (N=1,2)")
rejects("model", "a document without `refused`", mb, drop("refused"), [], "required")
rejects("model", "a series without `status`", mb, drop("series", 0, "status"), ["series", 0],
        "required")
rejects("model", "an interval without `ci_high`", mb, drop("series", 0, "lambda", "ci_high"),
        ["series", 0, "lambda"], "required")
rejects("model", "an extra top-level key", mb, put("x_new", 1), [], "additionalProperties")
rejects("model", "an extra key in a series", mb, put("series", 0, "x_new", 1), ["series", 0],
        "additionalProperties")
rejects("model", "an extra key in a prediction", mb,
        put("series", 0, "predictions", 0, "x_new", 1), ["series", 0, "predictions", 0],
        "additionalProperties")
rejects("model", "a negative sigma", mb, put("series", 0, "sigma", "estimate", -0.1),
        ["series", 0, "sigma", "estimate"], "minimum")
rejects("model", "a p_flat above 1", mb, put("series", 0, "p_flat", 1.5),
        ["series", 0, "p_flat"], "maximum")
rejects("model", "a scale above 1", mb,
        put("series", 0, "predictions", 0, "scale", "estimate", 1.5),
        ["series", 0, "predictions", 0, "scale", "estimate"], "maximum")
rejects("model", "a --predict N of 0", mb, put("predict", 0, 0), ["predict", 0], "minimum")
rejects("model", "a fractional df", mb, put("series", 0, "df", 3.5), ["series", 0, "df"],
        "type")
rejects("model", "an unknown status", mb, put("series", 0, "status", "failed"),
        ["series", 0, "status"], "enum")
rejects("model", "a fitted series with a reason", mb, put("series", 0, "reason", "x"),
        ["series", 0, "reason"], "type")
rejects("model", "a refused series with a lambda", mr,
        put("series", 0, "lambda", {"estimate": 1.0, "ci_low": 0.5, "ci_high": None}),
        ["series", 0, "lambda"], "type")
rejects("model", "the wrong schema string", mb, put("schema", "ucbench-model/2"), ["schema"],
        "const")

cb = c.get("several documents a side that disagree")
cs = c.get("the stock golden against the patched one")
cv = c.get("a verify case that newly fails")
rejects("compare", "a document without `regressions`", cb, drop("regressions"), [],
        "required")
rejects("compare", "a point without `verdict`", cb, drop("points", 0, "verdict"),
        ["points", 0], "required")
rejects("compare", "a side without `flags`", cb, drop("points", 0, "base", "flags"),
        ["points", 0, "base"], "required")
rejects("compare", "an extra top-level key", cb, put("x_new", 1), [], "additionalProperties")
rejects("compare", "an extra key in a point", cb, put("points", 0, "x_new", 1), ["points", 0],
        "additionalProperties")
rejects("compare", "an extra key in method", cb, put("method", "x_new", 1), ["method"],
        "additionalProperties")
rejects("compare", "an extra key in a scalability change", cs,
        put("scalability", 0, "sigma", "x_new", 1), ["scalability", 0, "sigma"],
        "additionalProperties")
rejects("compare", "negative repeats_used", cb, put("points", 0, "base", "repeats_used", -1),
        ["points", 0, "base", "repeats_used"], "minimum")
rejects("compare", "a p-value above 1", cb, put("points", 0, "p_beyond", 1.5),
        ["points", 0, "p_beyond"], "maximum")
rejects("compare", "a negative ratio", cb, put("points", 0, "ratio", -1.0),
        ["points", 0, "ratio"], "minimum")
rejects("compare", "a threshold of 0", cb, put("method", "threshold_pct", 0.0),
        ["method", "threshold_pct"], "exclusiveMinimum")
rejects("compare", "a level of 0.9", cb, put("method", "level", 0.9), ["method", "level"],
        "const")
rejects("compare", "an unknown verdict", cb, put("points", 0, "verdict", "worse"),
        ["points", 0, "verdict"], "enum")
rejects("compare", "an unknown flag", cb, put("points", 0, "base", "flags", ["slow"]),
        ["points", 0, "base", "flags", 0], "enum")
rejects("compare", "an unknown differences key", cb, put("differences", 0, "key", "run.argv"),
        ["differences", 0, "key"], "enum")
rejects("compare", "an unknown verify status", cv, put("verify", 0, "head", "ok"),
        ["verify", 0, "head"], "enum")
rejects("compare", "`needed` with a verdict other than inconclusive", cs,
        put("points", 0, "needed", 3), ["points", 0, "needed"], "type")
rejects("compare", "a scale interval above 1", cs,
        put("scalability", 0, "scale", "base", "estimate", 1.5),
        ["scalability", 0, "scale", "base", "estimate"], "maximum")

# ---- docs/json.md: links each schema; its tables name exactly the schema's properties ----
with open(os.path.join(DOCS, "json.md")) as f:
    md = f.read()


def section(heading):
    """The text of docs/json.md from `heading` to the next `## ` heading."""
    at = md.find(heading + "\n")
    if at < 0:
        return ""
    end = md.find("\n## ", at + len(heading))
    return md[at:end if end >= 0 else len(md)]


def norm(p):
    """`head` always has the shape of `base` (a side); both are documented as one."""
    return re.sub(r"(^|\.)head(?=$|[.\[])", r"\1base", p)


def doc_tables(text):
    """{object path: keys} from the tables of a section.  A table documents the object(s) that
    the `### ` heading above it names in backticks (`points[]`, `points[].base`); the table
    under the `## ` heading is the top level (path "").  Its keys: the backticked names of each
    row's first cell."""
    tables, paths, in_table = {}, [""], False
    for line in text.splitlines():
        if line.startswith("### "):
            paths = [norm(p) for p in re.findall(r"`([^`]+)`", line)]
        if not line.startswith("|"):
            in_table = False
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        if not in_table or re.fullmatch(r"\s*-+\s*", first):
            in_table = True  # the header row, then the separator
            continue
        for p in paths:
            tables.setdefault(p, set()).update(
                k[:-2] if k.endswith("[]") else k for k in re.findall(r"`([^`]+)`", first))
    return tables


def resolve(schema, node):
    while "$ref" in node:
        target = schema
        for step in node["$ref"].lstrip("#/").split("/"):
            target = target[step]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"},
                "properties": {**target.get("properties", {}), **node.get("properties", {})}}
    return node


def schema_objects(schema, node, p="", out=None):
    """{object path: property names} of every object the schema describes (through $ref,
    anyOf/oneOf branches and array items; if/then/else only narrow, never add)."""
    out = {} if out is None else out
    node = resolve(schema, node)
    props = node.get("properties") or {}
    if props:
        out.setdefault(norm(p), set()).update(props)
        for k, sub in props.items():
            schema_objects(schema, sub, f"{p}.{k}" if p else k, out)
    if isinstance(node.get("items"), dict):
        schema_objects(schema, node["items"], p + "[]", out)
    for branch in node.get("anyOf", []) + node.get("oneOf", []):
        schema_objects(schema, branch, p, out)
    return out


def emitted(doc, p="", out=None):
    """{object path: keys} of a document as written."""
    out = {} if out is None else out
    if isinstance(doc, dict):
        out.setdefault(norm(p), set()).update(doc)
        for k, v in doc.items():
            emitted(v, f"{p}.{k}" if p else k, out)
    elif isinstance(doc, list):
        for v in doc:
            if isinstance(v, (dict, list)):
                emitted(v, p + "[]", out)
    return out


def diff_report(a, b, a_name, b_name):
    lines = []
    for p in sorted(set(a) | set(b)):
        only_a, only_b = a.get(p, set()) - b.get(p, set()), b.get(p, set()) - a.get(p, set())
        if p not in b:
            lines.append(f"{p or '(top)'}: no {b_name}")
        elif p not in a:
            lines.append(f"{p or '(top)'}: no {a_name}")
        if only_a and p in b:
            lines.append(f"{p or '(top)'}: in {a_name}, not in {b_name}: {sorted(only_a)}")
        if only_b and p in a:
            lines.append(f"{p or '(top)'}: in {b_name}, not in {a_name}: {sorted(only_b)}")
    return "\n".join(lines)


for kind, (fname, const, heading) in KINDS.items():
    text = section(heading)
    t.ok(text and f"]({fname})" in text and os.path.isfile(os.path.join(DOCS, fname)),
         f"docs/json.md's {const} section links {fname}")
    documented = doc_tables(text)
    in_schema = schema_objects(schemas[kind], schemas[kind])
    t.ok(set(documented) == set(in_schema),
         f"{const}: docs/json.md has a table for each object of the schema, and no other",
         diff_report(in_schema, documented, "the schema", "table in docs/json.md"))
    missing = {p: in_schema[p] - documented.get(p, set()) for p in in_schema}
    t.ok(not any(missing.values()),
         f"{const}: every property of the schema is in docs/json.md's tables",
         "\n".join(f"{p or '(top)'}: {sorted(v)}" for p, v in missing.items() if v))
    extra = {p: documented[p] - in_schema.get(p, set()) for p in documented}
    t.ok(not any(extra.values()),
         f"{const}: every key of docs/json.md's tables is a property of the schema",
         "\n".join(f"{p or '(top)'}: {sorted(v)}" for p, v in extra.items() if v))
    undocumented = {}
    for doc in produced[kind].values():
        for p, keys in emitted(doc).items():
            left_over = keys - documented.get(p, set())
            if left_over:
                undocumented.setdefault(p, set()).update(left_over)
    t.ok(produced[kind] and not undocumented,
         f"{const}: every key the writer emitted here ({len(produced[kind])} documents) is in "
         "docs/json.md's tables",
         "\n".join(f"{p or '(top)'}: {sorted(v)}" for p, v in undocumented.items()))
t.done()
