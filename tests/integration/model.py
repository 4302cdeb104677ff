# SPDX-License-Identifier: GPL-2.0-or-later
"""model.py - `ucbench model`: the seed's published signal1 tables (tests/golden/usl-signal1-*)
give lambda, sigma and kappa with intervals and a prediction at N=384 (text and JSON), the
rlimit-cache table sigma and kappa indistinguishable from 0, and `compare` of the two says the
loss fell, not which cost; with 5 repeats the lack-of-fit test refuses to extrapolate a shape the
law cannot take and passes the law's own; a 2-CPU document, and this machine's own sweep 1,C,2C, are refused with the reason
(exit 1); the chart; bad input is one line and exit 2; valgrind-clean.  The same tables as the
user's own numbers (tests/golden/usl-signal1-*.csv, a CSV and a blank-separated table, and as
will-it-scale's runtest.py prints them) give the same fit as the documents; a malformed line is
one line naming the file and the line, exit 2."""
import copy
import json
import math
import os
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from taplib import SRCDIR, Tap, UCBENCH, run, userns_works, uid_block
from taplib import doc_scratch

t = Tap()
d, path, write = doc_scratch("ucb-model-")
STOCK = os.path.join(SRCDIR, "tests", "golden", "usl-signal1-stock.json")
PATCHED = os.path.join(SRCDIR, "tests", "golden", "usl-signal1-rlimit-cache.json")
NUM = r"-?[0-9.e+-]+"
IV = rf"({NUM}) \[({NUM}), ({NUM}|unbounded)\]"


def load(text, what):
    try:
        return json.loads(text)
    except ValueError as e:
        t.diag(f"{what}: {e}")
        return {}


# ---- the seed's stock table: text ----
r = run(["model", STOCK, "--predict", "384"])
out = r.stdout
t.ok(r.returncode == 0 and r.stderr == "", "model of the stock table: exit 0, nothing on stderr",
     f"rc={r.returncode} {r.stderr}")
got = {k: re.search(rf"^  {k} +{IV}", out, re.M) for k in ("lambda", "sigma", "kappa")}
t.ok(all(got.values()), "prints lambda, sigma and kappa, each with a [low, high] interval", out)
if all(got.values()):
    lam = [float(x) for x in got["lambda"].groups()]
    t.ok(lam[1] < 380068 < lam[2] and lam[1] <= lam[0] <= lam[2],
         "lambda's interval holds the 1-container value (380068)", lam)
pred = re.search(rf"^  predicted at N=384: {IV} ops/s per container; scale {IV}  \(extrapolated\)",
                 out, re.M)
t.ok(pred is not None, "a prediction at N=384 with its interval, marked extrapolated", out)
if pred:
    x, lo, hi = (float(v) for v in pred.groups()[:3])
    t.ok(0 < lo < x < hi < 129152, "predicted at 384: below the 64-container value, interval "
         "around it", pred.group(0))
t.ok(re.search(r"^# warning: N=384 lies beyond the largest N fitted \(64\): the prediction "
               r"extrapolates", out, re.M), "the warning that N=384 extrapolates", out)
t.ok(re.search(r"^  lack of fit: not testable: one repeat per N", out, re.M)
     and re.search(r"^  loss with N: real \(p = 0\.0057\), its kind not identified: the "
                   r"intervals of sigma and kappa both reach 0", out, re.M),
     "the stock table: lack of fit not testable; the loss real, its kind not identified", out)
r = run(["model", STOCK, "--predict", "128,384"])
t.ok(len(re.findall(r"^# warning: N=(128|384) lies beyond the largest N fitted \(64\)",
                    r.stdout, re.M)) == 2, "--predict 128,384: a warning for each", r.stdout)
t.ok(re.search(r"^# warning: .* every measured repeat is used, as if each task had a CPU",
               out, re.M), "the warning that nothing says whether each task had a CPU", out)
t.ok(re.search(r"^  residual [0-9.]+% \(SD of log ops/s", out, re.M)
     and re.search(r"^ +16 +306453 +[0-9]+ +[0-9.-]+% +1$", out, re.M),
     "the residual, and each measured N against the fitted value", out)
t.ok("nan" not in out.lower(), "never nan", out)

