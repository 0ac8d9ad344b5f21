#!/usr/bin/env python3
"""Tables of bench/run_tune_h100.sh's results (markdown on stdout): per
workload default vs tuned time, end to end default vs tuned next to torch in
a CUDA graph, and the annealing against exhaustive search.
usage: summarize_tune.py OUTDIR"""
import glob
import json
import math
import os
import sys

import numpy as np


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def workloads(R):
    print("### Per workload (conv / gemm), default vs tuned (median GPU time of the dispatch)\n")
    print("Speedup: the walk's (default / best stored time); confirmed: the best measured "
          "once more against the default, paired, 4x the runs (free of the walk's "
          "pick-the-minimum bias). Geometric means weighted by nodes.\n")
    print("| model | precision | workloads | nodes | trials measured | geomean speedup "
          "| geomean confirmed | confirmed min | confirmed max | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for f in sorted(glob.glob(os.path.join(R, "tune.*.json"))):
        d = load(f)
        _, m, p, _ = os.path.basename(f).split(".")
        if not d:
            print(f"| {m} | {p} | failed | | | | | | |")
            continue
        w = [x for x in d["workloads"] if x["default_ns"] and x["tuned_ns"]]
        cs = [x.get("confirmed_speedup") for x in w if x.get("confirmed_speedup")]
        nodes = sum(x["nodes"] for x in w)
        gc = d.get("geomean_confirmed_speedup")
        fm = lambda v, f: format(v, f) if isinstance(v, (int, float)) else "n/a"
        print(f"| {m} | {p} | {len(w)} | {nodes} | {d['measured']} | {d['geomean_speedup']:.3f} | "
              f"{fm(gc, '.3f')} | {fm(min(cs) if cs else None, '.2f')} | "
              f"{fm(max(cs) if cs else None, '.2f')} | {d['seconds']:.0f} |")
    print()
    for f in sorted(glob.glob(os.path.join(R, "tune.*.json"))):
        d = load(f)
        if not d:
            continue
        print(f"#### {os.path.basename(f)}\n")
        print("| op | nodes | default us | tuned us | speedup | confirmed | trials | best |")
        print("|---|---|---|---|---|---|---|---|")
        for x in d["workloads"]:
            dn, tn = x["default_ns"], x["tuned_ns"]
            s = f"{dn / tn:.2f}" if dn and tn else "n/a"
            c = x.get("confirmed_speedup")
            c = f"{c:.2f}" if c else "n/a"
            print(f"| {x['op']} `{x['key'][:70]}` | {x['nodes']} | {(dn or 0) / 1e3:.2f} | "
                  f"{(tn or 0) / 1e3:.2f} | {s} | {c} | {x['trials']} | "
                  f"{x['template']} {x['schedule']} |")
        print()


def e2e(R, peers):
    print("### End to end, batch 1, 224x224 (median of 50 whole runs incl. upload/download)\n")
    print("| model | precision | default ms | tuned ms | tuned speedup | torch CUDA graph ms "
          "| CUDA graph incl. I/O ms | tuned / graph incl. I/O | max abs err tuned vs ORT |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m in ["resnet50", "mobilenet_v2"]:
        for p in ["fp32", "fp16"]:
            a = load(os.path.join(R, f"e2e.{m}.{p}.default.json"))
            b = load(os.path.join(R, f"e2e.{m}.{p}.tuned.json"))
            if not a or not b:
                continue
            ta, tb = a["bench"]["median_ms"], b["bench"]["median_ms"]
            pe = peers.get(m, {})
            g, gio = pe.get(p + "_graph_ms"), pe.get(p + "_graph_io_ms")
            fm = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "n/a"
            err = "n/a"
            try:
                got = np.load(os.path.join(R, f"out.{m}.{p}.tuned", "output.npy"))
                want = np.load(os.path.join(R, "ort", f"{m}.ort.npy"))
                err = f"{np.abs(got.astype(np.float64) - want).max():.2g}"
            except (OSError, ValueError):
                pass
            ratio = f"{tb / gio:.2f}" if isinstance(gio, (int, float)) else "n/a"
            print(f"| {m} | {p} | {ta:.3f} | {tb:.3f} | {ta / tb:.3f} | {fm(g)} | {fm(gio)} | "
                  f"{ratio} | {err} |")
    print()


def main():
    R = sys.argv[1]
    peers = (load(os.path.join(R, "peers.json")) or {}).get("e2e", {})
    workloads(R)
    e2e(R, peers)
    sa = os.path.join(R, "sa_replay.txt")
    if os.path.exists(sa):
        print("### Annealing vs exhaustive search (vkml-sa-replay, 50 seeds)\n")
        print("```")
        print(open(sa).read().rstrip())
        print("```")


main()
