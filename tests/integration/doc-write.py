# SPDX-License-Identifier: GPL-2.0-or-later
"""doc-write.py - a signal while ucbench writes its document (--output) leaves either the old
file or the new complete one, and no temporary: SIGKILL, SIGTERM and SIGINT, each landing in
the write for certain.  strace holds the writer at one of its system calls (fsync: the data
written, not yet in place; linkat or rename: putting it in place) until the signal has been
sent; SIGTERM and SIGINT then let the document be finished and end the run with 128 + N
(docs/error-handling.md).  A SIGKILL between the link of the temporary and its rename over the
old document, or during the whole write where the filesystem has no O_TMPFILE (strace makes it
fail so), leaves no temporary either: its guard process removes it (src/report/output.c); one
left by a writer that died with its guard is removed by the next ucbench that writes there.  A
check skips (never fails) when the signal measurably missed the hold: sent after it ended, or
not at all on a host measured busy (taplib.HostLoad)."""
import json
import os
import shutil
import signal
import subprocess
import time

from taplib import (HostLoad, Tap, UCBENCH, SRCDIR, require_root_userns, scratch_dir, uid_block,
                    wait_for)
from taplib import children_map, comm, skip_all

require_root_userns("needs root (setresuid to the owner uid)")
# LeakSanitizer cannot work under ptrace (an ASan build aborts at exit when strace holds it):
# off for this test's runs, which check leftovers and exit statuses; the others check leaks.
os.environ["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
if shutil.which("strace") is None:
    skip_all("strace is not installed: it holds the writer at the moment of the signal")
if subprocess.run(["strace", "-o", "/dev/null", "true"], capture_output=True).returncode != 0:
    skip_all("strace cannot trace here (ptrace refused): it holds the writer at the signal")

t = Tap()
BASE = uid_block(2101700000, 100)  # a range of its own: 1 container per run
OLD = '{"old": "the document before"}\n'
DELAY_US = 2500000  # long enough for the signal to land inside, even on a busy machine
RUN = ["run", "--containers", "1", "--owner", "shared", "--duration", "0.2", "--interval", "0.1",
       "--warmup", "0.1", "--quiet"]
# A hold by its name here: the system calls that may do it (a rename is renameat today).
CALLS = {"fsync": ("fsync",), "linkat": ("linkat",),
         "rename": ("rename", "renameat", "renameat2")}


def strace_cmd(log, hold, no_tmpfile=None):
    """strace around ucbench: `hold` (a system call) is delayed when entered; `no_tmpfile`,
    the index of the O_TMPFILE open among ucbench's openat calls, makes that one fail as on a
    filesystem without O_TMPFILE."""
    cmd = ["strace", "-ttt", "-o", log, "-e",
           "trace=fsync,linkat,rename,renameat,renameat2,openat",
           "-e", f"inject={','.join(CALLS[hold])}:delay_enter={DELAY_US}"]
    if no_tmpfile:
        cmd += ["-e", f"inject=openat:error=EOPNOTSUPP:when={no_tmpfile}"]
    return cmd


def tmpfile_index(args):
    """Which openat of `ucbench ARGS` (a deterministic command) is the O_TMPFILE one."""
    log = os.path.join(scratch, "count.log")
    subprocess.run(["strace", "-o", log, "-e", "trace=openat", UCBENCH] + args,
                   capture_output=True)
    with open(log) as f:
        calls = [line for line in f if line.startswith("openat(")]
    return next((i + 1 for i, line in enumerate(calls) if "O_TMPFILE" in line), None)


def held(log, hold):
    """When ucbench entered `hold` (strace writes the call's start, `-ttt` time first, before
    the delay), as time.time(); None before."""
    try:
        with open(log) as f:
            for line in f:
                when, _, call = line.partition(" ")
                if call.split("(")[0] in CALLS[hold]:
                    return float(when)
    except (OSError, ValueError):
        pass
    return None


def ucbench_pid(strace_pid):
    """strace's child once it is ucbench (strace forks probes of its own first), read from
    its children file: a scan of /proc on a busy machine can outlast the hold."""
    try:
        with open(f"/proc/{strace_pid}/task/{strace_pid}/children") as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        kids = [c for c, pp in children_map().items() if pp == strace_pid]
    return next((k for k in kids if comm(k) == "ucbench"), None)


def trial(d, sig, hold, old, args=None, no_tmpfile=None):
    """Run ucbench writing d/out.json (with `old` there first, or none), signal it inside
    `hold`; (exit status, what d holds, stderr, why the signal may have missed the hold: a
    measured "host busy: ..." or None)."""
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    log = os.path.join(scratch, "strace.log")
    if os.path.exists(log):
        os.unlink(log)
    if old:
        with open(os.path.join(d, "out.json"), "w") as f:
            f.write(OLD)
    args = args or RUN + ["--uid-base", str(BASE)]
    p = subprocess.Popen(strace_cmd(log, hold, no_tmpfile) + [UCBENCH] + args
                         + ["--output", os.path.join(d, "out.json")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    load = HostLoad()
    pid = wait_for(lambda: ucbench_pid(p.pid) or p.poll() is not None, timeout=10)
    late = None
    if pid and wait_for(lambda: held(log, hold) or p.poll() is not None) and p.poll() is None:
        os.kill(pid, sig)
        late = time.time() - held(log, hold)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    if late is None:  # no signal: ucbench not seen, or not held, in time
        missed = load.reason()
    elif late >= DELAY_US / 1e6:
        missed = (f"host busy: the signal came {late:.1f} s after {hold} was entered, past its "
                  f"{DELAY_US / 1e6:g} s hold")
    else:
        missed = None
    return p.returncode, sorted(os.listdir(d)), err, missed


def content(d):
    """"old", "new" (a complete ucbench document) or what else out.json holds."""
    try:
        with open(os.path.join(d, "out.json")) as f:
            text = f.read()
    except OSError:
        return "absent"
    if text == OLD:
        return "old"
    try:
        doc = json.loads(text)
    except ValueError:
        return f"broken ({len(text)} bytes)"
    if isinstance(doc, list):  # export --to gab
        return "new" if doc else "other"
    return "new" if doc.get("schema") == "ucbench-result/1" and doc.get("results") else "other"


scratch = scratch_dir("ucb-docwrite-")
d = os.path.join(scratch, "out")
os.mkdir(d)

# Inside the write (fsync): SIGKILL leaves what was there; SIGTERM/SIGINT finish the new one.
for sig, old in ((signal.SIGKILL, True), (signal.SIGKILL, False), (signal.SIGTERM, True),
                 (signal.SIGINT, False)):
    what = "over an old one" if old else "a new file"
    name = f"{signal.Signals(sig).name} while the document is written ({what})"
    rc, files, err, missed = trial(d, sig, "fsync", old)
    if sig == signal.SIGKILL:
        want_rc, want = -9, ("old" if old else "absent")
    else:
        want_rc, want = 128 + sig, "new"
    t.busy(rc == want_rc, f"{name}: exit status {want_rc}", missed, f"got {rc}: {err}")
    t.busy(content(d) == want, f"{name}: out.json is {want}", missed, f"{content(d)}; {files}")
    t.busy(files == ([] if want == "absent" else ["out.json"]), f"{name}: no temporary left",
           missed, f"{files}")
    if sig != signal.SIGKILL:
        t.busy("interrupted by signal" in err and "written out first" in err,
               f"{name}: says it was interrupted after the results were written", missed, err)

# Putting it in place (the link of the finished file, the rename over the old one).
# SIGKILL at the rename: the temporary has a name then (issue 25: it stayed behind).
for sig, hold in ((signal.SIGTERM, "linkat"), (signal.SIGKILL, "linkat"),
                  (signal.SIGTERM, "rename"), (signal.SIGKILL, "rename")):
    name = f"{signal.Signals(sig).name} at {hold} over an old document"
    rc, files, err, missed = trial(d, sig, hold, True)
    want_rc = -9 if sig == signal.SIGKILL else 128 + sig
    t.busy(rc == want_rc, f"{name}: exit status {want_rc}", missed, f"got {rc}: {err}")
    t.busy(content(d) in (("old", "new") if sig == signal.SIGKILL else ("new",))
           and files == ["out.json"], f"{name}: the old or the new document, no temporary",
           missed, f"{content(d)}; {files}")

# A filesystem without O_TMPFILE: a named temporary, with the writer's pid in its name.  The
# export of a document is the writer here: the same calls every time, so strace can fail the
# O_TMPFILE open by its index.
example = os.path.join(SRCDIR, "examples", "run-small.json")
export = ["export", "--to", "gab", example]
with open(os.path.join(d, "out.json"), "w") as f:
    f.write(OLD)
k = tmpfile_index(export + ["--output", os.path.join(d, "out.json")])
t.ok(k, "export --output opens its temporary with O_TMPFILE", f"{k}")
rc, files, err, missed = trial(d, signal.SIGTERM, "rename", True, args=export, no_tmpfile=k)
t.busy(rc == 143 and content(d) == "new" and files == ["out.json"],
       "no O_TMPFILE, SIGTERM at the rename: exit 143, the new document, no temporary", missed,
       f"{rc} {content(d)} {files}: {err}")
rc, files, err, missed = trial(d, signal.SIGKILL, "rename", True, args=export, no_tmpfile=k)
t.busy(rc == -9 and content(d) == "old" and files == ["out.json"],
       "no O_TMPFILE, SIGKILL at the rename: the old document, no temporary (its guard removed "
       "it)", missed, f"{rc} {content(d)} {files}: {err}")
# A temporary of a ucbench that died with its guard (a pid that has exited): the next write
# there removes it; one of a live process stays.
dead = subprocess.Popen(["true"])
dead.wait()
stale = os.path.join(d, f"out.json.ucbench-tmp-{dead.pid}-0")
live = os.path.join(d, f"out.json.ucbench-tmp-{os.getpid()}-0")
open(stale, "w").close()
open(live, "w").close()
r = subprocess.run([UCBENCH] + export + ["--output", os.path.join(d, "out.json")],
                   capture_output=True, text=True)
files = sorted(os.listdir(d))
t.ok(r.returncode == 0 and files == ["out.json", os.path.basename(live)],
     "the next write removes the temporary of a dead ucbench, not that of a live one",
     f"{r.returncode} {files}: {r.stderr}")
os.unlink(live)

# The text formats go through the same writer (export --to junit|ktap|lkp, and plot's pages):
# a SIGKILL inside the write leaves the old file, not a truncated one, and no temporary.
verify_example = os.path.join(SRCDIR, "examples", "verify-small.json")
rc, files, err, missed = trial(d, signal.SIGKILL, "fsync", True,
                       args=["export", "--to", "junit", verify_example])
t.busy(rc == -9 and content(d) == "old" and files == ["out.json"],
       "export --to junit: SIGKILL inside the write leaves the old file and no temporary", missed,
       f"{rc} {content(d)} {files}: {err}")
t.done()
