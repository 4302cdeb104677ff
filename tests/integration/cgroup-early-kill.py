# SPDX-License-Identifier: GPL-2.0-or-later
"""cgroup-early-kill.py - `run --cgroup` killed while it sets its groups up leaves nothing
(issue 16 item 1): no ucbench-<pid> group in any hierarchy, every cgroup.subtree_control as
before, no janitor left.

strace holds ucbench at the entry or the exit of one mkdir (`-e inject=mkdir:delay_enter=...`,
`delay_exit`), so the kill lands exactly there: before and after each group (every hierarchy,
ucbench's own leaf, a container's group), after the subtree_control writes that precede a
group.  Then strace is killed, which releases ucbench where it was held: a SIGKILL ends it
there, a SIGTERM (before ucbench has handlers of its own, but for the container's group) as the
held syscall returns.  On the host layout, and on pure cgroup v2 in a delegated scope (cgroup2
mounted over /sys/fs/cgroup in a mount namespace of its own), where ucbench and its janitor
move into a leaf."""
import ctypes
import os
import re
import shutil
import signal
import subprocess
import time

from taplib import (DEADLINE, UCBENCH, Tap, cgroup_layout, cgroup_lock, cgroup_mounts, read_text,
                    scratch_dir, skip_all, uid_block, userns_works, wait_for, write_text)

if os.geteuid() != 0 or not userns_works():
    skip_all("needs root and user namespaces (ucbench run --cgroup)")