# ---- the same as JSON, and -o ----
r = run(["model", STOCK, "--predict", "384,128", "-f", "json"])
doc = load(r.stdout, "model -f json")
s = (doc.get("series") or [{}])[0]
t.ok(r.returncode == 0 and doc.get("schema") == "ucbench-model/1" and s.get("status") == "fitted"
     and doc.get("fitted") == 1 and doc.get("refused") == 0,
     "JSON: ucbench-model/1, one series, fitted", r.stdout[:500])
ok = all(isinstance(s.get(k), dict) and s[k]["ci_low"] <= s[k]["estimate"] <= s[k]["ci_high"]
         for k in ("lambda", "sigma", "kappa"))
t.ok(ok, "JSON: lambda, sigma, kappa as {estimate, ci_low, ci_high}, the estimate inside",
     {k: s.get(k) for k in ("lambda", "sigma", "kappa")})
preds = s.get("predictions", [])
t.ok([p.get("containers") for p in preds] == [384, 128]
     and all(p["extrapolated"] and p["ops_per_s"]["ci_low"] < p["ops_per_s"]["estimate"]
             < p["ops_per_s"]["ci_high"] and 0 < p["scale"]["estimate"] < 1 for p in preds),
     "JSON: a prediction per --predict N, with intervals, extrapolated", preds)
levels = s.get("levels", [])
t.ok([lv["containers"] for lv in levels] == [1, 4, 8, 16, 32, 64]
     and all(abs(lv["residual_pct"]) < 3 * 100 * s["residual_sd_log"] for lv in levels)
     and s.get("df") == 3 and s.get("observations") == 6 and s.get("assumed_own_cpu") is True,
     "JSON: every level within 3 residual SDs of the fit; df 3", levels)
if got["sigma"]:
    t.ok(abs(float(got["sigma"].group(1)) - s["sigma"]["estimate"]) <= 1e-3 * s["sigma"]
         ["estimate"], "the table and the JSON give the same sigma")
outfile = path("model.txt")
r = run(["model", STOCK, "--predict", "384", "-o", outfile])
t.ok(r.returncode == 0 and r.stdout == "" and open(outfile).read() == out,
     "-o FILE writes the table there, the same as stdout", r.stderr)

# ---- the rlimit-cache table: no loss it can tell from noise ----
r = run(["model", PATCHED, "-f", "json"])
p = (load(r.stdout, "patched").get("series") or [{}])[0]
t.ok(r.returncode == 0 and p.get("sigma", {}).get("ci_low") == 0
     and p.get("kappa", {}).get("ci_low") == 0 and p.get("p_flat", 0) > 0.05,
     "rlimit cache: sigma and kappa intervals hold 0; no loss is not rejected",
     {k: p.get(k) for k in ("sigma", "kappa", "p_flat")})

# ---- compare: kappa fell ----
r = run(["compare", STOCK, PATCHED, "-f", "json"])
c = load(r.stdout, "compare -f json")
sc = (c.get("scalability") or [{}])[0]
t.ok(r.returncode == 0 and sc.get("kappa", {}).get("direction") == "fell"
     and sc.get("kappa", {}).get("change", 0) < 0 and sc["base"]["status"] == "fitted",
     "compare stock rlimit-cache: kappa fell", sc)
t.ok(sc.get("scale", {}).get("containers") == 64 and sc["scale"]["direction"] == "rose"
     and sc["scale"]["established"] is True,
     "compare: the scale at N=64 rose, the intervals apart", sc.get("scale"))
r = run(["compare", STOCK, PATCHED])
t.ok(re.search(r"^#   kappa \(coherency\) .* -> .*: no change established \(the intervals "
               r"overlap\)$", r.stdout, re.M)
     and re.search(r"^#   sigma \(contention\) .* -> .*: no change established", r.stdout, re.M)
     and re.search(r"^#   established: the loss with N fell \(the scale at N=64 rose\); not "
                   r"which cost", r.stdout, re.M) and ": fell" not in r.stdout,
     "compare's text: neither sigma nor kappa is said to fall; the loss fell, not which cost",
     r.stdout[-1500:])

