#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""table.py - the kernel x case table of `ucbench verify` verdicts, from the documents that
matrix.sh (or boot.py) wrote: DIR/<kernel>.verify.json.  Markdown on stdout (or --output).

Every verdict must be explained: `pass` is the expected behaviour; any other verdict, and any
verdict that differs from the reference kernel (the host's), needs an entry in
explanations.json saying whether ucbench's expectation is version-dependent (and why) or the
kernel has a bug.  An unexplained cell makes the exit status 1."""
import argparse
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def series(release):
    m = re.match(r"(\d+)\.(\d+)", release)
    return f"{m.group(1)}.{m.group(2)}" if m else release


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--reference", help="kernel name of the reference column (default: the host)")
    ap.add_argument("--explanations", default=os.path.join(HERE, "explanations.json"))
    ap.add_argument("--output")
    a = ap.parse_args()

    with open(a.explanations) as f:
        notes = json.load(f)
    kernels = []
    for path in sorted(glob.glob(os.path.join(a.dir, "*.verify.json"))):
        name = os.path.basename(path)[:-len(".verify.json")]
        with open(path) as f:
            doc = json.load(f)
        info = {}
        ipath = os.path.join(a.dir, name + ".info.json")
        if os.path.exists(ipath):
            with open(ipath) as f:
                info = json.load(f).get("host", {})
        release = (info.get("kernel") or {}).get("release") or doc.get("verify_kernel") or name
        kernels.append({"name": name, "release": release, "where": (doc.get("kernel_matrix") or {}).get("where", "?"),
                        "cases": {v["id"]: v for v in doc.get("verify", [])}})
    if not kernels:
        print(f"table.py: no *.verify.json in {a.dir}", file=sys.stderr)
        return 2
    kernels.sort(key=lambda k: [int(x) for x in re.findall(r"\d+", series(k["release"]))])
    ref = next((k for k in kernels if k["name"] == a.reference), None) or \
        next((k for k in kernels if k["where"] == "host"), kernels[-1])
    ids = sorted({i for k in kernels for i in k["cases"]})

    out, footnotes, unexplained = [], [], []
    out.append("| case | " + " | ".join(f"{k['release']}<br>({k['where']})" for k in kernels) + " |")
    out.append("|---|" + "---|" * len(kernels))
    for cid in ids:
        row = []
        for k in kernels:
            v = k["cases"].get(cid)
            st = v["status"] if v else "absent"
            rst = (ref["cases"].get(cid) or {}).get("status", "absent")
            key = f"{series(k['release'])}:{cid}"
            note = notes.get(key) or notes.get(f"*:{cid}:{st}")
            why = " ".join(str(v.get(f) or "") for f in ("detail", "error", "skip") if v and v.get(f))
            if note and note.get("when") and note["when"] not in why:
                note = None  # the entry explains only a verdict that gives this reason
            cell = st
            if st != "pass" or st != rst:
                if note:
                    text = f"**{st}** ({note['kind']}): {note['why']}"
                    if text not in footnotes:
                        footnotes.append(text)
                    cell += f" [{footnotes.index(text) + 1}]"
                else:
                    unexplained.append(f"{k['release']} {cid}: {st} (reference {rst})"
                                       + (f": {why[:600]}" if why else ""))
                    cell += " **UNEXPLAINED**"
            row.append(cell)
        title = next((k["cases"][cid].get("title", "") for k in kernels if cid in k["cases"]), "")
        out.append(f"| {cid} {title} | " + " | ".join(row) + " |")
    out.append("")
    out.append(f"Reference column: {ref['release']} ({ref['where']}). `pass` is the behaviour "
               "kernel-ucounts.md §4 expects; every other verdict, and every verdict that differs "
               "from the reference, is explained below.")
    out.append("")
    for n, text in enumerate(footnotes, 1):
        out.append(f"{n}. {text}")
    for u in unexplained:
        out.append(f"- UNEXPLAINED: {u}")
    text = "\n".join(out) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    for u in unexplained:
        print(f"table.py: unexplained verdict: {u}", file=sys.stderr)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
