# SPDX-License-Identifier: GPL-2.0-or-later
"""output-path.py - where --output may go, and what happens when it cannot (issue 25).

In a sticky world-writable directory (as /tmp), root never follows another user's symlink,
dangling or not, nor opens or replaces another user's FIFO or file there: only the caller's and
the directory owner's are used, as fs.protected_symlinks=1 has it, whatever the sysctl says.
A FIFO nobody reads is refused at once; one with a reader is written; a reader that stops
reading cannot hold ucbench against SIGINT.  Whatever can be known before measuring (a trailing
/, a name or path too long, a link loop, a dangling link, an immutable or append-only file, a
block device, an empty name) is a usage error (exit 2) before anything is measured: the run
ends well before its --duration.  A write that fails after measuring (ENOSPC, on a small full
tmpfs in a mount namespace of its own) keeps the document: saved to a new 0600 file in the
current directory or $TMPDIR, named in the error (exit 1).

A link to a directory on the way is held to the same rule (issue 35, D1): nobody's
sticky/x -> victim makes `-o sticky/x/passwd` a usage error for every writer, wherever x lies
in the path and however it was reached, while the caller's own links, root's /var/run -> /run
style links, `..` and /proc/self/cwd keep working.  fs.protected_symlinks=1 would refuse such a
link in the kernel and hide the bug: it is set to 0 for those checks only, and restored."""
import fcntl
import json
import os
import pwd
import re
import signal
import stat
import subprocess
import sys
import threading
import time

from taplib import (HostLoad, SRCDIR, Tap, UCBENCH, require_root_userns, scratch_dir, skip_all,
                    uid_block, wait_for)

require_root_userns("needs root: files of other uids, and run's owner uids")
try:
    NOBODY = pwd.getpwnam("nobody").pw_uid
except KeyError:
    skip_all("no user `nobody` to own the links of another user")

t = Tap()
EXAMPLE = os.path.join(SRCDIR, "examples", "run-small.json")
DIR_OWNER = 4242  # owns the sticky directory: neither root nor nobody
DURATION = 2.0  # a refusal before measuring comes well before this
BASE = uid_block(2107000000, 100)
RUN = ["run", "--workload", "getppid", "--containers", "1", "--owner", "shared", "--duration",
       str(DURATION), "--interval", "0.1", "--warmup", "0.1", "--quiet", "--uid-base", str(BASE)]
SHORT_RUN = [a if a != str(DURATION) else "0.3" for a in RUN]
EXPORT = ["export", "--to", "gab", EXAMPLE]

scratch = scratch_dir("ucb-outpath-")
sticky = os.path.join(scratch, "sticky")
os.mkdir(sticky)
os.chown(sticky, DIR_OWNER, DIR_OWNER)
os.chmod(sticky, 0o1777)
save = os.path.join(scratch, "save")  # $TMPDIR for the documents kept after a failure
os.mkdir(save)
ENV = dict(os.environ, TMPDIR=save)


def ucb(args, timeout=30, cwd=None):
    """ucbench ARGS: (exit status, stdout, stderr, seconds, why the host was busy meanwhile or
    None); a hung one is SIGKILLed after `timeout` (exit status None): it ignores SIGTERM
    while it writes."""
    load = HostLoad()
    t0 = time.monotonic()
    p = subprocess.Popen([UCBENCH] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=cwd or scratch, env=ENV)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc, err = None, err + f"(hung: SIGKILLed after {timeout} s)"
    return rc, out, err, time.monotonic() - t0, load.reason()


def in_time(ok, r, limit, name):
    """A refusal (`ok`) that must also come within `limit` s: a slow one skips with the
    measured reason on a busy host (never a failed refusal), fails on a quiet one."""
    t.busy(ok and r[3] < limit, name, r[4] if ok else None, r)


def refused(r, path, why=""):
    """Exit 2, and the first line of stderr names `path` (and `why`)."""
    rc, _, err = r[:3]
    first = err.splitlines()[0] if err else ""
    return rc == 2 and path in first and why in first


