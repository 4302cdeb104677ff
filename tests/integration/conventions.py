# SPDX-License-Identifier: GPL-2.0-or-later
"""conventions.py - what a kernel engineer types and reads (issue 15): durations with units,
short options, --format csv (parsed with the csv module, compared with the JSON document), the
table's legend naming every column's JSON key and `-`, `info` without a bare `unknown`, and
every option of `run --help` in the man page."""
import csv
import io
import json
import os
import re
import subprocess

from taplib import SRCDIR, UCBENCH, Tap, run, scratch_dir, uid_block, userns_works

t = Tap()
BASE = str(uid_block(2102050000, 10))
TINY = ["-w", "getppid", "-c", "1,2", "--owner", "shared", "--warmup", "0", "--interval",
        "100ms", "-d", "300ms", "--uid-base", BASE]

# ---- durations: the units, and bad ones (one line, exit 2, the option and the units) ----
for arg in ("2x", "-1s", "1e400s", "", "ms", "3d", "0x1p1"):
    r = run(["run", "--duration", arg])
    lines = r.stderr.strip().splitlines() or [""]
    # The error is one line; a usage error adds the conventional "Try 'ucbench --help'".
    t.ok(r.returncode == 2 and len(lines) <= 2 and lines[-1].startswith("Try")
         and f"--duration `{arg}`" in lines[0]
         and "ms, s, m or h" in lines[0] and r.stdout == "",
         f"--duration {arg!r}: exit 2, one line naming the option and the units", r.stderr)
r = run(["run", "-d", "2x"])
t.ok(r.returncode == 2 and "--duration `2x`" in r.stderr, "-d 2x: the same error", r.stderr)

