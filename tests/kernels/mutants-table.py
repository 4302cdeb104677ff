#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mutants-table.py - one table of every mutant across the kernel series that mutants.sh ran.

usage: mutants-table.py SUMMARY.json [SUMMARY.json ...]   (OUT/SERIES/summary.json of mutants.sh)

Prints one `VERSION: mutation score K/N` line per kernel, then one row per patch: its
`Breaks:` line (property, rlimits, levels, direction) and, per series, the cases that caught
it (`-` when it survived, `n/a` when the series has no such patch, `build/boot failed`)."""
import json
import os
import sys


def legend(paths, docs):
    """Each case that caught a mutant: its name and cells, from the baseline's verify.json
    beside each summary.json."""
    used = sorted({c for d in docs for r in d["kernels"] for c in r.get("caught_by") or []})
    info = {}
    for p in paths:
        try:
            with open(os.path.join(os.path.dirname(p), "baseline.verify.json")) as f:
                for c in json.load(f).get("verify", []):
                    info.setdefault(c["id"], c)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    if not used or not info:
        return
    print("\ncases that caught a mutant:")
    for cid in used:
        c = info.get(cid, {})
        cells = " ".join(f"{x.get('level', '?')} {x.get('property', '?')}" for x in c.get("cells") or [])
        what = c.get("name", "?") + (f" ({cells})" if cells else "")
        print(f"  {cid} {c.get('rlimit', '')} {what}: {c.get('title', '')}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split("\n\n")[1])
    docs = []
    for p in sys.argv[1:]:
        with open(p) as f:
            docs.append(json.load(f))
    for d in docs:
        k, n = d["mutation_score"]
        print(f"{d['kernel_version']}: mutation score {k}/{n}")
    names, breaks = [], {}
    for d in docs:
        for r in d["kernels"]:
            if r["kernel"] != "baseline" and r["kernel"] not in names:
                names.append(r["kernel"])
            breaks.setdefault(r["kernel"], r.get("breaks", ""))
    print()
    cols = [d["kernel_version"] for d in docs]
    print("| patch | breaks (property rlimits levels direction) | " + " | ".join(
        f"caught on {c} by" for c in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for name in sorted(names):
        cells = []
        for d in docs:
            r = next((r for r in d["kernels"] if r["kernel"] == name), None)
            if r is None:
                cells.append("n/a")
            elif r["caught"].startswith("no") and "failed" in r["differs"]:
                cells.append("build/boot failed")
            elif not name.startswith("mutant-"):
                cells.append(r["caught"] + ": " + r["differs"])
            else:
                cells.append(", ".join(r.get("caught_by") or []) or "- (survived)")
        print(f"| {name} | {breaks.get(name) or ''} | " + " | ".join(cells) + " |")
    legend(sys.argv[1:], docs)
    survivors = [(d["kernel_version"], r) for d in docs for r in d["kernels"]
                 if r["caught"] == "NO (survived)"]
    if survivors:
        print()
        for v, r in survivors:
            print(f"survived on {v}: {r['kernel']} (no case observes {r.get('breaks') or 'its bug'})")


if __name__ == "__main__":
    main()
