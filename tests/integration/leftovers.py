# SPDX-License-Identifier: GPL-2.0-or-later
"""leftovers.py - no message queue, shm segment or process outlives ucbench, whatever happens:
a normal end, SIGINT, or SIGKILL of ucbench in the middle of an mqueue or shmlock run."""
import os
import signal
import subprocess

from taplib import RunProcs, Tap, UCBENCH, mqueues_of, ran, require_root_userns, run, shm_of
from taplib import uid_block, wait_for

require_root_userns("owner modes need root (setresuid to the owner uids)")

t = Tap()

# What one run left: its objects (taplib's shm_of, mqueues_of), not "more than before".
base = uid_block(2100700000, 1000)  # + 100 per round, 3 containers
for workload in ("mqueue", "shmlock"):
    for isolate in (["user,ipc"],):
        for sig in (None, signal.SIGINT, signal.SIGKILL):
            base += 100
            name = f"{workload} --isolate {isolate[0]} {signal.Signals(sig).name if sig else 'end'}"
            p = subprocess.Popen([UCBENCH, "run", "--workload", workload, "--no-baseline",
                                  "--containers", "3",
                                  "--tasks", "2", "--depth", "1", "--isolate", isolate[0],
                                  "--uid-base", str(base), "--warmup", "0.2",
                                  "--duration", "1" if sig is None else "30", "--interval", "0.25",
                                  "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            procs = RunProcs(p)
            # held until its 6 tasks are seen: a 1 s run must not end unseen on a busy host
            with procs.hold_tasks(6) as tasks:
                pass
            if sig is not None:
                # in the middle of the ops: every task has done some (used CPU time)
                wait_for(lambda: ran(tasks or [], 0.05))
                os.kill(p.pid, sig)
            _, err = p.communicate(timeout=60)
            gone = procs.gone()
            uids = set(range(base, base + 3))  # shared: base; distinct: base .. base + 2
            clean = wait_for(lambda: not shm_of(procs.seen, uids) and not mqueues_of(uids))
            seen = tasks is not None and len(procs.snapshot) >= 9
            missed = not seen and procs.busy_missed()
            if gone and clean and missed:  # what was not seen cannot be said to be gone
                t.skip(f"{name}: no process, queue or segment left", missed)
                continue
            t.ok(gone and clean and seen, f"{name}: no process, queue or segment left",
                 f"rc={p.returncode} {err} left shm={shm_of(procs.seen, uids)} "
                 f"mq={mqueues_of(uids)} processes={procs.left()} missed={procs.missed}")

for workload in ("mqueue", "shmlock"):
    for extra in (["--isolate", "user"], ["--depth", "0"]):
        r = run(["run", "--workload", workload, *extra, "--containers", "1"])
        t.ok(r.returncode == 2 and "IPC namespace" in r.stderr,
             f"{workload} {' '.join(extra)}: refused without a private IPC namespace (its "
             "objects could outlive it)", r.stderr)
t.done()
