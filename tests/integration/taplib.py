"""taplib.py - TAP output and process inspection shared by the integration tests."""
import atexit
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

    def diag(self, msg):
        for line in str(msg).splitlines():
            print(f"# {line}", flush=True)

    def done(self):
        print(f"1..{self.n}", flush=True)
        sys.exit(1 if self.failed else 0)


def skip_all(why):
    print(f"1..0 # SKIP {why}", flush=True)
    sys.exit(0)


def userns_works():
    """Can we make a user namespace at all? (the reliable probe: try it)."""
    r = subprocess.run(["unshare", "-U", "true"], capture_output=True)
    return r.returncode == 0


def run(args, **kw):
    return subprocess.run([UCBENCH] + args, capture_output=True, text=True, **kw)


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


def descendants(root):
    m = children_map()
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for c, pp in m.items():
            if pp == p:
                out.append(c)
                todo.append(c)
    return out


def tasks_of(root):
    return [p for p in descendants(root) if (comm(p) or "").startswith("ucb-task")]


def wait_for(pred, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
        return s[s.rindex(")") + 2] != "Z"
    except OSError:
        return False


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
