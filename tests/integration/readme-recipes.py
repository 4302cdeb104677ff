#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""readme-recipes.py - the README's three recipes, their commands taken from its ```sh blocks
and run as written (`build/ucbench` is this build's ucbench), in that order in one scratch
folder, and their outputs checked to mean what the README says.  One substitution, said in the
test's line: the sweep of recipe 1 runs with `--duration 0.5 --warmup 0.1` (30 points at the
defaults take 2 min here).  Also: the README stays a front page (at most 150 lines of at most
100 columns), and its table of contents names every docs/*.md."""
import glob
import json
import os
import re
import subprocess
import xml.dom.minidom

from taplib import HostLoad, SRCDIR, Tap, UCBENCH, busy_reason, scratch_dir, userns_works

SHORTER = " --duration 0.5 --warmup 0.1"
with open(os.path.join(SRCDIR, "README.md")) as f:
    readme = f.read()
t = Tap()
lines = readme.splitlines()
wide = [f"{i}: {len(ln)}" for i, ln in enumerate(lines, 1) if len(ln) > 100]
t.ok(len(lines) <= 150 and not wide, f"README: {len(lines)} lines (150 at most), none over 100 "
     "columns", wide)
docs = sorted(os.path.relpath(p, SRCDIR) for p in glob.glob(os.path.join(SRCDIR, "docs", "*.md")))
toc = re.search(r"^## Documentation\n(.*?)^## ", readme, re.S | re.M)
missing = [d for d in docs if not toc or f"]({d})" not in toc.group(1)]
t.ok(docs and not missing, f"README's table of contents links each of the {len(docs)} docs/*.md",
     missing)

# Each recipe: its heading, then its ```sh blocks, one command a line.
recipes = {}
for m in re.finditer(r"^## Recipe (\d): (.*?)\n(.*?)(?=^## )", readme, re.S | re.M):
    cmds = [c.strip() for b in re.findall(r"```sh\n(.*?)```", m.group(3), re.S)
            for c in b.splitlines() if c.strip()]
    recipes[int(m.group(1))] = (m.group(2), cmds)
t.ok(sorted(recipes) == [1, 2, 3] and all(c for _, c in recipes.values()),
     "the README has recipes 1, 2 and 3, each with commands", recipes)
if os.geteuid() != 0 or not userns_works():
    t.skip("the recipes", "they run as root (owners shared and distinct), with user namespaces")
    t.done()
cwd = scratch_dir("ucb-recipes-")


def name(cmd):
    return cmd.split("  #")[0].strip()


def sh(cmd):
    """The README's line as bash runs it, with build/ucbench this build's."""
    line = cmd.replace("build/ucbench", UCBENCH)
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


# ---- 1: the sweep, its owner contrast and the plot ----
_, cmds = recipes.get(1, ("", []))
sweep = [c for c in cmds if " run " in c]
t.ok(len(sweep) == 1 and "--owner shared,distinct" in sweep[0] and "-o sweep.json" in sweep[0],
     "recipe 1: one sweep of shared and distinct owners into sweep.json", cmds)
load = HostLoad()
for c in cmds:
    r = sh(c + SHORTER if c in sweep else c)
    t.ok(r.returncode == 0, f"recipe 1: `{c}`" + (f" (with{SHORTER})" if c in sweep else ""),
         r.stderr[-1500:])
    if c in sweep:
        verdicts = re.findall(r"^signal +\d+ +\d+ +process +(\d+) .*?  (penalty|none|shared "
                              r"faster|inconclusive)", r.stdout, re.M)
        t.ok("Owner contrast" in r.stdout and len(verdicts) == 5,
             "recipe 1: the table ends with the owner contrast, a verdict per N", r.stdout[-2500:])
doc = {}
if os.path.exists(os.path.join(cwd, "sweep.json")):
    with open(os.path.join(cwd, "sweep.json")) as f:
        doc = json.load(f)
cpus = os.cpu_count() or 1
over = [(x["containers"], x["owner"], x["summary"]["scalability"]) for x in doc.get("results", [])
        if x["containers"] >= 2 * cpus and not x.get("contention", {}).get("contended")]
# The README: where N exceeds the CPUs, scale falls as CPUs / N for both owners (the scheduler):
# below twice that, and below the smaller N's for each owner.  The 1-container baseline is
# measured too: a host busy then inflates every scale, and the check skips with the reason.
falls = all(s_ < min(s2 for n2, o2, s2 in over if o2 == o and n2 < n) for n, o, s_ in over
            if any(n2 < n and o2 == o for n2, o2, _ in over))
t.busy(not over or (all(s_ is not None and s_ < 2 * cpus / n for n, _, s_ in over) and falls),
       f"recipe 1: at N >= 2 x {cpus} CPUs, scale falls as CPUs/N for both owners",
       lambda: busy_reason(doc, load), over)
html = os.path.join(cwd, "report.html")
t.ok(os.path.exists(html) and "<svg" in open(html).read(), "recipe 1: report.html has the charts")
# The README: `ucbench model` refuses when fewer than 3 counts had a CPU per task, naming them.
r = sh("build/ucbench model sweep.json")
if cpus < 4:
    t.ok(r.returncode == 1 and re.search(r"N=\d+ x\d \(\d+ tasks on %d CPUs\)" % cpus, r.stdout),
         f"recipe 1: on {cpus} CPUs `ucbench model sweep.json` refuses, naming the points "
         "left out", r.stdout[-1500:])
else:
    t.skip("recipe 1: model refuses on a small machine", f"{cpus} CPUs here")

# ---- 2: verify limits, TAP, the exit status ----
_, cmds = recipes.get(2, ("", []))
for c in cmds:
    r = sh(c)
    st = re.search(r"exit status (\d+)", r.stdout)
    t.ok(st and st.group(1) in ("0", "1", "4") and r.stdout.startswith("TAP version 13")
         and "# Totals: pass:" in r.stdout, f"recipe 2: `{c}` prints TAP and its exit status",
         r.stdout[-1500:] + r.stderr[-500:])
vdoc = {}
if os.path.exists(os.path.join(cwd, "verify.json")):
    with open(os.path.join(cwd, "verify.json")) as f:
        vdoc = json.load(f)
statuses = {v["status"] for v in vdoc.get("verify", [])}
tap = r.stdout if cmds else ""
known = [ln for ln in tap.splitlines() if ln.startswith("not ok") and "# TODO known" in ln]
t.ok(statuses and statuses <= {"pass", "fail", "known-bug", "skip", "error"}
     and ("known-bug" not in statuses or known)
     and (st and st.group(1) == "0") == (statuses <= {"pass", "known-bug", "skip"}
                                         and "pass" in statuses),
     "recipe 2: the statuses are the README's; a known bug is TAP's not ok with a TODO "
     "directive; exit 0 exactly when none failed and one ran", sorted(statuses))

# ---- 3: every export line ----
_, cmds = recipes.get(3, ("", []))
t.ok(len(cmds) >= 6, "recipe 3: a line per consumer", cmds)
for c in cmds:
    r = sh(c)
    fmt = re.search(r"--to (\S+)", c).group(1)
    out = re.search(r"-o (\S+)", c)
    text = open(os.path.join(cwd, out.group(1))).read() if out and r.returncode == 0 else r.stdout
    try:
        if fmt == "junit":
            good = xml.dom.minidom.parseString(text).documentElement.tagName == "testsuites"
        elif fmt in ("gab", "bmf", "kcidb"):
            good = bool(json.loads(text))
        elif fmt == "lava":
            good = all(ln.startswith("lava-test-case ") for ln in text.splitlines()) and text
        elif fmt == "lkp":
            good = all(re.match(r"[\w.:/-]+: \S", ln) for ln in text.splitlines()) and text
        else:
            good = bool(text)
    except ValueError:
        good = False
    t.ok(r.returncode == 0 and good, f"recipe 3: `{name(c)}` writes what its consumer reads",
         r.stderr[-800:] + text[:300])
t.done()