def snapshot(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return f.read(), stat.S_IMODE(st.st_mode), st.st_uid


def put(path, text="old\n", uid=0, mode=0o600):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    os.chown(path, uid, uid)


def link(target, name, uid):
    path = os.path.join(sticky, name)
    os.symlink(target, path)
    os.lchown(path, uid, uid)
    return path


def kept(err):
    """The file a failed write saved the document to, as the error names it; None."""
    m = re.search(r"the document was saved to `([^`]+)` instead", err)
    return m.group(1) if m else None


def valid_doc(path):
    try:
        with open(path) as f:
            return json.load(f).get("schema") == "ucbench-result/1"
    except (OSError, ValueError):
        return False


# ---- another user's entries in a sticky world-writable directory -------------------------
secret = os.path.join(scratch, "secret")
put(secret, "root's own\n")
before = snapshot(secret)
foreign = link(secret, "out.json", NOBODY)
r = ucb(EXPORT + ["--output", foreign])
t.ok(refused(r, foreign, "symbolic link of uid"), "export through nobody's symlink in a sticky "
     "directory: exit 2, one line", r)
t.ok(snapshot(secret) == before, "... and the root-owned 0600 file it points to is untouched",
     f"{snapshot(secret)}")
t.ok(os.path.islink(foreign), "... and the link is still there")
r = ucb(RUN + ["--output", foreign])
in_time(refused(r, foreign) and snapshot(secret) == before, r, DURATION,
        f"run through it: exit 2 before measuring ({r[3]:.2f} s < --duration {DURATION:g})")

missing = os.path.join(scratch, "created-by-root.json")
dangling = link(missing, "dangling.json", NOBODY)
r = ucb(EXPORT + ["--output", dangling])
t.ok(refused(r, dangling) and not os.path.exists(missing),
     "nobody's dangling symlink in a sticky directory: exit 2, nothing created", r)

for owner, who in ((0, "the caller's (root's)"), (DIR_OWNER, "the directory owner's")):
    target = os.path.join(scratch, f"via-{owner}.json")
    own = link(target, f"link-{owner}.json", owner)
    r = ucb(EXPORT + ["--output", own])
    t.ok(r[0] == 0 and os.path.islink(own) and os.path.exists(target)
         and json.load(open(target)), f"{who} symlink there is followed: its target written", r)

theirs = os.path.join(sticky, "theirs.json")
put(theirs, "nobody's\n", NOBODY, 0o644)
before = snapshot(theirs)
r = ucb(EXPORT + ["--output", theirs])
t.ok(refused(r, theirs, "file of uid") and snapshot(theirs) == before,
     "nobody's regular file there: exit 2, neither replaced nor written", r)

fifo = os.path.join(sticky, "theirs.fifo")
os.mkfifo(fifo)
os.chown(fifo, NOBODY, NOBODY)
rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
r = ucb(EXPORT + ["--output", fifo], timeout=10)
try:
    got = os.read(rfd, 65536)
except BlockingIOError:
    got = b""
os.close(rfd)
t.ok(refused(r, fifo, "FIFO of uid") and got == b"",
     "nobody's FIFO there (with a reader): exit 2, nothing written to it", f"{r} {got[:80]}")

# ---- a link to a directory on the way (issue 35, D1) ------------------------------------
PROTECTED = "/proc/sys/fs/protected_symlinks"


def protection_off():
    """(the value to restore or None, why the refusals cannot be tested or None): the kernel
    must not refuse nobody's link itself, or it would hide ours."""
    try:
        with open(PROTECTED) as f:
            old = f.read().strip()
    except OSError as e:
        return None, f"cannot read {PROTECTED}: {e.strerror}"
    if old == "0":
        return None, None
    try:
        with open(PROTECTED, "w") as f:
            f.write("0")
    except OSError as e:
        return None, f"fs.protected_symlinks is {old} and cannot be set to 0: {e.strerror}"
    return old, None


def restore_protection(old):
    if old is not None:
        with open(PROTECTED, "w") as f:
            f.write(old)


def listing(d):
    """Every entry under d with its bytes (None for a directory or link), to see it
    untouched."""
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            q = os.path.join(root, n)
            out[q] = None if os.path.isdir(q) or os.path.islink(q) else snapshot(q)
    return out


def dir_links_refused(why_not):
    """Nobody's link to a directory (the victim, standing for /etc) on the way of -o."""
    victim = os.path.join(scratch, "victim")  # stands for /etc
    os.makedirs(os.path.join(victim, "b"))
    put(os.path.join(victim, "passwd"), "root's own\n")
    put(os.path.join(victim, "b", "file"), "root's own\n")
    before = listing(victim)
    deep = os.path.join(sticky, "s", "a")  # sticky/s/a: another sticky world-writable dir
    os.makedirs(deep)
    os.chown(deep, DIR_OWNER, DIR_OWNER)
    os.chmod(deep, 0o1777)
    planted = link(victim, "x", NOBODY)
    os.symlink(victim, os.path.join(deep, "x"))
    os.lchown(os.path.join(deep, "x"), NOBODY, NOBODY)
    link("s/a", "mine", 0)  # root's own link to the sticky dir holding the planted one
    link("s/a/x/b/file", "last.json", 0)  # root's own link, its target through the planted
    why = f"is a symbolic link of uid {NOBODY} in a sticky world-writable directory"
    verify = ["verify", "ULIM-01", "--uid-base", str(BASE)]
    for args in (EXPORT, RUN, verify, ["plot", EXAMPLE], ["model", EXAMPLE]):
        name = f"{args[0]} -o sticky/x/passwd, x nobody's link to a directory"
        if why_not:
            t.skip(name, why_not)
            continue
        out = os.path.join(planted, "passwd")
        r = ucb(args + ["--output", out])
        in_time(refused(r, out, f"`{planted}` {why}") and listing(victim) == before, r,
                DURATION, f"{name}: exit 2 before measuring, naming x; the victim untouched")
    cases = [("in the middle: sticky/s/a/x/b/file", os.path.join(deep, "x", "b", "file"),
              os.path.join(deep, "x")),
             ("reached through root's own link: sticky/mine/x/b/file",
              os.path.join(sticky, "mine", "x", "b", "file"), os.path.join(deep, "x")),
             ("in the target of root's own last link (-> s/a/x/b/file)",
              os.path.join(sticky, "last.json"), os.path.join(sticky, "s", "a", "x"))]
    for name, out, shown in cases:
        if why_not:
            t.skip(f"export -o, nobody's directory link {name}", why_not)
            continue
        r = ucb(EXPORT + ["--output", out])
        t.ok(refused(r, out, f"`{shown}` {why}") and listing(victim) == before,
             f"export -o, nobody's directory link {name}: exit 2, naming it; the victim "
             "untouched", r)
    rescue = "a failed write with $TMPDIR through nobody's directory link: nothing kept there"
    if why_not:
        t.skip("run -o sticky/s/a/x/b/file", why_not)
        t.skip(rescue, why_not)
        return
    r = ucb(RUN + ["--output", os.path.join(deep, "x", "b", "file")])
    in_time(refused(r, "x/b/file", why) and listing(victim) == before, r, DURATION,
            "run -o sticky/s/a/x/b/file: exit 2 before measuring")
    fulldir = os.path.join(scratch, "full-d1")
    os.mkdir(fulldir)
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", FILL,
                        fulldir, UCBENCH] + SHORT_RUN + ["--output", "out.json"],
                       capture_output=True, text=True, timeout=120,
                       env=dict(ENV, TMPDIR=os.path.join(planted, "b")))
    where = kept(p.stderr)
    if p.returncode == 99:
        t.skip(rescue, f"no tmpfs here: {p.stderr.strip()}")
    else:
        t.ok(p.returncode == 1 and listing(victim) == before
             and (where is None or not os.path.realpath(where).startswith(victim + "/")),
             f"{rescue} (exit 1)", p.stderr)
    if where and os.path.dirname(where) == "/tmp":
        os.unlink(where)  # kept in /tmp, the last resort: this test's to remove


