# SPDX-License-Identifier: GPL-2.0-or-later
"""cli.py - bad input: one-line error naming the value (escaped), exit status 2; an item given
twice, in one list or in two of the same option, refused, and distinct items of repeated
--limit, --isolate and --caps added up; no message repeating its context, over every option of
run and verify; help (each 80 columns wide at most) and version; a kernel refusal explained with what to change (exit status
1).  "Exits at once" (no sweep) is timed: over its bound on a host measured busy
(taplib.HostLoad) it skips."""
import json
import os
import re
import subprocess
import time

from taplib import HostLoad, Tap, UCBENCH, all_userns_inodes, run, uid_of, userns_works, wait_for
from taplib import scratch_dir, uid_block

t = Tap()

BAD = [
    (["run", "--containers", "0"], "0"),
    (["run", "--containers", "100000"], "100000"),
    (["run", "--containers", "1,,2"], "1,,2"),
    (["run", "--containers", "x"], "x"),
    (["run", "--depth", "33"], "33"),
    (["run", "--workload", "nosuch"], "nosuch"),
    (["run", "--owner", "everybody"], "everybody"),
    (["run", "--duration", "-1"], "-1"),
    (["run", "--interval", "10", "--duration", "1"], "--interval"),
    (["run", "--repeat", "0"], "0"),
    (["run", "--pin", "9999"], "9999"),
    (["run", "--format", "xml"], "xml"),
    (["run", "--frobnicate"], "--frobnicate"),
    (["run", "extra"], "extra"),
    (["run", "--output", "/nonexistent-dir/x.json"], "/nonexistent-dir"),
    # Found before anything is measured (issue 16 item 2): a directory, a file in a place
    # that takes no new file (the writer's temporary goes next to it).
    (["run", "--output", "/tmp"], "is a directory"),
    (["run", "--output", "/proc/version"], "/proc/version"),
    (["nosuchcommand"], "nosuchcommand"),
    (["help", "nosuchcommand"], "nosuchcommand"),
    (["info", "--format", "csv"], "csv"),
    (["list", "--format", "xml"], "xml"),
    (["run", "--duration", "2x"], "2x"),
    (["run", "-d", "1e400s"], "1e400s"),
    (["run", "-c"], "-c"),
    (["run", "--quiet=1"], "--quiet=1"),
    (["info", "--bogus"], "--bogus"),
    # A mistyped keyword, command or long option: the keywords listed, the nearest suggested
    # (issue 24); a word where a CPU list, a file or a capability list may stand too.
    (["rn"], "unknown command `rn`: did you mean `run`? (expected run, verify, "),
    (["help", "rn"], "did you mean `run`?"),
    (["--hepl"], "did you mean `--help`?"),
    (["run", "--contaners", "2"], "unknown option `--contaners`: did you mean `--containers`?"),
    (["run", "--c", "2"], "ambiguous option `--c`: the start of --containers, "),
    (["verify", "--lst"], "did you mean `--list`?"),
    (["list", "--fromat", "json"], "did you mean `--format`?"),
    (["run", "--pin", "sprad"], "`sprad`: did you mean `spread`? (expected auto, spread, "),
    (["run", "--pin", "fast"], "(expected auto, spread, compact, l3, none or a CPU list"),
    (["run", "--seccomp", "dokcer"], "no such --seccomp profile file `dokcer`: did you mean "
                                     "`docker`?"),
    (["run", "--caps", "dorp"], "`dorp`: did you mean `drop`? (expected keep, drop, none or "),
    (["run", "--isolate", "usr"], "`usr`: did you mean `user`? (expected user, ipc, "),
    (["run", "--owner", "sahred"], "`sahred`: did you mean `shared`? (expected shared, "),
    (["run", "--format", "jsn"], "`jsn`: did you mean `json`? (expected json, text or csv)"),
    (["run", "--headroom", "naer"], "`naer`: did you mean `near`? (expected near or far)"),
    (["run", "--workload", "signl"], "`signl`: did you mean `signal`? (expected signal, "),
    (["run", "--limit", "NPORC=5"], "`NPORC`: did you mean `NPROC`? (expected SIGPENDING, "),
    (["export", "--to", "gba", "x.json"], "`gba`: did you mean `gab`? (expected gab, "),
    (["verify", "sigpendng"], "did you mean `SIGPENDING`?"),
    (["verify", "--format", "tep"], "`tep`: did you mean `tap`? (expected tap, json or junit)"),
    (["compare", "--normalize", "canry", "a.json", "b.json"], "did you mean `canary`?"),
    # An output that cannot be written is a usage error (2) in every command, found before
    # any work (issue 24): verify would otherwise run its case first.
    (["verify", "ULIM-01", "--output", "/nonexistent-dir/x.json"], "/nonexistent-dir"),
]
# An item given twice in one list is refused, naming it (issue 25 item 10); quick options so
# that a run that accepted it ends soon.
QUICK = ["-c", "1", "-d", "0.2", "--interval", "0.1", "--warmup", "0", "--owner", "shared",
         "--no-baseline", "--uid-base", str(uid_block(2100240000, 10, room=10000)), "-q"]
