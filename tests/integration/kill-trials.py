# SPDX-License-Identifier: GPL-2.0-or-later
"""kill-trials.py - randomized kill trials: ucbench (run, verify) is sent SIGKILL, SIGINT or
SIGTERM at a random point, from its first millisecond (cgroup setup) to its document write,
and after every trial nothing may be left: no process, user namespace, POSIX queue, SysV
object, ucbench-<pid> cgroup, changed sysctl or temporary file, and --output is the old file
or a complete new document (issue 16).  A tenth of the trials with --output write it into a
FIFO a slow reader drains, a tenth onto a full filesystem (ENOSPC: the document must be kept in
the fallback file the error names, or not written at all when the kill came first), and a tenth
through a symlink of the caller's (the target is then the old file or the new document).

Seeded: the seed is the first TAP comment, and `--seed S --trial K` replays trial K exactly
(each trial's choices depend only on S and K).  The whole test runs in its own PID, IPC and
mount namespaces (it re-executes itself under unshare, with its own /proc, /tmp and mqueue
mount, and its own cgroup below which ucbench makes its groups), so every process, queue, SysV
object, group and temporary file it sees is a trial's, and other jobs on the machine can
neither disturb it nor be disturbed (--cgroup trials also take the host's cgroup test lock).
Options: --trials N (default $UCB_KILL_TRIALS or 50), --seed S, --trial K[,K..], --max-delay
SEC (default 3), --uid-base UID (each trial uses UID + SPAN x K, SPAN = 2500: verify takes 100
a case)."""
import argparse
import fcntl
import json
import math
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time

from taplib import (CGROUP_LOCK, DEADLINE, Tap, UCBENCH, _try_lock, cgroup_groups_of,
                    own_cgroup_dirs, require_root_userns, skip_all, sysv_objects, uid_block,
                    userns_held, wait_for)

INNER = "UCB_KILL_TRIALS_INNER"
LOCK_FD = "UCB_KILL_TRIALS_LOCK_FD"
HOST_PID = "UCB_KILL_TRIALS_HOST_PID"
SPAN = 2500
SIGNALS = (signal.SIGKILL, signal.SIGINT, signal.SIGTERM)
WORKLOADS = ("signal", "mqueue", "shmlock", "fork")
ISOLATE = ("user", "user,ipc", "user,ipc,pid", "user,ipc,pid,mnt,uts,net")
VERIFY_CASES = [f"ULIM-{i:02d}" for i in range(1, 21)]
# What ucbench may touch (src/verify/cases/ulim20.c writes the max_* of its own namespaces;
# the IPC limits are the ones its workloads and verify cases run into): all must stay as they
# were.  The kernel.* and fs.mqueue ones are this test's IPC namespace's.
SYSCTL_DIRS = ("/proc/sys/user", "/proc/sys/fs/mqueue")
SYSCTL_FILES = ["/proc/sys/kernel/" + n for n in (
    "msgmax", "msgmnb", "msgmni", "msg_next_id", "shmmax", "shmall", "shmmni", "shm_next_id",
    "shm_rmid_forced", "sem", "sem_next_id")]
MQUEUE_DIR = "/dev/mqueue" if os.path.isdir("/dev/mqueue") else "/tmp/.mqueue"


def options():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=int(os.environ.get("UCB_KILL_TRIALS", 50)))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--trial", default=None, help="only these trials (K[,K..]): a replay")
    ap.add_argument("--max-delay", type=float, default=3.0)
    ap.add_argument("--uid-base", type=int, default=None)
    return ap.parse_args()


# ---- outside: into our own namespaces ------------------------------------------------------

