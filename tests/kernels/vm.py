#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vm.py - ucbench-vm end to end, TAP: a config without CONFIG_USER_NS refused before any boot;
a panic's own lines said; TCG's stale int3 booted again; one Debian cloud kernel; two (6.1
and 6.12: both verify documents and the difference, exit 0);
`--rounds 2` with run documents (booted alternately, marked emulated, compare refuses them);
with --mutant, the mutation score's baseline against a mutant (exit 1, the broken cells named).

usage: vm.py [--mutant]   (make check-kernels runs it after matrix.sh, which fetched the
kernels into $UCB_KCACHE; make check-kernel-mutants runs it with --mutant after mutants.sh)
Environment: UCBENCH_STATIC or UCBENCH, the ucbench put in the guest (a dynamic one brings its
libraries); UCB_KCACHE (default /var/cache/ucbench-kernels); UCB_VM_MUTANT (default
mutant-03-nproc-allows-limit-plus-one)."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
from taplib import Tap, skip_all  # noqa: E402

VM = os.path.join(TOP, "vm", "ucbench-vm")
CACHE = os.environ.get("UCB_KCACHE", "/var/cache/ucbench-kernels")
UCB = os.environ.get("UCBENCH_STATIC") or os.environ.get("UCBENCH") or os.path.join(TOP, "build", "ucbench")


def cloud(series):
    """The cloud kernel matrix.sh unpacked, and its config: (vmlinuz, config) or None."""
    imgs = sorted(glob.glob(f"{CACHE}/x/linux-image-{series}[.]*-cloud-amd64/boot/vmlinuz-*"))
    if not imgs:
        return None
    d, rel = os.path.dirname(imgs[-1]), os.path.basename(imgs[-1])[len("vmlinuz-"):]
    return imgs[-1], os.path.join(d, f"config-{rel}")


def vm(args, cwd, env=None, timeout=1800):
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-B", VM, "--ucbench", UCB] + args, cwd=cwd,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return p, time.monotonic() - t0


def load(path):
    with open(path) as f:
        return json.load(f)


def show(t, p):
    t.diag(f"exit status {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")


def fake_qemu(d, body):
    """The environment with a qemu-system-x86_64 first on PATH that runs `body` (sh) and exits
    0, as QEMU does after a panic with panic=-1."""
    fake = os.path.join(d, "bin", "qemu-system-x86_64")
    os.makedirs(os.path.dirname(fake))
    with open(fake, "w") as f:
        f.write(f"#!/bin/sh\n{body}\nexit 0\n")
    os.chmod(fake, 0o755)
    return dict(os.environ, PATH=os.path.dirname(fake) + ":" + os.environ["PATH"])


def config_refusal(t, k61):
    """A config without CONFIG_USER_NS: one line naming it, exit 2, and QEMU never started (a
    qemu-system-x86_64 first on PATH that leaves a mark)."""
    img, cfg = k61
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "no-userns.config")
        with open(cfg) as f, open(bad, "w") as g:
            g.writelines(line for line in f if "CONFIG_USER_NS" not in line)
        mark = os.path.join(d, "qemu-started")
        env = fake_qemu(d, f"touch {mark}")
        p, _ = vm(["--kernel", img, "--config", bad], d, env)
        lines = [x for x in p.stderr.splitlines() if "CONFIG_USER_NS" in x]
        t.ok(p.returncode == 2 and len(lines) == 1 and "scripts/config -e USER_NS" in lines[0],
             "a config without CONFIG_USER_NS: exit 2, one line naming it and how to enable it",
             p.stderr)
        t.ok(not os.path.exists(mark) and not glob.glob(os.path.join(d, "*.serial.log")),
             "... and no boot was attempted")


PANIC = """[    1.2] UCB-BOOT 6.1.0-fake
[    3.301] BUG: kernel NULL pointer dereference, address: 0000000000000008
[    3.302] Oops: 0002 [#1] PREEMPT SMP NOPTI
[    3.303] CPU: 1 PID: 77 Comm: ucbench Not tainted 6.1.0-fake #1
[    3.304] RIP: 0010:inc_rlimit_ucounts+0x2a/0x90
[    3.305] Call Trace:
[    3.306]  <TASK>
[    3.307]  __sigqueue_alloc+0x9c/0x160
[    3.308] Kernel panic - not syncing: Fatal exception
"""