BAD += [
    (["run", "--limit", "sigpending=10,sigpending=20"] + QUICK,
     "duplicate --limit rlimit `sigpending`"),
    (["run", "--limit", "NPROC=50,MEMLOCK=0,nproc=60"] + QUICK, "duplicate --limit rlimit `nproc`"),
    (["run", "--isolate", "pid,pid"] + QUICK, "duplicate --isolate namespace `pid`"),
    (["run", "--isolate", "user,ipc,user"] + QUICK, "duplicate --isolate namespace `user`"),
    (["run", "--caps", "chown,kill,chown"] + QUICK, "duplicate capability `chown` in --caps"),
    (["run", "--caps", "kill,CAP_KILL"] + QUICK, "duplicate capability `CAP_KILL` in --caps"),
    # ...or in two of the same option, which otherwise add up (the last one won silently)
    (["run", "--limit", "SIGPENDING=100", "--limit", "SIGPENDING=200"] + QUICK,
     "duplicate --limit rlimit `SIGPENDING`: give each rlimit once"),
    (["run", "--limit", "NPROC=50", "--limit", "MEMLOCK=0,nproc=60"] + QUICK,
     "duplicate --limit rlimit `nproc`"),
    (["run", "--isolate", "user,pid", "--isolate", "ipc,pid"] + QUICK,
     "duplicate --isolate namespace `pid`"),
    (["run", "--isolate", "user", "--isolate", "user"] + QUICK,
     "duplicate --isolate namespace `user`"),
    (["run", "--caps", "chown", "--caps", "kill,CAP_CHOWN"] + QUICK,
     "duplicate capability `CAP_CHOWN` in --caps"),
    (["run", "--caps", "drop", "--caps", "kill"] + QUICK, "--caps given twice with `drop`"),
    (["run", "--caps", "chown", "--caps", "none"] + QUICK, "--caps given twice with `none`"),
    (["run", "--caps", "kill", "--caps", "dorp"] + QUICK, "`dorp`: did you mean `drop`?"),
]
for args, needle in BAD:
    load = HostLoad()
    t0 = time.monotonic()
    r = run(args)
    took = time.monotonic() - t0
    first = r.stderr.splitlines()[0] if r.stderr else ""
    said = (r.returncode == 2 and first.startswith("ucbench: ") and needle in first
            and r.stdout == "")
    t.busy(said and took < 3,  # the default sweep would measure for 24 s or more
           f"`ucbench {' '.join(args)}` exits 2 with a one-line error naming `{needle}`",
           said and load.reason,
           f"rc={r.returncode} in {took:.1f} s stderr={r.stderr!r} stdout={r.stdout[:200]!r}")

