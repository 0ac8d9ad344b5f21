#!/usr/bin/env python3
"""Table for bench/run_inputs_bench.sh: whole-run median latency with the
inputs written where the kernels read them (direct) against staging copied
in (staged), blocking and spinning waits (median of the two interleaved
rounds' medians), the GPU time, torch + cuDNN in a CUDA graph with copies.
usage: summarize_inputs.py OUTDIR"""
import json
import os
import statistics
import sys

R = sys.argv[1]


def load(path):
    try:
        return json.load(open(path))
    except Exception:  # noqa: BLE001
        return None


def med(a, i, w):
    v = [load(f"{a}.{i}.{w}.{k}.json") for k in (1, 2)]
    v = [x["bench"]["median_ms"] for x in v if x]
    return statistics.median(v) if v else None


def host_copy(a, i, w):
    x = load(f"{a}.{i}.{w}.1.json")
    return (x or {}).get("run_split_ms", {}).get("host_copy")


peers = (load(os.path.join(R, "peers.json")) or {}).get("e2e", {})
print(open(os.path.join(R, "device.txt")).read().strip())
print()
print("Whole run, batch 1, median ms (inputs direct = written into device-local host-visible")
print("memory the kernels read; staged = host-visible staging copied in by the run):")
print("| model | prec | direct inputs | block direct | block staged | spin direct | spin staged "
      "| host copy direct / staged | GPU time | spin direct - GPU | torch graph+copies | outputs |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
f = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "-"  # noqa: E731
for m in ["resnet50", "mobilenet_v2", "squeezenet1_1"]:
    for p in ["fp32", "fp16"]:
        a = os.path.join(R, "a", f"{m}.{p}")
        d = load(f"{a}.direct.block.1.json")
        if not d:
            print(f"| {m} | {p} | failed |")
            continue
        pr = load(a + ".prof.json")
        gpu = pr["bench"].get("gpu_median_ms") if pr else None
        sd = med(a, "direct", "spin")
        cmpf = open(a + ".cmp").read().strip() if os.path.exists(a + ".cmp") else "-"
        print(f"| {m} | {p} | {d.get('direct_inputs')} | {f(med(a, 'direct', 'block'))} | "
              f"{f(med(a, 'staged', 'block'))} | {f(sd)} | {f(med(a, 'staged', 'spin'))} | "
              f"{f(host_copy(a, 'direct', 'block'))} / {f(host_copy(a, 'staged', 'block'))} | "
              f"{f(gpu)} | {f(sd - gpu if sd and gpu else None)} | "
              f"{f(peers.get(m, {}).get(p + '_graph_io_ms'))} | {cmpf} |")