def dir_links_followed():
    """What must keep working: every one of these is the kernel's own choice too."""
    outdir = os.path.join(scratch, "outdir")
    os.mkdir(outdir)
    os.mkdir(os.path.join(scratch, "run"))
    os.mkdir(os.path.join(scratch, "var"))
    os.symlink("../run", os.path.join(scratch, "var", "run"))  # as /var/run -> /run
    plain = os.path.join(scratch, "plain")  # root's, not sticky: nobody's link there is fine
    os.mkdir(plain)
    os.symlink(outdir, os.path.join(plain, "theirs"))
    os.lchown(os.path.join(plain, "theirs"), NOBODY, NOBODY)
    link(outdir, "rootdir", 0)
    link(outdir, "ownerdir", DIR_OWNER)
    good = [("root's own link to a directory in the sticky one", "sticky/rootdir/a.json",
             os.path.join(outdir, "a.json"), None),
            ("the directory owner's link there", "sticky/ownerdir/b.json",
             os.path.join(outdir, "b.json"), None),
            ("root's relative link outside, as /var/run -> /run", "var/run/c.json",
             os.path.join(scratch, "run", "c.json"), None),
            ("nobody's link in a directory that is not sticky", "plain/theirs/d.json",
             os.path.join(outdir, "d.json"), None),
            ("`..` after a link leaves its target (sticky/rootdir/../outdir)",
             "sticky/rootdir/../outdir/e.json", os.path.join(outdir, "e.json"), None),
            ("/proc/self/cwd/f.json", "/proc/self/cwd/f.json", os.path.join(outdir, "f.json"),
             outdir)]
    for name, out, where, cwd in good:
        r = ucb(EXPORT + ["--output", out], cwd=cwd)
        t.ok(r[0] == 0 and os.path.isfile(where) and not os.path.islink(where)
             and json.load(open(where)), f"{name}: followed, the file written there", r)


