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


# ---- a busy host: a test that cannot decide says so (SKIP), it never fails on timing alone ----
# The rule for every check that depends on time or CPU (a rate, a precision reached within a
# time budget, a deadline): when it fails, look for a measurement that the host was too busy;
# with one, skip with it (Tap.busy); without one (a quiet host), fail.  Never skip a check that
# held, and never on the load average alone: it counts what waits, not what ran.

def loadavg():
    """/proc/loadavg's 1-minute figure and runnable/total ("3.48 (5 of 180 runnable)"), for a
    diagnostic only (it counts what waits, not what ran); '?' when unreadable."""
    try:
        with open("/proc/loadavg") as f:
            la = f.read().split()
        return f"{la[0]} ({la[3].replace('/', ' of ')} runnable)"
    except (OSError, IndexError):
        return "?"


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def _task_samples(p):
    """Per interval k, the cpu_share of every task of point `p` (None where one is unknown);
    [] for --threads tasks, whose share counts their own thread only (below 1 on a quiet host:
    it says nothing of the host)."""
    if p.get("mode") == "thread":
        return []
    tasks = [tk for c in p.get("per_container") or [] for tk in c.get("tasks") or []]
    n = min((len(tk.get("samples") or []) for tk in tasks), default=0)
    out = []
    for k in range(n):
        shares = [tk["samples"][k].get("cpu_share") for tk in tasks]
        out.append(None if None in shares else sum(shares))
    return out


def _fair_cpus(doc, p):
    """The CPUs a point's tasks can use when nothing else runs: the distinct CPUs they are
    pinned to, or the allowed set unpinned, and no more than there are tasks."""
    ntasks = sum(len(c.get("tasks") or [c]) for c in p.get("per_container") or [])
    pl = p.get("placement") or {}
    if pl.get("pinned") and pl.get("cpus"):
        cpus = pl["cpus"]
    else:
        cpus = len(((doc.get("config") or {}).get("pin") or {}).get("allowed") or []) or (
            os.cpu_count() or 1)
    return min(ntasks, cpus)


def _cpus_got(doc, p):
    """The CPUs a point's tasks used together (the sum of their cpu_share) as a fraction of
    _fair_cpus, in the median interval: about 1 on a quiet host whatever the number of tasks
    (taking turns moves time between tasks, not out of the point).  None when unknown."""
    fair = _fair_cpus(doc, p)
    return _median(x / fair for x in _task_samples(p) if x is not None) if fair else None


def _others_cpus(doc, p):
    """The CPUs the rest of the host used during point `p`, in its median interval: the host's
    busy CPUs (host_samples[k].idle_pct) less what the point's tasks used (their cpu_share).
    None when unknown."""
    ncpu = (doc.get("host") or {}).get("cpus_online") or os.cpu_count() or 1
    used = _task_samples(p)
    host = p.get("host_samples") or []
    return _median((100 - h["idle_pct"]) / 100 * ncpu - u for h, u in zip(host, used)
                   if h.get("idle_pct") is not None and u is not None)


BUSY_SHARE = 0.25  # the rest of the host used at least a quarter of its CPUs: busy


