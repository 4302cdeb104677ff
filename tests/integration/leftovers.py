"""leftovers.py - no message queue, shm segment or process outlives ucbench, whatever happens:
a normal end, SIGINT, or SIGKILL of ucbench in the middle of an mqueue or shmlock run."""
import os
import signal
import subprocess

from taplib import Tap, UCBENCH, alive, descendants, run, skip_all, tasks_of, userns_works, wait_for

if not userns_works():
    skip_all("user namespaces cannot be created here")
if os.geteuid() != 0:
    skip_all("owner modes need root (setresuid to the owner uids)")

t = Tap()


def shm_ids():
    with open("/proc/sysvipc/shm") as f:
        return {line.split()[1] for line in f.readlines()[1:]}


def mqueues():
    try:
        return set(os.listdir("/dev/mqueue"))
    except OSError:
        return set()


before_shm, before_mq = shm_ids(), mqueues()
base = 2100700000
for workload in ("mqueue", "shmlock"):
    for isolate in (["user,ipc"], ["user"]) if workload == "shmlock" else (["user,ipc"],):
        for sig in (None, signal.SIGINT, signal.SIGKILL):
            base += 100
            name = f"{workload} --isolate {isolate[0]} {signal.Signals(sig).name if sig else 'end'}"
            p = subprocess.Popen([UCBENCH, "run", "--workload", workload, "--containers", "3",
                                  "--tasks", "2", "--depth", "1", "--isolate", isolate[0],
                                  "--uid-base", str(base), "--warmup", "0.2",
                                  "--duration", "1" if sig is None else "30", "--interval", "0.25",
                                  "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            wait_for(lambda: len(tasks_of(p.pid)) == 6, 15)
            procs = descendants(p.pid)
            if sig is not None:
                wait_for(lambda: False, 0.8)  # let the ops run
                os.kill(p.pid, sig)
            _, err = p.communicate(timeout=60)
            gone = wait_for(lambda: not [q for q in procs if alive(q)], 5)
            clean = wait_for(lambda: shm_ids() <= before_shm and mqueues() <= before_mq, 5)
            t.ok(gone and clean and len(procs) >= 9,
                 f"{name}: no process, queue or segment left",
                 f"rc={p.returncode} {err} left shm={shm_ids() - before_shm} "
                 f"mq={mqueues() - before_mq}")

r = run(["run", "--workload", "mqueue", "--isolate", "user", "--containers", "1"])
t.ok(r.returncode == 2 and "IPC namespace" in r.stderr,
     "mqueue without a private IPC namespace is refused (its queues could outlive it)", r.stderr)
t.done()