# Distinct items of repeated --limit, --isolate and --caps options add up, in the document's
# config (the first --isolate replaces the default user,ipc).
if userns_works():
    merge_dir = scratch_dir("ucb-merge-")
    merged = os.path.join(merge_dir, "out.json")
    r = run(["run", "--limit", "SIGPENDING=100", "--limit", "MSGQUEUE=819200", "--isolate", "user",
             "--isolate", "pid", "--caps", "chown", "--caps", "kill,setuid", "--depth", "1"]
            + QUICK + ["-o", merged])
    config = {}
    if r.returncode == 0:
        with open(merged) as f:
            config = json.load(f)["config"]
        os.unlink(merged)
    os.rmdir(merge_dir)
    got = (config.get("limits"), config.get("isolate"),
           config.get("runtime", {}).get("caps", {}).get("keep"))
    t.ok(got == ({"SIGPENDING": 100, "MSGQUEUE": 819200}, "user,pid",
                 "cap_chown,cap_kill,cap_setuid"),
         "repeated --limit, --isolate and --caps add up", f"rc={r.returncode} {got} {r.stderr!r}")
else:
    t.skip("repeated --limit, --isolate and --caps add up",
           "user namespaces cannot be created here")

# A value quoted in an error is written escaped: control characters as \n, \t, \x1b and so
# on, so that the message stays one line and cannot drive the terminal (issue 25 item 10):
# option values, file names, arguments, and the strings of a document read.
bad_doc_dir = scratch_dir("ucb-esc-")
bad_doc = os.path.join(bad_doc_dir, "bad.json")
with open(bad_doc, "w") as f:
    f.write('{"schema": "ucbench-result/x\\n\\u001b[2J"}')
ESCAPED = [
    (["run", "--workload", "a\nb"], "`a\\nb`"),
    (["run", "--limit", "sigpending\n=1"], "`sigpending\\n`"),
    (["run", "--cgroup", "--cgroup-set", "a\x1b[31mb"], "a\\x1b[31mb"),
    (["run", "--output", "/nonexistent-dir/a\nb.json"], "a\\nb.json"),
    (["run", "--pin", "0,\x7f"], "`\\x7f`"),
    (["run", "--workload", "a\u009bb"], "a\\xc2\\x9bb"),
    (["run", "--frob\tx"], "`--frob\\tx`"),
    (["nosuch\rcmd"], "nosuch\\rcmd"),
    (["verify", "ULIM-01\n"], "ULIM-01\\n"),
    (["export", "--to", "bmf", bad_doc], "ucbench-result/x\\n\\x1b[2J"),
]
for args, needle in ESCAPED:
    r = run(args)
    lines = r.stderr.splitlines()
    raw = [c for c in r.stderr.replace("\n", "") if ord(c) < 32 or 127 <= ord(c) < 160]
    t.ok(r.returncode in (1, 2) and lines and needle in lines[0] and not raw
         and all(x.startswith(("ucbench: ", "Try ")) for x in lines),
         f"`ucbench {' '.join(map(repr, args))}`: the value escaped, one line ({needle})",
         f"rc={r.returncode} stderr={r.stderr!r}")
os.unlink(bad_doc)
os.rmdir(bad_doc_dir)


def doubled(line):
    """The context that starts the next part again: "--cgroup: --cgroup=X: ..."."""
    parts = line.split(": ")
    return next((a for a, b in zip(parts, parts[1:])
                 if len(a) > 1 and (b == a or b.startswith((a + " ", a + "=")))), None)


# Every option of `run --help` and `verify --help`, given values it refuses (and some it
# takes): no message says its context twice ("--cgroup: --cgroup=x: ..."; issue 25 item 10).
sweep_dir = scratch_dir("ucb-optsweep-")
VALUES = ["", "bogus", "0", "-1", "99999999999999999999", "/nonexistent-ucb/x", "a\nb"]
NEEDS = {"--cpuset": ["--cgroup"], "--pids-max": ["--cgroup"], "--cgroup-set": ["--cgroup"],
         "--precision": ["--repeat", "auto"], "--max-time": ["--repeat", "auto", "--precision",
                                                            "5"]}
