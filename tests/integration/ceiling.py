# SPDX-License-Identifier: GPL-2.0-or-later
"""ceiling.py - the host's container ceiling (issue 40): `info` says the most containers this
host allows and which limit sets it (JSON and text alike, the RLIMIT_NOFILE and kernel.pid_max
bounds as this test reads them), and `run` refuses a count above it before any container, in
one line naming the limit and how to raise it (exit status 2).  The checks can fail: with the
hard RLIMIT_NOFILE lowered for ucbench, the ceiling follows it; with a soft RLIMIT_NPROC of 50,
--depth 2 containers (three owner-uid tasks each, forked as the owner) stop at 16, where the
kernel would refuse the 17th, and 16 run; at depth 1 (the owner is the task: no fork as the
owner uid, where the kernel checks NPROC) the same limit bounds nothing.  Uses uids of its own
(2105500000 ...) so it can run beside the other integration tests."""
import json
import os
import resource
import time

from taplib import Tap, run, uid_block, userns_works

t = Tap()
NAMES = {"user.max_user_namespaces", "user.max_ipc_namespaces", "user.max_pid_namespaces",
         "user.max_mnt_namespaces", "user.max_uts_namespaces", "user.max_net_namespaces",
         "kernel.pid_max", "kernel.threads-max", "RLIMIT_NPROC", "pids.max", "RLIMIT_NOFILE",
         "memory"}
QUICK = ["-w", "getppid", "--owner", "shared", "-d", "0.2", "--warmup", "0", "--interval", "0.1",
         "--no-baseline", "-q"]


def with_rlimit(res, soft, hard):
    def pre():
        resource.setrlimit(res, (soft, hard))
    return pre


def info_ceiling(**kw):
    r = run(["info", "--format", "json"], **kw)
    try:
        return json.loads(r.stdout)["host"]["ceiling"]
    except (ValueError, KeyError):
        t.diag(f"info: rc={r.returncode} {r.stderr.strip()}")
        return {}


c = info_ceiling()
bounds = c.get("bounds", {})
t.ok(isinstance(c.get("containers"), int) and c["containers"] >= 1
     and c.get("limit") in NAMES and bounds.get(c.get("limit")) == c["containers"]
     and c["containers"] == min(v for v in bounds.values()) and set(bounds) <= NAMES,
     "info: host.ceiling.containers is the least of its bounds, and `limit` names that one",
     json.dumps(c))
t.ok(isinstance(c.get("why"), str) and c["why"].startswith(c.get("limit", "?")[:6])
     and "raise it" in c["why"] or c.get("limit") in ("memory", "pids.max"),
     "info: ceiling.why says what the limit reads and how to raise it", c.get("why"))
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
t.ok(hard == resource.RLIM_INFINITY or bounds.get("RLIMIT_NOFILE") == hard - 64,
     "info: the RLIMIT_NOFILE bound is the hard limit less ucbench's 64 files",
     f"{bounds.get('RLIMIT_NOFILE')} vs hard {hard}")
with open("/proc/sys/kernel/pid_max") as f:
    pid_max = int(f.read())
with open("/proc/loadavg") as f:
    running = int(f.read().split()[3].split("/")[1])
t.ok(abs(bounds.get("kernel.pid_max", -10**9) - (pid_max - 300 - running - 1)) <= 200,
     "info: the kernel.pid_max bound is pid_max less the running tasks and the 300 reserved",
     f"{bounds.get('kernel.pid_max')} vs {pid_max} - 300 - {running} - 1")
r = run(["info"])
line = [x for x in r.stdout.splitlines() if x.startswith("ceiling.limit:")]
t.ok(r.returncode == 0 and line and line[0].split()[-1] == c.get("limit"),
     "info (text): ceiling.limit, as in JSON", line)

# A count above the ceiling: one line, exit 2, at once, naming the limit.
base = uid_block(2105500000, 100)
t0 = time.monotonic()
r = run(["run", "-c", "200000", "--uid-base", str(base)] + QUICK)
took = time.monotonic() - t0
first = r.stderr.splitlines()[0] if r.stderr else ""
# Memory moves between info and run (other work on the host, an ASan build's larger footprint):
# a refusal set by memory names it and says to free memory, whatever info saw.
t.ok(r.returncode == 2 and r.stdout == "" and "`200000`" in first
     and (f"set by {c.get('limit')}:" in first and "raise it" in first
          or "set by memory:" in first and "free memory" in first)
     or c.get("limit") in ("memory", "pids.max") and r.returncode == 2,
     "run -c 200000: refused in one line naming the limit and how to raise it (exit 2)",
     f"rc={r.returncode} {r.stderr!r}")
t.ok(took < 10, "run -c 200000: refused before anything starts", f"{took:.1f} s")

# The ceiling follows the limit (the check can fail): hard RLIMIT_NOFILE 1000 for ucbench.
low = with_rlimit(resource.RLIMIT_NOFILE, 1000, 1000)
c2 = info_ceiling(preexec_fn=low)
t.ok(c2.get("containers") == 936 and c2.get("limit") == "RLIMIT_NOFILE",
     "info: with a hard RLIMIT_NOFILE of 1000, the ceiling is 936, set by RLIMIT_NOFILE",
     json.dumps(c2))
r = run(["run", "-c", "937", "--uid-base", str(base)] + QUICK, preexec_fn=low)
first = r.stderr.splitlines()[0] if r.stderr else ""
t.ok(r.returncode == 2 and "936 at most" in first and "ulimit -Hn 1001" in first,
     "run -c 937 under it: refused, 936 at most, `ulimit -Hn 1001`", r.stderr)

if os.geteuid() != 0 or not userns_works():
    why = "needs root and user namespaces (owner uids)"
    for name in ("run -c 16 --depth 2 under NPROC 50 runs", "run -c 17 --depth 2: refused",
                 "run -c 40 --depth 1 under NPROC 50 runs"):
        t.skip(name, why)
    t.done()

nproc = with_rlimit(resource.RLIMIT_NPROC, 50, resource.getrlimit(resource.RLIMIT_NPROC)[1])
r = run(["run", "-c", "17", "--depth", "2", "--uid-base", str(base)] + QUICK, preexec_fn=nproc)
first = r.stderr.splitlines()[0] if r.stderr else ""
t.ok(r.returncode == 2 and "16 at most" in first and "set by RLIMIT_NPROC" in first
     and "ulimit -u 51" in first,
     "run -c 17 --depth 2 under a soft NPROC of 50: refused, 16 at most (3 tasks each)", r.stderr)
r = run(["run", "-c", "16", "--depth", "2", "--uid-base", str(base)] + QUICK, preexec_fn=nproc)
t.ok(r.returncode == 0, "run -c 16 --depth 2 under NPROC 50 runs: the kernel agrees", r.stderr)
r = run(["run", "-c", "40", "--depth", "1", "--uid-base", str(base)] + QUICK, preexec_fn=nproc)
t.ok(r.returncode == 0,
     "run -c 40 --depth 1 under NPROC 50 runs: an owner that is its task never forks", r.stderr)
t.done()
