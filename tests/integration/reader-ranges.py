# SPDX-License-Identifier: GPL-2.0-or-later
"""reader-ranges.py - every reader refuses what the schema's ranges, patterns and lengths reject:
the cases come from docs/ucbench-result.schema.json itself.  Each minimum, maximum,
exclusiveMinimum, enum, pattern, propertyNames pattern, minLength and maxLength it gives
(through $ref, properties, items, additionalProperties, anyOf/oneOf and the run-document branch
of config) is broken once in a copy of examples/run-small.json or examples/verify-small.json
(its first instance there, or one made where the example has none), and every reader (export
--to each format, compare either side, plot, model) must exit 2 with one line that names the
field and the rule (a pattern as the schema spells it) (and the usual hint), and print nothing
else; both examples are read as they are.  Then the extremes
it allows: containers 2^63-1 never wraps (gbench's threads); a document's control characters
reach no text output raw (lkp, compare, model)."""
import concurrent.futures
import copy
import json
import os

from taplib import SRCDIR, Tap, run
from taplib import doc_scratch

t = Tap()
d, path, write = doc_scratch("ucb-ranges-")
SCHEMA = json.load(open(os.path.join(SRCDIR, "docs", "ucbench-result.schema.json")))
DEFS = SCHEMA["$defs"]
EXAMPLES = {k: os.path.join(SRCDIR, "examples", f"{k}-small.json") for k in ("run", "verify")}
FORMATS = ("gab", "gab-smaller", "bmf", "gbench", "lkp", "junit", "ktap", "kcidb")
RANGE_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum")
STRING_KEYS = ("pattern", "minLength", "maxLength")
NAME = "(name)"  # a pattern segment: the member names of the object, the schema's propertyNames


def constraints(node, pattern, run_only, out):
    """(pattern, node, run_only) for every schema node under `node` with a range or an enum;
    a pattern is a tuple of segments: a member name, "[]" (every item) or "*" (every
    member)."""
    if "$ref" in node:
        constraints(DEFS[node["$ref"].rsplit("/", 1)[1]], pattern, run_only, out)
        return
    if any(k in node for k in RANGE_KEYS + STRING_KEYS):
        out.append((pattern, node, run_only))
    if isinstance(node.get("propertyNames"), dict):
        out.append((pattern + (NAME,), node["propertyNames"], run_only))
    for k, v in node.get("properties", {}).items():
        constraints(v, pattern + (k,), run_only, out)
    if isinstance(node.get("items"), dict):
        constraints(node["items"], pattern + ("[]",), run_only, out)
    if isinstance(node.get("additionalProperties"), dict):
        constraints(node["additionalProperties"], pattern + ("*",), run_only, out)
    for kw in ("anyOf", "oneOf", "allOf"):
        for v in node.get(kw, []):
            constraints(v, pattern, run_only, out)
    # The top level's else: config is a run's when there is no verify[].
    if pattern == () and "else" in node:
        constraints(node["else"], pattern, True, out)


def bad_values(node, now=None):
    """(value, what the message says) just outside what `node` allows (of a type it allows, so
    that only the rule is broken); `now`: the example's value there, if any."""
    out = [(v, "out of range") for v in bad_numbers(node)]
    if "enum" in node and isinstance(out[-1][0], str):
        out[-1] = (out[-1][0], "not one of:")
    if "pattern" in node:
        # A control character (the message must stay one line), and the example's own value
        # with more after it (the pattern is anchored at its end).
        said = f"does not match the schema's pattern {node['pattern']}"
        out.append(("o\nk", said))
        if isinstance(now, str) and node["pattern"].endswith("$"):
            out.append((now + " x", said))
    if node.get("minLength", 0) > 0:
        out.append(("a" * (node["minLength"] - 1), f"minLength {node['minLength']}"))
    if "maxLength" in node:
        out.append(("a" * (node["maxLength"] + 1), f"maxLength {node['maxLength']}"))
    return out