def reexec(opts):
    """Run this test again as PID 1 of new PID, IPC and mount namespaces (never returns)."""
    require_root_userns("needs root (owner uids, cgroups, namespaces)")
    probe = ["unshare", "--pid", "--ipc", "--mount", "--fork", "--mount-proc", "--kill-child"]
    try:
        r = subprocess.run(probe + ["true"], capture_output=True, text=True)
    except OSError as e:
        skip_all(f"unshare: {e}")
    if r.returncode != 0:
        skip_all(f"no own PID/IPC/mount namespaces here: {r.stderr.strip()}")
    argv = list(sys.argv[1:])
    if opts.seed is None:
        argv += ["--seed", str(random.SystemRandom().randrange(1, 2**31))]
    if opts.uid_base is None:
        n = max(opts.trials, max(trial_ids(opts)))
        argv += ["--uid-base", str(uid_block(2105000000, (n + 1) * SPAN, 10 * (n + 1) * SPAN))]
    env = dict(os.environ, **{INNER: "1", HOST_PID: str(os.getpid())})
    # The host's cgroup lock, taken around each --cgroup trial (our /tmp will be our own).
    try:
        f = open(CGROUP_LOCK, "a")
        os.set_inheritable(f.fileno(), True)
        env[LOCK_FD] = str(f.fileno())
    except OSError:
        pass
    sys.stdout.flush()
    os.execvpe("unshare", probe + [sys.executable, "-B", os.path.abspath(__file__)] + argv, env)


def trial_ids(opts):
    if opts.trial:
        return [int(k) for k in opts.trial.split(",")]
    return list(range(1, opts.trials + 1))


# ---- inside: the world of one trial --------------------------------------------------------

EXE = UCBENCH  # what the trials run: UCBENCH, or its copy in our /tmp (setup_namespaces)


