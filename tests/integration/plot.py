# SPDX-License-Identifier: GPL-2.0-or-later
"""plot.py - `ucbench plot`: the example (and two scaled copies) as a well-formed SVG with titles,
axis labels, a line and a legend entry per series; an HTML report with the inline SVG, the host
and a table of the points; flagged points hollow, with a legend entry, and marked in the table;
config.notes in both; never nan; bad input is a one-line exit 2; chromium renders the report."""
import copy
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from taplib import Tap, run
from taplib import doc_scratch, scaled

t = Tap()
d, path, write = doc_scratch("ucb-plot-")
NS = "{http://www.w3.org/2000/svg}"


src = os.path.join(os.environ.get("top_srcdir", "."), "examples", "run-small.json")
doc = json.load(open(src))
measured = [r for r in doc["results"] if r["status"] == "ok"]

# One file: one SVG, two charts, one series (the example has one owner).
svg = path("one.svg")
r = run(["plot", src, "--output", svg])
t.ok(r.returncode == 0 and r.stdout == "" and r.stderr == "", "plot one file to SVG: exit 0, quiet",
     r.stderr)
try:
    root = ET.parse(svg).getroot()
except (ET.ParseError, OSError) as e:
    root = None
    t.diag(e)
t.ok(root is not None and root.tag == NS + "svg", "the SVG is well-formed XML with an <svg> root")
texts = [x.text or "" for x in root.iter(NS + "text")] if root is not None else []
t.ok("signal: per-container ops/s" in texts and "signal: scalability" in texts,
     "chart titles name the workload", texts[:10])
t.ok(texts.count("containers (N)") == 2 and "ops/s per container" in texts
     and "scalability" in texts, "axis labels: containers on x, ops/s and scalability on y")
t.ok(any("min-max" in x for x in texts), "the legend says what the error bars are")
t.ok(any(x.endswith("k") for x in texts), "ticks are readable numbers (e.g. 240k)",
     [x for x in texts if x[:1].isdigit()])
xs = {str(r["containers"]) for r in measured}
t.ok(xs <= set(texts), "every container count is an x category", xs)
series = root.findall(f".//{NS}g[@class='series']") if root is not None else []
legend = [g.find(NS + "text").text for g in root.findall(f".//{NS}g[@class='legend']")] \
    if root is not None else []
t.ok(len(series) == 2 and all(g.find(NS + "polyline") is not None for g in series),
     "a polyline per series per chart", len(series))
t.ok(legend == ["shared", "shared"], "legend entries: the owner mode", legend)
if shutil.which("xmllint"):
    x = subprocess.run(["xmllint", "--noout", svg], capture_output=True, text=True)
    t.ok(x.returncode == 0, "xmllint --noout accepts the SVG", x.stderr)
else:
    t.skip("xmllint --noout accepts the SVG", "xmllint is not installed")

# Two files: a line per (owner, file), labelled with the file's basename.
a = write("base.json", doc)
b = write("fast <&>.json", scaled(doc, 2.0))
r = run(["plot", a, b, "--output", path("two.svg")])
root = ET.parse(path("two.svg")).getroot() if r.returncode == 0 else None
legend = [g.find(NS + "text").text for g in root.findall(f".//{NS}g[@class='legend']")] \
    if root is not None else []
t.ok(r.returncode == 0 and "shared (base.json)" in legend and "shared (fast <&>.json)" in legend,
     "two files: one series per file, labelled 'owner (file)', names escaped", legend + [r.stderr])
t.ok(root is not None and len(root.findall(f".//{NS}polyline")) == 4, "two files: 4 polylines")

# HTML report.
html = path("report.html")
r = run(["plot", a, b, "--output", html])
page = open(html).read() if r.returncode == 0 else ""
t.ok(r.returncode == 0 and page.startswith("<!DOCTYPE html>") and "<svg" in page
     and "</svg>" in page, "HTML report with the inline SVG", r.stderr)
t.ok(doc["host"]["kernel"]["release"] in page and doc["host"]["cpu_model"] in page
     and f"<td>{doc['host']['virtualization']}</td>" in page,
     "the report shows the host (kernel release, CPU model, virtualization)")
