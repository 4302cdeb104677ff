# SPDX-License-Identifier: GPL-2.0-or-later
"""hostload.py - whether the host was too busy for a check that depends on time or CPU to
decide: busy_reason (from a run document's own evidence), HostLoad (the CPU time the rest of
the machine used meanwhile), loadavg (a diagnostic).  taplib re-exports them."""
import os
import time


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