found, tried = [], 0
for cmd, base in (("run", ["run", "-w", "getppid", "-c", "1", "-d", "0.2", "--interval", "0.1",
                           "--warmup", "0", "--owner", "shared", "--no-baseline", "--uid-base",
                           str(uid_block(2100250000, 10, room=10000)), "-q", "-o",
                           os.path.join(sweep_dir, "out.json")]),
                  ("verify", ["verify", "--list"])):
    for m in re.finditer(r"^  (?:-[a-zA-Z], )?(--[a-z][a-z-]*)(\[=[^\]]+\])?(?: (\S+))?",
                         run([cmd, "--help"]).stdout, re.M):
        opt, optional, metavar = m.groups()
        if opt == "--help":
            continue
        if optional:
            tries = [[f"{opt}={v}"] for v in VALUES]
        elif metavar:
            tries = [[opt, v] for v in VALUES]
        else:
            tries = [[f"{opt}=1"]]
        for extra in tries:
            tried += 1
            r = run(base + NEEDS.get(opt, []) + extra, cwd=sweep_dir, timeout=120)
            bad = [x for x in r.stderr.splitlines() if doubled(x)]
            if bad:
                found.append(f"{' '.join(map(repr, extra))}: {bad[0]}")
t.ok(tried > 100 and not found, f"{tried} bad values of every `run` and `verify` option: no "
     "message repeats its context", "\n".join(found))
for f in os.listdir(sweep_dir):
    os.unlink(os.path.join(sweep_dir, f))
os.rmdir(sweep_dir)

r = run([])
t.ok(r.returncode == 2 and "Usage" in r.stderr, "no command: usage on stderr, exit 2")
for args in (["--help"], ["-h"], ["help"], ["help", "run"], ["run", "--help"], ["list", "--help"],
             ["info", "--help"]):
    r = run(args)
    t.ok(r.returncode == 0 and "Usage" in r.stdout, f"`ucbench {' '.join(args)}` prints usage",
         r.stderr)
for args in (["help", "--help"], ["help", "-h"]):
    r = run(args)
    t.ok(r.returncode == 0 and r.stdout.startswith("Usage: ucbench help") and r.stderr == "",
         f"`ucbench {' '.join(args)}` prints help's own usage, exit 0",
         f"rc={r.returncode} {r.stderr!r}")
# Every help text fits an 80-column terminal: each command's --help and `help COMMAND`.
COMMANDS = re.findall(r"^  ([a-z]+) ", run(["--help"]).stdout, re.M)
wide = [f"{' '.join(a)}: {len(ln)}: {ln}" for c in [None] + COMMANDS
        for a in ([c, "--help"] if c else ["--help"], ["help", c] if c else ["help"])
        for ln in run(a).stdout.splitlines() if len(ln) > 80]
t.ok(len(COMMANDS) >= 9 and not wide,
     f"the help of ucbench and of its {len(COMMANDS)} commands fits 80 columns",
     "\n".join(wide[:20]))
r = run(["--version"])
t.ok(r.returncode == 0 and r.stdout.startswith("ucbench "), "--version")
# Output that cannot be written is a failure, whichever command printed it (issue 16 item 8).
if os.path.exists("/dev/full"):
    for args in (["--help"], ["--version"], ["help"], ["help", "run"], ["run", "--help"],
                 ["list"]):
        with open("/dev/full", "w") as full:
            r = subprocess.run([UCBENCH] + args, stdout=full, stderr=subprocess.PIPE, text=True)
        lines = r.stderr.strip().splitlines()
        t.ok(r.returncode == 1 and len(lines) == 1 and "standard output" in lines[0],
             f"`ucbench {' '.join(args)} >/dev/full`: exit 1, one line", r.stderr)
else:
    t.skip("a full stdout is a failure", "no /dev/full here")

# --output to something that is not a regular file writes through it (a pipe here), and a
# symlink keeps being a symlink: the atomic rename must not replace either.
import tempfile
r = subprocess.run([UCBENCH, "run", "--containers", "1", "--duration", "0.2", "--interval", "0.1",
                    "--warmup", "0", "--uid-base", str(uid_block(2100210000, 10, room=10000)),
                    "--output", "/dev/stdout",
                    "--quiet"], capture_output=True, text=True)
