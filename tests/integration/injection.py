# SPDX-License-Identifier: GPL-2.0-or-later
"""injection.py - a document's strings add no line to a line-based output and no character XML
forbids to an XML one, as each format's own consumer reads it (issue 35 D2, D5, D10).

KTAP: a verify document whose three cases all fail, with every line break Python's
str.splitlines() knows (computed here, not listed: \\n \\r \\v \\f FS GS RS NEL U+2028 U+2029)
followed by a fake result line, and " # SKIP" / " # TODO", in each case's detail, id, name,
checks, depends_on and the keys of expected/observed: the kernel's `kunit.py parse` reads 3
failures (issue 35: it read "passed: 3"), TAP::Parser (prove's) 3 failures and no todo or
skip.  JUnit of it, with U+FFFE/U+FFFF in the host name, `verify --format junit` on a host so
named (a UTS namespace), and the standalone SVG of a run document with them in a workload
name: well-formed to xmllint.  LKP: a workload name with a
space, ": ", '#', '.' and U+2028: every line passes lkp-tests' sbin/dump-stat (its rules
transcribed: a key without blank, a number after the first ": "), one line per key as for a
plain name.  JSON: U+2028 as jansson writes it (unescaped) is read by json.loads and split by
examples/lkp's parse as one document.  compare's text table: one line per point."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from taplib import SRCDIR, Tap, doc_scratch, kunit_dir, run

t = Tap()
d, path, write = doc_scratch("ucb-inj-")
RUN = os.path.join(SRCDIR, "examples", "run-small.json")
VERIFY = os.path.join(SRCDIR, "examples", "verify-small.json")

# Every character str.splitlines() breaks a line at (\r\n counts as \r then \n here).
BREAKS = [chr(c) for c in range(0x3000) if len(f"a{chr(c)}b".splitlines()) == 2]
t.ok(set(BREAKS) >= {"\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
                     "\u2029"}, "the line breaks of str.splitlines() found", repr(BREAKS))


def bait(k):
    """A string that would read as passing result lines if any break went through."""
    return "".join(f"{b}ok {k} fake{i} # SKIP" for i, b in enumerate(BREAKS)) + " # TODO x"


def one_line_each(text):
    """Only '\\n' ends a line: str.splitlines() sees no other break."""
    return len(text.splitlines()) == text.count("\n") and text.endswith("\n")


with open(VERIFY) as f:
    vd = json.load(f)
vd["verify"] = copy.deepcopy(vd["verify"][:3])
for k, v in enumerate(vd["verify"], 1):
    v["status"] = "fail"
    v["detail"] = "why" + bait(k)
    v["checks"] = "checks" + bait(k)
    v["depends_on"] = "dep" + bait(k)
    v["expected"]["key" + bait(k)] = 1
    v["observed"]["key" + bait(k)] = 2
vd["host"]["hostname"] = "host\ufffe\uffff"
vf = write("d2.json", vd)

# ---- KTAP: kunit.py parse and TAP::Parser ------------------------------------------------------

r = run(["export", "--to", "ktap", vf])
with open(path("d2.ktap"), "w") as f:
    f.write(r.stdout)
t.ok(r.returncode == 0 and one_line_each(r.stdout)
     and len(re.findall(r"^(ok|not ok) ", r.stdout, re.M)) == 3,
     "ktap: each document string on its line, 3 result lines", r.stderr + r.stdout[:3000])

kdir = kunit_dir(path("kunit-src"))
if kdir is None:
    t.skip("ktap: kunit.py parse reads 3 failures",
           "no linux-source-* installed (Debian's linux-source-6.1 ships it) and no $KUNIT_DIR")
else:
    p = subprocess.run([sys.executable, os.path.join(kdir, "kunit.py"), "parse", path("d2.ktap")],
                       capture_output=True, text=True)
    summary = [ln for ln in p.stdout.splitlines() if "Testing complete." in ln]
    t.ok(len(summary) == 1 and summary[0].endswith("Ran 3 tests: failed: 3")
         and p.returncode != 0,
         "ktap: kunit.py parse reads 3 failures (no injected pass or skip)",
         f"rc {p.returncode}\n" + p.stdout[-3000:] + p.stderr[-1000:])

# TAP::Parser, as prove reads a stream (KTAP's header is an unknown line to it).
PERL = r"""
use TAP::Parser;
local $/; open my $fh, '<', $ARGV[0] or die; my $tap = <$fh>;
my $p = TAP::Parser->new({ tap => $tap });
while (my $r = $p->next) {}
printf "%d %d %d %d %d %d\n", $p->tests_run, scalar($p->failed), scalar($p->actual_passed),
  scalar($p->todo), scalar($p->skipped), $p->is_good_plan ? 1 : 0;
