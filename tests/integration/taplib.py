# SPDX-License-Identifier: GPL-2.0-or-later
"""taplib.py - TAP output and process inspection shared by the integration tests."""
import atexit
import contextlib
import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

UCBENCH = os.environ.get("UCBENCH", "ucbench")
HELPER = os.environ.get("UCB_HELPER", "ucb-helper")
SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))

# Its rooms, one import for the tests: a busy host (hostload), what a run may leave (hoststate).
from hostload import BUSY_SHARE, HostLoad, busy_reason, loadavg  # noqa: E402,F401
from hoststate import (all_userns_inodes, cgroup_groups_of, cgroup_layout,  # noqa: E402,F401
                       cgroup_mounts, mqueues_of, own_cgroup_dirs, read_text, shm_of,
                       sysv_objects, userns_held, write_text)


class Tap:
    """Collects results; the plan is printed at the end, from what actually ran."""

    def __init__(self):
        self.n = 0
        self.failed = 0
        print("TAP version 13", flush=True)

    def ok(self, cond, name, diag=None):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {name}", flush=True)
        else:
            self.failed += 1
            print(f"not ok {self.n} - {name}", flush=True)
            for line in str(diag or "").splitlines():
                print(f"# {line}", flush=True)
        return cond

    def skip(self, name, why):
        self.n += 1
        print(f"ok {self.n} - {name} # SKIP {why}", flush=True)

    def busy(self, cond, name, why_busy, diag=None):
        """A check that depends on time or CPU: ok when it held; when it did not, SKIP with the
        measured reason the host was too busy to decide (a string, or a function asked only
        then: see busy_reason, HostLoad), or not ok when there is none (a quiet host catches a
        real break)."""
        if not cond and callable(why_busy):
            why_busy = why_busy()
        if cond or not why_busy:
            return self.ok(cond, name, diag)
        if diag:
            self.diag(diag)
        self.skip(name, why_busy)
        return None

    def diag(self, msg):
        for line in str(msg).splitlines():
            print(f"# {line}", flush=True)

    def done(self):
        print(f"1..{self.n}", flush=True)
        sys.exit(1 if self.failed else 0)


def skip_all(why):
    print(f"1..0 # SKIP {why}", flush=True)
    sys.exit(0)


def require_root_userns(why_root):
    """Skip the whole test unless user namespaces work and this is root (`why_root`: what
    for)."""
    if not userns_works():
        skip_all("user namespaces cannot be created here")
    if os.geteuid() != 0:
        skip_all(why_root)


def userns_works():
    """Can we make a user namespace at all? (the reliable probe: try it)."""
    r = subprocess.run(["unshare", "-U", "true"], capture_output=True)
    return r.returncode == 0


def run(args, **kw):
    return subprocess.run([UCBENCH] + args, capture_output=True, text=True, **kw)


def run_json(t, args, ok_rc=(0,), timeout=300):
    """`ucbench ARGS` whose stdout is a JSON document: the document, or None (said on `t`)
    when it is not JSON or ucbench exited with a status outside `ok_rc`."""
    r = run(args, timeout=timeout)
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        doc = None
        t.diag(f"`ucbench {' '.join(args)}`: {e}")
    if r.returncode not in ok_rc:
        t.diag(f"`ucbench {' '.join(args)}` exited {r.returncode}: {r.stderr.strip()}")
        doc = None
    return doc


