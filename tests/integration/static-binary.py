# SPDX-License-Identifier: GPL-2.0-or-later
"""static-binary.py - a static ucbench (configure --enable-static-binary) runs on an ordinary
host: it must not call getpwent and friends, which load the host's NSS modules (systemd's, on
most distributions) into a static binary, where they crash it (issue 28: `run` and `verify`
died with SIGSEGV on such a host).  Users are read from /etc/passwd itself (host/users.c).
Skips when the ucbench under test is dynamically linked."""
import os
import struct
import subprocess

from taplib import Tap, UCBENCH, scratch_dir, skip_all

PT_INTERP = 3


def is_static(path):
    """An ELF executable without a program interpreter (PT_INTERP): statically linked."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:  # 64-bit ELF only (our builds)
            return False
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return all(struct.unpack_from("<I", table, i * phentsize)[0] != PT_INTERP
               for i in range(phnum))


exe = subprocess.run(["sh", "-c", f'command -v "{UCBENCH}"'], capture_output=True,
                     text=True).stdout.strip() or UCBENCH
if not os.path.exists(exe) or not is_static(exe):
    skip_all(f"{exe} is dynamically linked (configure --enable-static-binary builds a static one)")

t = Tap()
tmp = scratch_dir("ucb-static-")
runs = [("info", ["info"]),
        ("verify --list", ["verify", "--list"]),
        # every run checks its owner uids against the host's users (host/users.c)
        ("run -w getppid -c 1", ["run", "-w", "getppid", "-c", "1", "-d", "0.3", "--interval",
                                 "0.1", "-o", os.path.join(tmp, "run.json")])]
if os.geteuid() == 0:
    # each case checks its uids the same way before it runs
    runs.append(("verify ULIM-01", ["verify", "ULIM-01"]))
else:
    t.skip("verify ULIM-01", "needs root")
for what, args in runs:
    r = subprocess.run([exe] + args, capture_output=True, text=True, timeout=300, cwd=tmp)
    t.ok(r.returncode == 0, f"the static binary: `ucbench {what}` exits 0, not killed by a signal",
         f"exit status {r.returncode}\n" + r.stdout[-1500:] + r.stderr[-1500:])
t.done()