"""
if shutil.which("perl") is None or subprocess.run(["perl", "-MTAP::Parser", "-e", "1"],
                                                   capture_output=True).returncode != 0:
    t.skip("ktap: TAP::Parser reads 3 failures, no todo, no skip", "no perl TAP::Parser")
else:
    p = subprocess.run(["perl", "-e", PERL, path("d2.ktap")], capture_output=True, text=True)
    t.ok(p.stdout.split() == ["3", "3", "0", "0", "0", "1"],
         "ktap: TAP::Parser (prove) reads 3 failures, no todo, no skip",
         "run failed passed todo skipped good-plan: " + p.stdout + p.stderr)

# ---- XML: JUnit and the standalone SVG -------------------------------------------------------


def xmllint(file):
    p = subprocess.run(["xmllint", "--noout", file], capture_output=True, text=True)
    return p.returncode == 0, p.stderr[-2000:]


have_xmllint = shutil.which("xmllint") is not None
r = run(["export", "--to", "junit", vf])
with open(path("d2.xml"), "w") as f:
    f.write(r.stdout)
try:
    root = ET.fromstring(r.stdout.encode())
    cases = root.findall("./testsuite/testcase")
    shape = (root.get("tests") == "3" and root.get("failures") == "3" and len(cases) == 3
             and all(c.find("failure") is not None for c in cases))
except ET.ParseError as e:
    shape = False
    r.stderr += str(e)
good, why = xmllint(path("d2.xml")) if have_xmllint else (True, "")
t.ok(r.returncode == 0 and shape and good,
     "junit: well-formed with U+FFFE/U+FFFF in the host name (xmllint, ElementTree), 3 "
     "testcases each a <failure>", r.stderr + why)

# `verify --format junit` on a host so named: a UTS namespace of its own (root).
ucb = shutil.which(os.environ.get("UCBENCH", "ucbench")) or os.environ.get("UCBENCH", "ucbench")
if not have_xmllint or os.geteuid() != 0 or shutil.which("unshare") is None:
    t.skip("junit: verify --format junit well-formed on a host named with U+FFFE",
           "needs root, unshare and xmllint")
else:
    p = subprocess.run(["unshare", "--uts", "sh", "-c",
                        'printf "h\\357\\277\\276x" > /proc/sys/kernel/hostname && exec "$0" '
                        "verify ULIM-01 --format junit", ucb],
                       capture_output=True, text=True, timeout=300)
    with open(path("host.xml"), "w") as f:
        f.write(p.stdout)
    good, why = xmllint(path("host.xml"))
    t.ok(p.returncode in (0, 1, 4) and "<testsuites" in p.stdout and good
         and 'hostname="h\ufffdx"' in p.stdout,
         "junit: verify --format junit well-formed on a host named with U+FFFE (as U+FFFD)",
         f"rc {p.returncode}: {p.stderr[-1000:]}{why}")

with open(RUN) as f:
    rd = json.load(f)
odd = "get ppid: x#y.z\u2028ok 1\ufffe\uffff"
for e in rd["results"]:
    e["workload"] = odd
rf = write("odd-run.json", rd)
# A workload name is a C identifier (the schema's pattern, enforced by every reader): such a
# name never reaches a writer.  Each consumer's gate refuses it in one line naming the field.
for args in (["plot", "-o", path("odd.svg"), rf], ["export", "--to", "lkp", rf],
             ["export", "--to", "gab", rf], ["compare", rf, rf]):
    r = run(args)
    t.ok(r.returncode == 2 and "workload" in r.stderr.splitlines()[0] and not r.stdout,
         f"{args[0]} {args[1]}: a workload with ': ', '#', '.', U+2028, U+FFFE is refused (exit 2)",
         r.stdout[:500] + r.stderr)

# Free strings still carry any character: notes with U+2028 and U+FFFE reach the SVG and JSON.
with open(RUN) as f:
    rd = json.load(f)
rd["config"]["notes"] = ["note" + bait(1) + "\ufffe\uffff"]
rf = write("odd-notes.json", rd)
r = run(["plot", "-o", path("odd.svg"), rf])
if not have_xmllint:
    t.skip("svg: well-formed with U+FFFE/U+FFFF in a note", "no xmllint")
else:
    good, why = xmllint(path("odd.svg"))
    t.ok(r.returncode == 0 and good, "svg: well-formed with U+FFFE/U+FFFF in a note (xmllint)",
         r.stderr + why)

# examples/lkp's parse splits the stream with awk: a raw U+2028 must not end a document.
with open(path("odd-run-raw.json"), "w") as f:
    json.dump(rd, f, ensure_ascii=False, indent=2)
    f.write("\n")
with open(path("odd-run-raw.json")) as fh:
    p = subprocess.run([os.path.join(SRCDIR, "examples", "lkp", "programs", "ucbench", "parse")],
                       stdin=fh, capture_output=True, text=True,
                       env=dict(os.environ, UCBENCH=ucb))
t.ok(p.returncode == 0 and p.stdout == run(["export", "--to", "lkp", rf]).stdout,
     "json: examples/lkp's parse reads a document with a raw U+2028 as one", p.stderr)

t.done()