# ---- 5 repeats at 1 %: the stock shape (fitted to N=32) misfits, a USL curve does not ----
rng = random.Random(34)
stock_doc = json.load(open(STOCK))


def repeats(values, noise, max_n):
    """The stock document with 5 repeats of each N up to max_n: values[N] x lognormal noise."""
    out = copy.deepcopy(stock_doc)
    out["results"] = []
    for r0 in stock_doc["results"]:
        for k in range(1, 6) if r0["containers"] <= max_n else ():
            x = copy.deepcopy(r0)
            x["repeat"] = k
            x["summary"]["per_container_ops"] = (values[r0["containers"]]
                                                 * math.exp(noise * rng.gauss(0, 1)))
            out["results"].append(x)
    return out


table = {x["containers"]: x["summary"]["per_container_ops"] for x in stock_doc["results"]}
misfit = write("misfit.json", repeats(table, 0.01, 32))
r = run(["model", misfit, "--predict", "24,64"])
t.ok(r.returncode == 0
     and re.search(r"^  lack of fit: F\(2, 20\) = [0-9.e+]+, p = [0-9.e-]+: the law's shape misses",
                   r.stdout, re.M)
     and re.search(r"^  predicted at N=24: [0-9]+ \[", r.stdout, re.M)
     and re.search(r"^  predicted at N=64: refused: the law's shape does not fit", r.stdout,
                   re.M), "the stock shape with 5 repeats: lack of fit, N=64 refused, N=24 "
     "predicted", r.stdout)
j = (load(run(["model", misfit, "--predict", "64", "-f", "json"]).stdout, "misfit")
     .get("series") or [{}])[0]
lof = j.get("lack_of_fit") or {}
pr = (j.get("predictions") or [{}])[0]
t.ok(lof.get("rejected") is True and lof.get("p", 1) < 1e-6 and lof.get("df_lack") == 2
     and lof.get("df_pure") == 20 and pr.get("ops_per_s") is None and pr.get("reason"),
     "JSON: lack_of_fit rejected, F(2, 20); the prediction null with its reason", j)
law = {n: 380000 / (1 + 0.02 * (n - 1) + 3e-4 * n * (n - 1)) for n in table}
r = run(["model", write("law.json", repeats(law, 0.02, 64)), "--predict", "128", "-f", "json"])
j = (load(r.stdout, "law").get("series") or [{}])[0]
t.ok((j.get("lack_of_fit") or {}).get("rejected") is False and j.get("loss")
     == "contention and coherency" and j["predictions"][0]["ops_per_s"] is not None,
     "a USL curve with 5 repeats: the shape fits, both costs established, N=128 predicted",
     {k: j.get(k) for k in ("lack_of_fit", "loss", "predictions")})

# ---- a 2-CPU document: N = 1, 2 own a CPU, N = 4 does not ----
ex = json.load(open(os.path.join(SRCDIR, "examples", "run-small.json")))
four = copy.deepcopy(ex["results"][1])
four["containers"] = 4
two = copy.deepcopy(ex)
two["results"].append(four)
two_path = write("two-cpus.json", two)
r = run(["model", two_path, "--predict", "384"])
want = ("refused: needs at least 3 distinct container counts where each task had a CPU of its "
        "own; this document has N=1,2 (2 CPUs); left out: N=4 (4 tasks on 2 CPUs)")
t.ok(r.returncode == 1 and want in r.stdout and "predicted" not in r.stdout,
     "a 2-CPU sweep 1,2,4: exit 1, refused with the reason", f"rc={r.returncode} {r.stdout}")
r = run(["model", two_path, "-f", "json"])
j = (load(r.stdout, "two -f json").get("series") or [{}])[0]
t.ok(r.returncode == 1 and j.get("status") == "refused" and want[9:] == j.get("reason")
     and j.get("sigma") is None and j.get("left_out", [{}])[0].get("containers") == 4,
     "JSON: status refused, the reason, no estimates, N=4 left out", j)

