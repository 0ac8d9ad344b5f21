#!/usr/bin/env python3
"""Turns the JSON written by run_h200.sh into the markdown tables recorded in
bench/results/, with the peer's (torch on CUDA, peers.json) columns next to
vkml's when the run has them. usage: summarize.py OUTDIR"""
import json, os, sys
import numpy as np

R = sys.argv[1]
peaks = json.load(open(os.path.join(R, "peaks.json")))
try:
    peers = json.load(open(os.path.join(R, "peers.json")))
except Exception as e:  # noqa: BLE001 - the tables stand without the peer
    print(f"(no peer columns: peers.json: {e})\n")
    peers = {}
peer_k, peer_e = peers.get("kernels", {}), peers.get("e2e", {})


def peer_ms(d, key):
    """A peer time, or "-" / the error."""
    if key in d:
        return d[key]
    err = d.get("error") or d.get(key.replace("_ms", "_error"))
    return f"failed: {err}" if err else None


def cell(v, fmt="{:.4f}"):
    return "-" if v is None else (fmt.format(v) if isinstance(v, float) else str(v))


def ratio(a, b):
    return f"{a / b:.2f}" if isinstance(a, float) and isinstance(b, float) and b > 0 else "-"


fp32_peak = 65e12   # plain fp32 FMA, H200 register-only microbenchmark (the team's register-only microbenchmark, bench/results/2026-11-22-h200-run2.md)
copy_bw = peaks["copy_GBps"] * 1e9
print(f"ceilings: copy {peaks['copy_GBps']:.0f} GB/s (measured here, torch d2d copy); "
      f"fp32 matmul {peaks['fp32_matmul_TFLOPs']:.1f} TFLOP/s (torch, TF32 off); "
      f"fp32 FMA peak taken as 65 TFLOP/s (register-only microbenchmark, bench/results/2026-11-22-h200-run2.md)\n")
if peers.get("torch"):
    print(f"peer: torch {peers['torch']} (CUDA {peers.get('cuda')}, cuDNN {peers.get('cudnn')}) on "
          f"{peers.get('gpu')}, TF32 off, cudnn.benchmark on; kernels: CUDA events, median of 50 "
          f"after 5 (conv2d + bias: vkml also applies the fused ReLU); end to end: median of 50 "
          f"after 10\n")
elif peers.get("error"):
    print(f"peer: {peers['error']}\n")
print("| kernel | template / schedule | GPU ms (median of 50, replayed) | GFLOP/s | GB/s | % fp32 peak | % copy BW "
      "| torch ms | vkml / torch |")
print("|---|---|---|---|---|---|---|---|---|")
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
        ms, why = None, e
    t = peer_ms(peer_k.get(name, {}), "ms")
    if ms is None:
        print(f"| {name} | failed: {why} | | | | | | {cell(t)} | - |")
        continue
    s = ms / 1e3
    print(f"| {name} | {kern} ({where}) | {ms:.4f} | {flops / s / 1e9:.0f} | {nbytes / s / 1e9:.0f} | "
          f"{100 * flops / s / fp32_peak:.1f} | {100 * nbytes / s / copy_bw:.1f} | {cell(t)} | "
          f"{ratio(ms, t)} |")
fp16_peak = peaks.get("fp16_matmul_TFLOPs")
fp16_rows = [l.split() for l in open(os.path.join(R, "kernels.txt"))
             if os.path.exists(os.path.join(R, "k", l.split()[0] + ".fp16.json"))]
