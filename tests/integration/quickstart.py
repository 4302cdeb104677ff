# SPDX-License-Identifier: GPL-2.0-or-later
"""quickstart.py - scripts/quickstart says what it is doing: one line per stage (apt, configure,
build, run) with its elapsed time, and the apt stage names what it installs.  apt-get and
dpkg-query are stubs here (one package reported missing, the install recorded), and the build
is this build directory, already up to date."""
import os
import re
import subprocess

from taplib import SRCDIR, UCBENCH, Tap, scratch_dir

t = Tap()
stubs = scratch_dir("ucb-qs-")
calls = os.path.join(stubs, "calls")
with open(os.path.join(stubs, "dpkg-query"), "w") as f:
    # Everything installed but mandoc: the apt stage must run.
    f.write('#!/bin/sh\nfor a; do last=$a; done\n[ "$last" = mandoc ] && exit 1\n'
            'echo "install ok installed"\n')
with open(os.path.join(stubs, "apt-get"), "w") as f:
    # apt's size line on stdout, its progress on the Status-Fd quickstart asks for (fd 3).
    f.write(f'#!/bin/sh\necho "apt-get $*" >> {calls}\n'
            'case "$*" in *Status-Fd=3*)\n'
            '  echo "Need to get 1234 kB of archives."\n'
            '  for p in 5 50 100; do echo "dlstatus:1:$p:Retrieving file 1 of 1" >&3; done\n'
            '  for p in 40 100; do echo "pmstatus:mandoc:$p:Installing mandoc" >&3; done;;\n'
            'esac\n')
for name in ("dpkg-query", "apt-get"):
    os.chmod(os.path.join(stubs, name), 0o755)
env = dict(os.environ, PATH=stubs + ":" + os.environ["PATH"],
           BUILDDIR=os.path.dirname(os.path.abspath(UCBENCH)))
r = subprocess.run([os.path.join(SRCDIR, "scripts", "quickstart"), "run", "--help"],
                   capture_output=True, text=True, env=env, timeout=600)
lines = [ln for ln in r.stderr.splitlines() if ln.startswith("quickstart: ")]
t.ok(r.returncode == 0 and "Usage: ucbench run" in r.stdout, "quickstart run --help runs ucbench",
     r.stderr)
for st in ("apt", "configure", "build", "run"):
    start = [ln for ln in lines if ln.startswith(f"quickstart: {st}: ")]
    done = [ln for ln in lines if re.fullmatch(rf"quickstart: {st} done in \d+\.\d s", ln)]
    t.ok(len(start) >= 1 and len(done) == 1, f"stage {st}: a line when it starts and its time",
         lines)
order = [ln.split()[1].rstrip(":") for ln in lines if " done in " in ln]
t.ok(order == ["apt", "configure", "build", "run"], "the stages in order", order)
t.ok(any("installing mandoc" in ln for ln in lines), "apt names what it installs", lines)
# apt's progress, not minutes of silence: its size line, then a line per tenth reached.
prog = [ln for ln in lines if re.match(r"quickstart: apt: (Need to get|download|install) ", ln)]
t.ok(prog == ["quickstart: apt: Need to get 1234 kB of archives.",
              "quickstart: apt: download 50% (Retrieving file 1 of 1)",
              "quickstart: apt: download 100% (Retrieving file 1 of 1)",
              "quickstart: apt: install 40% (Installing mandoc)",
              "quickstart: apt: install 100% (Installing mandoc)"],
     "apt shows its download size and its progress", lines)
try:
    with open(calls) as f:
        got = f.read()
except OSError:
    got = ""
t.ok("apt-get update" in got and re.search(r"apt-get install .*\bmandoc\b", got),
     "apt-get update, then install of the missing package", got)
t.done()