t.ok(r.returncode == 0 and r.stdout.lstrip().startswith("{") and os.path.islink("/dev/stdout"),
     "--output /dev/stdout writes the document to the pipe; /dev/stdout stays a symlink",
     r.stderr)
# The same for export and plot, which read a document first (issue 24: they said 1).
doc_dir = scratch_dir("ucb-doc-")
doc = os.path.join(doc_dir, "doc.json")
with open(doc, "w") as f:
    f.write(r.stdout)
for args in (["export", "--to", "bmf", doc], ["plot", doc]):
    for out in ("/nonexistent-dir/x.svg", doc_dir):
        r2 = run(args + ["--output", out])
        lines = r2.stderr.splitlines()
        t.ok(r2.returncode == 2 and lines and out in lines[0] and "cannot write" in lines[0],
             f"`ucbench {args[0]} --output {out}`: exit 2, one line naming it",
             f"rc={r2.returncode} {r2.stderr!r}")
os.unlink(doc)
os.rmdir(doc_dir)
d = scratch_dir("ucb-out-")
os.symlink(os.path.join(d, "target.json"), os.path.join(d, "link.json"))
for _ in range(2):  # dangling, then pointing at a file
    r = run(["run", "--containers", "1", "--duration", "0.2", "--interval", "0.1", "--warmup", "0",
             "--uid-base", str(uid_block(2100210000, 10, room=10000)), "--output",
             os.path.join(d, "link.json"), "--quiet"])
t.ok(r.returncode == 0 and os.path.islink(os.path.join(d, "link.json"))
     and os.path.getsize(os.path.join(d, "target.json")) > 0 and len(os.listdir(d)) == 2,
     "--output through a symlink writes its target and keeps the link", r.stderr)
for f in os.listdir(d):
    os.unlink(os.path.join(d, f))
os.rmdir(d)

# The man page lists exactly the options of `run --help`, which is the option table
# (src/cli/options-table.h), each with its short form: the .TP tags of the man page's run option
# subsections.  (The README, a front page, lists none: it points to the man page.)
with open(os.path.join(os.environ.get("top_srcdir", "."), "man", "ucbench.1")) as f:
    man = f.read().replace("\\-", "-")
table = set(re.findall(r"^  (?:(-[a-zA-Z]), )?(--[a-z][a-z-]*)", run(["run", "--help"]).stdout,
                       re.M))
t.ok(len(table) >= 12, "run --help lists the options", table)


def same_options(where, found, expected, unparsed=()):
    """`found` (short or "", long) pairs are `expected`: none missing, none extra."""
    missing, extra = sorted(expected - found), sorted(found - expected)
    t.ok(not missing and not extra and not unparsed,
         f"{where}: the options of run --help, with their short forms",
         f"missing: {missing}; not in run --help: {extra}; tags not read: {list(unparsed)}")


man_opts, unparsed = set(), []
for title, body in re.findall(r"^\.SS (.*)\n((?:(?!\.S[SH] ).*\n)*)", man, re.M):
    if "options of run" in title.lower():
        for tag in re.findall(r"^\.TP\n(.*)", body, re.M):
            m = re.match(r'\.B[RI]? (?:(-[a-zA-Z]) ", " )?(--[a-z][a-z-]*)', tag)
            if m:
                man_opts.add((m.group(1) or "", m.group(2)))
            else:
                unparsed.append(tag)
same_options("man page, run's options", man_opts, table, unparsed)

# Every command's options (`help --options`, made from its table, as the bash completion reads
# them) are in the man page where it describes that command: its entry under COMMANDS and the
# OPTIONS subsections naming it (-h/--help: the global options say every command takes them).
MAN_CMDS = ["run", "verify", "compare", "export", "plot", "model", "list", "info", "help"]
entries = dict(re.findall(r"^\.TP\n\.BI? (\S+)[^\n]*\n((?:(?!\.TP\n\.BI? (?:%s)\b|\.SH ).*\n)*)"
                          % "|".join(MAN_CMDS), man, re.M))
