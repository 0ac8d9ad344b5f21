#!/usr/bin/env python3
"""Table for bench/run_scan_bench.sh: vkml's scan kernels (GPU time, back
to back), GB/s (read + write) against the measured copy bandwidth,
torch.cumsum on CUDA, the CPU fallback and onnxruntime on the CPU, and the
largest error against NumPy.
usage: summarize_scan.py CASEDIR OUTDIR"""
import json
import os
import sys

import numpy as np

D, R = sys.argv[1], sys.argv[2]


def load(p):
    try:
        return json.load(open(p))
    except Exception:  # noqa: BLE001
        return None


peers = load(os.path.join(R, "peers.json")) or {"cases": {}}
copy = peers.get("copy_gbs")
print(open(os.path.join(R, "device.txt")).read().strip())
print(f"torch {peers.get('torch')}; device copy bandwidth (torch copy_, 64 MiB): "
      f"{copy:.0f} GB/s" if copy else "copy bandwidth: -")
print()
print("| case | vkml GPU ms | steps | GB/s | % of copy | torch.cumsum ms | vkml / torch | vkml CPU ms "
      "| GPU vs CPU | ORT CPU ms | max abs err vkml / torch |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
f = lambda v, p=3: f"{v:.{p}f}" if isinstance(v, (int, float)) else "-"  # noqa: E731
for line in open(os.path.join(R, "cases.txt")):
    name, dt, shape, axis = line.split()
    rp, cpu = load(f"{R}/{name}.replay.json"), load(f"{R}/{name}.cpu.json")
    pe = peers["cases"].get(name, {})
    gpu = rp["bench"].get("gpu_median_ms") if rp else None
    steps = len([p for p in rp.get("profile", []) if p.get("device") == "gpu"]) if rp else "-"
    n = int(np.prod([int(d) for d in shape.split("x")]))
    gbs = 2 * n * 4 / (gpu * 1e-3) / 1e9 if gpu else None
    cpu_ms = cpu["bench"]["median_ms"] if cpu else None
    err = "-"
    try:
        got = np.load(f"{D}/{name}.gpu/y.npy").astype(np.float64)
        want = np.load(f"{D}/{name}.want.npy").astype(np.float64)
        err = f"{np.abs(got - want).max():.2e}"
    except Exception as e:  # noqa: BLE001
        err = f"error {e}"
    te = pe.get("torch_max_abs_err")
    t = pe.get("torch_ms")
    print(f"| {name} {shape} axis {axis} | {f(gpu)} | {steps} | {f(gbs, 0)} | "
          f"{f(100 * gbs / copy if gbs and copy else None, 0)} | {f(t)} | "
          f"{f(gpu / t if gpu and t else None, 2)} | {f(cpu_ms, 1)} | "
          f"{f(cpu_ms / gpu if cpu_ms and gpu else None, 0)}x | {f(pe.get('ort_cpu_ms'), 1)} | "
          f"{err} / {f'{te:.2e}' if te is not None else '-'} |")