def panic_said(t, k61):
    """A kernel that panics (a QEMU first on PATH that prints one, then exits 0 as QEMU does
    with panic=-1): exit 3, the verdict, and the oops's own lines said, since a CI log keeps
    ucbench-vm's output and not the serial log; booted once, as this oops is no emulator's."""
    with tempfile.TemporaryDirectory() as d:
        env = fake_qemu(d, f"echo >> {d}/boots\ncat <<'EOF'\n{PANIC}EOF")
        p, _ = vm(["--kernel", k61[0], "--accel", "tcg", "--", "verify", "ULIM-01"], d, env)
        said = [x.split(": kernel: ", 1)[1] for x in p.stderr.splitlines() if ": kernel: " in x]
        t.ok(p.returncode == 3 and any(": panic after " in x for x in p.stderr.splitlines())
             and boots(d) == 1
             and said == ["BUG: kernel NULL pointer dereference, address: 0000000000000008",
                          "Oops: 0002 [#1] PREEMPT SMP NOPTI",
                          "CPU: 1 PID: 77 Comm: ucbench Not tainted 6.1.0-fake #1",
                          "RIP: 0010:inc_rlimit_ucounts+0x2a/0x90", "Call Trace:",
                          "__sigqueue_alloc+0x9c/0x160", "Kernel panic - not syncing: Fatal exception"],
             "a panicking kernel: exit 3, 'panic', and the oops's lines (Comm, RIP, frames) said",
             p.stderr)


INT3 = """[    1.2] UCB-BOOT 6.12.0-fake
[    1.484678] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    1.484679] CPU: 0 UID: 0 PID: 0 Comm: swapper/0 Not tainted 6.12.0-fake #1
[    1.484680] RIP: 0010:sched_clock_cpu+0x9/0x190
[    1.484681] Call Trace:
[    1.484682]  <TASK>
[    1.484683]  update_rq_clock+0x35/0x1a0
[    1.484690] Kernel panic - not syncing: Fatal exception in interrupt
"""


def boots(d):
    """How many times the fake QEMU in `d` started."""
    try:
        with open(os.path.join(d, "boots")) as f:
            return len(f.read())
    except OSError:
        return 0


def stale_int3(t, k61):
    """TCG's stale int3 (an int3 trap no handler claimed: a vCPU ran a translation of kernel
    text patched back since) is the emulator's: booted again, said, recorded in the documents;
    a fourth one is the verdict.  A QEMU first on PATH prints the oops, then runs the real QEMU
    for the second boot."""
    real = shutil.which("qemu-system-x86_64")
    rel = os.path.basename(k61[0])[len("vmlinuz-"):]
    with tempfile.TemporaryDirectory() as d:
        again = f'[ $(wc -c < {d}/boots) -gt 1 ] && exec {real} "$@"'
        env = fake_qemu(d, f'echo >> {d}/boots\necho "$@" > {d}/args\n{again}\n'
                           f"cat <<'EOF'\n{INT3}EOF")
        p, _ = vm(["--kernel", k61[0], "--accel", "tcg", "--", "verify", "ULIM-01"], d, env)
        path = os.path.join(d, f"{rel}.verify.json")
        km = load(path).get("kernel_matrix", {}) if os.path.exists(path) else {}
        kept = os.path.join(d, f"{rel}.boot1.serial.log")
        t.ok(p.returncode == 0 and boots(d) == 2 and "booted again" in p.stderr
             and ": kernel (boot 1): Oops: int3: 0000 [#1]" in p.stderr
             and os.path.exists(kept) and "sched_clock_cpu" in open(kept).read(),
             "an int3 trap no handler claimed (TCG's): booted again, exit 0, the oops said and "
             "its serial log kept", p.stderr)
        t.ok(km.get("boots") == 2 and len(km.get("stale_int3_oops", [])) == 1
             and km["stale_int3_oops"][0][0].startswith("Oops: int3"),
             "... the document records it: kernel_matrix.boots 2, stale_int3_oops",
             json.dumps(km, indent=1))
        with open(os.path.join(d, "args")) as f:
            t.ok(" tsc=reliable" in f.read(), "... the TCG guest booted with tsc=reliable")
    with tempfile.TemporaryDirectory() as d:
        env = fake_qemu(d, f"echo >> {d}/boots\ncat <<'EOF'\n{INT3}EOF")
        p, _ = vm(["--kernel", k61[0], "--accel", "tcg", "--", "verify", "ULIM-01"], d, env)
        t.ok(p.returncode == 3 and boots(d) == 4 and ": panic after " in p.stderr
             and os.path.exists(os.path.join(d, f"{rel}.boot3.serial.log")),
             "a fourth stale int3 is the verdict: exit 3, 'panic', four boots", p.stderr)