def setup_namespaces():
    """Our own /tmp and mqueue mount; we are PID 1 of a new PID namespace.  ucbench must start
    as from a shell with job control: a test started with `&` (or under nohup) inherits
    SIGINT or SIGHUP ignored, and so would ucbench, which would then lose an early SIGINT."""
    if os.getpid() != 1:
        skip_all("not PID 1 after unshare --pid --fork")
    signal.signal(signal.SIGINT, signal.default_int_handler)  # handled: default after exec
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, signal.SIG_DFL)  # as PID 1, none is delivered to us from inside
    # A ucbench under /tmp (a checkout there) would be hidden by our own /tmp: keep a copy.
    global EXE
    real = os.path.realpath(shutil.which(UCBENCH) or UCBENCH)
    binary = None
    if real == "/tmp" or real.startswith("/tmp/"):
        with open(real, "rb") as f:
            binary = f.read()
    for cmd in (["mount", "-t", "tmpfs", "-o", "mode=1777", "ucb-kill-trials", "/tmp"],
                ["mkdir", "-p", MQUEUE_DIR],
                ["mount", "-t", "mqueue", "ucb-kill-trials", MQUEUE_DIR]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            skip_all(f"{' '.join(cmd)}: {r.stderr.strip()}")
    if binary is not None:
        os.makedirs("/tmp/.ucb-kill-trials-bin")
        EXE = "/tmp/.ucb-kill-trials-bin/ucbench"
        with open(EXE, "wb") as f:
            f.write(binary)
        os.chmod(EXE, 0o755)


def reap():
    """As PID 1 we inherit every orphan: reap them (only when no trial child is awaited)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def procs():
    """Every process in our PID namespace but us: what a trial left.  Zombies too: one not
    reaped yet still has its user namespace (reap() gets them: we are their parent)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue  # gone
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            cmd = ""  # going: still there
        out.append(f"{d} ({s[s.index('(') + 1:s.rindex(')')]}) {s[s.rindex(')') + 2]} {cmd}")
    return out


def sysctls():
    vals = {}
    files = list(SYSCTL_FILES)
    for d in SYSCTL_DIRS:
        files += [os.path.join(d, n) for n in sorted(os.listdir(d))]
    for p in files:
        try:
            with open(p) as f:
                vals[p] = f.read().strip()
        except OSError:
            pass
    return vals


def tmp_files(trial_dir):
    """Temporaries: /tmp/ucbench* (our /tmp is our own) and out.json.* / real.json.* next to
    --output (trial_dir, or its full/ filesystem)."""
    out = [os.path.join("/tmp", n) for n in os.listdir("/tmp") if n.startswith("ucbench")]
    for d in (trial_dir, os.path.join(trial_dir, "full")):
        if os.path.isdir(d):
            out += [os.path.join(d, n) for n in os.listdir(d)
                    if n.startswith(("out.json.", "real.json."))]
    return out


class OwnCgroups:
    """This test's own cgroup in every hierarchy, ucb-kill-trials-<host pid> below the one it
    was in: ucbench's groups go below it (its default parent is its own cgroup), and the pid
    in their name, a pid of our namespace, cannot clash with another run's on the host."""

    def __init__(self, t):
        self.back = {}  # our group -> the cgroup we came from
        name = f"ucb-kill-trials-{os.environ.get(HOST_PID, 'x')}"
        for mnt, d in own_cgroup_dirs().items():
            g = os.path.join(d, name)
            try:
                os.mkdir(g)
                for f in ("cpuset.cpus", "cpuset.mems"):  # v1 cpuset: empty until copied
                    if os.path.exists(os.path.join(g, f)):
                        with open(os.path.join(d, f)) as src, open(os.path.join(g, f), "w") as o:
                            o.write(src.read())
                with open(os.path.join(g, "cgroup.procs"), "w") as f:
                    f.write("0")
                self.back[g] = d
            except OSError as e:
                t.diag(f"{g}: {e}: ucbench-<pid> groups are looked for in {mnt} as a whole")
                try_rmdir(g)
                self.back[mnt] = None

    def leave(self):
        for g, d in self.back.items():
            if d is None:
                continue
            try:
                with open(os.path.join(d, "cgroup.procs"), "w") as f:
                    f.write("0")
            except OSError:
                pass
            rmdir_tree(g)


class World:
    """What must be as it was after every trial, and how to put it back."""

    def __init__(self, cgroups):
        self.cgroup_roots = list(cgroups.back)
        self.sysctl = sysctls()
        self.userns = userns_held()
        self.nsfs = nsfs_mounts()

    def left(self, pid, trial_dir):
        """Everything trial `pid` (ucbench's pid, the name of its cgroups) left, by kind."""
        now = sysctls()
        found = {
            "process": procs(),
            "userns": sorted(f"user:[{i}]" for i in userns_held() - self.userns),
            "mqueue": sorted(os.listdir(MQUEUE_DIR)),
            "sysv": sysv_objects(),
            "cgroup": cgroup_groups_of([pid], self.cgroup_roots),
            "sysctl": [f"{k}: {self.sysctl.get(k)} -> {v}" for k, v in now.items()
                       if self.sysctl.get(k) != v],
            "tmpfile": tmp_files(trial_dir),
        }
        return {k: v for k, v in found.items() if v}

    def clean(self, left, trial_dir):
        """Remove what a trial left, so the next one starts clean (after it was reported)."""
        for line in left.get("process", []):
            try:
                os.kill(int(line.split()[0]), signal.SIGKILL)
            except OSError:
                pass
        wait_for(lambda: (reap(), not procs())[1])
        if left.get("sysv"):
            subprocess.run(["ipcrm", "--all"], capture_output=True)
        for m in nsfs_mounts() - self.nsfs:
            subprocess.run(["umount", m], capture_output=True)
        for n in os.listdir(MQUEUE_DIR):
            os.unlink(os.path.join(MQUEUE_DIR, n))
        for g in left.get("cgroup", []):
            rmdir_tree(g)
        for k, v in self.sysctl.items():
            if sysctls().get(k) != v:
                try:
                    with open(k, "w") as f:
                        f.write(v)
                except OSError:
                    pass  # reported; the next trials will report it too
        for p in tmp_files(trial_dir):
            subprocess.run(["rm", "-rf", p])


def nsfs_mounts():
    """Mount points of namespace files (what holds a namespace with no process in it)."""
    with open("/proc/self/mountinfo") as f:
        return {ln.split()[4] for ln in f if ln.split()[ln.split().index("-") + 1] == "nsfs"}


def rmdir_tree(g):
    for root, dirs, _ in os.walk(g, topdown=False):
        for d in dirs:
            try_rmdir(os.path.join(root, d))
    try_rmdir(g)


def try_rmdir(d):
    try:
        os.rmdir(d)
    except OSError:
        pass


# ---- the trials ----------------------------------------------------------------------------

def log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def make_trial(seed, k, uid_base, max_delay, trial_dir):
    """Trial k of seed: (ucbench argv, signal, when): when is a delay in seconds after exec,
    or ("tmp", after): at the first out.json.* temporary seen `after` seconds in."""
    rng = random.Random(f"{seed}/{k}")
    uid = str(uid_base + SPAN * k)
    out = os.path.join(trial_dir, "out.json")
    cgroup = False
    if rng.random() < 0.2:
        cases = [] if rng.random() < 0.3 else sorted(rng.sample(VERIFY_CASES, rng.randint(1, 3)))
        argv = ["verify", "limits"] + cases + ["--uid-base", uid]  # [] = every case
        length = 0.05 * (len(cases) or len(VERIFY_CASES))
        if rng.random() < 0.5:
            argv.append("--keep-going")
    else:
        wl = rng.choice(WORKLOADS)
        isolate = rng.choice(ISOLATE)
        if wl in ("mqueue", "shmlock") and "ipc" not in isolate:  # needs_ipc_ns
            isolate = "user,ipc"
        duration, warmup = round(rng.uniform(0.2, 1.0), 2), round(rng.uniform(0.1, 0.3), 2)
        argv = ["run", "--workload", wl, "--containers", str(round(log_uniform(rng, 1, 64))),
                "--owner", rng.choice(("shared", "distinct")), "--depth",
                str(rng.randint(1, 4)), "--tasks", str(rng.randint(1, 2)), "--isolate", isolate,
                "--duration", str(duration), "--warmup", str(warmup), "--interval", "0.1",
                "--uid-base", uid]
        length = duration + warmup
        if rng.random() < 0.4:
            cgroup = True
            argv.append("--cgroup")
            if rng.random() < 0.5:
                argv.append("--cpuset")
        if rng.random() < 0.2:
            argv += ["--seccomp", "docker"]
        if rng.random() < 0.5:
            argv.append("--quiet")
    has_out = rng.random() < 0.7
    if has_out:
        argv += ["--output", out]
    old = has_out and rng.random() < 0.5
    sig = rng.choice(SIGNALS)
    r = rng.random()
    if has_out and r < 0.1:
        when = ("tmp", 0.0 if rng.random() < 0.3 else 0.8 * length)
    elif r < (0.5 if cgroup else 0.25):
        when = rng.uniform(0.0, 0.010)  # the first 10 ms: setup before any handler
    else:
        when = log_uniform(rng, 0.001, max_delay)
        # A third of the other --cgroup trials: the moment ucbench-<pid> appears (the window
        # before its guard exists), from a stream of its own (the other trials stay the same).
        if cgroup and random.Random(f"{seed}/{k}/group").random() < 0.33:
            when = ("group", 0.0)
    # What --output is, from a stream of its own (the other choices stay the same).
    r = random.Random(f"{seed}/{k}/out").random()
    kind = (None if not has_out else "fifo" if r < 0.1 else "enospc" if r < 0.2
            else "link" if r < 0.3 else "file")
    if kind == "enospc":
        argv[argv.index(out)] = os.path.join(trial_dir, "full", "out.json")
    return argv, sig, when, old, kind


class OutputKind:
    """--output as a FIFO a slow reader drains, on a full tmpfs, or through the caller's own
    symlink; check() says what is wrong with it after the trial (None: nothing)."""

    def __init__(self, kind, trial_dir, old):
        self.kind, self.dir, self.old = kind, trial_dir, old
        self.out = os.path.join(trial_dir, "out.json")
        self.got = bytearray()
        self.fd = None
        if kind == "fifo":
            os.mkfifo(self.out)
            self.fd = os.open(self.out, os.O_RDONLY | os.O_NONBLOCK)
        elif kind == "enospc":
            full = os.path.join(trial_dir, "full")
            os.mkdir(full)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full], check=True)
            with open(os.path.join(full, "filler"), "wb") as f:
                try:
                    f.write(b"x" * 65536 * 2)
                except OSError:
                    pass
        elif kind == "link":
            os.symlink("real.json", self.out)

    def drain(self):
        """Read what the FIFO has now, slowly: a few KiB each call."""
        if self.fd is None:
            return
        try:
            self.got += os.read(self.fd, 4096)
        except BlockingIOError:
            pass

    def check(self, err, sig):
        if self.kind == "fifo":
            while True:  # ucbench is gone: the rest, then EOF
                try:
                    b = os.read(self.fd, 65536)
                except BlockingIOError:
                    break
                if not b:
                    break
                self.got += b
            os.close(self.fd)
            if not self.got:
                return None
            try:
                doc = json.loads(self.got)
            except ValueError:
                # A document cut short by the kill is what a pipe's reader can get; a
                # refusal or an error must say so.
                return (None if sig == signal.SIGKILL or "interrupted" in err else
                        f"the FIFO got a torn document ({len(self.got)} bytes): {err[-200:]}")
            return None if doc.get("schema") == "ucbench-result/1" else "the FIFO got no document"
        if self.kind == "enospc":
            torn = output_problem(os.path.join(self.dir, "full", "out.json"), False)
            if torn:
                return torn
            kept = [n for n in os.listdir(self.dir) if n.startswith("ucbench-")]
            for n in kept:
                if output_problem(os.path.join(self.dir, n), False):
                    return f"the kept {n} is not a complete document"
            if "saved to" in err and not kept:
                return f"the error names a kept document that is not there: {err[-200:]}"
            return None
        if self.kind == "link":
            if not os.path.islink(self.out):
                return "the symlink --output was replaced instead of its target written"
            return output_problem(os.path.join(self.dir, "real.json"), self.old)
        return output_problem(self.out, self.old)

    def close(self):
        if self.kind == "enospc":
            subprocess.run(["umount", "-l", os.path.join(self.dir, "full")], capture_output=True)


