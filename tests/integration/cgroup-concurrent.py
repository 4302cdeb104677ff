# SPDX-License-Identifier: GPL-2.0-or-later
"""cgroup-concurrent.py - concurrent `run --cgroup` runs leave the cgroup tree exactly as it was
(issue 25 item 5): pairs of runs started at the same instant, each enabling a v2 controller from
the root down, then every cgroup.subtree_control and ucbench's record (the user.ucbench.enabled
or trusted.ucbench.enabled xattr) on the levels used compared with before, and no ucbench-PID
group left in any hierarchy.  Run A enables a controller, run B finds it enabled: whoever
leaves last must disable it, and a controller enabled before any ucbench stays.

Pairs: both in the test's own cgroup (`--cgroup`), both under one PARENT (`--cgroup=P`, so two
levels), one of each (different parents, one root), each alone in a scope of its own under a
common group (ucbench and its janitor move into X/ucbench-PID-self), pairs of those where one
run is SIGKILLed at a random moment (its janitor undoes its part), and pairs under PARENT where
an administrator enabled the controller first (it stays).  UCB_CG_PAIRS sets the number of
pairs of each kind (default 5, and 2 of each killed kind and of the last).

Its own groups (ucbtest-conc-PID and ucbtest-conc-PID-scopes under the cgroup2 root, and
ucbtest-conc-PID in each v1 hierarchy) are removed on every way out but SIGKILL; at its start it
removes the empty ones a killed run of it left (whose PID no longer runs this test)."""
import ctypes
import fcntl
import os
import random
import re
import signal
import subprocess
import time

from taplib import (DEADLINE, UCBENCH, Tap, cgroup_groups_of, cgroup_layout, cgroup_lock,
                    cgroup_mounts, own_cgroup_dirs, read_text, require_root_userns, scratch_dir,
                    skip_all, uid_block, wait_for, write_text)

require_root_userns("needs root (ucbench run --cgroup writes the host's cgroup tree)")

