# SPDX-License-Identifier: GPL-2.0-or-later
"""uid-lock.py - one owner per uid range (issue 35 D3, D4, D11-D13).

Two ucbench on one uid range share ucounts: two verifies gave false FAILs (an "over-admission"
that compare, JUnit and KCIDB report as a kernel failure), two runs thousands of failed ops
neither document mentioned.  Now each holds a lock on its range for as long as it lives
(/run/ucbench/uids.lock, byte U for uid U):

* verify x verify, 8 trials each: on one explicit --uid-base the second is refused in one line
  naming the first's pid (exit 1); on the default base both complete, on ranges that do not
  overlap (verify_uid_base), with the verdicts a lone verify gives;
* run x run, 9 trials each: the same, for runs (config.uid_base, the move in config.notes);
  no trial where both ran on one range at once;
* the uid rule: a --uid-base below the login range is refused (exit 2) naming the conflict and
  the valid range, by run and verify alike; an explicit --owner below it is warned about in the
  document's notes as well as on stderr.

Uses uids of its own (2108000000 ...) and the default ranges, which it leaves to the lock: a
default run or verify of another test beside it moves on, as these do."""
import json
import random
import subprocess

from taplib import (UCBENCH, Tap, doc_scratch, require_root_userns, run, uid_block, uid_locks,
                    uids_in_use, wait_for)

require_root_userns("owner uids other than your own need root")

t = Tap()
_, path, _ = doc_scratch("ucb-uid-lock-")
CASES = ["ULIM-01", "ULIM-11"]  # fast (a few ms each): the trials are about the lock
NCASES = sum(1 for ln in run(["verify", "--list"]).stdout.splitlines() if ln.startswith("ULIM-"))
SPAN = 100 * NCASES  # a verify's range: case i of the registry uses --uid-base + 100 i .. + 99
TRIALS_VERIFY, TRIALS_RUN = 8, 9
RUN = ["run", "-w", "getppid", "-c", "2", "--owner", "distinct", "--no-baseline", "-d", "1",
       "--warmup", "0", "--interval", "0.1", "-q"]  # the document: -o