def describe(argv, sig, when):
    if isinstance(when, tuple) and when[0] == "group":
        at = "as its ucbench-<pid> group appears"
    elif isinstance(when, tuple):
        at = f"at the first out.json.* after {when[1]:.2f} s"
    else:
        at = f"after {when * 1000:.1f} ms"
    return f"{signal.Signals(sig).name} {at}: ucbench {shlex.join(argv)}"


def by_hand(argv, sig, when):
    kill = f"kill -{signal.Signals(sig).name[3:]} $!"
    if isinstance(when, tuple) and when[0] == "group":
        return (f"{UCBENCH} {shlex.join(argv)} & then {kill} as soon as ucbench-$! appears in "
                "its cgroup (or strace -e inject=mkdir:delay_exit=..., issue 16 item 1)")
    if isinstance(when, tuple):
        return (f"{UCBENCH} {shlex.join(argv)} & then {kill} as soon as an out.json.* "
                f"appears after {when[1]:.2f} s")
    return f"{UCBENCH} {shlex.join(argv)} & sleep {when:.4f}; {kill}"


def signal_at(p, sig, when, trial_dir, cgroup_roots, drain):
    """Send `sig` to ucbench at `when`: whether it was still running then, and when it was
    sent (seconds after exec; later than `when` on a loaded machine).  drain() reads a FIFO
    --output meanwhile."""
    t0 = time.monotonic()
    if isinstance(when, tuple) and when[0] == "group":
        groups = [os.path.join(r, f"ucbench-{p.pid}") for r in cgroup_roots]
        while p.poll() is None and time.monotonic() < t0 + 10:
            if any(os.path.isdir(g) for g in groups):
                break
    elif isinstance(when, tuple):
        # A busy poll: the temporary lives for microseconds on a tmpfs.
        end = t0 + when[1] + 10
        while p.poll() is None and time.monotonic() < end:
            if time.monotonic() - t0 >= when[1] and any(
                    n.startswith("out.json.") for n in os.listdir(trial_dir)):
                break
    else:
        while time.monotonic() < t0 + when:
            drain()
            time.sleep(max(0.0, min(0.01, t0 + when - time.monotonic())))
    if p.poll() is not None:
        return False, None
    os.kill(p.pid, sig)
    return True, time.monotonic() - t0