PR_SET_CHILD_SUBREAPER = 36
PAIRS = int(os.environ.get("UCB_CG_PAIRS", "5"))
KILLED = max(1, PAIRS * 2 // 5)
RECORDS = ("user.ucbench.enabled", "trusted.ucbench.enabled")
UIDS = uid_block(2170000000, 20, room=100000)  # 10 for each run of a pair
ERR = os.path.join(scratch_dir("ucb-cgconc-"), "stderr-%d")  # of run 0 and run 1


def hugetlb_file():
    """hugetlb.<size>.max of the smallest huge page size, or None."""
    sizes = []
    if os.path.isdir("/sys/kernel/mm/hugepages"):
        for n in os.listdir("/sys/kernel/mm/hugepages"):
            m = re.match(r"hugepages-(\d+)kB$", n)
            if m:
                sizes.append(int(m.group(1)))
    if not sizes:
        return None
    kb = min(sizes)
    unit, shift = ("GB", 20) if kb >= 1 << 20 else ("MB", 10) if kb >= 1 << 10 else ("KB", 0)
    return f"hugetlb.{kb >> shift}{unit}.max"


def controller(root):
    """(name, ucbench options) of a controller ucbench enables in the unified hierarchy: pids
    on pure v2, hugetlb where pids is bound to v1 (hybrid); None when there is none."""
    avail = (read_text(f"{root}/cgroup.controllers") or "").split()
    if root == "/sys/fs/cgroup" and "pids" in avail:
        return "pids", ["--pids-max", "64"]
    if "hugetlb" in avail and hugetlb_file():
        return "hugetlb", ["--cgroup-set", f"{hugetlb_file()}=max"]
    return None


def xattrs(d):
    out = {}
    for n in RECORDS:
        try:
            out[n] = os.getxattr(d, n).decode()
        except OSError:
            pass
    return out


def state(dirs):
    """What the runs may change on the levels they use: subtree_control and records."""
    return {d: (read_text(f"{d}/cgroup.subtree_control"), xattrs(d)) for d in dirs}


def restore(dirs, before):
    """After a failed pair: the levels as before, bottom-up, for the next pair."""
    for d in sorted(dirs, key=lambda x: -x.count("/")):
        sc, rec = before[d]
        for c in (read_text(f"{d}/cgroup.subtree_control") or "").split():
            if c not in (sc or "").split():
                write_text(f"{d}/cgroup.subtree_control", f"-{c}")
        for n in xattrs(d):
            if n not in rec:
                os.removexattr(d, n)


def remove_group(d):
    """Kill what is in the tree and remove it bottom-up."""
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
        try:
            os.rmdir(sub)
        except OSError:
            pass


def janitors():
    """Our orphans (we are their subreaper) that are janitors still running; the dead reaped."""
    me = os.getpid()
    out = []
    for d in (read_text(f"/proc/{me}/task/{me}/children") or "").split():
        st = read_text(f"/proc/{d}/stat") or ""
        f = st[st.rfind(")") + 2:].split()
        if len(f) > 1 and int(f[1]) == me and "(ucb-cg-janitor)" in st:
            if f[0] == "Z":
                os.waitpid(int(d), os.WNOHANG)
            else:
                out.append(int(d))
    return out


STALE = re.compile(r"ucbtest-conc-(\d+)(?:-scopes)?$")


def running_this(pid):
    """Whether `pid` runs this test still (a PID reused by another program does not)."""
    return "cgroup-concurrent" in (read_text(f"/proc/{pid}/cmdline") or "")


def populated(g):
    return any((read_text(os.path.join(sub, "cgroup.procs")) or "").split()
               for sub, _, _ in os.walk(g))


def remove_stale(hierarchies):
    """Remove the groups a killed run of this test left in `hierarchies`, when empty: what was
    removed, and what was left (with why)."""
    gone, kept = [], []
    for h in hierarchies:
        try:
            names = os.listdir(h)
        except OSError:
            continue
        for n in names:
            m, g = STALE.match(n), os.path.join(h, n)
            if not m or int(m.group(1)) == os.getpid() or running_this(int(m.group(1))):
                continue
            if populated(g):
                kept.append(f"{g} (processes in it)")
                continue
            for sub, _, _ in sorted(os.walk(g), key=lambda w: -w[0].count("/")):
                try:
                    os.rmdir(sub)
                except OSError:
                    pass
            (kept if os.path.exists(g) else gone).append(g)
    return gone, kept


def exit_on(signum, frame):
    """SIGTERM, SIGHUP: end through the `finally` that removes our groups."""
    raise SystemExit(128 + signum)


class Pair:
    """One kind of pair: for each run, the --cgroup option and the scope it starts in."""

    def __init__(self, name, opts, scopes=(None, None)):
        self.name, self.opts, self.scopes = name, opts, scopes

    def argv(self, i, ctl):
        ucb = " ".join([UCBENCH, "run", "-w", "getppid", "-c", "2", "--owner", "shared",
                        "-d", "0.2", "--interval", "0.1", "-q", "--uid-base",
                        str(UIDS + 10 * i), self.opts[i]] + ctl)
        join = f"echo $$ > {self.scopes[i]}/cgroup.procs && " if self.scopes[i] else ""
        return ["sh", "-c", f"{join}exec {ucb} >/dev/null 2>{ERR % i}"]


def run_pair(pair, ctl, kill):
    """Both runs at once; with `kill`, one is SIGKILLed at a random moment.  What went wrong
    with the runs themselves ([] if nothing), and their pids."""
    ps = [subprocess.Popen(pair.argv(i, ctl)) for i in (0, 1)]
    bad, victim = [], random.randrange(2) if kill else None
    if kill:
        time.sleep(random.uniform(0, 1.0))
        ps[victim].kill()
    for i, p in enumerate(ps):
        rc = p.wait(timeout=120)
        if i != victim and rc != 0:
            bad.append(f"run {i} ({pair.opts[i]}) exit {rc}: "
                       f"{read_text(ERR % i)}")
    # A killed run's janitor (now ours: we are the subreaper) finishes the job.
    if not wait_for(lambda: not janitors(), DEADLINE):
        bad.append(f"janitors {janitors()} still running after {DEADLINE} s")
    return bad, [p.pid for p in ps]


def ctrl_c_in_turn(t, root, ctl, dirs, before):
    """While another run holds the turn (here: the test, with flock on the hierarchy's root),
    Ctrl-C stops a run waiting for it at once (the wait lasts up to 30 s otherwise) and the
    tree is as before."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        p = subprocess.Popen(Pair("own", ("--cgroup", "--cgroup")).argv(0, ctl))
        time.sleep(1.5)  # setup takes well under that; then it polls the lock
        alive = p.poll() is None
        p.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        took = time.monotonic() - t0
    finally:
        os.close(fd)
    err = read_text(ERR % 0) or ""
    wait_for(lambda: not janitors(), DEADLINE)  # a run the signal ended: its janitor undoes
    now, left = state(dirs), cgroup_groups_of([p.pid])
    # The run's handlers are in place from before its setup (a SIGINT that the caller's shell
    # ignores, as for a background job, reaches them too): it says what it waited for.
    t.ok(alive and took < 5 and rc == 130 and "waiting for the turn" in err
         and now == before and not left,
         f"Ctrl-C while another run holds the turn: ends after {took:.1f} s (exit {rc}), "
         "the tree as before",
         f"alive at 1.5 s: {alive}, exit {rc}, stderr {err!r}, left {left}, "
         f"changed {[x for x in dirs if now[x] != before[x]]}")
    restore(dirs, before)


def main():
    root = cgroup_layout()[1]
    if root is None:
        skip_all("no cgroup2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified")
    ctl = controller(root)
    if ctl is None:
        skip_all(f"no controller ucbench can enable in {root} (cgroup.controllers: "
                 f"{read_text(f'{root}/cgroup.controllers')!r}; pids is bound to v1 and hugetlb "
                 f"has no huge page size)")
    name, ctl = ctl
    t = Tap()
    lock = cgroup_lock(t)  # noqa: F841 (held to the end: we change subtree_control)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    hierarchies = sorted(set(cgroup_mounts()) | {root})
    # What a killed run leaves, made here with a PID that no longer runs: removed with the rest.
    dead = subprocess.Popen(["true"])
    dead.wait()
    fake = [f"{root}/ucbtest-conc-{dead.pid}", f"{root}/ucbtest-conc-{dead.pid}-scopes",
            f"{root}/ucbtest-conc-{dead.pid}-scopes/s0"]
    for g in fake:
        os.makedirs(g, exist_ok=True)
    gone, kept = remove_stale(hierarchies)
    for g in set(gone) - set(fake):
        t.diag(f"removed {g}: left by a run of this test that was killed")
    for g in kept:
        t.diag(f"left {g}: its run is gone, but it is not empty")
    t.ok(not any(os.path.exists(g) for g in fake) and not kept,
         "at the start, the empty groups a killed run of this test left are removed", kept)
    own = own_cgroup_dirs().get(root, root)
    # PARENT is the same path in every hierarchy (v1 ones too, on a hybrid host).
    prel = f"ucbtest-conc-{os.getpid()}"
    p, pv1 = f"{root}/{prel}", [f"{m}/{prel}" for m in cgroup_mounts() if m != root]
    d = f"{root}/ucbtest-conc-{os.getpid()}-scopes"
    scopes = (f"{d}/s0", f"{d}/s1")
    mine = scopes + (d, p) + tuple(pv1)  # bottom-up
    dirs = {own, p, d} | set(scopes)
    for x in list(dirs):
        while x != root:
            x = os.path.dirname(x)
            dirs.add(x)
    above = dirs - set(mine)
    before = state(above)
    signal.signal(signal.SIGTERM, exit_on)
    signal.signal(signal.SIGHUP, exit_on)
    try:
        run_kinds(t, root, name, ctl, prel, p, d, scopes, pv1, dirs)
    finally:
        for g in mine:
            remove_group(g)
        restore(above, before)
    left = [g for g in mine if os.path.exists(g)]
    t.ok(not left, "the test's own groups are removed", left)
    t.done()


def run_kinds(t, root, name, ctl, prel, p, d, scopes, pv1, dirs):
    """Make the test's groups, then run every kind of pair, and Ctrl-C in turn."""
    for g in (p, d) + scopes:
        os.mkdir(g)
    for g in pv1:
        try:
            os.mkdir(g)
        except OSError:
            pass
    for g in scopes:
        try:
            os.setxattr(g, "trusted.delegate", b"1")  # as systemd's Delegate=yes
        except OSError:
            pass
    before = state(dirs)
    if name in (before[root][0] or "").split():
        t.diag(f"{name} is enabled in {root} already (not by ucbench): it must stay")
    one_p = (f"--cgroup={prel}", f"--cgroup={prel}")
    # (pair, how many, one killed, the controller enabled by an administrator first)
    kinds = [(Pair("own cgroup, both", ("--cgroup", "--cgroup")), PAIRS, False, False),
             (Pair("one PARENT, both", one_p), PAIRS, False, False),
             (Pair("own cgroup and PARENT", ("--cgroup", f"--cgroup={prel}")), PAIRS, False, False),
             (Pair("scopes of their own", ("--cgroup", "--cgroup"), scopes), PAIRS, False, False),
             (Pair("own cgroup, both", ("--cgroup", "--cgroup")), KILLED, True, False),
             (Pair("one PARENT, both", one_p), KILLED, True, False),
             (Pair("scopes of their own", ("--cgroup", "--cgroup"), scopes), KILLED, True, False),
             (Pair("one PARENT, both", one_p), KILLED, False, True)]
    t0, alone = time.monotonic(), {}
    for pair, n, kill, admin in kinds:
        label = (f"{pair.name}{', one SIGKILLed' if kill else ''}"
                 f"{f', {name} enabled by the administrator' if admin else ''}")
        # Alone first: a kind this host cannot run (a systemd cgroup not delegated) skips.
        fails = []
        if pair.name not in alone:
            rc = subprocess.run(pair.argv(0, ctl), timeout=120).returncode
            alone[pair.name] = None if rc == 0 else f"a run alone: exit {rc}, {read_text(ERR % 0)}"
            if rc == 0 and state(dirs) != before:
                fails.append(f"a run alone left {state(dirs)}")
            restore(dirs, before)
        if alone[pair.name]:
            t.skip(label, alone[pair.name])
            continue
        # An administrator's controller (no record) stays enabled, whoever leaves last.
        if admin and not (write_text(f"{root}/cgroup.subtree_control", f"+{name}")
                          and write_text(f"{p}/cgroup.subtree_control", f"+{name}")):
            restore(dirs, before)
            t.skip(label, f"cannot enable {name} in {root} and {p}")
            continue
        base = state(dirs)
        for k in range(n):
            bad, pids = run_pair(pair, ctl, kill)
            left = cgroup_groups_of(pids)
            now = state(dirs)
            diff = [f"{x}: {now[x]} (was {base[x]})" for x in sorted(dirs)
                    if now[x] != base[x]]
            if bad or left or diff:
                fails.append(f"pair {k}: " + "; ".join(bad + left + diff))
                for g in left:
                    remove_group(g)
                restore(dirs, base)
                for x in sorted(dirs, key=lambda y: y.count("/")):
                    for c in (base[x][0] or "").split():
                        write_text(f"{x}/cgroup.subtree_control", f"+{c}")
        restore(dirs, before)
        t.ok(not fails, f"{n} pairs, {label}: the tree as before after each",
             f"{len(fails)} of {n} pairs left something:\n" + "\n".join(fails))
    ctrl_c_in_turn(t, root, ctl, dirs, before)
    t.diag(f"{sum(k[1] for k in kinds)} pairs ({name}) took {time.monotonic() - t0:.1f} s")


main()
