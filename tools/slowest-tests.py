#!/usr/bin/env python3
"""Prints the N slowest tests of a meson test log (meson-logs/testlog.json),
so a creeping test is seen before it reaches its timeout.
Usage: slowest-tests.py BUILD_DIR [N]"""
import json
import sys

def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    log = sys.argv[1] + "/meson-logs/testlog.json"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    try:
        with open(log) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except OSError as e:
        print(f"slowest-tests: {log}: {e.strerror}", file=sys.stderr)
        return 1
    rows.sort(key=lambda r: r["duration"], reverse=True)
    print(f"== the {min(n, len(rows))} slowest tests ==")
    for r in rows[:n]:
        print(f"{r['duration']:8.1f} s  {r['name']}  ({r['result']})")
    return 0

sys.exit(main())