OLD_DOC = '{"schema": "an older file the trial must not tear"}\n'


def output_problem(path, old):
    """None if --output is absent (no old one), the old file, or a complete document."""
    if not os.path.exists(path):
        return "the old --output is gone" if old else None
    with open(path) as f:
        text = f.read()
    if old and text == OLD_DOC:
        return None
    try:
        doc = json.loads(text)
    except ValueError as e:
        return f"--output is not a complete JSON document ({len(text)} bytes): {e}"
    if not (isinstance(doc, dict) and doc.get("schema") == "ucbench-result/1"):
        return f"--output is JSON but not a result document: {text[:80]!r}"
    return None


class CgroupLock:
    """The host's CGROUP_LOCK (an fd the outer process opened), around --cgroup trials."""

    def __init__(self, t):
        fd = os.environ.get(LOCK_FD)
        self.f = os.fdopen(int(fd), "a") if fd else None
        self.t = t
        self.waited = 0.0

    def take(self):
        t0 = time.monotonic()
        if self.f and not wait_for(lambda: _try_lock(fcntl, self.f), 900, 0.1):
            self.t.diag(f"{CGROUP_LOCK} still held after 900 s: going on without it")
        self.waited += time.monotonic() - t0

    def drop(self):
        if self.f:
            fcntl.flock(self.f, fcntl.LOCK_UN)


