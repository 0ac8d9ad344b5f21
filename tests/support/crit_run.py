#!/usr/bin/env python3
"""Runs shard K of N of a criterion test executable: lists its tests, keeps
every Nth (round robin over the listed order, so neighbouring tests of one
kind land in different shards) and runs them through one --filter. Every
test is in exactly one shard by construction, so a test added later is never
left out of the meson run.
Usage: shard.py EXE K N [criterion options...]   (0 <= K < N)"""
import os
import re
import subprocess
import sys


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


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    exe, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tests = list_tests(exe)
    mine = tests[k::n]
    if not mine:
        print(f"shard.py: shard {k} of {n} of {exe} holds no test "
              f"({len(tests)} listed): lower the shard count", file=sys.stderr)
        return 1
    pattern = f"@({'|'.join(f'{s}/{t}' for s, t in mine)})"
    print(f"shard {k} of {n}: {len(mine)} of {len(tests)} tests", flush=True)
    os.execv(exe, [exe, "--filter", pattern] + sys.argv[4:])


sys.exit(main())
