#!/usr/bin/env python3
"""One line per vkml-sweep JSON file (DIR/sweep.*.json): the family's
default point and the fastest correct point, with its TFLOP/s and time
relative to the default. For the device scripts' summaries
(run_coop_api.sh, run_vgg_fp16.sh).
usage: sweep_best.py DIR"""
import glob
import json
import os
import sys

for f in sorted(glob.glob(os.path.join(sys.argv[1], "sweep.*.json"))):
    name = os.path.basename(f)[6:-5]
    try:
        points = json.load(open(f))["points"]
    except Exception:  # noqa: BLE001  (a sweep cut short writes no JSON)
        print(f"{name}: no JSON")
        continue
    ok = sorted((p for p in points if p.get("ok") and not p.get("wrong") and p.get("median_us")),
                key=lambda p: p["median_us"])
    if not ok:
        print(f"{name}: no correct point")
        continue
    d = [p for p in ok if p.get("default")]
    dflt = f"{d[0]['template']} {d[0]['schedule']} {d[0]['median_us']:.1f} us" if d else "?"
    b = ok[0]
    print(f"{name:48s} default {dflt}; best {b['template']} {b['schedule']} "
          f"{b['median_us']:.1f} us ({b['gflops'] / 1e3:.0f} TFLOP/s, x{b['vs_default']:.3f})")