def start(args, doc=None):
    """`ucbench ARGS` in the background; with `doc`, its document goes to that file (-o) and
    stdout is the short TAP: a pipe nobody reads yet must not hold it up once it is done."""
    p = subprocess.Popen([UCBENCH] + args + (["-o", doc] if doc else []),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p.doc = doc
    return p


def holds(p):
    """Wait until `p` holds a uid range (or has ended): its ranges."""
    mine = []

    def look():
        mine[:] = [(lo, hi) for lo, hi, pid in uid_locks() if pid == p.pid]
        return mine or p.poll() is not None
    wait_for(look, 30, 0.01)
    return mine


def finish(p):
    out, err = p.communicate(timeout=120)
    try:
        if p.doc:
            with open(p.doc) as f:
                doc = json.load(f)
        else:
            doc = json.loads(out)
    except (OSError, ValueError):
        doc = None
    return p.returncode, doc, err


def statuses(doc):
    return [(e["id"], e["status"]) for e in doc["verify"]] if doc else []


def verify_range(doc):
    b = doc.get("verify_uid_base")
    return (b, b + SPAN - 1) if isinstance(b, int) else None


def run_range(doc):
    b = doc["config"]["uid_base"]
    return (b, b + 1)  # RUN's 2 distinct owners


def disjoint(a, b):
    return a[1] < b[0] or b[1] < a[0]


# ---- a lone verify: the verdicts the concurrent ones must give ----
base = uid_block(2108000000, SPAN, room=100 * SPAN)
lone = run(["verify", *CASES, "-f", "json", "--uid-base", str(base)])
lone_st = statuses(json.loads(lone.stdout)) if lone.returncode in (0, 1) else None
t.ok(lone_st and lone.returncode == 0, f"a lone verify {' '.join(CASES)}: {lone_st}", lone.stderr)
lone_st = dict(lone_st or [])

# ---- verify x verify on one explicit --uid-base: the second refused, naming the first ----
refused, overlaps, bad = 0, [], []
for k in range(TRIALS_VERIFY):
    base = uid_block(2108000000, SPAN, room=100 * SPAN)
    a = start(["verify", *CASES, "-r", "40", "--uid-base", str(base)], path(f"va{k}.json"))
    held = holds(a)
    b = run(["verify", *CASES, "-f", "json", "--uid-base", str(base)])
    a_alive = a.poll() is None
    rc, doc, err = finish(a)
    lines = b.stderr.strip().splitlines()
    if b.returncode == 1 and len(lines) == 1 and f"ucbench pid {a.pid} holds" in lines[0] \
            and "--uid-base" in lines[0] and b.stdout == "":
        refused += 1
    elif b.returncode == 0 and not a_alive:
        pass  # the first had ended: no overlap, nothing to refuse
    else:
        overlaps.append(f"trial {k}: second exit {b.returncode}, first alive {a_alive}, held "
                        f"{held}: {b.stderr.strip()}")
    if rc != 0 or not doc or any(lone_st.get(i) != s for i, s in statuses(doc)):
        bad.append(f"trial {k}: first exit {rc}: {statuses(doc)} {err.strip()}")
t.ok(not overlaps, f"verify x verify, one --uid-base, {TRIALS_VERIFY} trials: no second verify "
     "ran beside the first", "\n".join(overlaps))
t.ok(refused >= 1, f"the second is refused in one line naming the first's pid (exit 1): "
     f"{refused} of {TRIALS_VERIFY} trials")
t.ok(not bad, "the first gives the lone verdicts", "\n".join(bad))

# ---- verify x verify on the default base: both complete, on ranges of their own ----
bad, moved, apart = [], 0, 0
for k in range(TRIALS_VERIFY):
    a = start(["verify", *CASES, "-r", "40"], path(f"vd{k}.json"))
    together = holds(a) and a.poll() is None  # else the first ended before the second began
    apart += not together
    b = start(["verify", *CASES], path(f"vdb{k}.json"))
    rb, db, eb = finish(b)
    ra, da, ea = finish(a)
    docs = [d for d in (da, db) if d]
    ranges = [verify_range(d) for d in docs]
    wrong = [(i, s) for d in docs for i, s in statuses(d) if lone_st.get(i) != s]
    moved += "was not free (ucbench pid" in eb
    if ra != 0 or rb != 0 or len(docs) != 2 or None in ranges or wrong \
            or (together and not disjoint(*ranges)):
        bad.append(f"trial {k}: exit {ra}/{rb}, ranges {ranges}, verdicts not the lone ones "
                   f"{wrong}: {ea.strip()} {eb.strip()}")
t.ok(not bad, f"verify x verify, default base, {TRIALS_VERIFY} trials: both complete on ranges "
     "that do not overlap (verify_uid_base), with the lone verdicts (no FAIL)", "\n".join(bad))
t.ok(moved >= 1, f"the second says where it moved and why (the first's pid): {moved} of "
     f"{TRIALS_VERIFY} trials ({apart} not side by side: the first ended before)")

# ---- run x run on one explicit --uid-base, and on the default one ----
overlaps, refused = [], 0
for k in range(TRIALS_RUN):
    ubase = uid_block(2108900000, 10, room=10000)
    a = start(RUN + ["--uid-base", str(ubase)], path(f"ra{k}.json"))
    holds(a)
    b = run(RUN + ["--uid-base", str(ubase)])
    a_alive = a.poll() is None
    rc, doc, err = finish(a)
    lines = b.stderr.strip().splitlines()
    if b.returncode == 1 and len(lines) == 1 and f"ucbench pid {a.pid} holds" in lines[0]:
        refused += 1
    elif not (b.returncode == 0 and not a_alive):
        overlaps.append(f"trial {k}: second exit {b.returncode}, first alive {a_alive}: "
                        f"{b.stderr.strip()}")
    if rc != 0:
        overlaps.append(f"trial {k}: the first exited {rc}: {err.strip()}")
t.ok(not overlaps and refused >= 1,
     f"run x run, one --uid-base, {TRIALS_RUN} trials: the second refused naming the first's "
     f"pid ({refused} trials) or run after it; never both at once", "\n".join(overlaps))

bad, moved, apart = [], 0, 0
for k in range(TRIALS_RUN):
    a = start(RUN, path(f"rda{k}.json"))
    together = holds(a) and a.poll() is None
    apart += not together
    b = start(RUN, path(f"rdb{k}.json"))
    rb, db, eb = finish(b)
    ra, da, ea = finish(a)
    docs = [d for d in (da, db) if d]
    ranges = [run_range(d) for d in docs]
    failed = [r["summary"]["failed_ops"] for d in docs for r in d["results"]]
    moved += bool(db) and any("was not free (ucbench pid" in n for n in db["config"]["notes"])
    if ra != 0 or rb != 0 or len(docs) != 2 or any(failed) \
            or (together and not disjoint(*ranges)):
        bad.append(f"trial {k}: exit {ra}/{rb}, ranges {ranges}, failed ops {failed}: "
                   f"{ea.strip()} {eb.strip()}")
t.ok(not bad, f"run x run, default base, {TRIALS_RUN} trials: both complete on owner uids that "
     "do not overlap (config.uid_base), no failed op", "\n".join(bad))
t.ok(moved >= 1, f"the second records the move and why in config.notes: {moved} of "
     f"{TRIALS_RUN} trials ({apart} not side by side: the first ended before)")

# ---- the uid rule (part 6): one function for run and verify ----
for args in (["run", "-w", "getppid", "-c", "1", "-d", "0.2", "--interval", "0.1",
              "--uid-base", "12"],
             ["verify", "ULIM-01", "--uid-base", "12"]):
    r = run(args)
    first = (r.stderr.strip().splitlines() or [""])[0]
    t.ok(r.returncode == 2 and "uid 12 is below the login range" in first
         and "valid: " in first and "/etc/subuid" in first and r.stdout == "",
         f"`{args[0]} --uid-base 12`: exit 2, one line naming the conflict and the valid range",
         r.stderr)
r = run(["verify", "--uid-base", "abc"])
t.ok(r.returncode == 2 and "expected the first of" in r.stderr and "/etc/login.defs" in r.stderr,
     "`verify --uid-base abc` says what range is valid", r.stderr)
# A uid below any login range (UID_MIN: 500 or 1000) that no process uses and no ucbench holds (a random one: this test
# may run beside itself).
used = uids_in_use()
own = random.choice([u for u in range(100, 500) if u not in used and not uid_locks(u, u)])
r = run(["run", "-w", "getppid", "-c", "1", "-d", "0.3", "--interval", "0.1", "--warmup", "0",
         "--owner", str(own), "-q", "-f", "json"])
try:
    notes = json.loads(r.stdout)["config"]["notes"]
except (ValueError, KeyError):
    notes = []
t.ok(r.returncode == 0 and any(f"--owner uid {own}: uid {own} is below" in n for n in notes)
     and f"warning: --owner uid {own}" in r.stderr,
     f"an explicit --owner {own} runs, warned about on stderr and in config.notes",
     r.stderr + str(notes))
t.done()