# ---- short options and units in a real run; CSV against the JSON document ----
if userns_works() and os.geteuid() == 0:
    d = scratch_dir("ucb-conv-")
    doc_path = os.path.join(d, "doc.json")
    r = subprocess.run([UCBENCH, "run"] + TINY + ["-o", doc_path, "-f", "csv", "-q"],
                       capture_output=True)
    t.ok(r.returncode == 0, "run with short options and durations with units exits 0", r.stderr)
    raw = r.stdout.decode()
    try:
        with open(doc_path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {"results": [], "config": {}}
        t.diag(e)
    cfg = doc["config"]
    t.ok(cfg.get("duration_s") == 0.3 and cfg.get("interval_s") == 0.1
         and cfg.get("warmup_s") == 0 and cfg.get("containers") == [1, 2]
         and cfg.get("workloads") == ["getppid"] and cfg.get("format") == "csv"
         and cfg.get("quiet") is True,
         "-d 300ms, --interval 100ms, -c 1,2, -w, -f csv and -q land in config", cfg)
    t.ok(raw.endswith("\r\n") and raw.count("\r\n") == raw.count("\n") == 3,
         "a header and two rows, lines end in CRLF (RFC 4180)", raw[-200:])
    rows = list(csv.DictReader(io.StringIO(raw, newline="")))
    t.ok(len(rows) == len(doc["results"]) == 2, "one CSV row per results[] entry", len(rows))
    hdr = list(rows[0].keys()) if rows else []
    for want in ("workload", "containers", "owner", "depth", "tasks", "mode", "repeat", "status",
                 "isolate", "summary.per_container_ops", "summary.total_ops_per_s",
                 "summary.cv", "summary.scalability", "summary.fairness",
                 "summary.cpu_ns_per_op", "summary.failed_ops",
                 "contention.cpu_share_median", "contention.contended"):
        t.ok(want in hdr, f"CSV header `{want}`", hdr)

    def at(entry, path):
        for k in path.split("."):
            entry = entry.get(k) if isinstance(entry, dict) else None
        return entry

    def same(cell, v):
        if v is None:
            return cell == ""
        if isinstance(v, bool):
            return cell == ("true" if v else "false")
        if isinstance(v, (int, float)):
            return cell != "" and abs(float(cell) - v) <= 1e-9 * max(1.0, abs(v))
        if isinstance(v, list):
            return cell == " ".join(str(x) for x in v)
        return cell == v

    bad = [(i, k, row[k], at(e, k)) for i, (row, e) in enumerate(zip(rows, doc["results"]))
           for k in hdr if not same(row[k], at(e, k))]
    t.ok(rows and not bad, "every CSV cell equals the JSON value at its header's path", bad[:5])
    t.ok(any(row["isolate"] == "user,ipc" for row in rows),
         "a value with a comma survives (quoted)", [row.get("isolate") for row in rows])
    t.ok(rows and rows[0]["summary.cv"] == "" and at(doc["results"][0], "summary.cv") is None,
         "null is an empty cell (the table's `-`)", rows[0].get("summary.cv") if rows else None)

    # ---- the text table: two legend lines by default; --legend maps every column to its key,
    # and says what `-` is ----
    r = run(["run"] + TINY)
    out = r.stdout.splitlines()
    t.ok(r.returncode == 0 and out and out[0].startswith("workload"), "the text table", r.stderr)
    header = re.split(r" {1,}", out[0].strip()) if out else []
    cols = ["workload", "owner", "depth", "N", "ops/s/cont", "±%", "total ops/s", "scale",
            "fairness", "cpu ns/op", "cpu/fair", "failed"]
    t.ok(" ".join(header) == " ".join(cols), "the columns are the documented ones", out[:1])
    short = [ln for ln in out if ln.startswith("(")]
    t.ok(len(short) <= 2 and short and short[0].startswith("(cpu/fair = ")
         and "* = not clean data" in short[0] and "- = null" in short[0]
         and "--legend" in short[-1],
         "by default at most two legend lines: cpu/fair, the marks, where the rest is", short)
    r = run(["run", "--legend"] + TINY)
    out = r.stdout.splitlines()
    legend = "\n".join(ln for ln in out if ln.startswith("("))
    t.ok(r.returncode == 0 and len(legend.splitlines()) >= 12,
         "--legend: the full legend, a line per column or mark", legend)
    for col in cols:
        t.ok(re.search(r"(^|[(; ,])" + re.escape(col) + r"[,:]? (=|depth|owner)", legend)
             or (col in ("workload", "owner", "depth") and "workload, owner, depth:" in legend),
             f"the legend explains column `{col}`", legend)
    keys = re.findall(r"\b((?:summary|contention)\.[a-z_]+)", legend)
    missing = [k for k in keys if at(doc["results"][0], k) is None
               and k.split(".")[1] not in doc["results"][0].get(k.split(".")[0], {})]
    t.ok(len(keys) >= 8 and not missing, "every key the legend names is in results[]",
         (keys, missing))
    t.ok("- = null" in legend and "* = not clean data" in legend,
         "the legend says what - and * mean",
         legend)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
else:
    t.skip("a run with short options, CSV and the legend", "needs root and user namespaces")

# ---- list --format csv: the JSON keys and values ----
r = run(["list", "-f", "csv"])
rows = list(csv.DictReader(io.StringIO(r.stdout, newline="")))
ws = json.loads(run(["list", "--format", "json"]).stdout)["workloads"]
t.ok(r.returncode == 0 and [row["name"] for row in rows] == [w["name"] for w in ws]
     and all(row["counter"] == w["counter"] and row["op"] == w["op"]
             and row["rlimits"] == " ".join(w["rlimits"])
             and row["supported"] == ("true" if w["supported"] else "false")
             for row, w in zip(rows, ws)),
     "list -f csv: a row per workload, the JSON keys and values", r.stdout[:300])
r = run(["info", "-f", "csv"])
t.ok(r.returncode == 2 and "json or text" in r.stderr, "info has no csv (not a table)", r.stderr)

# ---- info: every null says why ----
r = run(["info", "-f", "text"])
bare = [ln for ln in r.stdout.splitlines() if re.search(r":\s+(unknown|null)\s*$", ln)]
t.ok(r.returncode == 0 and not bare, "info: no bare `unknown` (each says why)", bare)
nulls = []


def walk(o, p=""):
    for k, v in o.items():
        q = f"{p}.{k}" if p else k
        if isinstance(v, dict):
            walk(v, q)
        elif v is None:
            nulls.append(q)


walk(json.loads(run(["info", "--format", "json"]).stdout)["host"])
text = dict(re.split(r":\s+", ln, maxsplit=1) for ln in r.stdout.splitlines() if ": " in ln)
t.ok(all(re.match(r"(unknown|absent|none): \S", text.get(k, "")) for k in nulls),
     f"info: each of the {len(nulls)} nulls here reads `unknown|absent|none: why`",
     {k: text.get(k) for k in nulls})

# ---- --help, man page and README: every long and short option ----
with open(os.path.join(SRCDIR, "man", "ucbench.1")) as f:
    man = f.read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
helptext = run(["run", "--help"]).stdout
shorts = re.findall(r"^  (-[a-zA-Z]), (--[a-z-]+)", helptext, re.M)
t.ok({s for s, _ in shorts} >= {"-w", "-c", "-t", "-d", "-r", "-o", "-f", "-q", "-h"},
     "run --help shows the short options", shorts)
for s, lo in shorts:
    t.ok(re.search(re.escape(s) + r"\b.{0,12}" + re.escape(lo), man, re.S),
         f"man page: {s}, {lo}", None)
per = r"per container"
t.ok(re.search(r"--tasks.{0,200}" + per, helptext, re.S | re.I)
     and re.search(r"--tasks.{0,400}" + per, man, re.S | re.I)
     and "nr_task" in helptext and "nr_task" in man,
     "--tasks is per container, not will-it-scale's/LKP's total: --help and man page")
t.done()
