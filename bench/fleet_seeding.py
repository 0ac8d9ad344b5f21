#!/usr/bin/env python3
"""Seeding in the fleet of three (bench/run_fleet.sh): for one GPU, the
unseeded and the seeded tuning of the same workloads in one lease, from
their databases (`vkdb export`). Per workload, the trials (this device's
records in the order they were measured, the default first) each run needs
to come within 5 % of the unseeded run's best; a table and the totals.
usage: fleet_seeding.py VKDB UNSEEDED.db SEEDED.db"""
import json, subprocess, sys

vkdb, plain, seeded = sys.argv[1:4]


def curves(db):
    """{workload: [median_ns of this device's trials in order]} for the
    device that tuned last (the one whose records are newest)."""
    recs = [json.loads(l) for l in subprocess.run([vkdb, "--db", db, "export"], check=True,
                                                  capture_output=True, text=True).stdout.splitlines()]
    # trials only: a confirmation re-measures a point the walk already had
    recs = [r for r in recs if r["type"] == "record" and not r.get("confirmation")]
    dev = max(recs, key=lambda r: r["timestamp_us"])["device"]
    out = {}
    for r in sorted((r for r in recs if r["device"] == dev), key=lambda r: r["timestamp_us"]):
        ok = r["correct"] and not r["failed"] and r["median_ns"] is not None
        out.setdefault(r["workload"], []).append(r["median_ns"] if ok else float("inf"))
    return dev, out


dev, a = curves(plain)
dev2, b = curves(seeded)
assert dev == dev2, (dev, dev2)


def to_within(curve, target):
    best = float("inf")
    for i, v in enumerate(curve):
        best = min(best, v)
        if best <= target:
            return i + 1
    return None


rows, ta, tb, missed = [], 0, 0, 0
for w in sorted(a):
    if w not in b:
        continue
    target = 1.05 * min(a[w])
    na, nb = to_within(a[w], target), to_within(b[w], target)
    ta += na
    if nb is None:
        missed += 1
    else:
        tb += nb
    rows.append((w, na, nb, min(a[w]), min(b[w])))
print(f"device {dev}: {len(rows)} workloads; trials to within 5 % of the unseeded best: "
      f"unseeded {ta} in all, seeded {tb} in all ({missed} seeded runs never got there)")
print("| workload | unseeded best ns | seeded best ns | trials unseeded | trials seeded |")
print("|---|---|---|---|---|")
for w, na, nb, ba, bb in rows:
    print(f"| `{w[:60]}...` | {ba:.0f} | {bb:.0f} | {na} | {nb if nb is not None else 'never'} |")