# ---- this machine's own sweep 1, C, 2C ----
cpus = len(os.sched_getaffinity(0))
if userns_works() and os.geteuid() == 0:
    sweep = ",".join(str(n) for n in sorted({1, cpus, 2 * cpus}))
    doc_path = path("own.json")
    r = run(["run", "-w", "signal", "-c", sweep, "--owner", "shared", "-d", "0.4", "--warmup",
             "0.1", "--interval", "0.2", "-q", "--uid-base", str(uid_block(2103500000, 10)),
             "-o", doc_path])
    t.ok(r.returncode == 0, f"run -c {sweep} on this {cpus}-CPU machine", r.stderr)
    r = run(["model", doc_path])
    t.ok(r.returncode == 1 and "refused: needs at least 3 distinct container counts where each "
         f"task had a CPU of its own" in r.stdout and f"({cpus} CPUs)" in r.stdout
         and f"N={2 * cpus} ({2 * cpus} tasks on {cpus} CPUs)" in r.stdout,
         f"this machine's sweep {sweep}: refused, naming the CPUs and N={2 * cpus}", r.stdout)
else:
    t.skip("this machine's own sweep is refused", "needs root and user namespaces to run it")

# ---- the chart ----
svg = path("model.svg")
r = run(["model", STOCK, "--predict", "384", "--plot", svg])
try:
    root = ET.parse(svg).getroot()
except (ET.ParseError, OSError) as e:
    root = None
    t.diag(e)
NS = "{http://www.w3.org/2000/svg}"
t.ok(r.returncode == 0 and root is not None and root.tag == NS + "svg",
     "--plot writes a well-formed SVG", r.stderr)
if root is not None:
    t.ok(len(root.findall(f".//{NS}circle[@class='used']")) == 6
         and root.find(f".//{NS}path[@class='band']") is not None
         and root.find(f".//{NS}polyline[@class='fit']") is not None
         and root.find(f".//{NS}g[@class='prediction']") is not None,
         "the chart: the 6 points, the fitted curve, its band, the prediction at 384")
    texts = " ".join(x.text or "" for x in root.iter(NS + "text"))
    t.ok("N=384" in texts and "containers (N, log scale)" in texts and "nan" not in texts,
         "the chart labels the prediction and the log N axis", texts[:300])
r = run(["model", two_path, "--plot", svg])
t.ok(r.returncode == 1 and "4 tasks on 2 CPUs" in open(svg).read(),
     "a refused series is drawn with its reason in the notes", r.stderr)

# ---- the user's own numbers: a table, will-it-scale's output ----
STOCK_CSV = os.path.join(SRCDIR, "tests", "golden", "usl-signal1-stock.csv")
PATCHED_TXT = os.path.join(SRCDIR, "tests", "golden", "usl-signal1-rlimit-cache.csv")
FIT_KEYS = ("lambda", "sigma", "kappa", "residual_pct", "p_flat", "df", "observations", "loss",
            "levels", "predictions")


def fit_of(args):
    r = run(["model"] + args + ["--predict", "384", "-f", "json"])
    return r, (load(r.stdout, " ".join(args)).get("series") or [{}])[0]


def n_star(x):
    """Gunther's N* = sqrt((1 - sigma) / kappa), the N of the most total throughput."""
    sg, kp = x["sigma"]["estimate"], x["kappa"]["estimate"]
    return math.sqrt((1 - sg) / kp) if kp > 0 else math.inf


for doc_path, table_path, what in ((STOCK, STOCK_CSV, "stock: CSV with a header"),
                                   (PATCHED, PATCHED_TXT, "rlimit cache: blank-separated")):
    rj, fj = fit_of([doc_path])
    rt, ft = fit_of([table_path])
    same = all(fj.get(k) == ft.get(k) for k in FIT_KEYS) and fj.get("status") == "fitted"
    t.ok(rt.returncode == 0 and rt.stderr == "" and same and n_star(fj) == n_star(ft)
         and ft.get("workload") == "table",
         f"the table {os.path.basename(table_path)} ({what}) gives the document's fit: lambda, "
         f"sigma, kappa, N* = {n_star(ft):.0f}, the levels, the prediction at 384",
         {k: (fj.get(k), ft.get(k)) for k in FIT_KEYS if fj.get(k) != ft.get(k)} or rt.stderr)
