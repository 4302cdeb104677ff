# SPDX-License-Identifier: GPL-2.0-or-later
"""vmharness.py - the boot harness of ucbench-vm and tests/kernels/ (one copy): a kernel image's
identity and config, an initramfs with busybox and ucbench, QEMU, the documents framed back over
the serial console, and the verdict from the markers the guest's /init prints, never from
QEMU's exit status (0 after a panic too).  Lessons it keeps (tests/kernels/README.md, Pitfalls):
the initramfs root is 0755 and owned by root; QEMU runs at nice -10 when it may, so that both
vCPUs run at once (verify's race cells need it); TCG with -cpu max."""
import base64
import gzip
import hashlib
import json
import os
import re
import select
import shlex
import shutil
import struct
import subprocess
import sys
import time

PROG = "ucbench-vm"
# (option, what needs it).  The first group is the harness's own: without it nothing comes back.
NEEDED_BOOT = [
    ("CONFIG_64BIT", "the x86-64 ucbench and busybox"),
    ("CONFIG_BLK_DEV_INITRD", "the initramfs holding ucbench"),
    ("CONFIG_BINFMT_SCRIPT", "the initramfs's /init script"),
    ("CONFIG_SERIAL_8250_CONSOLE", "the serial console the documents come back on"),
    ("CONFIG_PROC_FS", "/proc, which every case reads"),
    ("CONFIG_DEVTMPFS", "/dev in the guest"),
]
NEEDED_VERIFY = [
    ("CONFIG_MULTIUSER", "uids other than 0: every case"),
    ("CONFIG_USER_NS", "user namespaces: every case"),
    ("CONFIG_POSIX_MQUEUE", "POSIX message queues: the MSGQUEUE cases"),
    ("CONFIG_SYSVIPC", "SysV IPC: the MEMLOCK cases (SHM_LOCK)"),
]
# Recorded in every document (kernel_matrix.kernel.config), needed or not.
RECORDED = [o for o, _ in NEEDED_BOOT + NEEDED_VERIFY] + [
    "CONFIG_NAMESPACES", "CONFIG_CGROUPS", "CONFIG_MEMCG", "CONFIG_CGROUP_PIDS", "CONFIG_SMP",
    "CONFIG_PREEMPT_DYNAMIC", "CONFIG_IKCONFIG_PROC", "CONFIG_SECCOMP_FILTER"]

# The guest's /init.  Each document goes out as UCB-DOC-BEGIN name rc=N / base64 lines /
# UCB-DOC-END name sha256 (its stderr likewise as UCB-ERR-*), and the last line is UCB-ALL-DONE;
# anything missing means the guest died on the way.  A command's own stdout (verify's TAP) goes to
# the console as it runs: that is the progress.
INIT_HEAD = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
# the console as a tty on every fd: ucbench's stdout is then line-buffered, and verify's TAP
# arrives case by case (the progress), not all at the end
exec </dev/console >/dev/console 2>&1
mkdir -p /dev/mqueue /tmp /run /sys/fs/cgroup
mount -t mqueue mqueue /dev/mqueue
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
echo "UCB-BOOT $(uname -r)"
frame() {  # frame KIND NAME FILE [rc]
  echo "UCB-$1-BEGIN $2${4:+ rc=$4}"
  base64 "$3"
  echo "UCB-$1-END $2 $(sha256sum "$3" | cut -d' ' -f1)"
}
done_cmd() {
  frame DOC $1 /tmp/$1.json $rc
  frame ERR $1 /tmp/$1.err
  [ $rc -eq 0 ] || { echo "UCB-PS after $1 rc=$rc"; ps -o pid,ppid,stat,comm; }
}
# stdout is the document (info --format json)
emit() { name=$1; shift; "$@" > /tmp/$name.json 2> /tmp/$name.err; rc=$?; done_cmd $name; }
# the document goes to --output; stdout (TAP, the table) to the console; verify's progress is
# watched (and the watcher gone before the frames: its lines would break them)
emit_o() {
  name=$1; shift
  w=; [ "$2" != verify ] || { watch_uids & w=$!; }
  "$@" --output /tmp/$name.json 2> /tmp/$name.err; rc=$?
  [ -z "$w" ] || { kill $w; wait $w; } 2>/dev/null
  done_cmd $name
}
# verify prints its TAP at the end: its progress is the highest uid in use, as case i of a run
# uses uids UID_BASE+100i.. (ucbench verify --help)
watch_uids() {
  while sleep 3; do
    echo "UCB-UIDS $(awk '/^Uid:/ { print $2 }' /proc/[0-9]*/status 2>/dev/null | sort -n | tail -1)"
  done
}
if grep -q ucb.config /proc/cmdline && [ -e /proc/config.gz ]; then
  frame DOC config /proc/config.gz 0
