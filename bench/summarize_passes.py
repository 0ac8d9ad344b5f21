#!/usr/bin/env python3
"""Tables of bench/run_passes_h200.sh's results (markdown on stdout).
usage: summarize_passes.py OUTDIR"""
import json
import os
import sys

import numpy as np

PAPER = {"mobilenet_v1": (9.6, 2.3, 2.7), "mobilenet_v2": (13.2, 4.0, 3.8),
         "deeplabv3": (24.3, 3.6, 4.2)}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def mib(b):
    return f"{b / 2**20:.2f}"


def memory(R):
    print("### Intermediate memory (MiB = 2^20 bytes) per planner\n")
    print("| model | precision | naive | greedy | mcfp | best (default) | lower bound | "
          "best / bound | paper naive / greedy / mcfp (MB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m in PAPER:
        for p in ["fp32", "fp16"]:
            d = load(os.path.join(R, "mem", f"{m}.{p}.json"))
            if not d or "memory" not in d:
                print(f"| {m} | {p} | failed | | | | | | |")
                continue
            mem = d["memory"]
            b, lb = mem["intermediate_bytes"], mem["lower_bound"]
            print(f"| {m} | {p} | {mib(b['naive'])} | {mib(b['greedy'])} | {mib(b['mcfp'])} | "
                  f"{mib(b['best'])} | {mib(lb)} | {b['best'] / lb:.3f} | "
                  f"{' / '.join(str(x) for x in PAPER[m])} |")
    print()


def steps(d):
    prof = d.get("profile", [])
    gpu = [s for s in prof if s.get("device") == "gpu" and s.get("dispatch", True)]
    cpu = [s for s in prof if s.get("device") == "cpu"]
    return len(gpu), len(cpu), sum(s.get("ms", 0) for s in gpu)


def max_err(R, m, p, o):
    try:
        got = np.load(os.path.join(R, "e2e", f"{m}.{p}.{o}", "output.npy"))
        want = np.load(os.path.join(R, "e2e", f"{m}.ort.npy"))
        return f"{np.abs(got.astype(np.float64) - want).max():.2g}"
    except (OSError, ValueError):
        return "n/a"


def latency(R):
    peers = (load(os.path.join(R, "peers.json")) or {}).get("e2e", {})
    print("### End to end, batch 1, 224x224 (median of 50 whole runs: upload, run, download)\n")
    print("| model | precision | dispatches no-opt / opt | CPU steps | vkml ms no-opt | vkml ms opt | "
          "sum of kernel ms opt (replayed) | torch eager incl. I/O | torch CUDA graph | "
          "torch CUDA graph incl. I/O | vkml opt / graph incl. I/O | max abs err vs ORT (opt) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m in ["resnet50", "mobilenet_v2", "squeezenet1_1"]:
        for p in ["fp32", "fp16"]:
            a = load(os.path.join(R, "e2e", f"{m}.{p}.noopt.json"))
            b = load(os.path.join(R, "e2e", f"{m}.{p}.opt.json"))
            if not a or not b:
                print(f"| {m} | {p} | failed | | | | | | | | | |")
                continue
            na, _, _ = steps(load(os.path.join(R, "e2e", f"{m}.{p}.noopt.prof.json")) or {})
            nb, cb, kb = steps(load(os.path.join(R, "e2e", f"{m}.{p}.opt.prof.json")) or {})
            ta, tb = a["bench"]["median_ms"], b["bench"]["median_ms"]
            pe = peers.get(m, {})
            g = pe.get(p + "_graph_ms")
            gio = pe.get(p + "_graph_io_ms")
            eio = pe.get(p + "_io_ms")
            f = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "n/a"
            ratio = f"{tb / gio:.2f}" if gio else "n/a"
            print(f"| {m} | {p} | {na} / {nb} | {cb} | {ta:.3f} | {tb:.3f} | {kb:.3f} | {f(eio)} | "
                  f"{f(g)} | {f(gio)} | {ratio} | {max_err(R, m, p, 'opt')} |")
    print()


def main():
    R = sys.argv[1]
    dev = open(os.path.join(R, "device.txt")).read().strip().splitlines()[-1] \
        if os.path.exists(os.path.join(R, "device.txt")) else "?"
    print(f"Device: {dev}\n")
    memory(R)
    latency(R)


main()