def bad_numbers(node):
    out = []
    types = node.get("type", ["integer", "number"])
    types = [types] if isinstance(types, str) else types
    if "minimum" in node:
        out.append(node["minimum"] - 1)
    if "exclusiveMinimum" in node:
        out.append(node["exclusiveMinimum"])
    if "maximum" in node:
        out.append(node["maximum"] + 1)
        if "number" in types:
            out.append(1e300)
    if "exclusiveMaximum" in node:
        out.append(node["exclusiveMaximum"])
    if "enum" in node:
        words = [w for w in node["enum"] if w is not None]
        if all(isinstance(w, str) for w in words):
            out.append("o\nk")  # a control character: the message must stay one line
        else:
            out.append(max(words) + 1)
    return out


def instances(doc, pattern):
    """The concrete paths (tuples of keys and indices) of `pattern` in `doc`."""
    found = [((), doc)]
    for seg in pattern:
        nxt = []
        for p, v in found:
            if seg == "[]" and isinstance(v, list):
                nxt += [(p + (i,), x) for i, x in enumerate(v)]
            elif seg == "*" and isinstance(v, dict):
                nxt += [(p + (k,), x) for k, x in v.items()]
            elif seg == NAME and isinstance(v, dict):
                nxt += [(p + (k,), k) for k in v]
            elif isinstance(v, dict) and seg in v:
                nxt.append((p + (seg,), v[seg]))
        found = nxt
    return [p for p, _ in found]


def make(doc, pattern):
    """Make `pattern` exist in `doc` (objects and one-item arrays where missing or null); its
    concrete path."""
    p, v = (), doc
    for i, seg in enumerate(pattern):
        last = i + 1 == len(pattern)
        fresh = None if last else ([] if pattern[i + 1] == "[]" else {})
        if seg == "[]":
            if not v or (not last and not isinstance(v[0], type(fresh))):
                v[:1] = [fresh]
            p, v = p + (0,), v[0]
        else:
            key = ("EPERM" if seg == "*" else seg)
            if not last and not isinstance(v.get(key), type(fresh)):
                v[key] = fresh
            p, v = p + (key,), v.get(key)
    return p


def put(doc, where, value):
    for k in where[:-1]:
        doc = doc[k]
    doc[where[-1]] = value


def dotted(where):
    """"results[0].per_container[1]" for ("results", 0, "per_container", 1)."""
    at = ""
    for k in where:
        at += f"[{k}]" if isinstance(k, int) else (f".{k}" if at else k)
    return at


def named(where):
    """How a message names the field at `where`: the object path above its last member name,
    and that name with the indices after it ("results[0].per_container[1]", "ops";
    "config", "tasks[0]")."""
    last = max(i for i, k in enumerate(where) if isinstance(k, str))
    at = ""
    for k in where[:last]:
        at += f"[{k}]" if isinstance(k, int) else (f".{k}" if at else k)
    return at, where[last] + "".join(f"[{k}]" for k in where[last + 1:])


def readers(kind, bad):
    """Every reader's command line on the document `bad` of kind `kind`."""
    good = EXAMPLES[kind]
    out = [["export", "--to", f, bad] for f in FORMATS]
    out.append(["compare", good, bad])
    out.append(["compare", bad, good])
    out.append(["plot", bad, "--output", bad + ".svg"])
    out.append(["model", bad])
    return out


def check(kind, bad, where, word, member_name=False):
    """('' when every reader refused `bad` rightly, its message with `word`, else what went
    wrong; the readers that did not exit 2).  `member_name`: the last of `where` is a member's
    name, said as such, in the object of the rest."""
    at, key = named(where)
    if member_name:
        at, key = dotted(where[:-1]), "the member name"
    wrong, accepted = [], []
    for argv in readers(kind, bad):
        r = run(argv)
        lines = r.stderr.splitlines()
        # One error line; the usual "Try 'ucbench --help'" hint may follow it.
        ok = (r.returncode == 2 and r.stdout == "" and lines
              and all(ln.startswith("Try ") for ln in lines[1:])
              and lines[0].startswith("ucbench: ")
              and (f'"{key}"' if not member_name else key) in lines[0]
              and (not at or f": {at}: " in lines[0]) and word in lines[0])
        if r.returncode != 2:
            accepted.append(" ".join(argv[:3] if argv[0] == "export" else argv[:1]))
        if not ok:
            wrong.append(f"{argv[0]} {argv[2] if argv[0] == 'export' else ''}: exit "
                         f"{r.returncode}, {len(lines)} line(s): {r.stderr[:200]!r}"
                         f"{' stdout ' + repr(r.stdout[:80]) if r.stdout else ''}")
    return "\n".join(wrong), accepted