fi
"""
INIT_TAIL = """echo UCB-ALL-DONE
poweroff -f
"""


def say(msg):
    sys.stderr.write(f"{PROG}: {msg}\n")
    sys.stderr.flush()


class Refusal(Exception):
    """Bad input (exit status 2)."""


# ---- the kernel image and its config -------------------------------------------------------------

def image_version(path):
    """The version string a bzImage carries in its setup header (`6.1.0-57-cloud-amd64 (…) #1
    SMP …`), or None for another kind of image."""
    try:
        with open(path, "rb") as f:
            head = f.read(0x10000)
        if head[0x202:0x206] != b"HdrS":
            return None
        off = struct.unpack_from("<H", head, 0x20E)[0] + 0x200
        s = head[off:off + 256].split(b"\0")[0].decode(errors="replace").strip()
        return s or None
    except (OSError, struct.error):
        return None


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def find_config(image):
    """(path, how) of the image's .config, or (None, None): the build tree's (IMAGE is
    TREE/arch/*/boot/bzImage, O= trees alike), or config-RELEASE beside a vmlinuz-RELEASE (an
    unpacked Debian package's boot/) or in /boot."""
    d = os.path.dirname(os.path.abspath(image))
    parts = d.split(os.sep)
    if len(parts) >= 3 and parts[-1] == "boot" and parts[-3] == "arch":
        tree = os.sep.join(parts[:-3])
        if os.path.isfile(os.path.join(tree, ".config")):
            return os.path.join(tree, ".config"), "the build tree's .config"
    base = os.path.basename(image)
    if base.startswith("vmlinuz-"):
        for c in (os.path.join(d, "config-" + base[8:]), "/boot/config-" + base[8:]):
            if os.path.isfile(c):
                return c, c
    return None, None


def parse_config(text):
    """{CONFIG_X: value} for set options; unset ones are absent."""
    opts = {}
    for line in text.splitlines():
        m = re.match(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$", line.strip())
        if m:
            opts[m.group(1)] = m.group(2).strip('"')
    return opts


def missing_options(opts, verify):
    need = NEEDED_BOOT + (NEEDED_VERIFY if verify else NEEDED_VERIFY[:2])
    return [(o, why) for o, why in need if opts.get(o) != "y"]


def missing_line(name, src, missing):
    """One line: what is missing, what needs it, how to enable it."""
    what = ", ".join(f"{o} ({why})" for o, why in missing)
    enable = " ".join(f"-e {o[len('CONFIG_'):]}" for o, _ in missing)
    return (f"{name}: the kernel lacks {what} (config: {src}); in the kernel tree: "
            f"./scripts/config {enable} && make olddefconfig bzImage")


# ---- the guest's binaries ----------------------------------------------------------------------

def elf_interp(path):
    """The ELF's PT_INTERP (a dynamic executable), '' for a static ELF, None for no ELF."""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            phoff, = struct.unpack_from("<Q", h, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", h, 0x36)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                ph = f.read(phentsize)
                p_type, _, p_offset = struct.unpack_from("<IIQ", ph, 0)
                if p_type == 3:
                    p_filesz, = struct.unpack_from("<Q", ph, 0x20)
                    f.seek(p_offset)
                    return f.read(p_filesz).rstrip(b"\0").decode()
            return ""
    except (OSError, struct.error):
        return None


def shared_libs(path):
    """The absolute paths ldd names for a dynamic executable (the loader included)."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
    return libs


def locate_ucbench(explicit, here):
    """(path, how): --ucbench, $UCBENCH_STATIC, the ucbench beside ucbench-vm (in `here`:
    installed, or the source tree's build/), then the one on PATH."""
    cands = [(explicit, "--ucbench"), (os.environ.get("UCBENCH_STATIC"), "UCBENCH_STATIC"),
             (os.path.join(here, "ucbench"), "beside ucbench-vm"),
             (os.path.join(here, "..", "build", "ucbench"), "the source tree's build/"),
             (shutil.which("ucbench"), "PATH")]
    for p, how in cands:
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.abspath(p), how
        if p and how in ("--ucbench", "UCBENCH_STATIC"):
            raise Refusal(f"{how} {p}: not an executable file")
    raise Refusal("no ucbench found: give --ucbench PATH (a static build: configure "
                  "--enable-static-binary; make ucbench) or install ucbench")


def guest_files(path, dest):
    """[(guest path, host file)] for `path` at `dest`, with the libraries it links if dynamic."""
    files = [(dest, path)]
    interp = elf_interp(path)
    if interp:
        files += [(lib, os.path.realpath(lib)) for lib in shared_libs(path)]
    return files, interp


# ---- the initramfs ---------------------------------------------------------------------------

def cpio_newc(entries):
    """A newc archive of (name, mode, data) entries (data None: a directory), owned by root, so
    the result does not depend on who builds it."""
    out = bytearray()

    def pad():
        out.extend(b"\0" * (-len(out) % 4))

    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        data = data or b""
        nb = name.encode() + b"\0"
        fields = (ino, mode, 0, 0, 2 if mode & 0o40000 else 1, 0, len(data), 0, 0, 0, 0, len(nb), 0)
        out += b"070701" + "".join("%08X" % v for v in fields).encode() + nb
        pad()
        out += data
        pad()
    return bytes(out)


def cache_dir():
    base = os.environ.get("UCB_KCACHE")
    if base:
        return os.path.join(base, "initramfs")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                        "ucbench-vm")


def build_initramfs(ucbench, commands):
    """A gzip'd cpio with busybox, ucbench (and the libraries of either, if dynamic) and an
    /init running `commands` ([(name, argv, via)]: via "stdout", the document is ucbench's
    stdout; "output", it goes to --output; "raw", stdout, argv not prefixed with ucbench);
    cached by its content."""
    busybox = shutil.which("busybox") or "/bin/busybox"
    if not os.path.isfile(busybox):
        raise Refusal("busybox not found: apt-get install busybox-static")
    files, interp = guest_files(ucbench, "bin/ucbench")
    bb, _ = guest_files(busybox, "bin/busybox")
    files += [f for f in bb if f[0] not in dict(files)]
    init = INIT_HEAD
    for name, argv, via in commands:
        # "raw": argv is the whole command line (tests/kernels/boot.py's bounded smoke run)
        q = " ".join(shlex.quote(a) for a in ([] if via == "raw" else ["/bin/ucbench"]) + argv)
        init += ("emit_o " if via == "output" else "emit ") + name + " " + q + "\n"
    init += INIT_TAIL
    h = hashlib.sha256(init.encode())
    for g, p in sorted(files):
        h.update(g.encode() + b"\0" + sha256_file(p).encode())
    out = os.path.join(cache_dir(), f"{h.hexdigest()[:16]}.cpio.gz")
    if os.path.exists(out):
        return out, interp
    dirs = {"bin", "proc", "sys", "dev", "tmp", "etc"}
    for g, _ in files:
        d = os.path.dirname(g.lstrip("/"))
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    entries = [(".", 0o40755, None)] + [(d, 0o40755, None) for d in sorted(dirs)]
    for g, p in files:
        with open(p, "rb") as f:
            entries.append((g.lstrip("/"), 0o100755, f.read()))
    entries.append(("init", 0o100755, init.encode()))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = f"{out}.{os.getpid()}.tmp"
    with gzip.open(tmp, "wb", compresslevel=6) as f:
        f.write(cpio_newc(entries))
    os.rename(tmp, out)
    return out, interp


# ---- QEMU --------------------------------------------------------------------------------------

def kvm_usable():
    """(True, why) when /dev/kvm opens read-write."""
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC))
        return True, "/dev/kvm usable"
    except OSError as e:
        return False, f"/dev/kvm: {e.strerror}"


def vcpus_first():
    """QEMU ahead of the host's other work (root only; else as it is): verify's race cells (P8)
    only see a lost update when both vCPUs are inside the update at once; at equal priority
    beside a CI run they take turns instead (6.12.118: two mutants survived so)."""
    try:
        os.nice(-10)
    except OSError:
        pass


def parse(log):
    """{name: (rc, bytes, ok)} for every framed document, and {name: (text, ok)} for stderr."""
    docs, errs = {}, {}
    lines = log.replace("\r", "").split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^UCB-(DOC|ERR)-BEGIN (\w+)(?: rc=(-?\d+))?$", lines[i].strip())
        if not m:
            i += 1
            continue
        kind, name, rc = m.group(1), m.group(2), m.group(3)
        body, j = [], i + 1
        while j < len(lines) and not lines[j].startswith(f"UCB-{kind}-END {name} "):
            if re.match(r"^[A-Za-z0-9+/=]*$", lines[j].strip()):  # not a kernel message
                body.append(lines[j].strip())
            j += 1
        if j == len(lines):
            break
        digest = lines[j].split()[-1]
        try:
            data = base64.b64decode("".join(body), validate=False)
        except ValueError:
            data = b""
        ok = hashlib.sha256(data).hexdigest() == digest
        if kind == "DOC":
            docs[name] = (int(rc or 0), data, ok)
        else:
            errs[name] = (data.decode(errors="replace"), ok)
        i = j + 1
    return docs, errs


class Progress:
    """Booting, case k of n, elapsed: on stderr, rewritten in place on a terminal, else a line
    at most every 15 s."""

    def __init__(self, name, quiet, plan=None):
        self.name, self.quiet, self.tty = name, quiet, sys.stderr.isatty()
        self.plan = plan or {}  # {uid range index: k}, and "n"
        self.t0, self.last, self.case, self.rel = time.monotonic(), 0.0, 0, None

    def line(self, text):
        # TAP of the command running in the guest; kernel messages interleave harmlessly
        text = text.strip()
        if "UCB-BOOT " in text:  # after the firmware's escape sequences, on the same line
            self.rel = text.split("UCB-BOOT ", 1)[1].strip() or "?"
            self.show(f"booted {self.rel}", force=True)
        elif re.match(r"^UCB-UIDS \d+$", text) and self.plan:
            k = self.plan.get((int(text.split()[1]) - self.plan["base"]) // 100)
            if k and k > self.case:
                self.case = k
                self.show(f"case {k} of {self.plan['n']}")

    def show(self, what, force=False):
        now = time.monotonic()
        if self.quiet or (not force and not self.tty and now - self.last < 15):
            return
        self.last = now
        msg = f"{PROG}: {self.name}: {what} ({now - self.t0:.0f} s)"
        sys.stderr.write(("\r\033[K" + msg) if self.tty else msg + "\n")
        sys.stderr.flush()

    def end(self):
        if self.tty and not self.quiet and self.last:
            sys.stderr.write("\r\033[K")


# The first lines of a kernel's oops or panic: what a CI log that keeps only our output needs
# to tell a kernel bug met by ucbench from an emulator's artifact, without the serial log.
OOPS_START = re.compile(r"Kernel panic - not syncing|BUG:|Oops:|general protection fault|"
                        r"kernel BUG at|Unable to handle|WARNING: CPU:|int3:")
OOPS_KEEP = re.compile(r"Kernel panic|BUG:|Oops:|general protection|kernel BUG|Unable to|"
                       r"WARNING:|int3|CPU: \d+ .*Comm:|RIP: 0010:|Call Trace|^ ?[a-z_0-9.]+\+0x")


def oops_excerpt(log, most=14):
    """The telling lines of the first oops or panic in `log` (its head, CPU/Comm, RIP, the
    first frames, the panic line), at most `most`; [] when there is none."""
    lines = [ln.strip("\r").strip() for ln in log.splitlines()]
    lines = [re.sub(r"^\[\s*\d+\.\d+\]\s*", "", ln) for ln in lines]
    start = next((i for i, ln in enumerate(lines) if OOPS_START.search(ln)), None)
    if start is None:
        return []
    keep = [ln for ln in lines[start:] if OOPS_KEEP.search(ln)][:most - 1]
    panic = next((ln for ln in lines[start:] if "Kernel panic" in ln), None)
    if panic and panic not in keep:
        keep.append(panic)
    return keep


def run_qemu(cmd, timeout, logpath, progress):
    """Run QEMU, its console written to `logpath` as it comes; (log, why it ended) where why is
    "exited", "timeout" or "interrupted" (Ctrl-C: the guest is stopped, what came back kept)."""
    log, why = [], "exited"
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, preexec_fn=vcpus_first)
    buf = b""
    with open(logpath, "w") as lf:
        try:
            while True:
                left = timeout - (time.monotonic() - t0)
                if left <= 0:
                    why = "timeout"
                    break
                r, _, _ = select.select([p.stdout], [], [], min(left, 1.0))
                if not r:
                    continue
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
                *done, buf = buf.split(b"\n")
                for raw in done:
                    s = raw.decode(errors="replace").replace("\r", "")
                    log.append(s)
                    lf.write(s + "\n")
                    progress.line(s)
                lf.flush()
        except KeyboardInterrupt:
            why = "interrupted"
        finally:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            if buf:
                s = buf.decode(errors="replace").replace("\r", "")
                log.append(s)
                lf.write(s + "\n")
            lf.write(f"# {PROG}: {' '.join(shlex.quote(c) for c in cmd)}\n"
                     f"# ended: {why} after {time.monotonic() - t0:.1f} s\n")
    return "\n".join(log) + "\n", why


def qemu_command(kernel, initrd, accel, smp, memory, want_config):
    cpu = ["-accel", "kvm", "-cpu", "host"] if accel == "kvm" else ["-accel", "tcg", "-cpu", "max"]
    append = "console=ttyS0 quiet panic=-1 loglevel=3" + (" ucb.config" if want_config else "")
    if accel != "kvm":  # no clocksource watchdog to flip sched_clock's static keys (TCG_STALE_INT3)
        append += " tsc=reliable"
    return ["qemu-system-x86_64"] + cpu + ["-smp", str(smp), "-m", str(memory),
                                           "-kernel", kernel, "-initrd", initrd, "-append", append,
                                           "-nographic", "-no-reboot", "-nodefaults",
                                           "-serial", "stdio"]


# An int3 trap no handler claimed, under TCG, is the emulator's: a vCPU ran a stale translation
# of kernel text that text_poke_bp had already patched back (its int3 outlived the patch).  Seen
# in sched_clock_cpu, whose static keys flip when sched_clock is marked stable at boot and when the
# clocksource watchdog marks the TSC unstable (tsc=reliable spares that one: TCG's TSC is the
# host's clock), and in rcu_preempt; never under KVM.  It says nothing of the kernel's ucounts, so
# such a boot is booted again, at most STALE_INT3_BOOTS in all, and said.
TCG_STALE_INT3 = re.compile(r"Oops: int3: 0000 ")
STALE_INT3_BOOTS = 4  # CI met it in about 1 boot of 6.12 in 4: four in a row, 1 in 256


def boot(kernel, name, out, ucbench, commands, *, accel="tcg", timeout=900, smp=2,
         memory=1024, identity=None, quiet=False, log_name=None, plan=None):
    """Boot `kernel`, run `commands` in it, write OUT/NAME.CMD.json (each with kernel_matrix)
    and OUT/NAME.serial.log.  Returns a dict: verdict ("ok", "panic", "timeout", "interrupted",
    "bad-checksum", "no-output", "command-failed: …"), rcs {cmd: exit status}, docs {cmd: path},
    log, wall, release, guest_config (the options from /proc/config.gz, or None), oops
    (oops_excerpt of the log: [] when the kernel neither oopsed nor panicked), stale_int3 ([{log,
    oops}] of the boots before this one, each ended by TCG's stale int3 and booted again)."""
    log_name = log_name or f"{name}.serial.log"
    stem = log_name[:-len(".serial.log")] if log_name.endswith(".serial.log") else log_name
    stale = []
    while True:
        res = boot_once(kernel, name, out, ucbench, commands, accel, timeout, smp, memory,
                        identity or {}, quiet, log_name, plan, stale)
        if accel != "tcg" or res["verdict"] != "panic" or not res["oops"] \
                or not TCG_STALE_INT3.search(res["oops"][0]) or len(stale) + 1 >= STALE_INT3_BOOTS:
            return res
        kept = os.path.join(out, f"{stem}.boot{len(stale) + 1}.serial.log")
        os.replace(res["log"], kept)
        stale = stale + [{"log": kept, "oops": res["oops"]}]


def oops_said(res):
    """(tag, line) for the kernel's oops lines of every boot of a boot() result: tagged
    'kernel (boot N)' for those TCG's stale int3 ended, 'kernel' for the last."""
    for i, b in enumerate(res["stale_int3"], 1):
        for ln in b["oops"]:
            yield f"kernel (boot {i})", ln
    for ln in res["oops"]:
        yield "kernel", ln


def boot_once(kernel, name, out, ucbench, commands, accel, timeout, smp, memory, identity, quiet,
              log_name, plan, stale):
    """One boot of boot(); `stale` (the boots before it that TCG's stale int3 ended) is
    recorded in the documents."""
    os.makedirs(out, exist_ok=True)
    initrd, interp = build_initramfs(ucbench, commands)
    want_config = identity.get("config_source") is None
    cmd = qemu_command(kernel, initrd, accel, smp, memory, want_config)
    logpath = os.path.join(out, log_name)
    progress = Progress(name, quiet, plan)
    progress.show(f"booting ({accel}, {smp} vCPUs)" + (
        f": again, boot {len(stale)} hit TCG's stale int3 (see {stale[-1]['log']})"
        if stale else ""), force=True)
    t0 = time.monotonic()
    log, why = run_qemu(cmd, timeout, logpath, progress)
    wall = time.monotonic() - t0
    progress.end()
    docs, errs = parse(log)
    m = re.search(r"UCB-BOOT (\S+)", log)
    release = m.group(1) if m else None
    guest_config = None
    if "config" in docs and docs["config"][2]:
        try:
            guest_config = parse_config(gzip.decompress(docs["config"][1]).decode(errors="replace"))
        except (OSError, EOFError):
            pass
    want = [c[0] for c in commands]
    bad = [n for n in want if n in docs and not docs[n][2]]
    failed, saved, rcs = [], {}, {}
    km_kernel = dict(identity.get("kernel") or {})
    km_kernel["release"] = release or km_kernel.get("release")
    if guest_config is not None:
        km_kernel["config"] = {o: guest_config.get(o) for o in RECORDED}
        km_kernel["config_source"] = "/proc/config.gz in the guest"
    elif "config" in km_kernel:
        km_kernel["config_source"] = identity.get("config_source")
    else:
        km_kernel["config_source"] = None
    for n in want:
        if n not in docs or not docs[n][2]:
            continue
        rc, data, _ = docs[n]
        rcs[n] = rc
        try:
            doc = json.loads(data)
        except ValueError:
            failed.append(f"{n} exit status {rc}")  # killed by the timeout, or crashed
            continue
        km = {"emulated_timing": accel != "kvm", "accel": accel,
              "kernel_image": os.path.basename(kernel), "exit_status": rc,
              "boot_wall_s": round(wall, 1), "kernel": km_kernel,
              "guest_ucbench": {"path": ucbench, "linked": "dynamic" if interp else "static"},
              # Under TCG every time is emulated: compare refuses such documents.
              "where": "qemu-kvm" if accel == "kvm" else "qemu-tcg",
              "boots": len(stale) + 1}
        if stale:
            km["stale_int3_oops"] = [b["oops"] for b in stale]
        for k in ("round", "rounds"):
            if k in identity:
                km[k] = identity[k]
        doc["kernel_matrix"] = km
        path = os.path.join(out, f"{name}.{n}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
            f.write("\n")
        os.rename(path + ".tmp", path)
        saved[n] = path
    if why == "interrupted":
        verdict = "interrupted"
    elif "UCB-ALL-DONE" in log and not bad and not failed and all(n in docs for n in want):
        verdict = "ok"
    elif failed:
        verdict = "command-failed: " + ", ".join(failed)
    elif bad:
        verdict = "bad-checksum"
    elif why == "timeout":
        verdict = "timeout"
    elif "Kernel panic" in log:
        verdict = "panic"
    else:
        verdict = "no-output"
    # without where ucbench wrote the document in the guest, which is gone
    stderr = {n: re.sub(r"(?m)^ucbench: the document is in .*\n?", "", t).strip()
              for n, (t, ok) in errs.items()}
    stderr = {n: t for n, t in stderr.items() if t}
    return {"verdict": verdict, "rcs": rcs, "docs": saved, "log": logpath, "wall": wall,
            "release": release, "guest_config": guest_config, "stderr": stderr,
            "oops": oops_excerpt(log), "stale_int3": stale}


def kernel_identity(image, config, command_is_verify, check):
    """{kernel: {...}, config_source} for the image; Refusal when its config lacks an option."""
    if not os.path.isfile(image):
        raise Refusal(f"--kernel {image}: no such file")
    version = image_version(image)
    ident = {"image_sha256": sha256_file(image), "version": version,
             "release": version.split()[0] if version else None}
    how = None
    if config:
        if not os.path.isfile(config):
            raise Refusal(f"--config {config}: no such file")
        how = config
    else:
        config, how = find_config(image)
    if config:
        with open(config, errors="replace") as f:
            opts = parse_config(f.read())
        ident["config"] = {o: opts.get(o) for o in RECORDED}
        missing = missing_options(opts, command_is_verify)
        if missing and check:
            raise Refusal(missing_line(os.path.basename(image), how, missing))
    return {"kernel": ident, "config_source": how}