def one_kernel(t, k61):
    img, cfg = k61
    with tempfile.TemporaryDirectory() as d:
        p, dt = vm(["--kernel", img, "--", "verify", "ULIM-01", "ULIM-11"], d)
        rel = os.path.basename(img)[len("vmlinuz-"):]
        path = os.path.join(d, f"{rel}.verify.json")
        if not t.ok(p.returncode == 0 and os.path.exists(path),
                    f"one kernel ({rel}): verify ULIM-01 ULIM-11 exit 0, {rel}.verify.json back "
                    f"({dt:.0f} s)", f"{p.stdout}\n{p.stderr}"):
            return
        km = load(path).get("kernel_matrix", {})
        k = km.get("kernel", {})
        t.ok(k.get("release") == rel and k.get("image_sha256") and k.get("config_source") == cfg
             and k.get("config", {}).get("CONFIG_USER_NS") == "y",
             "the document names the kernel: release from the guest, the image's sha256, the "
             "config options from config-RELEASE beside the image", json.dumps(km, indent=1))
        t.ok(km.get("accel") == "tcg" and km.get("emulated_timing") is True
             and km.get("where") == "qemu-tcg" and "accelerator: tcg" in p.stderr,
             "TCG said in one line and recorded: accel tcg, emulated_timing true",
             json.dumps(km, indent=1))
        cases = [c["id"] for c in load(path)["verify"]]
        t.ok(cases == ["ULIM-01", "ULIM-11"] and os.path.exists(os.path.join(d, f"{rel}.info.json")),
             "the command after -- ran (its two cases), and info came back too", cases)


def two_kernels(t, k61, k612):
    with tempfile.TemporaryDirectory() as d:
        # One case per rlimit: matrix.sh has just verified every case on both kernels.
        p, dt = vm(["--kernel", k61[0], "--kernel", k612[0], "--", "verify", "ULIM-01",
                    "ULIM-11", "ULIM-21", "ULIM-37", "ULIM-50"], d)
        docs = sorted(glob.glob(os.path.join(d, "*.verify.json")))
        t.ok(p.returncode == 0 and len(docs) == 2 and "breaks 0 case(s)" in p.stdout,
             f"two stock kernels (6.1, 6.12), a case per rlimit: exit 0, both verify documents, "
             f"nothing broken ({dt:.0f} s)", f"{p.stdout}\n{p.stderr}")
        t.ok("# 0 regression(s), 0 newly failing verify case(s)" in p.stdout,
             "the difference is ucbench compare's, for two verify documents", p.stdout)
        t.diag(p.stdout)


