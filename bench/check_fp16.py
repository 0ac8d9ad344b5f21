#!/usr/bin/env python3
"""The fp16 oracle for bench/run_artifact_bench.sh: re-creates export_e2e.py's
models and inputs (same seed, same order: identical random weights), runs
each in torch fp32 (CPU) and fp16 (CUDA, model.half()), and compares vkml's
fp16 output (OUTDIR/a/MODEL.fp16.out/output.npy) with both, and torch fp16
with torch fp32: the error fp16 itself brings on these random-weight models.
usage: check_fp16.py OUTDIR"""
import os, sys
import numpy as np
import torch, torchvision

R = sys.argv[1]
torch.manual_seed(0)
print("| model | torch fp16 vs fp32 | vkml fp16 vs torch fp32 | vkml fp16 vs torch fp16 | (max abs diff / max abs ref) |")
print("|---|---|---|---|---|")
for name in ["resnet50", "mobilenet_v2", "squeezenet1_1"]:
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    with torch.inference_mode():
        ref32 = model(x).numpy().astype(np.float64)
        ref16 = model.half().cuda()(x.half().cuda()).float().cpu().numpy().astype(np.float64)
    rel = lambda a, b: np.abs(a - b).max() / np.abs(b).max()  # noqa: E731
    try:
        ours = np.load(os.path.join(R, "a", f"{name}.fp16.out", "output.npy")).astype(np.float64)
        print(f"| {name} | {rel(ref16, ref32):.1e} | {rel(ours, ref32):.1e} | {rel(ours, ref16):.1e} | |")
    except Exception as e:  # noqa: BLE001
        print(f"| {name} | {rel(ref16, ref32):.1e} | error {e} | | |")