if fp16_rows:
    print(f"\nfp16 (f16 storage, fp32 accumulation; one-group conv2d, gemm and matmul on the NV "
          f"cooperative-matrix templates where the device has them). Ceiling: torch fp16 matmul 8192^3 "
          f"{cell(fp16_peak, '{:.0f}')} TFLOP/s measured here (cuBLAS tensor cores).\n")
    print("| kernel | template / schedule | GPU ms (median of 50, replayed) | GFLOP/s | "
          "% of torch fp16 matmul | vs own fp32 |")
    print("|---|---|---|---|---|---|")
    for name, flops, nbytes in fp16_rows:
        flops = int(flops)
        try:
            steps = json.load(open(os.path.join(R, "k", name + ".fp16.json")))["profile"]
            steps = [x for x in steps if x["op"] != "cast"]  # the f32 edges of the model
            ms = sum(x["ms"] for x in steps)
            kern = "; ".join(f"{x.get('kernel', '')} {x.get('schedule', '')}".strip() or x["device"]
                             for x in steps)
            f32 = sum(x["ms"] for x in json.load(open(os.path.join(R, "k", name + ".json")))["profile"])
            pk = f"{100 * flops / (ms / 1e3) / (fp16_peak * 1e12):.1f}" if fp16_peak else "-"
            print(f"| {name} | {kern} | {ms:.4f} | {flops / (ms / 1e3) / 1e9:.0f} | {pk} | "
                  f"{f32 / ms:.2f}x |")
        except Exception as e:  # noqa: BLE001
            print(f"| {name} | failed: {e} | | | | |")
print("\nvkml's end-to-end time includes the input upload and output download; \"torch ms\" has "
      "the input on the device already, \"torch ms incl. I/O\" copies it from and the output "
      "back to the host (what vkml's time covers).")
print("\n| model | precision | median ms (50 runs) | max abs err vs onnxruntime | max |ref| | top-1 agrees "
      "| torch ms | torch ms incl. I/O | vkml / torch (incl. I/O) |")
print("|---|---|---|---|---|---|---|---|---|")
for m in ["resnet50", "mobilenet_v2", "squeezenet1_1"]:
    ref_path = os.path.join(R, "e2e", m + ".ort.npy")
    pe = peer_e.get(m, {})
    if not os.path.exists(ref_path):
        for p in ["fp32", "fp16"]:
            print(f"| {m} | {p} | export failed | | | | {cell(peer_ms(pe, p + '_ms'), '{:.3f}')} | "
                  f"{cell(peer_ms(pe, p + '_io_ms'), '{:.3f}')} | - |")
        continue
    ref = np.load(ref_path)
    for p in ["fp32", "fp16"]:
        t, tio = peer_ms(pe, p + "_ms"), peer_ms(pe, p + "_io_ms")
        peer = f"{cell(t, '{:.3f}')} | {cell(tio, '{:.3f}')}"
        try:
            d = json.load(open(os.path.join(R, "e2e", f"{m}.{p}.json")))
            got = np.load(os.path.join(R, "e2e", f"{m}.{p}", "output.npy"))
            err = float(np.abs(got - ref).max())
            top = bool((got.argmax(1) == ref.argmax(1)).all())
            ms = float(d['bench']['median_ms'])
            print(f"| {m} | {p} | {ms:.3f} | {err:.3g} | {float(np.abs(ref).max()):.3g} | {top} | "
                  f"{peer} | {ratio(ms, tio)} |")
        except Exception as e:  # noqa: BLE001
            print(f"| {m} | {p} | failed: {e} | | | | {peer} | - |")
        try:
            d = json.load(open(os.path.join(R, "e2e", f"{m}.{p}.nc4hw4.json")))
            got = np.load(os.path.join(R, "e2e", f"{m}.{p}.nc4hw4", "output.npy"))
            err = float(np.abs(got - ref).max())
            top = bool((got.argmax(1) == ref.argmax(1)).all())
            ms = float(d['bench']['median_ms'])
            print(f"| {m} | {p} nc4hw4 | {ms:.3f} | {err:.3g} | {float(np.abs(ref).max()):.3g} | "
                  f"{top} | | | |")
        except Exception as e:  # noqa: BLE001
            print(f"| {m} | {p} nc4hw4 | failed: {e} | | | | | | |")
ort = [(m, peer_e[m]["ort_cpu_ms"]) for m in ["resnet50", "mobilenet_v2", "squeezenet1_1"]
       if isinstance(peer_e.get(m, {}).get("ort_cpu_ms"), float)]
if ort:
    v = next((peer_e[m].get("ort_version") for m, _ in ort), "?")
    print(f"\nonnxruntime {v} on the device's CPU (fp32, median of 20 runs): " +
          ", ".join(f"{m} {t:.2f} ms" for m, t in ort))
