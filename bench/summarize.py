#!/usr/bin/env python3
"""Turns the JSON written by run_h200.sh into the markdown tables recorded in
bench/results/. usage: summarize.py OUTDIR"""
import json, os, sys
import numpy as np

R = sys.argv[1]
peaks = json.load(open(os.path.join(R, "peaks.json")))
fp32_peak = 65e12   # plain fp32 FMA, H200 register-only microbenchmark (DESIGN.md)
copy_bw = peaks["copy_GBps"] * 1e9
print(f"ceilings: copy {peaks['copy_GBps']:.0f} GB/s (measured here, torch d2d copy); "
      f"fp32 matmul {peaks['fp32_matmul_TFLOPs']:.1f} TFLOP/s (torch, TF32 off); "
      f"fp32 FMA peak taken as 65 TFLOP/s (DESIGN.md microbenchmark)\n")
print("| kernel | template / schedule | GPU ms (mean of 50) | GFLOP/s | GB/s | % fp32 peak | % copy BW |")
print("|---|---|---|---|---|---|---|")
for line in open(os.path.join(R, "kernels.txt")):
    name, flops, nbytes = line.split()
    flops, nbytes = int(flops), int(nbytes)
    try:
        d = json.load(open(os.path.join(R, "k", name + ".json")))
        steps = d["profile"]
        ms = sum(s["ms"] for s in steps)
        where = "+".join(s["device"] for s in steps)
        kern = "; ".join(f"{s.get('kernel', '')} {s.get('schedule', '')}".strip() or s["device"] for s in steps)
    except Exception as e:  # noqa: BLE001 - report, don't hide
        print(f"| {name} | failed: {e} | | | | | |")
        continue
    s = ms / 1e3
    print(f"| {name} | {kern} ({where}) | {ms:.4f} | {flops / s / 1e9:.0f} | {nbytes / s / 1e9:.0f} | "
          f"{100 * flops / s / fp32_peak:.1f} | {100 * nbytes / s / copy_bw:.1f} |")
print("\n| model | precision | median ms (50 runs) | max abs err vs onnxruntime | max |ref| | top-1 agrees |")
print("|---|---|---|---|---|---|")
for m in ["resnet50", "mobilenet_v2", "squeezenet1_1"]:
    ref_path = os.path.join(R, "e2e", m + ".ort.npy")
    if not os.path.exists(ref_path):
        print(f"| {m} | | export failed | | | |")
        continue
    ref = np.load(ref_path)
    for p in ["fp32", "fp16"]:
        try:
            d = json.load(open(os.path.join(R, "e2e", f"{m}.{p}.json")))
            got = np.load(os.path.join(R, "e2e", f"{m}.{p}", "output.npy"))
            err = float(np.abs(got - ref).max())
            top = bool((got.argmax(1) == ref.argmax(1)).all())
            print(f"| {m} | {p} | {d['bench']['median_ms']:.3f} | {err:.3g} | {float(np.abs(ref).max()):.3g} | {top} |")
        except Exception as e:  # noqa: BLE001
            print(f"| {m} | {p} | failed: {e} | | | |")