r = run(["model", STOCK_CSV, "--predict", "384"])
t.ok(r.returncode == 0 and re.search(r"^table: fitted over 6 container counts \(6 observations\)$",
                                     r.stdout, re.M)
     and re.search(r"^  predicted at N=384: ", r.stdout, re.M),
     "the table's text: one series named `table`, the prediction", r.stdout)

# runtest.py's output: the header, its `0,0,100,...` row, then total ops/s of N processes.
table = [(x["containers"], x["summary"]["per_container_ops"]) for x in stock_doc["results"]]
WIS_HEAD = "tasks,processes,processes_idle,threads,threads_idle,linear\n0,0,100,0,100,0\n"
wis = WIS_HEAD + "".join(f"{n},{round(n * x)},{100 - n:.2f},{round(n * x * 0.9)},"
                         f"{100 - n:.2f},{n * 380068}\n" for n, x in table)
wis_path = path("signal1.wis")
with open(wis_path, "w") as f:
    f.write(wis)
rw, fw = fit_of([wis_path])
rj, fj = fit_of([STOCK])
t.ok(rw.returncode == 0 and fw.get("workload") == "will-it-scale"
     and all(abs(fw[k]["estimate"] - fj[k]["estimate"]) <= 1e-9 * max(1, fj[k]["estimate"])
             for k in ("lambda", "sigma", "kappa"))
     and [lv["containers"] for lv in fw.get("levels", [])] == [n for n, _ in table],
     "will-it-scale's runtest.py output: processes / tasks per container, the stock fit",
     fw or rw.stderr)
with open(wis_path, "w") as f:
    f.write(wis + wis)  # two runs, concatenated: each N twice
rw, fw = fit_of([wis_path])
t.ok(rw.returncode == 0 and fw.get("observations") == 12
     and all(lv["repeats"] == 2 for lv in fw.get("levels", [])),
     "two runtest.py outputs concatenated: two repeats of each N", fw or rw.stderr)

# Repeats, comments, CRLF, blanks and commas; told apart by content, not by the name.
own = path("own.json")  # a table, whatever its name says
with open(own, "w") as f:
    f.write("# my sweep\r\nN, ops/s, repeat\r\n")
    for n, x in table:
        for k in (1, 2, 3):
            f.write(f"{n}, {x * (1 + 0.01 * (k - 2)):.1f}, {k}   # run {k}\r\n")
r, fo = fit_of([own])
t.ok(r.returncode == 0 and fo.get("observations") == 18
     and (fo.get("lack_of_fit") or {}).get("df_pure") == 12,
     "a table with a repeat column, comments and CRLF, named .json: 3 repeats of 6 N, the "
     "lack-of-fit test on them", fo or r.stderr)
doc_as_csv = path("doc.csv")
shutil.copy(STOCK, doc_as_csv)
r, fd = fit_of([doc_as_csv])
t.ok(r.returncode == 0 and fd.get("workload") == "signal",
     "a document named .csv is read as the document it is", r.stderr)

# A malformed line: one line naming the file and the line, exit 2.
BAD_TABLES = [
    ("1,380068\n4,35x\n", "line 2: ops/s per container `35x` is not a number above 0"),
    ("1 380068\n4 0\n", "line 2: ops/s per container `0` is not a number above 0"),
    ("N,ops\n1,380068\n0,1\n", "line 3: N `0` is not a whole number"),
    ("1,380068\n4,,1\n", "line 2: an empty field between commas"),
    ("1,380068\n4,353204,1\n", "line 2: 3 columns where the table has 2"),
    ("1 2 3 4\n", "line 1: 4 columns; a table has N, ops/s per container"),
    ("1,3,1\n# again\n1,4,1\n", "line 3: N=1 repeat 1 again (first on line 1)"),
    ("1,380068\nN,ops\n", "line 2: `N,ops` is not a number (a header only opens the table)"),
    ("a,b,c,d\n", "line 1: a header of 4 columns"),
    (WIS_HEAD + "1,-1,0,5,0,5\n", "line 3: processes is -1"),
    (WIS_HEAD + "1,5,0,5,0\n", "line 3: 5 columns where will-it-scale's rows have 6"),
    ("1,2\n3\x004\n", "line 2: a NUL byte"),
    ("# nothing\n\n", "no rows of numbers: nothing to model"),
]
for i, (text, needle) in enumerate(BAD_TABLES):
    bad_path = path(f"bad{i}.csv")
    with open(bad_path, "w") as f:
        f.write(text)
    r = run(["model", bad_path])
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and r.stdout == "" and lines
         and lines[0].startswith(f"ucbench: `{bad_path}`: {needle}"),
         f"a bad table ({needle[:40]}): one line naming the file and line, exit 2",
         f"rc={r.returncode} {r.stderr!r}")