rows = [ln for ln in page.splitlines() if ln.startswith("<tr><td>signal</td>")]
t.ok(len(rows) == 2 * len(measured), "a table row per point and file", len(rows))
t.ok("fast &lt;&amp;&gt;.json" in page and "fast <&>" not in page, "file names escaped in HTML")
ops = round(measured[0]["summary"]["per_container_ops"])
t.ok(any(f"<td>{ops}</td>" in ln for ln in rows), "the table has the per-container ops/s", ops)

# Flagged points (ucb_point_flags, the model's one test: here starved and contended): hollow
# markers with the flags in their tooltip, a legend entry saying what hollow means, the table row
# marked; the document's config.notes listed in the report and under the SVG.
fdoc = copy.deepcopy(doc)
fdoc["results"][1]["contention"] = {"contended": True, "starved": True}
notes = ["the host was busy: <1> of 2 measured entries were contended & " + "rerun it " * 30,
         "owner mode narrowed to self"]
fdoc["config"]["notes"] = notes + [""]
fp = write("flagged.json", fdoc)
r = run(["plot", fp, "--output", path("flagged.svg")])
try:
    froot = ET.parse(path("flagged.svg")).getroot()
except (ET.ParseError, OSError) as e:
    froot = ET.Element("none")
    t.diag(e)
hollow = froot.findall(f".//{NS}circle[@class='flagged']")
titles = [c.find(NS + "title").text for c in hollow]
fleg = ["".join(x.text for x in g.findall(NS + "text"))
        for g in froot.findall(f".//{NS}g[@class='legend flagged']")]
t.ok(r.returncode == 0 and len(hollow) == 2 and all(c.get("fill") == "white" for c in hollow)
     and all(x.startswith("N=2: ") and x.endswith(", flagged: starved,contended")
             for x in titles),
     "flagged: the flagged point is hollow in both charts, its flags in the tooltip",
     str(titles) + r.stderr)
t.ok(fleg == ["hollow: not clean data (starved,contended)"] * 2,
     "flagged: a legend entry per chart says what hollow means and names the flags", str(fleg))
t.ok(root is not None and not root.findall(f".//{NS}circle[@class='flagged']")
     and not root.findall(f".//{NS}g[@class='legend flagged']")
     and not root.findall(f".//{NS}g[@class='notes']"),
     "a clean document without notes: no hollow marker, no such legend entry, no notes")
ntexts = [x.text or "" for x in froot.findall(f".//{NS}g[@class='notes']/{NS}text")]
t.ok(ntexts[:1] == ["Notes"] and "".join(ntexts[1:]) == "".join(notes)
     and len(ntexts) > 1 + len(notes) and all(len(x) <= 140 for x in ntexts),
     "SVG: config.notes under the charts, long ones wrapped, an empty one left out", str(ntexts))
if shutil.which("xmllint"):
    x = subprocess.run(["xmllint", "--noout", path("flagged.svg")], capture_output=True,
                       text=True)
    t.ok(x.returncode == 0, "xmllint --noout accepts the flagged SVG", x.stderr)
else:
    t.skip("xmllint --noout accepts the flagged SVG", "xmllint is not installed")

# The table never prints nan: a series without a 1-container point (scalability null), a host
# and config that do not say their CPUs or durations.  Three repeats, one contended.
nd = copy.deepcopy(doc)
nd["results"] = []
for k in range(3):
    e = copy.deepcopy(doc["results"][1])
    e.update(repeat=k + 1)
    e["summary"]["scalability"] = None
    e["contention"] = {"contended": k == 1}
    nd["results"].append(e)
del nd["host"]["cpus_online"], nd["config"]["duration_s"]
np_ = write("no-one.json", nd)
fhtml = path("flagged.html")
r = run(["plot", fp, np_, "--output", fhtml])
fpage = open(fhtml).read() if r.returncode == 0 else ""
frows = [ln for ln in fpage.splitlines()
         if ln.startswith(("<tr><td>signal</td>", '<tr class="flagged">'))]