def busy_reason(doc, load=None):
    """Did the run of `doc` (a ucbench-result/1 document) measure that it did not get its CPUs?
    A short measured reason ("host busy: 4 of 6 points short of CPU ...") or None.
    The evidence is the document's own: points whose tasks were short of CPU (ucbench's
    contention.contended, or the CPUs they used together below config.contention_threshold of
    what they could use: _cpus_got, which also covers oversubscribed and unpinned points)
    while the rest of the host used at least BUSY_SHARE of its CPUs (_others_cpus: the host's
    busy time less the tasks' own, so a point that fills the CPUs itself is no evidence, nor
    is a check of the contended flag circular); late readings (ucbench itself waited);
    steal_pct_max >= 10 %; and, with `load` (a HostLoad started before the run), the CPU time
    other processes used meanwhile.  contention.starved is no evidence: few ops may be the
    workload's doing, not the host's."""
    why = []
    doc = doc or {}
    pts = [p for p in doc.get("results") or [] if p.get("contention")]
    th = (doc.get("config") or {}).get("contention_threshold") or 0.9
    ncpu = (doc.get("host") or {}).get("cpus_online") or os.cpu_count() or 1
    short = []
    for p in pts:
        got, others = _cpus_got(doc, p), _others_cpus(doc, p)
        if (p["contention"].get("contended") or (got is not None and got < th)) and (
                others is not None and others >= BUSY_SHARE * ncpu):
            short.append((got, others))
    if short:
        gots = sorted(g for g, _ in short if g is not None)
        span = (f", got {gots[0]:.2f}" + (f"-{gots[-1]:.2f}" if len(gots) > 1 else "")
                + " of their CPUs") if gots else ""
        most = max(o for _, o in short)
        why.append(f"{len(short)} of {len(pts)} points short of CPU{span}, the rest of the host "
                   f"used up to {most:.1f} of {ncpu} CPUs")
    late = sum(p["contention"].get("late_readings") or 0 for p in pts)
    if late:
        why.append(f"{late} late readings")
    steal = max((p["contention"].get("steal_pct_max") or 0 for p in pts), default=0)
    if steal >= 10:
        why.append(f"steal up to {steal:.0f} %")
    other = load.reason() if load is not None else None
    if other:
        why.append(other[len("host busy: "):])
    return "host busy: " + "; ".join(why) if why else None


