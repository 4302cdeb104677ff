# SPDX-License-Identifier: GPL-2.0-or-later
"""completion.py - data/bash-completion/ucbench: sourced in bash after bash-completion, its
_ucbench driven through COMP_WORDS/COMP_CWORD as bash would for a line; commands, options,
keyword values, workloads (`ucbench list`), verify's cases and rlimits (`verify --list`), file
names; every option of every command's --help is offered, none that --help lacks (the script
asks `ucbench help --options`, whose `=` marks the options that --help shows with a value).  Without
bash-completion (bash --norc), sourcing it and a <TAB> print nothing."""
import os
import re
import subprocess

from taplib import SRCDIR, Tap, UCBENCH, run, scratch_dir

BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
SCRIPT = os.path.join(SRCDIR, "data", "bash-completion", "ucbench")
COMMANDS = ["run", "verify", "compare", "export", "plot", "model", "list", "info", "help"]

t = Tap()
# Without bash-completion (a bash started with --norc): sourcing it, and a <TAB>, say nothing.
r = subprocess.run(["bash", "--norc", "-c", 'source "$1"; COMP_WORDS=(ucbench r); COMP_CWORD=1; '
                    'COMP_LINE="ucbench r"; COMP_POINT=9; _ucbench ucbench r ucbench', "bash",
                    SCRIPT], capture_output=True, text=True, timeout=60)
t.ok(r.returncode == 0 and r.stdout == "" and r.stderr == "",
     "without bash-completion: sourcing it and a <TAB> print nothing", r.stderr)
if not os.path.exists(BASH_COMPLETION):
    t.skip("the completion itself", "bash-completion is not installed (apt-get install "
           "bash-completion)")
    t.done()
cwd = scratch_dir("ucb-completion-")
for name in ("base.json", "head.json", "notes.txt"):
    open(os.path.join(cwd, name), "w").close()

DRIVER = r'''
source "$1"; source "$2"; shift 2
COMP_LINE=$1; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_POINT=${#COMP_LINE}; COMPREPLY=()
_ucbench "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
'''


def complete(line):
    """What <TAB> at the end of `ucbench LINE` offers.  Words split as bash's COMP_WORDBREAKS
    does for ucbench's lines: at blanks, and `=` is a word of its own."""
    full = UCBENCH + " " + line
    words = [w for w in re.split(r"(\s+|=)", full) if w.strip()]
    if line == "" or line[-1].isspace():
        words.append("")
    r = subprocess.run(["bash", "-c", DRIVER, "driver", BASH_COMPLETION, SCRIPT, full] + words,
                       capture_output=True, text=True, cwd=cwd, timeout=60)
    return [w for w in r.stdout.splitlines() if w], r.stderr


def check(line, want, exact=True):
    got, err = complete(line)
    ok = (sorted(got) == sorted(want)) if exact else set(want) <= set(got)
    t.ok(ok and not err, f"`ucbench {line}<TAB>` offers {' '.join(want)}",
         f"got: {' '.join(got)}\nstderr: {err}")


check("", COMMANDS)
check("v", ["verify"])
check("-", ["-h", "--help", "-V", "--version"])
check("help ", COMMANDS)
check("run --pin", ["--pin"])
check("run --pi", ["--pin", "--pids-max"])
check("run --pin ", ["auto", "spread", "compact", "l3", "none"])
check("run --seccomp d", ["docker"])
check("run --caps ", ["keep", "drop", "none"])
check("run --owner ", ["shared", "distinct", "root", "self"])
check("run --isolate user,p", ["user,pid"])
check("run --headroom ", ["near", "far"])
check("run --format=", ["text", "json", "csv"])
check("run -f j", ["json"])
check("run --limit N", ["NPROC="])
check("run --threads ", [])  # a flag: the next word is no value of it
check("export --to g", ["gab", "gab-smaller", "gbench"])
check("export -t k", ["ktap", "kcidb"])
check("export --to l", ["lkp", "lava"])
check("help --options r", ["run"])
check("compare --verbose ", ["base.json", "head.json"])  # a flag: the next word is a document
check("compare --threshold ", [])  # takes a value: no document offered
check("verify --format ", ["tap", "json", "junit"])
check("compare --normalize ", ["canary", "none"])
check("list -f ", ["text", "json", "csv"])
check("info --format ", ["text", "json"])
check("compare ", ["base.json", "head.json"])
check("compare --base b", ["base.json"])
check("model ", ["base.json", "head.json"])
check("model -f ", ["text", "json"])