try:
    import jsonschema
    validator = jsonschema.Draft202012Validator(SCHEMA)
except (ImportError, AttributeError):  # none, or one without draft 2020-12
    validator = None

found = []
constraints(SCHEMA, (), False, found)
cases = []
for kind, src in EXAMPLES.items():
    base = json.load(open(src))
    if validator:
        errs = list(validator.iter_errors(base))
        t.ok(not errs, f"{kind}: the example is valid against the schema", errs[:3])
    for pattern, node, run_only in found:
        if run_only and kind != "run":
            continue  # a verify document's config is {}
        if pattern[:1] == ("results",) and kind != "run":
            continue  # a verify document's results[] is []
        if pattern[:1] == ("verify",) and kind != "verify":
            continue
        names = pattern[-1:] == (NAME,)
        have = instances(base, pattern[:-1] if names else pattern)
        now = None if names or not have else base
        for k in have[0] if have and not names else ():
            now = now[k]
        for value, word in bad_values(node, now):
            doc = copy.deepcopy(base)
            have = instances(doc, pattern[:-1] if names else pattern)
            where = have[0] if have else make(doc, pattern[:-1] if names else pattern)
            if names:
                # A member named `value`, of a value the object's members may have.
                where += (value,)
                put(doc, where, 0)
            else:
                put(doc, where, value)
            if validator and not any(True for _ in validator.iter_errors(doc)):
                t.ok(False, f"{kind}: {'.'.join(map(str, where))} = {value!r} breaks the schema")
                continue
            label = f"{kind}: {'.'.join(map(str, where))}".encode("unicode_escape").decode() + (
                " (a member name)" if names else f" = {value!r}") + ("" if have else " (made)")
            cases.append((label, (kind, write(f"c{len(cases)}.json", doc), where, word, names)))

# The examples as they are: every reader of their kind reads them (exit 0; compare may say 1).
OF_KIND = {"run": [["export", "--to", f] for f in FORMATS if f not in ("junit", "ktap")]
           + [["plot", "--output", path("example.svg")], ["model"]],
           "verify": [["export", "--to", f] for f in ("junit", "ktap", "kcidb")]}
for kind, src in EXAMPLES.items():
    took = [f"{' '.join(argv)}: exit {r.returncode} {r.stderr[:200]}"
            for argv in OF_KIND[kind] + [["compare", src]]
            for r in [run(argv + [src])] if r.returncode not in (0, 1)]
    t.ok(not took, f"{kind}: examples/{kind}-small.json is read by every reader of its kind", took)

t.diag(f"{len(found)} ranges, enums, patterns and lengths in the schema; {len(cases)} documents "
       "break one")
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    results = list(pool.map(lambda c: check(*c[1]), cases))
failed = accepted = 0
for (label, _), (wrong, took) in zip(cases, results):
    failed += bool(wrong)
    accepted += bool(took)
    t.ok(not wrong, f"{label}: every reader exits 2 with one line naming it", wrong)
t.diag(f"{failed} of {len(cases)} documents not refused by every reader with a line naming "
       f"the field; {accepted} not refused (exit other than 2) by at least one reader")

# The largest counts the schema allows: containers 2^63 - 1 x 2 tasks, each container's ops
# 2^63 - 1.  No reader wraps (gbench's threads and iterations stop at 2^63 - 1, Google
# Benchmark's int64); three such N stay three levels of the model, not one double.  Run with
# UCBENCH set to a -fsanitize=address,undefined build, a wrap is also a sanitizer report.
BIG = 2 ** 63 - 1
big = json.load(open(EXAMPLES["run"]))
for r in big["results"]:
    r["containers"], r["tasks"] = BIG, 2
    for c in r["per_container"]:
        c["ops"] = BIG
