# SPDX-License-Identifier: GPL-2.0-or-later
"""verify-interrupt.py - Ctrl-C in the middle of `ucbench verify` (issue 35, D9).

The SIGINT is sent while a case runs (one of its processes holds a uid of the run's range, seen
in /proc, never a timer).  The document is still written, with `verify_interrupted`; the case cut
short and those after it are `not_run` skips, never `error` or `fail`; `compare` against a whole
run calls them "not run" and exits 0 (no newly failing case); the exit status is 130.  A reader
refuses `not_run` beside any other status (a document cannot turn a failure into "not run"),
and a case that erred on head is still NEWLY FAILING (the check can fail)."""
import json
import os
import signal
import subprocess
import time

from taplib import (DEADLINE, SRCDIR, Tap, UCBENCH, require_root_userns, run, scratch_dir,
                    uid_block, uids_in_use)

require_root_userns("needs root: verify's cases become their own uids")

t = Tap()
CASES = ["ULIM-72", "ULIM-73", "ULIM-74", "ULIM-01"]  # the race cases take ~0.5 s each here
SPAN = 100 * 100  # case i of the table uses --uid-base + 100 i .. + 99
base = uid_block(2104500000, SPAN, 1000000)
tmp = scratch_dir("ucb-vint-")
try:
    import jsonschema
    with open(os.path.join(SRCDIR, "docs", "ucbench-result.schema.json")) as f:
        VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
except (ImportError, AttributeError):
    VALIDATOR = None


def case_running():
    return any(base <= u < base + SPAN for u in uids_in_use())


whole = os.path.join(tmp, "whole.json")
r = run(["verify", *CASES, "--uid-base", str(base), "-o", whole])
t.ok(r.returncode == 0, "a whole verify of the 4 cases passes (the base side)", r.stdout + r.stderr)

cut = os.path.join(tmp, "cut.json")
p = subprocess.Popen([UCBENCH, "verify", *CASES, "--uid-base", str(base), "-o", cut],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
deadline = time.monotonic() + DEADLINE
while p.poll() is None and not case_running() and time.monotonic() < deadline:
    time.sleep(0.002)
sent = p.poll() is None
if sent:
    p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=DEADLINE)
if not sent:
    for name in ("exit 130 and verify_interrupted", "counts and reason", "not_run skips",
                 "schema", "compare text", "compare JSON"):
        t.skip(name, "verify ended before a case was seen running (a loaded host): nothing to cut")
else:
    doc = json.load(open(cut))
    cases = doc["verify"]
    mark = doc.get("verify_interrupted")
    t.ok(p.returncode == 128 + signal.SIGINT and mark and mark["signal"] == signal.SIGINT,
         f"SIGINT while {CASES[0]} runs: exit 130, the document marks verify_interrupted",
         f"rc={p.returncode} {mark} {err}")
    not_run = [c for c in cases if c.get("not_run")]
    t.ok(len(cases) == len(CASES) and mark["cases_planned"] == len(CASES)
         and mark["cases_finished"] + len(not_run) == len(CASES) and not_run
         and mark["reason"].startswith(not_run[0]["id"] + " not run: interrupted by signal 2"),
         "every case is in the document; the counts and the reason name the cases not run",
         json.dumps(mark))
    t.ok(all(c["status"] == "pass" or (c["status"] == "skip" and c.get("not_run")) for c in cases),
         "the case cut short is a not_run skip, never error or fail (those after it too)",
         json.dumps([(c["id"], c["status"], c["detail"]) for c in cases]))
    if VALIDATOR:
        errs = [e.message for e in VALIDATOR.iter_errors(doc)]
        t.ok(not errs, "the interrupted document is valid against the schema", "; ".join(errs[:3]))
    else:
        t.skip("the interrupted document against the schema", "python3-jsonschema is not installed")
    c = run(["compare", whole, cut])
    t.ok(c.returncode == 0 and "0 newly failing" in c.stdout
         and f"verify {not_run[0]['id']}: pass -> not run" in c.stdout,
         "compare: the cases not run read `pass -> not run`, none newly failing, exit 0",
         c.stdout + c.stderr)
    cj = json.loads(run(["compare", whole, cut, "--format", "json"]).stdout)
    t.ok(cj["newly_failing"] == 0
         and all(v["head_not_run"] and not v["newly_failing"] for v in cj["verify"]),
         "compare JSON: head_not_run on each of them, newly_failing 0", json.dumps(cj["verify"]))

# A document cannot turn a verdict into "not run": not_run beside fail is refused (exit 2).
doc = json.load(open(whole))
doc["verify"][0]["status"] = "fail"
doc["verify"][0]["not_run"] = True
forged = os.path.join(tmp, "forged.json")
json.dump(doc, open(forged, "w"))
c = run(["compare", whole, forged])
t.ok(c.returncode == 2 and "not_run is true but status is \"fail\"" in c.stderr.splitlines()[0],
     "not_run beside status fail: refused in a line naming not_run, exit 2", c.stdout + c.stderr)
# ... and without it, an erred case is still newly failing (the comparison can fail).
del doc["verify"][0]["not_run"]
doc["verify"][0]["status"] = "error"
json.dump(doc, open(forged, "w"))
c = run(["compare", whole, forged])
t.ok(c.returncode == 1 and "NEWLY FAILING" in c.stdout and "1 newly failing" in c.stdout,
     "an erred case (not marked not_run) is NEWLY FAILING, exit 1", c.stdout + c.stderr)
t.done()
