#!/usr/bin/env python3
"""Runs a criterion test executable for meson, guarded against hangs.

Sharding: with K N, it lists the executable's tests, keeps every Nth (round
robin over the listed order, so neighbouring tests of one kind land in
different shards) and runs them through one --filter. Every test is in
exactly one shard by construction, so a test added later is never left out.

Hang guard: under ASan and load, criterion's runner (BoxFort) has been seen
to hang with its freshly forked worker deadlocked before exec (diagnosed in
run_guarded: detected within seconds, the run repeated). Any other run still
going after GUARD seconds is a hang too. Either way the process tree is
printed (each process's kernel stack and wait channel, and gdb's backtrace
of every thread when gdb is installed, as CI installs it), it is killed and
the run repeated; the repeat's result is the test's, and the log says HANG.
A test that keeps hanging still fails.

GUARD is multiplied by $VKML_GUARD_SCALE (CI sets 4 for the sanitizer pass,
whose meson timeouts are 4x too).

Usage: crit_run.py GUARD EXE [K N] -- [criterion options...]   (0 <= K < N)"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time


def list_tests(exe):
    out = subprocess.run([exe, "--list"], check=True, capture_output=True, text=True).stdout
    suite, names = None, []
    for line in out.splitlines():
        m = re.match(r"^(\S+): \d+ tests?$", line)
        if m:
            suite = m.group(1)
            continue
        m = re.match(r"^[├└]── (\S+)$", line)
        if m and suite:
            names.append((suite, m.group(1)))
    return names


def tree(pid):
    """pid and its descendants, from /proc."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def report_hang(pid):
    for p in tree(pid):
        info = []
        for what in ["cmdline", "wchan", "stack"]:
            try:
                with open(f"/proc/{p}/{what}", "rb") as f:
                    info.append(f"{what}: " + f.read().replace(b"\0", b" ").decode(errors="replace").strip())
            except OSError:
                pass
        try:
            with open(f"/proc/{p}/status") as f:
                info += [l.strip() for l in f if l.startswith(("State:", "Threads:"))]
        except OSError:
            pass
        print(f"  pid {p}: " + " | ".join(info), flush=True)
    gdb = shutil.which("gdb")
    if not gdb:
        print("  (no gdb here: no user-space backtraces)", flush=True)
        return
    for p in tree(pid):
        try:
            bt = subprocess.run([gdb, "-p", str(p), "-batch", "-nx", "-ex", "set pagination off",
                                 "-ex", "thread apply all bt 30"], capture_output=True, text=True,
                                timeout=120).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            bt = f"gdb failed: {e}"
        keep = [l for l in bt.splitlines() if l.startswith(("#", "Thread"))]
        print(f"  backtraces of pid {p}:\n    " + "\n    ".join(keep[:120]), flush=True)


def read_cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None


def unexeced_children(pid):
    """Children of the runner still running the runner's own image: BoxFort
    forks a worker, which execs itself as "boxfort-worker" within
    milliseconds; one that has not is stuck between fork and exec."""
    mine = read_cmdline(pid)
    return [c for c in tree(pid)[1:] if mine and read_cmdline(c) == mine]


# A worker forked but not exec'd for this long is deadlocked (see below).
FORK_STUCK_S = 10
FORK_ATTEMPTS = 10


def run_guarded(argv, guard):
    """Runs argv; repeats it after a hang (once) or a fork deadlock (up to
    FORK_ATTEMPTS runs in all).

    The fork deadlock, diagnosed with the backtraces this script prints: under
    ASan, a worker BoxFort has forked blocks in malloc before its exec, on the
    ASan allocator's region mutex that the runner's nanomsg thread held at
    the moment of fork (GCC 12's libasan has no fork handlers; LLVM added
    them in version 17). It is a race, seen only under ASan and load; the
    worker never recovers, so it is detected within FORK_STUCK_S seconds and
    the run repeated, instead of waiting for the general guard."""
    hangs = forks = 0
    while True:
        proc = subprocess.Popen(argv, start_new_session=True)
        t0 = time.monotonic()
        first_seen = {}
        why = None
        while why is None:
            try:
                return proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            stuck = unexeced_children(proc.pid)
            first_seen = {c: first_seen.get(c, now) for c in stuck}
            if any(now - t >= FORK_STUCK_S for t in first_seen.values()):
                forks += 1
                why = (f"a worker forked {FORK_STUCK_S} s ago has not exec'd (fork deadlock "
                       f"{forks}; at most {FORK_ATTEMPTS} runs)")
            elif now - t0 >= guard:
                hangs += 1
                why = f"still running after {guard} s (hang {hangs})"
        print(f"HANG: {argv[0]}: {why}; process tree:", flush=True)
        report_hang(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if hangs >= 2 or forks >= FORK_ATTEMPTS:
            return 124


def main():
    args = sys.argv[1:]
    if "--" not in args or len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sep = args.index("--")
    head, crit = args[:sep], args[sep + 1:]
    guard, exe = float(head[0]) * float(os.environ.get("VKML_GUARD_SCALE", "1")), head[1]
    if len(head) == 4:
        k, n = int(head[2]), int(head[3])
        tests = list_tests(exe)
        mine = tests[k::n]
        if not mine:
            print(f"crit_run.py: shard {k} of {n} of {exe} holds no test "
                  f"({len(tests)} listed): lower the shard count", file=sys.stderr)
            return 1
        crit = ["--filter", f"@({'|'.join(f'{s}/{t}' for s, t in mine)})"] + crit
        print(f"shard {k} of {n}: {len(mine)} of {len(tests)} tests", flush=True)
    elif len(head) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return run_guarded([exe] + crit, guard)


sys.exit(main())