def children_map():
    """pid -> ppid for every process now."""
    m = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
            m[int(d)] = int(s[s.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            pass
    return m


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def _children(pid):
    """The children of `pid` from /proc/PID/task/*/children (one small file per thread, not a
    walk of all /proc: an observer starved of CPU still keeps up with a run), or None where the
    kernel lacks them (CONFIG_PROC_CHILDREN) or `pid` is gone."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
        out = []
        for tid in tids:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
        return out
    except (OSError, ValueError):
        return None


def descendants(root):
    out, todo = [], [root]
    if _children(os.getpid()) is not None:
        while todo:
            kids = _children(todo.pop()) or []
            out += kids
            todo += kids
        return out
    m = children_map()
    while todo:
        p = todo.pop()
        for c, pp in m.items():
            if pp == p:
                out.append(c)
                todo.append(c)
    return out


def tasks_of(root):
    return [p for p in descendants(root) if (comm(p) or "").startswith("ucb-task")]


# How long a test waits for what must happen soon (processes gone, namespaces freed, a task
# running): a deadline, never a pause; only a failing test waits that long.
DEADLINE = 30


def wait_for(pred, timeout=DEADLINE, step=0.05):
    """The one way to wait: poll `pred` until it returns a true value or `timeout` seconds
    pass; its last value.  Never a fixed sleep: on a loaded machine anything takes longer."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def proc_stat(pid):
    """(state, ppid, pgid, starttime, cpu ticks) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
        f = s[s.rindex(")") + 2:].split()
        return f[0], int(f[1]), int(f[2]), int(f[19]), int(f[11]) + int(f[12])
    except (OSError, ValueError, IndexError):
        return None


def alive(pid):
    st = proc_stat(pid)
    return st is not None and st[0] != "Z"


def ran(pids, seconds):
    """Every one of `pids` has used `seconds` of CPU time: its work is under way (what a
    fixed sleep only hoped for)."""
    hz = os.sysconf("SC_CLK_TCK")
    sts = [proc_stat(q) for q in pids]
    return bool(pids) and all(st and st[4] >= seconds * hz for st in sts)


def proc_status(pid):
    """/proc/PID/status as a dict ({} once the process is gone)."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = v.strip()
    except OSError:
        pass
    return out


def uid_of(pid):
    """The real uid of a process, or None."""
    uids = proc_status(pid).get("Uid", "").split()
    return int(uids[0]) if uids else None


def uids_in_use():
    """Every uid (real, effective, saved, fs) of a process now."""
    used = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            used.update(int(x) for x in proc_status(d).get("Uid", "").split())
    return used


UID_LOCK = "/run/ucbench/uids.lock"  # byte U stands for uid U (src/host/uidlock.h)


def uid_locks(first=0, last=4294967294):
    """The uid ranges a ucbench holds now, between `first` and `last`: [(first, last, pid)],
    read with F_GETLK (which takes nothing: a ucbench starting meanwhile is never refused)."""
    import fcntl
    import struct
    out = []
    try:
        fd = os.open(UID_LOCK, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return out
    try:
        fmt = "hhqqi"  # struct flock on 64-bit Linux: type, whence, start, len, pid
        todo = [(first, last)]  # F_GETLK names one lock of a span, not the lowest: split
        while todo:
            lo, hi = todo.pop()
            q = struct.pack(fmt, fcntl.F_WRLCK, os.SEEK_SET, lo, hi - lo + 1, 0)
            typ, _, start, length, pid = struct.unpack(fmt, fcntl.fcntl(fd, fcntl.F_GETLK, q))
            if typ == fcntl.F_UNLCK:
                continue
            end = start + length - 1 if length else hi
            out.append((max(start, lo), min(end, hi), pid))
            todo += [(lo, start - 1)] if start > lo else []
            todo += [(end + 1, hi)] if end < hi else []
    finally:
        os.close(fd)
    return sorted(out)


def uid_block(base, span, room=100000):
    """A free uid range [b, b + span) inside a test's own [base, base + room), at a random
    offset: ucbench refuses owner uids that a process uses or another ucbench holds, and the
    same test started twice at once (two checkouts, two `make check`) must not take the same
    range."""
    import random
    used = uids_in_use()
    held = uid_locks(base, base + room - 1)
    for k in random.sample(range(room // span), room // span):
        b = base + k * span
        if not any(b <= u < b + span for u in used) and \
                not any(lo < b + span and hi >= b for lo, hi, _ in held):
            return b
    return base


class RunProcs:
    """The processes of one ucbench run, known by identity (pid and start time, so a reused
    pid is not mistaken for one) and by process group (each container is its own, so an
    orphan that left ucbench's tree still counts).  "Nothing left" is `not left()`: no
    process of this run, whatever else runs on the machine."""

    def __init__(self, root):
        """`root`: ucbench's Popen (hold_tasks stops and resumes it) or its pid."""
        self.popen = root if isinstance(root, subprocess.Popen) else None
        self.root = root.pid if self.popen else root
        self.seen = {}  # pid -> start time
        self.pgids = set()
        self.snapshot = []  # the processes below ucbench at the last scan
        self.missed = None  # why hold_tasks did not see its tasks
        self.load = HostLoad()

    def scan(self):
        """Record every process below ucbench now; returns self (true) for wait_for."""
        self.snapshot = descendants(self.root)
        mine = os.getpgrp()
        for q in [self.root] + self.snapshot:
            st = proc_stat(q)
            if st is None:
                continue
            self.seen.setdefault(q, st[3])
            if st[2] != mine:
                self.pgids.add(st[2])
        return self

    def tasks(self):
        return [q for q in self.snapshot if (comm(q) or "").startswith("ucb-task")]

    def until_tasks(self, n, timeout=DEADLINE):
        """Scan until `n` tasks are running (all their ancestors then exist); the tasks."""
        return wait_for(lambda: len(self.scan().tasks()) == n and self.tasks(), timeout)

    # ucbench waits up to 120 s for its tasks' READY (engine/runner.c) on a clock that runs on
    # while it is stopped: a hold ends well before.
    HOLD_MAX = 90

    @contextlib.contextmanager
    def hold_tasks(self, n, timeout=DEADLINE):
        """`with procs.hold_tasks(n) as tasks:` the `n` tasks of the run's first point, seen
        with the run held: ucbench is stopped (SIGSTOP) as soon as its spawner shows, before it
        can release the start barrier, so however starved this observer is, no measured window
        closes under it; the spawner and the tasks go on starting.  `tasks` is None when they
        were not all seen (self.missed says what was; busy_missed() whether the host was busy);
        self.snapshot is the fleet.  SIGCONT on the way out.  The point must be the first
        (--no-baseline) and have `n` tasks, or this waits for `timeout`."""
        p = self.popen
        held = False
        tasks = []
        self.missed = None
        t0 = time.monotonic()
        end = t0 + timeout
        try:
            while True:
                if p.poll() is not None:
                    self.missed = "the run ended"
                    break
                self.scan()
                names = [comm(q) for q in self.snapshot]
                if not held and "ucb-spawner" in names:
                    os.kill(p.pid, signal.SIGSTOP)
                    held = True
                    wait_for(lambda: (proc_stat(p.pid) or "T")[0] in "Tt")
                    h0 = time.monotonic()
                    end = h0 + timeout
                    continue  # a scan of the stopped run
                now = self.tasks()
                if len(now) > len(tasks) and held:
                    end = time.monotonic() + timeout  # still coming up: wait on
                tasks = now
                if held and len(tasks) == n:
                    self.missed = None
                    break
                if held and "ucb-spawner" not in names:
                    self.missed = "the run's point was over when it was first seen"
                    break
                if time.monotonic() > (min(end, h0 + self.HOLD_MAX) if held else end):
                    self.missed = f"{timeout:.0f} s passed"
                    break
                time.sleep(0.05)
            if self.missed:
                self.missed += (f": {len(tasks)} of {n} tasks seen "
                                f"({'held' if held else 'never held'}, "
                                f"{time.monotonic() - t0:.1f} s)")
            yield None if self.missed else tasks
        finally:
            if held and p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)

    def busy_missed(self):
        """Why hold_tasks missed its tasks, when the host was measured busy meanwhile (other
        processes' CPU time since this object was made): 'host busy: ...; 3 of 8 tasks seen
        (...)', or None (nothing missed, or a quiet host: a real defect).  Ask it once the run
        is reaped: until then its own tasks count as other processes."""
        if not self.missed or (self.popen and self.popen.poll() is None):
            return None
        why = self.load.reason()
        return why and f"{why}; {self.missed}"

    def left(self):
        """Live (not zombie) processes of this run."""
        out = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            st = proc_stat(int(d))
            if st and st[0] != "Z" and (self.seen.get(int(d)) == st[3] or st[2] in self.pgids):
                out.append(int(d))
        return out

    def gone(self, timeout=DEADLINE):
        return wait_for(lambda: not self.left(), timeout)


# The cgroup hierarchy is the host's: the tests that change a cgroup.subtree_control and check
# that it is back (runtime.py, tests/integration/test-cgroup-{fs,janitor}, which use the same
# path) take this lock, so that none sees another's change as its own leftover.
CGROUP_LOCK = "/tmp/ucbench-cgroup-tests.lock"


class cgroup_lock:
    """Hold CGROUP_LOCK: for the whole test (keep the object), or `with cgroup_lock(t):` around
    the runs that may change a subtree_control.  Waited for with a deadline (then said so)."""

    def __init__(self, t, timeout=900):
        import fcntl
        self.f = None
        try:
            f = open(CGROUP_LOCK, "a")
        except OSError as e:
            t.diag(f"{CGROUP_LOCK}: {e}: going on without it")
            return
        if not wait_for(lambda: _try_lock(fcntl, f), timeout, 0.1):
            t.diag(f"{CGROUP_LOCK} still held after {timeout} s: going on without it")
        self.f = f

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.f:
            self.f.close()
            self.f = None
        return False


def _try_lock(fcntl, f):
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


class held:
    """`with held(p):` stops ucbench (SIGSTOP) while the test looks at its containers, so the
    run cannot end under a slow observer; its tasks go on running.  SIGCONT on the way out."""

    def __init__(self, p):
        self.p = p

    def __enter__(self):
        self._signal(signal.SIGSTOP)
        return self

    def __exit__(self, *exc):
        self._signal(signal.SIGCONT)
        return False

    def _signal(self, sig):
        if self.p.poll() is None:  # never a pid that has been reaped (and maybe reused)
            os.kill(self.p.pid, sig)


def nsinfo(pid):
    r = subprocess.run([HELPER, "nsinfo", str(pid)], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def scratch_dir(prefix):
    """A temporary directory that is removed when the test exits, however it exits."""
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


def reachable_copy(prefix, exe=None):
    """(folder, path): a copy of exe (default UCBENCH) that every uid may run, in a 0755
    scratch_dir.  For a test that runs the binary as another uid, or as root of a user
    namespace that does not map the file's owner: the build tree may sit where only its owner
    gets in (a checkout in /root, mode 0700), and exec there is "Permission denied".  Run it
    with cwd=folder too, for the same reason."""
    exe = exe or UCBENCH
    d = scratch_dir(prefix)
    os.chmod(d, 0o755)
    path = os.path.join(d, os.path.basename(exe))
    shutil.copy(shutil.which(exe) or exe, path)
    os.chmod(path, 0o755)
    return d, path


def kunit_dir(scratch):
    """The kernel's tools/testing/kunit (kunit.py, kunit_parser.py): $KUNIT_DIR (a kernel
    tree's), or an installed linux-source (Debian's linux-source-*, unpacked, or its tarball,
    unpacked into `scratch`), else None."""
    import glob
    dirs = [os.environ["KUNIT_DIR"]] if os.environ.get("KUNIT_DIR") else []
    for p in dirs + sorted(glob.glob("/usr/src/linux-source-*/tools/testing/kunit")):
        if os.path.exists(os.path.join(p, "kunit_parser.py")):
            return p
    for tb in sorted(glob.glob("/usr/src/linux-source-*.tar.xz")):
        os.makedirs(scratch, exist_ok=True)
        # tar's own xz is several times faster than tarfile's (about 20 s for 140 MB).
        subprocess.run(["tar", "-xJf", tb, "-C", scratch, "--wildcards",
                        "*/tools/testing/kunit/*"], capture_output=True)
        found = glob.glob(os.path.join(scratch, "*", "tools", "testing", "kunit"))
        if found:
            return found[0]
    return None


def doc_scratch(prefix):
    """A scratch_dir for documents: (d, path, write), where path(name) is a file in d and
    write(name, doc) writes doc there as JSON and gives that path."""
    d = scratch_dir(prefix)

    def path(name):
        return os.path.join(d, name)

    def write(name, doc):
        with open(path(name), "w") as f:
            json.dump(doc, f)
        return path(name)

    return d, path, write


def scaled(doc, factor):
    """A copy of the run document `doc` as if every point ran `factor` times as fast: each
    sample's rate and each summary's per-container rate."""
    doc = copy.deepcopy(doc)
    for r in doc["results"]:
        r["summary"]["per_container_ops"] *= factor
        for c in r["per_container"]:
            for s in c["samples"]:
                s["ops_per_s"] *= factor
    return doc