big_path = write("big.json", big)


def clean(r):
    return ("runtime error" not in r.stderr and "Sanitizer" not in r.stderr
            and "-9223372036854775808" not in r.stdout and '"threads": -' not in r.stdout
            and '"iterations": -' not in r.stdout)


for f in FORMATS[:5] + ("kcidb",):
    r = run(["export", "--to", f, big_path])
    t.ok(r.returncode == 0 and clean(r), f"export --to {f}: containers 2^63-1, no wrap",
         r.stderr[-2000:])
r = run(["export", "--to", "gbench", big_path])
rows = json.loads(r.stdout or "{}").get("benchmarks", [])
t.ok(rows and all(x["threads"] == BIG for x in rows)
     and all(x["iterations"] == BIG for x in rows if x["run_type"] == "iteration"),
     "gbench: threads = containers x tasks and iterations = the ops, saturated at 2^63-1",
     [(x["threads"], x["iterations"]) for x in rows])
for argv in (["compare", big_path, big_path], ["plot", big_path, "--output", big_path + ".svg"],
             ["model", big_path]):
    r = run(argv)
    t.ok(r.returncode in (0, 1) and clean(r), f"{argv[0]}: containers 2^63-1, no wrap",
         r.stderr[-2000:])
levels = copy.deepcopy(big)
levels.pop("host")
point = levels["results"][0]
point["tasks"] = 1
point["contention"] = {"owns_cpu": True, "contended": False}
levels["results"] = []
for n in (BIG, BIG - 1, BIG - 2):
    for rep in (1, 2):
        x = copy.deepcopy(point)
        x["containers"], x["repeat"] = n, rep
        x["summary"]["per_container_ops"] = 1000.0 / rep
        levels["results"].append(x)
r = run(["model", write("levels.json", levels), "--format", "json"])
series = (json.loads(r.stdout) if r.returncode in (0, 1) and r.stdout else {}).get("series", [])
t.ok(clean(r) and series and [lv["containers"] for lv in series[0].get("levels", [])]
     == [BIG - 2, BIG - 1, BIG], "model: N 2^63-1, -2, -3 are three levels", r.stdout[-1500:]
     + r.stderr[-1500:])

# A document's strings in a text output: a control character in a string the schema leaves free
# (a kernel release, a CPU model) is escaped as in messages ("6.1\n0"), never printed raw: the
# text reads exactly as for the string spelt with a backslash.  A workload or an owner cannot
# carry one, nor a blank (lkp-tests' dump-stat exits 1 on a key with one): their patterns.
odd = json.load(open(EXAMPLES["run"]))
shown = {}
for key, (release, cpu) in (("raw", ("6.1\n0", "AMD\tEPYC")), ("spelt", ("6.1\\n0", "AMD\\tEPYC"))):
    odd["host"]["kernel"]["release"], odd["host"]["cpu_model"] = release, cpu
    f = write("odd.json", odd)
    shown[key] = [run(["compare", EXAMPLES["run"], f]).stdout, run(["model", f]).stdout]
for i, what in enumerate(("compare", "model")):
    raw, spelt = shown["raw"][i], shown["spelt"][i]
    t.ok(raw == spelt and "6.1\\n0" in raw and "AMD\\tEPYC" in raw,
         f"{what}: a kernel release with a newline, a CPU model with a tab: escaped, not split",
         raw[-1500:])
for field, value in (("workload", "get ppid"), ("owner", "shared x")):
    odd = json.load(open(EXAMPLES["run"]))
    odd["results"][0][field] = value
    r = run(["export", "--to", "lkp", write("blank.json", odd)])
    t.ok(r.returncode == 2 and r.stdout == "" and f'"{field}" is "{value}"' in r.stderr,
         f"export --to lkp: a {field} with a blank is refused (its pattern), exit 2", r.stderr)
t.done()