subsections = re.findall(r"^\.SS (.*)\n((?:(?!\.S[SH] ).*\n)*)", man, re.M)
for cmd in MAN_CMDS:
    text = entries.get(cmd, "") + "".join(b for title, b in subsections
                                          if re.search(rf"\b{cmd}\b", title))
    r = run(["help", "--options", cmd])
    opts = [o.rstrip("=") for o in r.stdout.split()]
    missing = [o for o in opts if o not in ("-h", "--help")
               and not re.search(re.escape(o) + r"(?![\w-])", text)]
    t.ok(r.returncode == 0 and opts and text and not missing,
         f"man page: every option of `ucbench help --options {cmd}` where it describes {cmd}",
         f"missing: {missing}; {len(text)} characters of text; {r.stderr}")

# No user namespaces left (max_user_namespaces=0 in a namespace we own): the host's ceiling
# (issue 40) refuses before any container, naming the sysctl (exit 2).  The kernel's own refusal,
# where the ceiling cannot see the limit: 0 set in the parent of the namespace ucbench runs in,
# after that namespace was made (its own sysctl still reads the maximum).
RUN1 = f"{UCBENCH} run --owner root --containers 1 --duration 0.2 --interval 0.1 --warmup 0"
if userns_works():
    r = subprocess.run(["unshare", "-U", "-r", "sh", "-c",
                        f"echo 0 > /proc/sys/user/max_user_namespaces && exec {RUN1}"],
                       capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 2 and "set by user.max_user_namespaces" in lines[0]
         and "sysctl -w user.max_user_namespaces=1" in lines[0],
         "max_user_namespaces=0 here: the ceiling refuses, naming the sysctl (exit 2)",
         f"rc={r.returncode} {r.stderr!r}")
    fifo = scratch_dir("ucb-cli-enospc-")
    script = (f"mkfifo {fifo}/a {fifo}/b && (unshare -U -r sh -c 'echo > {fifo}/a; "
              f"read x < {fifo}/b; stat -L -c %i /proc/self/ns/user; exec {RUN1}' & "
              f"read x < {fifo}/a; echo 0 > /proc/sys/user/max_user_namespaces; echo > {fifo}/b; "
              "wait $!)")
    r = subprocess.run(["unshare", "-U", "-r", "sh", "-c", script], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    t.ok(r.returncode == 1 and len(lines) == 1 and "max_user_namespaces" in r.stderr
         and "container 0" in r.stderr,
         "ENOSPC from clone: exit 1, one line naming the container and the sysctl to raise",
         f"rc={r.returncode} {r.stderr!r}")
    ino = int(r.stdout.split()[0]) if r.stdout.split() else -1
    t.ok(ino > 0 and wait_for(lambda: ino not in all_userns_inodes()),
         "nothing left in that namespace after the refusal", r.stdout)
else:
    t.skip("no user namespaces left: the ceiling, and ENOSPC from clone explained",
           "user namespaces cannot be created here")

# A uid of the default range in use by a running process: refused, nothing started.
if os.geteuid() == 0:
    holder = subprocess.Popen(["setpriv", "--reuid=2100200001", "--regid=2100200001",
                               "--clear-groups", "sleep", "30"])
    try:
        # the uid is in use once setpriv has switched to it (and sleep keeps it)
        wait_for(lambda: uid_of(holder.pid) == 2100200001)
        r = run(["run", "--owner", "distinct", "--no-baseline", "--containers", "4", "--uid-base",
                 "2100200000",
                 "--duration", "0.2", "--interval", "0.1"])
        t.ok(r.returncode == 1 and "2100200001" in r.stderr and "--uid-base" in r.stderr,
             "an owner uid used by a running process is refused with what to change",
             f"rc={r.returncode} {r.stderr!r}")
        r = run(["run", "--owner", "distinct", "--no-baseline", "--containers", "2", "--uid-base",
                 "2100201000",
                 "--duration", "0.3", "--interval", "0.1", "--warmup", "0", "--quiet"])
        t.ok(r.returncode == 0, "--uid-base moves the range away from it", r.stderr)
    finally:
        holder.kill()
        holder.wait()
else:
    t.skip("uid collision refused", "needs root")
t.done()