def rounds(t, k61, k612):
    with tempfile.TemporaryDirectory() as d:
        p, dt = vm(["--kernel", k61[0], "--kernel", k612[0], "--accel", "tcg", "--rounds", "2",
                    "--", "run", "--workload", "getppid", "--containers", "1", "--owner", "shared",
                    "--duration", "0.5", "--warmup", "0.1"], d)
        order = [x.split(": ")[1] for x in p.stderr.splitlines() if x.endswith("vCPUs) (0 s)")]
        r1, r2 = (os.path.basename(k[0])[len("vmlinuz-"):] for k in (k61, k612))
        want = [f"{r1}.r1", f"{r2}.r1", f"{r1}.r2", f"{r2}.r2"]
        t.ok(order == want, f"--rounds 2: booted alternately ({dt:.0f} s)", f"{order}\n{p.stderr}")
        docs = [os.path.join(d, f"{n}.run.json") for n in want]
        marks = [load(x)["kernel_matrix"] for x in docs if os.path.exists(x)]
        t.ok(len(marks) == 4 and all(m.get("emulated_timing") is True and m.get("rounds") == 2
                                     for m in marks),
             "four run documents, each marked emulated, with its round", marks)
        t.ok(p.returncode == 0 and "measured under emulation" in p.stdout
             and "not compared" in p.stderr,
             "compare refuses them, and ucbench-vm says so (exit 0: nothing to judge)",
             f"{p.returncode}\n{p.stdout}\n{p.stderr}")


def mutant(t):
    images = os.path.join(CACHE, "mutants-6.1", "images")
    name = os.environ.get("UCB_VM_MUTANT", "mutant-03-nproc-allows-limit-plus-one")
    base, head = (os.path.join(images, f"{n}.bzImage") for n in ("baseline", name))
    if not (os.path.exists(base) and os.path.exists(head)):
        t.skip("baseline against a mutant: exit 1 naming the broken cells",
               f"no {base} and {head} (tests/kernels/mutants.sh --series 6.1 --only {name} "
               "--build-only builds them)")
        return
    # the minimal kernels lack the config options ucbench-vm records; mutants.sh checked them
    cfg = os.path.join(CACHE, "mutants-6.1", "build", ".config")
    extra = ["--config", cfg, "--config", cfg] if os.path.exists(cfg) else ["--no-config-check"]
    with tempfile.TemporaryDirectory() as d:
        p, dt = vm(["--kernel", base, "--kernel", head, "--name", "baseline", "--name", name]
                   + extra, d)
        out = os.environ.get("UCB_VM_MUTANT_OUT")
        if out:
            with open(out, "w") as f:
                f.write(f"$ ucbench-vm --kernel baseline.bzImage --kernel {name}.bzImage ({dt:.0f} s, "
                        f"exit status {p.returncode})\n{p.stderr}{p.stdout}")
        broken = [x for x in p.stdout.splitlines() if x.startswith(f"# broken by {name}: ")]
        t.ok(p.returncode == 1 and broken and all(" NPROC " in x for x in broken),
             f"baseline against {name}: exit 1, the broken NPROC cells named ({dt:.0f} s)",
             f"{p.stdout}\n{p.stderr}")
        t.ok(any("NEWLY FAILING" in x for x in p.stdout.splitlines()),
             "... and compare's NEWLY FAILING lines", p.stdout)
        t.diag("\n".join(broken))


def main():
    t = Tap()
    if not os.access(UCB, os.X_OK):
        skip_all(f"no ucbench at {UCB} (UCBENCH_STATIC or UCBENCH)")
    if "--mutant" in sys.argv[1:]:
        mutant(t)
        t.done()
    p = subprocess.run([sys.executable, "-B", VM, "--help"], capture_output=True, text=True)
    t.ok(p.returncode == 0 and "--kernel" in p.stdout and "--rounds" in p.stdout,
         "ucbench-vm --help", p.stderr)
    k61, k612 = cloud("6.1"), cloud("6.12")
    if not k61:
        t.skip("ucbench-vm on Debian's cloud kernels", f"none in {CACHE}/x (matrix.sh fetches them)")
        t.done()
    config_refusal(t, k61)
    panic_said(t, k61)
    stale_int3(t, k61)
    one_kernel(t, k61)
    if k612:
        two_kernels(t, k61, k612)
        rounds(t, k61, k612)
    else:
        t.skip("two kernels", f"no 6.12 cloud kernel in {CACHE}/x")
    t.done()


if __name__ == "__main__":
    main()
