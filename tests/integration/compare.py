"""compare.py - `ucbench compare`: a real run against itself is no change; a head made slower
(samples scaled) is a significant regression with exit 1, faster an improvement; a change
under the threshold or without separated samples is no change; a verify case that newly fails
is exit 1; host/config differences are warned about; bad input is a one-line exit 2."""
import copy
import json
import os
import tempfile

from taplib import Tap, run
from taplib import doc_scratch, scaled

t = Tap()
d, path, write = doc_scratch("ucb-cmp-")


src = os.path.join(os.environ.get("top_srcdir", "."), "examples", "run-small.json")
# A real document (the example) with 8 controlled samples per container: +-2 % of a rate, so
# that what the test asserts depends on the comparison, not on this machine's noise.
base = json.load(open(src))
for res in base["results"]:
    for c in res["per_container"]:
        c["samples"] = [{"t": 1.0 + k * 0.5, "dt": 0.5, "ops": 50000, "failed_ops": 0,
                         "ops_per_s": 100000.0 * (1 + 0.01 * ((k % 5) - 2))} for k in range(8)]
b = write("base.json", base)

r = run(["compare", b, b])
t.ok(r.returncode == 0 and "Mann-Whitney" in r.stdout and "regression" not in r.stdout.split(
    "\n# 0 regression")[0].split("verdict")[-1], "a document against itself: no change, exit 0",
     r.stdout + r.stderr)
r = run(["compare", b, write("slow.json", scaled(base, 0.8)), "--format", "json"])
out = json.loads(r.stdout) if r.stdout else {}
pts = out.get("points", [])
t.ok(r.returncode == 1 and pts and all(p["verdict"] == "regression" for p in pts)
     and all(abs(p["change_pct"] + 20) < 0.5 for p in pts),
     "head 20% slower: every point a significant regression, exit 1", r.stdout[:2000])
t.ok(out.get("test") == "mann-whitney-u" and out.get("alpha") == 0.05
     and out.get("min_samples") == 3, "the JSON names the test, alpha and the minimum samples")
r = run(["compare", b, write("fast.json", scaled(base, 1.25))])
t.ok(r.returncode == 0 and "improvement" in r.stdout, "head 25% faster: improvement, exit 0",
     r.stdout)
r = run(["compare", b, write("bit.json", scaled(base, 0.97)), "--format", "json"])
pts = json.loads(r.stdout)["points"] if r.stdout else []
t.ok(r.returncode == 0 and pts and all(p["verdict"] == "no change" for p in pts),
     "head 3% slower (under the 5% threshold): no change", r.stdout[:1500])
r = run(["compare", b, path("bit.json"), "--threshold", "1", "--format", "json"])
pts = json.loads(r.stdout)["points"] if r.stdout else []
t.ok(pts and all(p["verdict"] in ("regression", "no change") for p in pts),
     "--threshold 1: the 3% change may now count when the samples separate")

# The samples decide, not the means: one outlier moves the mean 20% but not the distribution.
outlier = copy.deepcopy(base)
for res in outlier["results"]:
    for c in res["per_container"]:
        s = c["samples"]
        s[0]["ops_per_s"] *= 1 + 0.2 * len(s) * (1 if len(s) > 2 else 0)
r = run(["compare", b, write("outlier.json", outlier), "--format", "json"])
pts = json.loads(r.stdout)["points"] if r.stdout else []
t.ok(pts and all(p["verdict"] == "no change" for p in pts),
     "one outlier sample shifts the mean but the distributions do not separate: no change",
     json.dumps(pts)[:1500])

# Verify: a case that newly fails is exit 1; host differences are a warning header.
vb = {"schema": "ucbench-result/1", "host": {"kernel": {"release": "6.1.0"}},
      "results": [], "verify": [{"id": "ULIM-01", "status": "pass"},
                                {"id": "ULIM-19", "status": "known-bug"}]}
vh = copy.deepcopy(vb)
vh["host"]["kernel"]["release"] = "6.18.44"
vh["verify"][0]["status"] = "fail"
r = run(["compare", write("vb.json", vb), write("vh.json", vh)])
t.ok(r.returncode == 1 and "ULIM-01: pass -> fail" in r.stdout and "NEWLY FAILING" in r.stdout,
     "a verify case pass -> fail: listed, exit 1", r.stdout)
t.ok("# warning: host.kernel.release differs" in r.stdout, "host differences: a warning header",
     r.stdout)

# Bad input: one line naming the file and the problem, exit 2.
with open(path("text.json"), "w") as f:
    f.write("this is not json")
with open(path("trunc.json"), "w") as f:
    f.write(json.dumps(base)[:100])
for name, doc, needle in (("text.json", None, "not valid JSON"),
                          ("trunc.json", None, "not valid JSON"),
                          ("other.json", {"hello": 1}, "not a ucbench result document"),
                          ("v2.json", {"schema": "ucbench-result/2", "results": []}, "upgrade"),
                          ("res.json", {"schema": "ucbench-result/1", "results": 3}, "results"),
                          ("missing.json", None, "No such file")):
    p = write(name, doc) if doc is not None else path(name)
    r = run(["compare", b, p])
    lines = r.stderr.splitlines()
    t.ok(r.returncode == 2 and lines and p in lines[0] and needle in lines[0] and r.stdout == "",
         f"bad input {name}: exit 2, one line naming the file ({needle})", r.stderr)
r = run(["compare", b])
t.ok(r.returncode == 2 and "two documents" in r.stderr, "one file only: exit 2")
r = run(["compare", b, b, "--threshold", "x"])
t.ok(r.returncode == 2 and "--threshold" in r.stderr, "bad --threshold: exit 2")

for f in os.listdir(d):
    os.unlink(path(f))
os.rmdir(d)
t.done()