# LeakSanitizer cannot work under ptrace (an ASan build aborts at exit when strace holds it):
# off for this test's runs, which check leftovers and exit statuses; the others check leaks.
os.environ["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
if shutil.which("strace") is None:
    skip_all("strace is missing (scripts/quickstart check installs it)")

MKDIR = re.compile(r'^(mkdir(?:at)?)\((?:AT_FDCWD, )?"([^"]*)"[^=]*= (-?\d+)')
DELAY_US = 20000000  # held this long at the point: longer than any wait for it, so it is there
PR_SET_CHILD_SUBREAPER = 36
UID = str(uid_block(2150000000, 10, room=100000))  # one owner uid, shared


def leftovers(pid):
    """The groups of ucbench `pid` (ucbench-PID, ucbench-PID-self) in any hierarchy."""
    names = (f"ucbench-{pid}", f"ucbench-{pid}-self")
    found = []
    for m in cgroup_mounts():
        for d, subs, _ in os.walk(m):
            for s in list(subs):
                if s in names:
                    found.append(os.path.join(d, s))
                    subs.remove(s)
    return found


def remove_group(d):
    """Kill what is in the tree and remove it bottom-up: after a failed check, for the next."""
    for _ in range(200):
        pids = []
        for sub, _, _ in os.walk(d):
            pids += (read_text(os.path.join(sub, "cgroup.procs")) or "").split()
        if not pids:
            break
        for q in pids:
            try:
                os.kill(int(q), signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
    for sub, _, _ in sorted(os.walk(d), key=lambda w: -w[0].count("/")):
        wait_for(lambda: _rmdir(sub), 5, 0.01)


def _rmdir(d):
    try:
        os.rmdir(d)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def restore_subtree(d, before):
    for c in (read_text(os.path.join(d, "cgroup.subtree_control")) or "").split():
        if c not in before.split():
            write_text(os.path.join(d, "cgroup.subtree_control"), f"-{c}")


def hugetlb_file():
    """hugetlb.<size>.max of the smallest huge page size, or None."""
    sizes = []
    for n in os.listdir("/sys/kernel/mm/hugepages") if os.path.isdir(
            "/sys/kernel/mm/hugepages") else []:
        m = re.match(r"hugepages-(\d+)kB$", n)
        if m:
            sizes.append(int(m.group(1)))
    if not sizes:
        return None
    kb = min(sizes)
    unit = "GB" if kb >= 1 << 20 else "MB" if kb >= 1 << 10 else "KB"
    return f"hugetlb.{kb >> (20 if unit == 'GB' else 10 if unit == 'MB' else 0)}{unit}.max"


class Scenario:
    """One way to start ucbench: `argv` (with a %PIDFILE% and %UID%) run by strace."""

    def __init__(self, name, ucb_args, v2_root, scope=None, prefix=()):
        self.name, self.ucb_args, self.v2_root, self.scope = name, ucb_args, v2_root, scope
        self.prefix = list(prefix)  # what runs strace: `unshare -m sh -c 'mount ...; exec "$@"'`

    def command(self, d, inject):
        pidfile = os.path.join(d, "pid")
        join = f"echo $$ > {self.scope[1]}/cgroup.procs && " if self.scope else ""
        ucb = " ".join([UCBENCH, "run"] + self.ucb_args + ["--uid-base", UID, "--quiet"])
        inner = f"{join}echo $$ > {pidfile} && exec {ucb} >/dev/null 2>&1"
        strace = ["strace", "-o", os.path.join(d, "trace"), "-e", "trace=mkdir,mkdirat"]
        if inject:
            strace += ["-e", f"inject={inject}"]
        return self.prefix + strace + ["sh", "-c", inner], pidfile


def mkdirs(trace):
    """[(syscall, its count among those, path, result)] of a strace log."""
    out, seen = [], {}
    for line in (trace or "").splitlines():
        m = MKDIR.match(line)
        if m:
            seen[m.group(1)] = seen.get(m.group(1), 0) + 1
            out.append((m.group(1), seen[m.group(1)], m.group(2), int(m.group(3))))
    return out


def reached(d, sc, k, when):
    """strace holds ucbench at the entry (printed, not finished) or the exit (DELAYED) of the
    k-th `sc`."""
    lines = [ln for ln in (read_text(os.path.join(d, "trace")) or "").split("\n")
             if ln.startswith(sc + "(")]
    return len(lines) >= k and (when == "enter" or "(DELAYED)" in lines[k - 1])


def points(s, t, d):
    """A run of `s` to its end under strace: the mkdirs of its groups, where to kill."""
    argv, pidfile = s.command(d, None)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    pid = read_text(pidfile)
    made = mkdirs(read_text(os.path.join(d, "trace")))
    ours = [(sc, k, p) for sc, k, p, rc in made
            if rc == 0 and pid and re.search(rf"/ucbench-{pid}(-self)?(/c\d+)?$", p)]
    if not t.ok(r.returncode == 0 and ours, f"{s.name}: a run to its end makes its groups",
                f"rc {r.returncode}: {r.stderr}\n{made}"):
        return []
    # Before each group (after what precedes it: the subtree_control writes) and after it;
    # after the first container's group.  SIGTERM held at an entry is taken as the syscall
    # returns, the same point as the exit: SIGKILL alone there.
    out = []
    for sc, k, p in ours:
        where = p.replace(f"ucbench-{pid}", "ucbench-PID")
        container = re.search(r"/c\d+$", p)
        if not container:
            out.append((sc, k, "enter", where, (signal.SIGKILL,)))
        out.append((sc, k, "exit", where, (signal.SIGKILL, signal.SIGTERM)))
        if container:
            break
    return out


def state_clean(s, pid, before):
    """What is left of ucbench `pid`: [] once everything is back."""
    left = leftovers(pid)
    if s.v2_root and (read_text(f"{s.v2_root}/cgroup.subtree_control") or "") != before:
        left.append(f"{s.v2_root}/cgroup.subtree_control: "
                    f"{read_text(f'{s.v2_root}/cgroup.subtree_control')!r}, was {before!r}")
    if s.scope:
        x = s.scope[0]
        if read_text(f"{x}/cgroup.subtree_control"):
            left.append(f"{x}/cgroup.subtree_control: {read_text(f'{x}/cgroup.subtree_control')!r}")
        if read_text(f"{x}/cgroup.procs"):
            left.append(f"{x}/cgroup.procs: {read_text(f'{x}/cgroup.procs')!r}")
    for q in janitors():
        left.append(f"janitor {q} still running")
    return left


def janitors():
    """Our orphans (we are their subreaper) that are janitors; the dead ones reaped."""
    me = os.getpid()
    kids = read_text(f"/proc/{me}/task/{me}/children")
    if kids is None:  # a kernel without CONFIG_PROC_CHILDREN: look at every process
        kids = " ".join(d for d in os.listdir("/proc") if d.isdigit())
    out = []
    for d in kids.split():
        st = read_text(f"/proc/{d}/stat") or ""
        f = st[st.rfind(")") + 2:].split()
        if len(f) > 1 and int(f[1]) == me and "(ucb-cg-janitor)" in st:
            if f[0] == "Z":
                os.waitpid(int(d), os.WNOHANG)
            else:
                out.append(int(d))
    return out


def trial(t, s, point, sig, before, deadline):
    sc, k, when, where, _ = point
    d = scratch_dir("ucb-cgkill-")
    argv, pidfile = s.command(d, f"{sc}:delay_{when}={DELAY_US}:when={k}")
    name = f"{s.name}: {signal.Signals(sig).name} at the {when} of {sc} #{k} ({where})"
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ok = wait_for(lambda: read_text(pidfile) and reached(d, sc, k, when))
    pid = int(read_text(pidfile) or 0)
    if pid:
        os.kill(pid, sig)
    # strace goes too: ucbench, detached, takes the signal where it was held, now.
    p.kill()
    p.communicate()
    t0 = time.monotonic()
    left = (wait_for(lambda: pid and not state_clean(s, pid, before), deadline)
            or state_clean(s, pid, before))
    good = t.ok(ok and pid and left is True, name,
                f"point reached: {bool(ok)}, pid {pid}\n"
                f"left after {time.monotonic() - t0:.1f} s: {left}"
                + (f"\nstrace log:\n{read_text(os.path.join(d, 'trace'))}" if not ok else ""))
    if not good:
        cleanup(s, pid, before)
    return good


def cleanup(s, pid, before):
    """After a failed trial: put the host back for the next one."""
    for q in janitors():
        os.kill(q, signal.SIGKILL)
    if pid:
        for g in leftovers(pid):
            remove_group(g)
        if s.v2_root:
            restore_subtree(s.v2_root, before)
        if s.scope:
            restore_subtree(s.scope[0], "")


def scenarios():
    """The host layout (v1 hierarchies + v2 where there are) and pure v2 in a scope."""
    name, v2_root = cgroup_layout()
    out = []
    v2_ctrls = (read_text(f"{v2_root}/cgroup.controllers") or "").split() if v2_root else []
    hfile = hugetlb_file()
    if name in ("hybrid", "legacy"):
        args = ["--containers", "1", "--owner", "shared", "--duration", "0.3", "--interval",
                "0.1", "--cgroup", "--cpuset"]
        if "hugetlb" in v2_ctrls and hfile:  # hybrid: a subtree_control of the v2 root too
            args += ["--cgroup-set", f"{hfile}=max"]
        out.append(Scenario(f"{name} layout", args, v2_root))
    if v2_root:
        # A controller ucbench enables from the v2 root down: pids on pure v2 hosts, hugetlb
        # where pids is bound to v1.
        ctl = (["--pids-max", "64"] if "pids" in v2_ctrls else
               ["--cgroup-set", f"{hfile}=max"] if "hugetlb" in v2_ctrls and hfile else None)
        x = f"{v2_root}/ucbtest-early-{os.getpid()}-scope"
        mount = "" if name == "unified" else "mount -t cgroup2 none /sys/fs/cgroup && "
        prefix = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                  mount + 'exec "$@"', "sh"]
        if ctl:
            out.append(Scenario("pure v2 scope", ["--containers", "1", "--owner", "shared",
                                                  "--duration", "0.3", "--interval", "0.1",
                                                  "--cgroup"] + ctl, v2_root,
                                (x, f"/sys/fs/cgroup/ucbtest-early-{os.getpid()}-scope"),
                                prefix))
    return out


def writable(v2_root):
    probe = f"{v2_root or '/sys/fs/cgroup/pids'}/ucbench-t{os.getpid()}"
    try:
        os.mkdir(probe)
        os.rmdir(probe)
        return True
    except OSError:
        return False


def main():
    name, v2_root = cgroup_layout()
    if name == "none" or not writable(v2_root):
        skip_all(f"cgroups are not writable here ({name} layout)")
    t = Tap()
    lock = cgroup_lock(t)  # noqa: F841 (held to the end: we change subtree_control)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    before = (read_text(f"{v2_root}/cgroup.subtree_control") or "") if v2_root else ""
    t0 = time.monotonic()
    passed = True
    for s in scenarios():
        if s.scope:
            os.mkdir(s.scope[0])
            try:
                os.setxattr(s.scope[0], "trusted.delegate", b"1")  # as systemd's Delegate=yes
            except OSError:
                pass
        try:
            pts = points(s, t, scratch_dir("ucb-cgkill-ref-"))
            t.diag(f"{s.name}: {len(pts)} points: "
                   + ", ".join(f"{w} {p}" for _, _, w, p, _ in pts))
            for pt in pts:
                for sig in pt[4]:
                    # The janitor takes milliseconds; once one trial failed, the test has
                    # failed, and a broken janitor should not make it take many minutes.
                    if not trial(t, s, pt, sig, before, DEADLINE if passed else 10):
                        passed = False
        finally:
            if s.scope:
                remove_group(s.scope[0])
                restore_subtree(v2_root, before)
    if t.n == 0:
        t.skip("early kills", "no cgroup layout to try here")
    t.diag(f"took {time.monotonic() - t0:.1f} s")
    t.done()


main()