t.ok(r.returncode == 0 and not re.search(r"\bnan\b", fpage, re.I)
     and any("no-one.json" in ln and "<td>-</td>" in ln for ln in frows)
     and "<td>- online, " in fpage and "<td>- s (warm-up" in fpage,
     "HTML: null is '-', never nan (scalability without a 1-container point, CPUs, duration)",
     r.stderr + "\n".join(frows))
marked = [ln for ln in frows if ln.startswith('<tr class="flagged">')]
t.ok(len(frows) == 3 and len(marked) == 2
     and marked[0].endswith("<td>starved,contended</td></tr>")
     and marked[1].endswith("<td>contended in 1 of 3 repeats</td></tr>")
     and frows[0].startswith("<tr><td>") and frows[0].endswith("<td></td></tr>"),
     "HTML: flagged rows marked, with their flags (and in how many repeats)", "\n".join(frows))
t.ok("<h2>Notes</h2>" in fpage and "<li>flagged.json: the host was busy: &lt;1&gt; of 2 "
     "measured entries were contended &amp; rerun" in fpage
     and "<li>flagged.json: owner mode narrowed to self</li>" in fpage
     and "<li>flagged.json: </li>" not in fpage and "<h2>Notes</h2>" not in page,
     "HTML: config.notes listed, escaped, named by file; none without notes")

# Bad input: exit 2, the problem named on the first line, nothing written.
verify_only = write("verify.json", {"schema": "ucbench-result/1", "results": [],
                                    "verify": [{"id": "ULIM-01", "status": "pass"}]})
for args, needle, name in (
        ([src], "--output", "no --output"),
        (["--output", path("x.svg")], "at least one", "no input file"),
        ([src, "--output", path("x.png")], "unknown extension", "--output x.png"),
        ([verify_only, "--output", path("x.svg")], "a `ucbench verify` document",
         "verify-only document"),
        ([write("nores.json", {"schema": "ucbench-result/1"}), "--output", path("x.svg")],
         "neither \"results\"", "no results[] and no verify[]"),
        ([write("strnum.json", dict(doc, config=dict(doc["config"], duration_s="1"))),
          "--output", path("x.svg")], 'config: "duration_s" is not a number',
         "a number written as a string"),
        ([write("skipped.json", dict(doc, results=[dict(x, status="skipped")
                                                   for x in doc["results"]])),
          "--output", path("x.svg")], "no measured results", "nothing measured"),
        ([path("missing.json"), "--output", path("x.svg")], "No such file", "missing file"),
        ([src, "--bogus", "-o", path("x.svg")], "bogus", "unknown option")):
    r = run(["plot"] + args)
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and lines and needle in lines[0] and r.stdout == ""
         and not os.path.exists(path("x.svg")), f"bad usage ({name}): exit 2, one line", r.stderr)
r = run(["plot", src, "--output", os.path.join(d, "no-dir", "x.svg")])
t.ok(r.returncode == 2 and "no-dir" in r.stderr, "unwritable --output: exit 2", r.stderr)

# Render the report as a person would.
browser = shutil.which("chromium")
if browser:
    png = path("report.png")
    x = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--screenshot={png}", "--window-size=1200,1600", "file://" + html],
                       capture_output=True, text=True, timeout=120)
    t.ok(os.path.exists(png) and os.path.getsize(png) > 20000,
         "chromium renders the report (screenshot > 20 kB)", x.stderr[-2000:])
    fpng = path("flagged.png")
    x = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--screenshot={fpng}", "--window-size=1200,1800", "file://" + fhtml],
                       capture_output=True, text=True, timeout=120)
    t.ok(os.path.exists(fpng) and os.path.getsize(fpng) > 20000,
         "chromium renders the report with flagged points and notes", x.stderr[-2000:])
else:
    t.skip("chromium renders the report (screenshot > 20 kB)", "chromium is not installed")
    t.skip("chromium renders the report with flagged points and notes",
           "chromium is not installed")

shutil.rmtree(d)
t.done()