class HostLoad:
    """The CPU time the rest of the machine used from start() (the constructor) to reason():
    /proc/stat's busy time (all but idle and iowait; steal counts: the hypervisor ran someone
    else) less this process's and its reaped children's.  A process of the run that was not
    reaped by a process of ours counts as "other": the reason errs towards busy, which only
    matters for a check that failed."""

    def __init__(self):
        self.start()

    @staticmethod
    def _read():
        try:
            with open("/proc/stat") as f:
                v = [int(x) for x in f.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        tm = os.times()
        hz = os.sysconf("SC_CLK_TCK")
        busy = (sum(v) - v[3] - v[4]) / hz
        return time.monotonic(), busy, tm.user + tm.system + tm.children_user + tm.children_system

    def start(self):
        self.t0 = self._read()
        return self

    def others(self):
        """(CPUs other processes used on average, seconds) since start(), or None."""
        t1 = self._read()
        if self.t0 is None or t1 is None or t1[0] <= self.t0[0]:
            return None
        wall = t1[0] - self.t0[0]
        return max(0.0, (t1[1] - self.t0[1]) - (t1[2] - self.t0[2])) / wall, wall

    def reason(self):
        """'host busy: other processes used 1.6 of 2 CPUs over 12.3 s (...)' or None."""
        o = self.others()
        ncpu = os.cpu_count() or 1
        if o is None or o[0] < BUSY_SHARE * ncpu:
            return None
        return (f"host busy: other processes used {o[0]:.1f} of {ncpu} CPUs over {o[1]:.1f} s"
                f", load average {loadavg()}")


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


# What one run left: its objects, made by its processes or owned by its owner uids, not "more
# than before" (other tests may make and remove their own meanwhile).
def shm_of(pids, uids):
    """SysV segments whose creator is one of `pids` or whose owner or creator uid is in `uids`."""
    with open("/proc/sysvipc/shm") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return {r[1] for r in rows if int(r[4]) in pids or int(r[7]) in uids or int(r[9]) in uids}


def mqueues_of(uids):
    """POSIX message queues (of the host's /dev/mqueue) owned by a uid in `uids`."""
    try:
        names = os.listdir("/dev/mqueue")
    except OSError:
        return set()
    out = set()
    for n in names:
        try:
            if os.stat(os.path.join("/dev/mqueue", n)).st_uid in uids:
                out.add(n)
        except OSError:
            pass
    return out


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


def all_userns_inodes():
    s = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s.add(os.stat(f"/proc/{d}/ns/user").st_ino)
            except OSError:
                pass
    return s


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


# What a run may leave in the kernel, found wherever it can be (kill-trials.py checks all of it
# after every trial).
def cgroup_mounts():
    """Mount points of every cgroup (v1) and cgroup2 hierarchy mounted here."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            fstype = fields[fields.index("-") + 1]
            if fstype in ("cgroup", "cgroup2"):
                out.append(fields[4].replace("\\040", " "))
    return out


def cgroup_layout():
    """(name, the unified hierarchy's mount or None) as ucbench sees /sys/fs/cgroup: unified,
    hybrid (v1 controllers and cgroup2 at /sys/fs/cgroup/unified), legacy or none."""
    mounts = cgroup_mounts()
    with open("/proc/self/mountinfo") as f:
        types = {ln.split(" - ")[0].split()[4]: ln.split(" - ")[1].split()[0] for ln in f}
    if types.get("/sys/fs/cgroup") == "cgroup2":
        return "unified", "/sys/fs/cgroup"
    if types.get("/sys/fs/cgroup/unified") == "cgroup2":
        return "hybrid", "/sys/fs/cgroup/unified"
    return ("legacy" if any(m.startswith("/sys/fs/cgroup/") for m in mounts) else "none"), None


def read_text(path):
    """A (kernel) file's text, stripped, or None when it cannot be read."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def write_text(path, text):
    """Write `text` to a (kernel) file: whether it took it."""
    try:
        with open(path, "w") as f:
            f.write(text)
        return True
    except OSError:
        return False

def cgroup_groups_of(pids, roots=None):
    """The cgroups of these ucbench runs in every hierarchy (or below `roots`), at any depth:
    ucbench-PID and its ucbench-PID-* leaves (the name is ucbench's pid), whatever other runs
    have made."""
    names = {f"ucbench-{q}" for q in pids}
    found = []
    for m in roots if roots is not None else cgroup_mounts():
        for root, dirs, _ in os.walk(m):
            for d in dirs:
                if d in names or d.rpartition("-")[0] in names:
                    found.append(os.path.join(root, d))
    return sorted(found)


def sysv_objects():
    """Every SysV shm segment, message queue and semaphore set of this IPC namespace."""
    out = []
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}") as f:
            out += [f"{kind} {' '.join(line.split()[:3])}" for line in f.readlines()[1:]]
    return out


def userns_held():
    """The inode of every user namespace a process is in or holds open (an fd), or that is
    bind-mounted here: what keeps a user namespace alive (lsns -t user, and its fd and mount
    holders)."""
    s = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        links = [f"/proc/{d}/ns/user"]
        try:
            links += [f"/proc/{d}/fd/{n}" for n in os.listdir(f"/proc/{d}/fd")]
        except OSError:
            pass
        for link in links:
            try:
                target = os.readlink(link)
            except OSError:
                continue
            if target.startswith("user:["):
                s.add(int(target[6:-1]))
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if fields[fields.index("-") + 1] == "nsfs" and fields[3].startswith("user:["):
                s.add(int(fields[3][6:-1]))
    return s


def own_cgroup_dirs(pid="self"):
    """mount point -> the directory of the cgroup `pid` is in, for every cgroup hierarchy
    mounted here (v1: the one whose controllers or name= match; v2: the 0:: line)."""
    with open(f"/proc/{pid}/cgroup") as f:
        lines = [line.rstrip("\n").split(":", 2) for line in f]
    out = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            fstype, root, mnt = fields[sep + 1], fields[3], fields[4].replace("\\040", " ")
            opts = set(fields[sep + 3].split(","))
            for _, ctrls, path in lines:
                if (fstype == "cgroup2" and ctrls == "") or (
                        fstype == "cgroup" and ctrls and set(ctrls.split(",")) <= opts):
                    rel = path[len(root):] if path.startswith(root) and root != "/" else path
                    out[mnt] = os.path.normpath(mnt + "/" + rel.lstrip("/"))
    return out