def dir_link_loop():
    loop = os.path.join(scratch, "dloop")
    os.symlink("dloop", loop)
    r = ucb(EXPORT + ["--output", os.path.join(loop, "out.json")])
    t.ok(refused(r, loop, "symbolic links"), "a directory link loop: exit 2", r)


FILL = ('mount -t tmpfs -o size=64k ucb-full "$0" || exit 99; '
        'dd if=/dev/zero of="$0/fill" bs=4k 2>/dev/null; cd "$0" && exec "$@"')
old_handlers = {s: signal.signal(s, lambda n, _: sys.exit(128 + n))
                for s in (signal.SIGTERM, signal.SIGHUP)}  # so that finally restores the sysctl
saved, why_not = protection_off()
try:
    dir_links_refused(why_not)
finally:
    restore_protection(saved)
    for s, h in old_handlers.items():
        signal.signal(s, h)
dir_links_followed()
dir_link_loop()

# ---- FIFOs ---------------------------------------------------------------------------------
fifo = os.path.join(scratch, "out.fifo")
os.mkfifo(fifo)
r = ucb(RUN + ["--output", fifo], timeout=10)
in_time(refused(r, fifo, "reader"), r, 1.0,
        f"a FIFO without a reader: exit 2 at once ({r[3]:.2f} s)")

rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
chunks = []


def drain(fd, stop):
    """Read the FIFO until `stop` and then nothing more (no writer yet reads as end of file
    too)."""
    while True:
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            b = None
        if b:
            chunks.append(b)
        elif stop.is_set():
            return
        else:
            time.sleep(0.01)


stop = threading.Event()
reader = threading.Thread(target=drain, args=(rfd, stop))
reader.start()
r = ucb(SHORT_RUN + ["--output", fifo], timeout=60)
stop.set()
reader.join()
os.close(rfd)
try:
    doc = json.loads(b"".join(chunks))
except ValueError:
    doc = None
t.ok(r[0] == 0 and isinstance(doc, dict) and doc.get("results"),
     "a FIFO with a reader gets the run's document", f"{r} {len(b''.join(chunks))} bytes")

# A reader that stops reading: the pipe made small (one page) and never read; once ucbench
# has filled it, SIGINT ends it, and the document is kept.
rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(rfd, 1031, 4096)  # F_SETPIPE_SZ
p = subprocess.Popen([UCBENCH] + SHORT_RUN + ["--output", fifo], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True, cwd=save, env=ENV)


def pipe_full():
    buf = bytearray(4)
    fcntl.ioctl(rfd, 0x541B, buf)  # FIONREAD
    return int.from_bytes(buf, "little") >= 4096 or p.poll() is not None


full = wait_for(pipe_full, timeout=60)
time.sleep(0.3)  # inside its wait for the reader, not on the way there
if p.poll() is None:
    p.send_signal(signal.SIGINT)
try:
    out, err = p.communicate(timeout=10)
    rc = p.returncode
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
    rc, err = None, err + "(hung after SIGINT: SIGKILLed)"
