# SPDX-License-Identifier: GPL-2.0-or-later
"""hoststate.py - what a ucbench run may leave on the host, found wherever it can be: SysV
and POSIX IPC objects, cgroups in every hierarchy, user namespaces and what holds them.
taplib re-exports them."""
import os


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



def all_userns_inodes():
    s = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s.add(os.stat(f"/proc/{d}/ns/user").st_ino)
            except OSError:
                pass
    return s


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
