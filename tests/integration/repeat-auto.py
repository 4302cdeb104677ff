#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""repeat-auto.py - `run --repeat auto --precision PCT [--max-time SEC]`.  A loose precision
(50 %) on getppid is reached at the first chance: after 3 uncontended repeats on a quiet
machine, and on a busy one at the first prefix of counted (uncontended) repeats whose interval
fits, recomputed here independently of the C code.  An unreachable precision (0.001 %) stops by
--max-time, says so on stderr and in the document, and still exits 0.  Bad usage exits 2 with
one line.  --repeat N keeps its document (an integer `repeat`, no `precision`).
On a host too busy for any uncontended repeat, "reached" and the time checks skip with what the
run measured (taplib.busy_reason); what the document and stderr say must agree either way."""
import json
import math
import os
import statistics
import time

from taplib import HostLoad, Tap, busy_reason, run, scratch_dir, skip_all, uid_block, userns_works

if not userns_works():
    skip_all("user namespaces cannot be created here")

t = Tap()
BASE = uid_block(2101400000, 100)  # a range of its own: 1 container per run
TMP = scratch_dir("repeat-auto")
OWNER = "shared" if os.geteuid() == 0 else "self"
ARGS = ["run", "--workload", "getppid", "--containers", "1", "--owner", OWNER,
        "--uid-base", str(BASE)]


def t_quantile(p, df):
    """Student's t quantile by bisection on the CDF (Simpson's rule on the density)."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))

    def cdf(x):
        n = 2000
        h = x / n
        f = [c * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2) for i in range(n + 1)]
        return 0.5 + h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))

    lo, hi = 0.0, 100.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def ci_pct(values):
    """docs/statistics.md: 100 (exp(t(0.975, n-1) s / sqrt n) - 1) on the logs."""
    logs = [math.log(v) for v in values]
    n = len(logs)
    return 100 * math.expm1(t_quantile(0.975, n - 1) * statistics.stdev(logs) / math.sqrt(n))


def ucbench(name, extra, timeout=300):
    out = os.path.join(TMP, name + ".json")
    t0 = time.monotonic()
    r = run(ARGS + ["--output", out] + list(extra), timeout=timeout)
    wall = time.monotonic() - t0
    try:
        with open(out) as f:
            return r, json.load(f), wall
    except (OSError, ValueError):
        return r, None, wall


def counted(doc):
    return [p["summary"]["per_container_ops"] for p in doc["results"]
            if not p["contention"]["contended"] and (p["summary"]["per_container_ops"] or 0) > 0]


# --- a loose precision: reached at the first chance ----------------------------------------------
load = HostLoad()
r, doc, _ = ucbench("loose", ["--duration", "1", "--warmup", "0.3", "--interval", "0.25",
                              "--repeat", "auto", "--precision", "50", "--max-time", "120"])
t.ok(r.returncode == 0 and doc is not None, "--precision 50: exit 0 and a document", r.stderr)
if doc:
    c = doc["config"]
    t.ok(c["repeat"] == "auto" and c["precision_pct"] == 50 and c["max_time_s"] == 120,
         "config: repeat auto, precision_pct, max_time_s", {k: c.get(k) for k in
                                                             ("repeat", "precision_pct",
                                                              "max_time_s")})
    res = doc["results"]
    pr = doc.get("precision") or [{}]
    t.ok(len(pr) == 1 and pr[0].get("reached") in (True, False) and pr[0]["repeats"] == len(res)
         and pr[0]["workload"] == "getppid" and pr[0]["containers"] == 1
         and pr[0]["owner"] == OWNER, "precision[]: one point, all its repeats", pr)
    # Reaching ±50 % needs 3 uncontended repeats: a host busy for 120 s never gives them.
    busy = lambda: busy_reason(doc, load)  # noqa: E731
    reached = pr[0].get("reached") is True
    t.busy(reached, "precision[]: ±50 % reached within --max-time 120",
           pr[0].get("reached") is False and busy, pr)
    t.ok([p["repeat"] for p in res] == list(range(1, len(res) + 1))
         and len({(p["workload"], p["owner"], p["containers"]) for p in res}) == 1,
         "its repeats share the identity, repeat = 1..R", [p["repeat"] for p in res])
    vals = counted(doc)
    first = next((n for n in range(3, len(vals) + 1) if ci_pct(vals[:n]) <= 50), None)
    ci = pr[0].get("ci_pct")
    t.ok((first == len(vals) if reached else first is None)
         and pr[0].get("repeats_counted") == len(vals)
         and (ci is None if len(vals) < 2 else
              ci is not None and abs(ci - ci_pct(vals)) < 1e-6 * max(1, ci)),
         "stopped at the first prefix of counted repeats within ±50 %, or never saw one "
         "(recomputed)", f"counted {vals}, first {first}, doc {pr}")
    # 3 repeats can only do when none was contended (then more are a break).
    t.busy(len(res) == 3, "uncontended: stopped after 3 repeats", busy,
           f"{len(res)} repeats, {len(res) - len(vals)} contended")
    if reached:
        said = "1 of 1 points reached ±50 %" in r.stderr and "not reached" not in r.stderr
    else:
        said = ("0 of 1 points reached ±50 %" in r.stderr and "not reached" in r.stderr
                and "--max-time 120 s was spent" in r.stderr)
    t.ok(said, f"stderr: how many reached ({'1' if reached else '0'}), and the worst", r.stderr)