os.close(rfd)
t.ok(full and rc == 128 + signal.SIGINT,
     "SIGINT while a FIFO takes no more: ucbench ends (exit 130)", f"{rc}: {err}")
t.ok(kept(err) and valid_doc(kept(err)), "... and says where the document was kept", err)

# ---- what can be known before measuring ---------------------------------------------------
loop = os.path.join(scratch, "loop.json")
os.symlink("loop.json", loop)
gone = os.path.join(scratch, "gone.json")
os.symlink("/nonexistent-ucbench-dir/out.json", gone)
cases = [("a trailing /", os.path.join(scratch, "out.json") + "/", "/"),
         ("a name of 256 bytes", os.path.join(scratch, "n" * 256), ""),
         ("a path over PATH_MAX", "/" * 4100 + scratch.lstrip("/") + "/x.json", "PATH_MAX"),
         ("a symlink loop", loop, "symbolic links"),
         ("a dangling link into a missing directory", gone, "directory")]
for name, path, why in cases:
    r = ucb(RUN + ["--output", path])
    in_time(refused(r, path[-60:], why), r, DURATION,
            f"{name}: exit 2 before measuring ({r[3]:.2f} s)")

for flag, word in (("i", "immutable"), ("a", "append-only")):
    path = os.path.join(scratch, f"chattr-{flag}.json")
    put(path)
    c = subprocess.run(["chattr", f"+{flag}", path], capture_output=True, text=True)
    if c.returncode != 0:
        t.skip(f"an {word} file: exit 2 before measuring", f"chattr +{flag}: {c.stderr.strip()}")
        continue
    r = ucb(RUN + ["--output", path])
    subprocess.run(["chattr", f"-{flag}", path])
    in_time(refused(r, path, word), r, DURATION,
            f"an {word} file: exit 2 before measuring ({r[3]:.2f} s)")


def unused_block_major():
    with open("/proc/devices") as f:
        used = {int(x.split()[0]) for x in f.read().split("Block devices:")[1].splitlines()
                if x.strip()}
    return next((m for m in range(240, 255) if m not in used), None)


major = unused_block_major()
if major is None:
    t.skip("a block device: exit 2", "no unused block major in 240-254 for a harmless node")
else:
    blk = os.path.join(scratch, "blk")
    os.mknod(blk, stat.S_IFBLK | 0o600, os.makedev(major, 0))
    r = ucb(RUN + ["--output", blk])
    in_time(refused(r, blk, "block device"), r, DURATION,
            f"a block device (major {major}, no driver): exit 2 before measuring")

r = ucb(EXPORT + ["--output", "/dev/null"])
t.ok(r[0] == 0 and r[2] == "", "a character device (/dev/null) is still written", r)
for args in (RUN, ["verify", "ULIM-01", "--uid-base", str(BASE)], EXPORT, ["plot", EXAMPLE]):
    r = ucb(args + ["--output", ""])
    in_time(r[0] == 2 and "empty" in r[2].splitlines()[0], r, DURATION,
            f"{args[0]} --output '': exit 2, one line")

# ---- a write that fails after measuring: the document is kept -----------------------------
full = os.path.join(scratch, "full")
os.mkdir(full)
for args, cmd in ((SHORT_RUN, "run"), (["verify", "ULIM-01", "--uid-base", str(BASE)], "verify")):
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", FILL, full,
                        UCBENCH] + args + ["--output", "out.json"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    if p.returncode == 99:
        t.skip(f"{cmd}: ENOSPC keeps the document", f"no tmpfs here: {p.stderr.strip()}")
        continue
    where = kept(p.stderr)
    t.ok(p.returncode == 1 and "No space left on device" in p.stderr and where
         and os.path.dirname(where) == save,
         f"{cmd} --output on a full filesystem: exit 1, the document kept in $TMPDIR", p.stderr)
    ok = where and valid_doc(where) and stat.S_IMODE(os.stat(where).st_mode) == 0o600
    t.ok(ok and re.fullmatch(rf"ucbench-{cmd}-\d{{8}}T\d{{6}}Z-\d+\.json",
                             os.path.basename(where)),
         f"... a complete document, 0600, named ucbench-{cmd}-WHEN-PID.json", where)
t.done()