# ---- bad input: one line, exit 2 ----
notjson = path("bad.json")
with open(notjson, "w") as f:
    f.write("{nope")
BAD = [
    (["model"], "exactly one document"),
    (["model", STOCK, PATCHED], "exactly one document"),
    (["model", path("missing.json")], "missing.json"),
    (["model", notjson], "not valid JSON"),
    (["model", os.path.join(SRCDIR, "examples", "verify-small.json")], "verify"),
    (["model", STOCK, "--predict", "0"], "--predict"),
    (["model", STOCK, "--predict", "x"], "--predict"),
    (["model", STOCK, "--format", "xml"], "xml"),
    (["model", STOCK, "--plot", path("c.png")], ".svg"),
    (["model", STOCK, "-o", "/nonexistent-dir/x.txt"], "/nonexistent-dir"),
    (["model", STOCK, "--frobnicate"], "--frobnicate"),
]
for args, needle in BAD:
    r = run(args)
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and lines and needle in lines[0] and r.stdout == "",
         f"`ucbench {' '.join(os.path.basename(a) for a in args)}`: exit 2, one line with "
         f"`{needle}`", f"rc={r.returncode} {r.stderr!r}")
r = run(["help", "model"])
t.ok(r.returncode == 0 and "--predict" in r.stdout and "Exit status" in r.stdout,
     "`ucbench help model` shows the options", r.stderr)

# ---- valgrind ----
if shutil.which("valgrind") and not os.environ.get("UCB_SANITIZED"):
    vg = subprocess.run(["valgrind", "-q", "--leak-check=full", "--error-exitcode=99",
                         "--errors-for-leak-kinds=definite,indirect", UCBENCH, "model", STOCK,
                         "--predict", "384", "-f", "json", "--plot", svg], capture_output=True,
                        text=True, timeout=600)
    t.ok(vg.returncode == 0, "valgrind: model with a prediction and a chart is clean",
         vg.stderr[-3000:])
    vg = subprocess.run(["valgrind", "-q", "--leak-check=full", "--error-exitcode=99",
                         "--errors-for-leak-kinds=definite,indirect", UCBENCH, "model", two_path],
                        capture_output=True, text=True, timeout=600)
    t.ok(vg.returncode == 1, "valgrind: a refusal is clean", vg.stderr[-3000:])
    vg = subprocess.run(["valgrind", "-q", "--leak-check=full", "--error-exitcode=99",
                         "--errors-for-leak-kinds=definite,indirect", UCBENCH, "model", wis_path,
                         "--predict", "384", "--plot", svg], capture_output=True, text=True,
                        timeout=600)
    vb = subprocess.run(["valgrind", "-q", "--leak-check=full", "--error-exitcode=99",
                         "--errors-for-leak-kinds=definite,indirect", UCBENCH, "model",
                         path("bad6.csv")], capture_output=True, text=True, timeout=600)
    t.ok(vg.returncode == 0 and vb.returncode == 2,
         "valgrind: a will-it-scale table, and a malformed one, are clean",
         vg.stderr[-3000:] + vb.stderr[-3000:])
    vg = subprocess.run(["valgrind", "-q", "--leak-check=full", "--error-exitcode=99",
                         "--errors-for-leak-kinds=definite,indirect", UCBENCH, "model", misfit,
                         "--predict", "24,64", "--plot", svg], capture_output=True, text=True,
                        timeout=600)
    t.ok(vg.returncode == 0 and "N=24" in open(svg).read() and "N=64" not in open(svg).read(),
         "valgrind: a prediction refused for lack of fit is clean, and not drawn",
         vg.stderr[-3000:])
else:
    t.skip("valgrind: model is clean", "valgrind is not installed (or a sanitizer build)")
t.done()
