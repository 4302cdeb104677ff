# SPDX-License-Identifier: GPL-2.0-or-later
"""valgrind.py - no leaks and no memory errors in ucbench's own process, on the success paths
and on the error paths (bad input, a kernel refusal, an interrupt).  Valgrind is slow: a run
that outlasts its deadline skips on a host measured busy (taplib.HostLoad), fails on a quiet
one."""
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile

from taplib import (HostLoad, Tap, UCBENCH, cgroup_lock, ran, skip_all, tasks_of, userns_works,
                    wait_for)
from taplib import scratch_dir

if shutil.which("valgrind") is None:
    skip_all("valgrind is not installed")
if os.environ.get("UCB_SANITIZED"):
    skip_all("sanitizer build: valgrind and ASan do not mix")

t = Tap()
def vg_report(err):
    """valgrind's lines in `err`, without its notes on ioctls it has no wrapper for (the nsfs
    NS_GET_* ioctls the host's ceiling reads): a limit of valgrind's, not an error of ours."""
    lines, out, skip = err.splitlines(), [], 0
    for ln in lines:
        if "noted but unhandled ioctl" in ln:
            skip = 2  # the note and its two lines of advice
            continue
        if skip and ln.startswith("=="):
            skip -= 1
            continue
        skip = 0
        if ln.startswith("=="):
            out.append(ln)
    return out


VG = ["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
      "--show-leak-kinds=definite,indirect", "--error-exitcode=99"]
out = os.path.join(scratch_dir("ucb-vg-"), "r.json")
RUN = ["run", "--no-baseline", "--containers", "2", "--duration", "0.4", "--interval", "0.2",
       "--warmup", "0.1",
       "--uid-base", "2100300000"]
CASES = [
    (["info"], 0),
    (["info", "--format", "json"], 0),
    (["list", "--format", "json"], 0),
    (["help", "run"], 0),
    (RUN + ["--owner", "shared,root", "--depth", "0,2", "--output", out], 0),
    (RUN + ["--format", "json", "--repeat", "2"], 0),
    (RUN + ["--owner", "distinct", "--cgroup", "--pids-max", "32", "--seccomp", "docker",
            "--caps", "drop", "--pin", "l3", "--perf", "--format", "json"], 0),
    (["run", "--seccomp", "/nonexistent.json"], 2),
    (["run", "--containers", "0"], 2),
    (["run", "--owner", "x,shared"], 2),
    (["run", "--pin", "0-1,1"], 2),
]
for args, want in CASES:
    name = f"valgrind ucbench {' '.join(args)}: clean, exit {want}"
    with cgroup_lock(t) if "--cgroup" in args else contextlib.nullcontext():
        load = HostLoad()
        try:
            r = subprocess.run(VG + [UCBENCH] + args, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            t.busy(False, name, load.reason, "still running after 300 s")
            continue
    t.ok(r.returncode == want, name, f"rc={r.returncode}\n{r.stderr[-3000:]}")

if userns_works() and shutil.which("unshare"):
    # The kernel's own refusal, not the host's ceiling: 0 is set in the parent of the namespace
    # ucbench runs in after that namespace was made (its own sysctl still reads the maximum, so
    # the ceiling cannot see it; as cli.py does).
    run = " ".join(VG) + f" {UCBENCH} run --owner root --containers 1 --duration 0.2 --interval 0.1"
    fifo = tempfile.mkdtemp(prefix="ucb-vg-enospc-")
    script = (f"mkfifo {fifo}/a {fifo}/b && (unshare -U -r sh -c 'echo > {fifo}/a; "
              f"read x < {fifo}/b; exec {run}' & "
              f"read x < {fifo}/a; echo 0 > /proc/sys/user/max_user_namespaces; echo > {fifo}/b; "
              "wait $!)")
    r = subprocess.run(["unshare", "-U", "-r", "sh", "-c", script], capture_output=True, text=True,
                       timeout=300)
    shutil.rmtree(fifo, ignore_errors=True)
    t.ok(r.returncode == 1 and not vg_report(r.stderr),
         "valgrind: the ENOSPC refusal path is clean", r.stderr[-3000:])
else:
    t.skip("valgrind: the ENOSPC refusal path is clean", "user namespaces cannot be created here")

load = HostLoad()
p = subprocess.Popen(VG + [UCBENCH] + RUN[:1] + ["--no-baseline", "--containers", "2",
                                                 "--duration", "30",
                                                   "--uid-base", "2100310000", "--quiet"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
# SIGINT while the containers work (valgrind is slow to get there; a loaded machine slower)
wait_for(lambda: ran(tasks_of(p.pid), 0.05) and len(tasks_of(p.pid)) == 2, 120)
p.send_signal(signal.SIGINT)
try:
    _, err = p.communicate(timeout=120)
    t.ok(p.returncode == 130 and not vg_report(err), "valgrind: the SIGINT path is clean, exit 130",
         f"rc={p.returncode}\n{err[-3000:]}")
except subprocess.TimeoutExpired:
    p.kill()
    p.communicate()
    t.busy(False, "valgrind: the SIGINT path is clean, exit 130", load.reason,
           "still running 120 s after SIGINT")
os.unlink(out) if os.path.exists(out) else None
os.rmdir(os.path.dirname(out))
t.done()