def run_trial(t, world, lock, opts, k, stats):
    trial_dir = f"/tmp/ucb-kill-trial-{k}"
    os.makedirs(trial_dir)
    argv, sig, when, old, kind = make_trial(opts.seed, k, opts.uid_base, opts.max_delay,
                                            trial_dir)
    what = describe(argv, sig, when)
    cgroup = "--cgroup" in argv
    if old and kind in ("file", "link"):
        with open(os.path.join(trial_dir, "out.json" if kind == "file" else "real.json"),
                  "w") as f:
            f.write(OLD_DOC)
    outk = OutputKind(kind, trial_dir, old and kind in ("file", "link"))
    if cgroup:
        lock.take()
    try:
        with open(f"/tmp/ucb-kill-trial-{k}.log", "w+") as log:
            # cwd: where a document kept after a failed --output goes first.
            p = subprocess.Popen([EXE] + argv, stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=log, cwd=trial_dir)
            sent, at = signal_at(p, sig, when, trial_dir, world.cgroup_roots, outk.drain)
            hung = f"ucbench still running {DEADLINE} s after the signal"
            end = time.monotonic() + DEADLINE
            while time.monotonic() < end and p.poll() is None:
                outk.drain()
                time.sleep(0.01)
            if p.poll() is None:
                p.kill()
            else:
                hung = None
            rc = p.wait()
            log.seek(0)
            err = log.read()
        # Nothing left can go away once no process is left: wait for that, then look.
        wait_for(lambda: (reap(), not procs())[1])
        left = world.left(p.pid, trial_dir)
        problems = [x for x in (hung, outk.check(err, sig)) if x]
        outk.close()
        if not sent and rc == 2:
            problems.append(f"ended by itself with status 2 (a bad trial command): {err[-300:]}")
        stats.record(k, sent, rc, left, problems, sig, err)
        late = sent and (isinstance(when, tuple) or at - when > max(0.002, when / 2))
        name = (f"{opts.seed}/{k} {what} (status {rc}"
                f"{f', sent at {at * 1000:.1f} ms' if late else ''}"
                f"{'' if sent else ', ended before the signal'})")
        diag = [f"{kind} left: {item}" for kind, items in left.items() for item in items]
        diag += problems
        if diag:
            diag += [f"ucbench printed: {err.strip()[-500:]}" if err.strip() else
                     "ucbench printed nothing",
                     f"replay: UCBENCH={shlex.quote(UCBENCH)} "
                     f"{shlex.join([sys.executable, '-B', os.path.abspath(__file__)])} "
                     f"--seed {opts.seed} --trial {k} --uid-base {opts.uid_base}",
                     f"by hand (in fresh namespaces): {by_hand(argv, sig, when)}"]
        t.ok(not diag, name, "\n".join(diag))
        world.clean(left, trial_dir)
    finally:
        if cgroup:
            lock.drop()
    subprocess.run(["rm", "-rf", trial_dir, f"/tmp/ucb-kill-trial-{k}.log"])


