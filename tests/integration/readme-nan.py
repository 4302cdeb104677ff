#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""readme-nan.py - the documented examples, shortened, never print `nan` (or `inf`): null is `-`
in every text output.  The run table and its CSV (a 1,2,4 sweep; the headline --containers 64,
whose 64 containers on this machine are oversubscribed and whose baseline is added), compare
of two documents that differ in --seccomp (contended or not, the ratio is shown), every
export, the plot (SVG and HTML), list and info."""
import os
import re

from taplib import Tap, run, scratch_dir, skip_all, uid_block, userns_works

if not userns_works():
    skip_all("user namespaces cannot be created here")
t = Tap()
BASE = uid_block(2101800000, 200)
TMP = scratch_dir("readme-examples")  # not "nan": paths are echoed
SHORT = ["--duration", "0.5", "--warmup", "0.1", "--interval", "0.25", "--uid-base", str(BASE)]
NAN = re.compile(r"(?i)(?<![a-z_])(-?nan|-?inf)(?![a-z_])")
outputs = []  # (what, text)


def keep(what, r):
    outputs.append((what, r.stdout + r.stderr))
    return r


def doc(name, args):
    out = os.path.join(TMP, name + ".json")
    r = keep(" ".join(args), run(["run"] + args + SHORT + ["--output", out], timeout=600))
    t.ok(r.returncode == 0 and os.path.exists(out), f"run {' '.join(args)}", r.stderr)
    return out


small = doc("small", ["-w", "signal", "-c", "1,2,4"])
keep("run -f csv", run(["run", "-w", "signal", "-c", "1,2", "-f", "csv"] + SHORT))
head64 = doc("c64", ["--containers", "64", "--owner", "shared"])
t.ok(any(re.match(r"signal\s+shared\s+1\s+1\s", ln) for ln in outputs[-1][1].splitlines()),
     "run --containers 64: the 1-container baseline is in the table", outputs[-1][1][-2000:])
base = doc("base", ["-w", "getppid,signal", "-c", "1", "--owner", "shared", "--repeat", "3"])
head = doc("head", ["-w", "getppid,signal", "-c", "1", "--owner", "shared", "--repeat", "3",
                    "--seccomp", "docker"])
keep("compare", run(["compare", base, head]))
keep("compare c64", run(["compare", head64, head64]))
for fmt in ("gab", "gab-smaller", "bmf", "gbench", "lkp", "kcidb"):
    for d in (small, head64):
        keep(f"export {fmt}", run(["export", "--to", fmt, d]))
for ext in ("svg", "html"):
    out = os.path.join(TMP, "report." + ext)
    keep(f"plot {ext}", run(["plot", small, head64, "--output", out]))
    with open(out) as f:
        outputs.append((f"plot {ext} file", f.read()))
keep("list", run(["list"]))
keep("info", run(["info"]))
bad = [f"{what}: {m.group(0)!r} in …{text[max(0, m.start() - 80):m.end() + 40]!r}"
       for what, text in outputs for m in [NAN.search(text)] if m]
t.ok(len(outputs) > 20 and not bad, f"no nan or inf in {len(outputs)} text outputs",
     "\n".join(bad))
t.done()
