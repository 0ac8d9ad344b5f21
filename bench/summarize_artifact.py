#!/usr/bin/env python3
"""Tables for bench/run_artifact_bench.sh: whole-run latency (vkrun on the
.vkm, lean path) and GPU time next to torch + cuDNN in a CUDA graph with its
copies; the overhead split; load to first result cold and warm; the C API's
runs and device memory of 1 vs 8 instances; outputs against onnxruntime.
usage: summarize_artifact.py OUTDIR"""
import json
import os
import sys

import numpy as np

R = sys.argv[1]
MODELS = ["resnet50", "mobilenet_v2", "squeezenet1_1"]


def load(path):
    try:
        return json.load(open(path))
    except Exception:  # noqa: BLE001
        return None


peers = (load(os.path.join(R, "peers.json")) or {}).get("e2e", {})
print(open(os.path.join(R, "device.txt")).read().strip())
print()
print("Whole run, batch 1 (input upload, run, output download), median ms:")
print("| model | prec | vkrun block | vkrun spin | vkrun hybrid | p90 block | GPU time | replay (kernels) "
      "| overhead (block - GPU) | host copies | submit..fence | torch graph+copies | torch graph | max rel diff vs ORT |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for m in MODELS:
    for p in ["fp32", "fp16"]:
        a = os.path.join(R, "a", f"{m}.{p}")
        b, s, hy, pr, rp = (load(a + x) for x in [".bench.json", ".spin.json", ".hybrid.json",
                                                  ".prof.json", ".replay.json"])
        if not b:
            print(f"| {m} | {p} | failed |")
            continue
        gpu = pr["bench"].get("gpu_median_ms") if pr else None
        rep = rp["bench"]["median_ms"] if rp else None
        split = b.get("run_split_ms", {})
        diff = "-"
        try:
            got = np.load(a + ".out/output.npy").astype(np.float64)
            ref = np.load(os.path.join(R, "e2e", f"{m}.ort.npy")).astype(np.float64)
            diff = f"{np.abs(got - ref).max() / np.abs(ref).max():.1e}"
        except Exception as e:  # noqa: BLE001
            diff = f"error {e}"
        pe = peers.get(m, {})
        f = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "-"  # noqa: E731
        med = b["bench"]["median_ms"]
        print(f"| {m} | {p} | {f(med)} | {f(s['bench']['median_ms'] if s else None)} | "
              f"{f(hy['bench']['median_ms'] if hy else None)} | "
              f"{f(b['bench']['p90_ms'])} | {f(gpu)} | {f(rep)} | {f(med - gpu if gpu else None)} | "
              f"{f(split.get('host_copy'))} | {f(split.get('submit_wait'))} | "
              f"{f(pe.get(p + '_graph_io_ms'))} | {f(pe.get(p + '_graph_ms'))} | {diff} |")
print()
print("Load to first result (vkrun MODEL.vkm, one process), ms:")
print("| model | prec | cache | map+verify | device (instance / device) | weights | pipelines | first run | total | artifact MB | compile s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for m in MODELS:
    for p in ["fp32", "fp16"]:
        a = os.path.join(R, "a", f"{m}.{p}")
        size = os.path.getsize(a + ".vkm") / 1e6 if os.path.exists(a + ".vkm") else 0
        ct = open(a + ".compile.time").read().split()[0] if os.path.exists(a + ".compile.time") else "-"
        for c in ["cold", "warm"]:
            d = load(f"{a}.{c}.json")
            if not d or "load_ms" not in d:
                print(f"| {m} | {p} | {c} | failed |")
                continue
            l = d["load_ms"]
            print(f"| {m} | {p} | {c}{'' if l['pipeline_cache_warm'] == (c == 'warm') else ' (?)'} | "
                  f"{l['map']:.1f} | {l['device']:.1f} ({l['device_split']['instance']:.1f} / "
                  f"{l['device_split']['device']:.1f}) | {l['weights']:.1f} | {l['pipelines']:.1f} | "
                  f"{l['first_run']:.1f} | {l['total']:.1f} | {size:.1f} | {ct} |")
print()
print("C API (vkml-instances): whole runs on one instance, median ms; device memory, MB:")
print("| model | prec | set+run+get | run (zero copy) | set+run+get spin | run spin | run hybrid | weights | 1 instance: own | 1 instance: device used | 8 instances: device used | weights users |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for m in MODELS:
    for p in ["fp32", "fp16"]:
        d = load(os.path.join(R, "a", f"{m}.{p}.api.json"))
        if not d:
            print(f"| {m} | {p} | failed |")
            continue
        m1, mn = d["memory_1"], d["memory_n"]
        print(f"| {m} | {p} | {d['api_copies']['median_ms']:.3f} | {d['api_zero_copy']['median_ms']:.3f} | "
              f"{d['api_copies_spin']['median_ms']:.3f} | {d['api_zero_copy_spin']['median_ms']:.3f} | "
              f"{d['api_zero_copy_hybrid']['median_ms']:.3f} | "
              f"{m1['weights'] / 1e6:.2f} | {m1['instance'] / 1e6:.2f} | {m1['device_used'] / 1e6:.2f} | "
              f"{mn['device_used'] / 1e6:.2f} | {mn['weights_users']} |")