def self_check(t, world):
    """Every check can fail: plant one leftover of each kind, as a trial could leave it, and
    see it found, then removed by clean().  ucbench-0 (below our own cgroup) is a group no real
    run can own."""
    d = "/tmp/ucb-kill-trial-0"
    os.makedirs(d)
    planted = {"process": "a sleeping process", "userns": "a user namespace held by an fd, "
               "with no process in it", "mqueue": "a POSIX queue", "sysv": "a SysV segment",
               "cgroup": "an empty ucbench-0 group", "sysctl": "fs.mqueue.msg_max + 1",
               "tmpfile": "out.json.XXXXXX next to --output"}
    try:
        sleeper = subprocess.Popen(["sleep", "60"])
        userns = subprocess.Popen(["unshare", "--user", "sleep", "60"])
        mine = os.readlink("/proc/self/ns/user")
        wait_for(lambda: os.readlink(f"/proc/{userns.pid}/ns/user") != mine)
        nsfd = os.open(f"/proc/{userns.pid}/ns/user", os.O_RDONLY)
        userns.kill()
        userns.wait()
        open(os.path.join(MQUEUE_DIR, "ucb-planted"), "w").close()
        subprocess.run(["ipcmk", "-M", "4096"], check=True, capture_output=True)
        if world.cgroup_roots:
            os.mkdir(os.path.join(world.cgroup_roots[0], "ucbench-0"))
        else:
            del planted["cgroup"]
        with open("/proc/sys/fs/mqueue/msg_max") as f:
            v = int(f.read())
        with open("/proc/sys/fs/mqueue/msg_max", "w") as f:
            f.write(str(v + 1))
        open(os.path.join(d, "out.json.Xy12Ab"), "w").close()
        left = world.left(0, d)
        for kind, what in planted.items():
            t.ok(left.get(kind), f"self-check: {what} is found as a {kind} leftover", left)
        with open(os.path.join(d, "out.json"), "w") as f:
            f.write(OLD_DOC[:-9])
        t.ok(output_problem(os.path.join(d, "out.json"), True)
             and output_problem(os.path.join(d, "none"), True),
             "self-check: a torn --output and a lost old one are found")
        t.ok("process" in left and len(left["process"]) == 1 and str(sleeper.pid) in
             left["process"][0], "self-check: the userns holder (this test) is no process "
             "left, the sleeper is", left)
        os.close(nsfd)  # what holds it is this test, which clean() cannot kill
        world.clean(left, d)
        sleeper.wait()
        t.ok(not world.left(0, d), "self-check: clean() removes every planted leftover",
             world.left(0, d))
    finally:
        subprocess.run(["rm", "-rf", d])


class Stats:
    def __init__(self):
        self.kinds = {}
        self.status = {}
        self.errors = {}

    def record(self, k, sent, rc, left, problems, sig, err):
        if rc > 0 and rc != 128 + sig:  # a failed command tests less: say how often, and why
            why = (err.strip().splitlines() or ["(nothing printed)"])[-1][:120]
            self.errors[why] = self.errors.get(why, 0) + 1
        for kind in list(left) + (["output/hang/command"] if problems else []):
            self.kinds.setdefault(kind, []).append(k)
        key = str(rc) if sent else f"{rc} (ended before the signal)"
        self.status[key] = self.status.get(key, 0) + 1

    def report(self, t):
        t.diag("exit statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.status.items())))
        for kind, ks in sorted(self.kinds.items()):
            t.diag(f"{kind} left by {len(ks)} trial(s): {', '.join(map(str, ks))}")
        for why, n in sorted(self.errors.items()):
            t.diag(f"{n} trial(s) failed by themselves: {why}")


def main():
    opts = options()
    if os.environ.get(INNER) != "1":
        reexec(opts)
    setup_namespaces()
    t = Tap()
    t.diag(f"seed {opts.seed} (replay: --seed {opts.seed}; one trial: --trial K), "
           f"uid base {opts.uid_base}, max delay {opts.max_delay} s")
    cgroups = OwnCgroups(t)
    try:
        world = World(cgroups)
        lock = CgroupLock(t)
        stats = Stats()
        if not opts.trial:
            self_check(t, world)
        t0 = time.monotonic()
        for k in trial_ids(opts):
            run_trial(t, world, lock, opts, k, stats)
    finally:
        cgroups.leave()
    stats.report(t)
    t.diag(f"{len(trial_ids(opts))} trials in {time.monotonic() - t0:.0f} s, "
           f"{lock.waited:.0f} s of it waiting for {CGROUP_LOCK} (other tests' cgroup runs)")
    t.done()


main()