# Workloads: exactly what this ucbench lists.
r = run(["list", "-f", "csv"])
workloads = [ln.split(",", 1)[0] for ln in r.stdout.splitlines()[1:] if ln]
t.ok(r.returncode == 0 and "signal" in workloads, "`ucbench list -f csv` names the workloads",
     r.stderr)
check("run -w ", workloads)
check("run --workload fork,", [f"fork,{w}" for w in workloads])

# Verify: every case id and name, the rlimits, `limits`.
r = run(["verify", "--list"])
rows = [ln.split() for ln in r.stdout.splitlines() if re.match(r"ULIM-\d+ ", ln)]
t.ok(r.returncode == 0 and len(rows) >= 20, f"`ucbench verify --list` lists {len(rows)} cases",
     r.stderr)
got, err = complete("verify ")
ids = {row[0] for row in rows}
names = {row[1] for row in rows}
rlimits = {row[2].lower() for row in rows} - {"none"}
t.ok(ids | names | rlimits | {"limits"} == set(got) and len(got) == len(set(got)),
     f"`ucbench verify <TAB>` offers the {len(ids)} ids, their names, {' '.join(sorted(rlimits))}"
     " and limits, once each", f"missing: {sorted(ids | names | rlimits - set(got))[:10]}\n"
     f"extra: {sorted(set(got) - ids - names - rlimits - {'limits'})[:10]}\n{err}")
check("verify ULIM-0", sorted(i for i in ids if i.startswith("ULIM-0")))
check("verify --repeat 2 me", sorted({"memlock"} | {n for n in names if n.startswith("me")}))

# Options: what --help documents, both ways.  An option line is indented by at most 4 blanks
# and starts with `-`; its options stand before the description (2 blanks, or the first word
# without a dash after the value).
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w])")


def help_options(args):
    found = set()
    for line in run(args).stdout.splitlines():
        if re.match(r" {1,4}-", line):
            found |= set(OPT.findall(re.split(r"\s{2,}", line.strip())[0]))
    return found


main_opts = help_options(["--help"])
got, err = complete("-")
t.ok(main_opts == set(got), "`ucbench -<TAB>` offers exactly the options of `ucbench --help`",
     f"--help: {sorted(main_opts)}\noffered: {sorted(got)}\n{err}")
# `help --options CMD`, which the script reads: `=` after exactly the options that --help shows
# with a value after a blank (`--cgroup[=PARENT]` takes none from the next word).
VALUED = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z]) [A-Za-z0-9]")


def help_valued(args):
    found = set()
    for line in run(args).stdout.splitlines():
        if re.match(r" {1,4}-", line):
            head = re.split(r"\s{2,}", line.strip())[0]
            found |= set(VALUED.findall(head))
            if re.match(r"-[a-zA-Z], --[a-z0-9-]+ [A-Za-z0-9]", head):  # -f, --format FORMAT
                found.add(head[:2])
    return found


for cmd in COMMANDS:
    r = run(["help", "--options", cmd])
    listed = r.stdout.split()
    valued = {o[:-1] for o in listed if o.endswith("=")}
    want = help_valued(["help", cmd])
    t.ok(r.returncode == 0 and listed and valued == want,
         f"`ucbench help --options {cmd}`: `=` after exactly the options --help shows with a value",
         f"marked: {sorted(valued)}\n--help: {sorted(want)}\n{r.stderr}")
for cmd in COMMANDS:
    documented = help_options(["help", cmd]) | {"-h", "--help"}
    got, err = complete(cmd + " -")
    missing, extra = documented - set(got), set(got) - documented
    t.ok(not missing and not extra and not err,
         f"`ucbench {cmd} -<TAB>` offers every option of `ucbench help {cmd}` and no other",
         f"not offered: {sorted(missing)}\nnot in --help: {sorted(extra)}\n{err}")

t.done()