# --- an unreachable precision: stopped by time ---------------------------------------------------
load = HostLoad()
r, doc, wall = ucbench("tight", ["--duration", "0.5", "--warmup", "0", "--interval", "0.25",
                                 "--repeat", "auto", "--precision", "0.001", "--max-time", "3"])
t.ok(r.returncode == 0 and doc is not None, "--precision 0.001 --max-time 3: exit 0", r.stderr)
if doc:
    pr = doc.get("precision") or [{}]
    busy = lambda: busy_reason(doc, load)  # noqa: E731
    t.ok(pr[0].get("reached") is False and doc["config"]["max_time_s"] == 3, "not reached", pr)
    t.busy(pr[0].get("repeats", 0) >= 2, "several repeats within --max-time 3",
           "repeats" in pr[0] and busy, pr)
    t.ok("0 of 1 points reached" in r.stderr and "--max-time 3 s was spent" in r.stderr
         and "not reached" in r.stderr and "exit status stays 0" in r.stderr,
         "stderr says it stopped by time, not reached, exit 0", r.stderr)
    # a repeat starts only when it should end within the time: the run's sweep stays near 3 s
    t.busy(wall < 3 + 15, "the time bound holds (one run's setup aside)", busy, f"{wall:.1f} s")

# --- --quiet: no line on stderr --------------------------------------------------------------------
r, doc, _ = ucbench("quiet", ["--duration", "0.3", "--warmup", "0", "--interval", "0.1",
                              "--repeat", "auto", "--precision", "0.001", "--max-time", "1",
                              "--quiet"])
t.ok(r.returncode == 0 and "--repeat auto" not in r.stderr, "--quiet: no summary line",
     r.stderr)

# --- --repeat N unchanged ---------------------------------------------------------------------------
r, doc, _ = ucbench("fixed", ["--duration", "0.3", "--warmup", "0", "--interval", "0.1",
                              "--repeat", "2"])
t.ok(r.returncode == 0 and doc and doc["config"]["repeat"] == 2 and "precision" not in doc
     and "precision_pct" not in doc["config"]
     and [p["repeat"] for p in doc["results"]] == [1, 2],
     "--repeat 2: integer repeat, no precision fields", doc and doc["config"].get("repeat"))

# --- usage errors: exit 2, a one-line error (then the usual "Try 'ucbench --help'" hint) --------------
for bad, needle in ((["--repeat", "auto"], "--precision"),
                    (["--precision", "5"], "--repeat auto"),
                    (["--repeat", "3", "--precision", "5"], "--repeat auto"),
                    (["--max-time", "5"], "--repeat auto"),
                    (["--repeat", "auto", "--precision", "0"], "--precision"),
                    (["--repeat", "auto", "--precision", "abc"], "abc"),
                    (["--repeat", "auto", "--precision", "5", "--max-time", "-1"], "--max-time"),
                    (["--repeat", "sometimes"], "sometimes")):
    r = run(ARGS + bad, timeout=30)
    lines = [ln for ln in r.stderr.strip().splitlines() if not ln.startswith("Try ")]
    t.ok(r.returncode == 2 and len(lines) == 1 and lines[0].startswith("ucbench: ")
         and needle in lines[0] and r.stdout == "",
         f"usage error, one line: {' '.join(bad)}", f"rc {r.returncode}: {r.stderr}")

t.done()
