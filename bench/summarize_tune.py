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
    every = {}  # precision: workloads, nodes, sum of log speedups (walk, confirmed), trials
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
        acc = every.setdefault(p, [0, 0, 0.0, 0.0, 0])
        acc[0] += len(w)
        acc[1] += nodes
        wc = [x for x in w if x.get("confirmed_speedup")]
        acc[2] += sum(x["nodes"] * math.log(x["default_ns"] / x["tuned_ns"]) for x in w)
        acc[3] += sum(x["nodes"] * math.log(x["confirmed_speedup"]) for x in wc)
        acc[4] += d["measured"]
    for p, (nw, nn, ls, lc, ms) in sorted(every.items()):
        if len(glob.glob(os.path.join(R, f"tune.*.{p}.json"))) > 1 and nn:
            print(f"| all | {p} | {nw} | {nn} | {ms} | {math.exp(ls / nn):.3f} | "
                  f"**{math.exp(lc / nn):.3f}** | | | |")
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


def timing_check(R):
    """CHECK=1: the defaults timed one dispatch per submission (--chain 1),
    chained without the cache flush (--flush-mb 0) and as the tuner times
    them (chained, flushed), against the same convs and gemms in the whole
    model (vkc run --profile, default schedules)."""
    rows = []
    for f in sorted(glob.glob(os.path.join(R, "tune.*.json"))):
        _, m, p, _ = os.path.basename(f).split(".")
        new = load(f)
        if not new:
            continue
        by_key = {x["key"]: x for x in new["workloads"] if x["default_ns"]}
        nodes = sum(x["nodes"] for x in by_key.values())
        cells = []
        for v in ["chain1", "noflush"]:
            d = load(os.path.join(R, f"{v}.{m}.{p}.json"))
            got = {x["key"]: x for x in (d or {}).get("workloads", []) if x["default_ns"]}
            if not got or set(got) != set(by_key):
                cells.append(f"n/a ({len(got)} of {len(by_key)})")
                continue
            cells.append("%.1f" % (sum(x["nodes"] * x["default_ns"] for x in got.values()) / 1e3))
        cells.append("%.1f" % (sum(x["nodes"] * x["default_ns"] for x in by_key.values()) / 1e3))
        prof = load(os.path.join(R, f"profile.{m}.{p}.json"))
        e2e = load(os.path.join(R, f"e2e.{m}.{p}.default.json"))
        cells.append("%.1f" % (1e3 * sum(r["ms"] for r in prof["profile"]
                                         if r["op"] in ("conv2d", "gemm", "matmul")
                                         and r["device"] == "gpu"))
                     if prof and prof.get("profile") else "n/a")
        cells.append("%.1f" % (1e3 * e2e["bench"]["median_ms"]) if e2e else "n/a")
        rows.append(f"| {m} | {p} | {len(by_key)} | {nodes} | " + " | ".join(cells) + " |")
    if not rows or not glob.glob(os.path.join(R, "chain1.*.json")):
        return
    print("### Timing check: the defaults per dispatch against the model\n")
    print("Sums over the conv/gemm workloads of nodes x the default's time, timed: one "
          "dispatch per submission (--chain 1, the protocol before 2026-11-27); chained, 16 "
          "in a row, the later repeats' median (--flush-mb 0); chained with 128 MiB zeroed "
          "before each dispatch (the tuner's default). Next to the same ops' time inside the "
          "whole model (vkc run --profile, default schedules) and the whole run (incl. I/O).\n")
    print("| model | precision | workloads | nodes | one per submission us | chained us "
          "| chained, flushed us | in the model us | whole run us |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()


def main():
    R = sys.argv[1]
    peers = (load(os.path.join(R, "peers.json")) or {}).get("e2e", {})
    workloads(R)
    timing_check(R)
    e2e(R, peers)
    sa = os.path.join(R, "sa_replay.txt")
    if os.path.exists(sa):
        print("### Annealing vs exhaustive search (vkml-sa-replay, 50 seeds)\n")
        print("```")
        print(open(sa).read().rstrip())
        print("```")


main()
