#!/usr/bin/env python3
"""The peers of bench/run_sort_bench.sh, same GPU, same call: prints the
sort and NMS tables from vkml's JSON (R) and the cases' files (D).
usage: sort_peers.py R D"""
import json
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, "bench")
from cuda_timing import cuda_ms  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
print(open(f"{R}/device.txt").read().strip())
print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")


def vk(name):
    rp = json.load(open(f"{R}/{name}.replay.json"))
    run = json.load(open(f"{R}/{name}.run.json"))
    cpu = json.load(open(f"{R}/{name}.cpu.json"))
    return rp["bench"]["gpu_median_ms"], run["bench"]["median_ms"], cpu["bench"]["median_ms"]


x = torch.empty(1 << 24, device="cuda")
copy = cuda_ms(lambda: x.clone())
print(f"copy bandwidth (torch clone of 64 MiB): {2 * 64 * 2**20 / copy / 1e6:.0f} GB/s")
cases = [line.split() for line in open(f"{R}/cases.txt")]

print("\n| sort case | vkml GPU ms | GB/s (4 B in, 8 B out) | torch ms | torch op | vkml / torch | vkml CPU ms | GPU vs CPU | indices equal |")
print("|---|---|---|---|---|---|---|---|---|")
for kind, name, shape, extra in cases:
    if kind != "sort":
        continue
    try:
        g, _, c = vk(name)
        xs = torch.from_numpy(np.load(f"{D}/{name}.x.npy")).cuda()
        got = np.load(f"{D}/{name}.gpu/y.npy")
        to_segment = None
        if name == "seg1m":
            o = np.load(f"{D}/{name}.o.npy")
            seg = torch.from_numpy(np.repeat(np.arange(len(o) - 1), np.diff(o))).cuda()
            start = torch.from_numpy(o[:-1]).cuda()

            def fn():  # lexsort: by key, then stably by segment (segment, key, position)
                p = torch.argsort(xs, stable=True)
                q = torch.argsort(seg[p], stable=True)
                return p[q]

            def to_segment(r):  # positions within their segments (untimed)
                return r - start[seg[r]]
            op = "argsort x2 (lexsort)"
        elif name == "rows":
            def fn():
                return torch.argsort(xs, dim=-1, descending=True, stable=True)
            op = "argsort rows"
        else:
            def fn():
                return torch.argsort(xs, stable=True)
            op = "argsort"
        t = cuda_ms(fn)
        ref = fn() if to_segment is None else to_segment(fn())
        ref = ref.cpu().numpy()
        n = xs.numel()
        print(f"| {name} {shape} {extra} | {g:.3f} | {n * 12 / g / 1e6:.0f} | {t:.3f} | {op} | "
              f"{g / t:.2f} | {c:.0f} | {c / g:.0f}x | {bool((got == ref).all())} |")
    except Exception as e:  # a failed case still prints its row
        print(f"| {name} | error {e} |")

print("\n| nonzero case | count | vkml GPU ms (stages) | vkml whole run ms | torch.nonzero ms (its host sync included) | vkml / torch | vkml CPU ms | GPU vs CPU | equal torch |")
print("|---|---|---|---|---|---|---|---|---|")
for kind, name, shape, extra in cases:
    if kind != "nonzero":
        continue
    try:
        g, whole, c = vk(name)
        xs = torch.from_numpy(np.load(f"{D}/{name}.x.npy")).cuda()
        t = cuda_ms(lambda: torch.nonzero(xs))
        ref = torch.nonzero(xs).t().cpu().numpy()
        got = np.load(f"{D}/{name}.gpu/y.npy")
        same = got.shape == ref.shape and bool((got == ref).all())
        print(f"| {name} {shape} | {ref.shape[1]} | {g:.3f} | {whole:.3f} | {t:.3f} | {g / t:.2f} | "
              f"{c:.0f} | {c / g:.0f}x | {same} |")
    except Exception as e:
        print(f"| {name} | error {e} |")

print("\n| nms case | candidates | kept | vkml GPU ms (stages) | vkml whole run ms | torchvision batched_nms ms | + score filter ms | one nms kernel (offset trick) + filter ms | vkml / batched_nms | vkml / one kernel | vkml CPU ms | GPU vs CPU | onnxruntime CPU ms | equal torchvision | equal onnxruntime |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
import onnxruntime as ort  # noqa: E402
for kind, name, shape, extra in cases:
    if kind != "nms":
        continue
    try:
        thr, iou, per = extra.split(",")
        thr, iou, per = float(thr), float(iou), int(per)
        g, whole, c = vk(name)
        b = np.load(f"{D}/{name}.b.npy")
        s = np.load(f"{D}/{name}.s.npy")
        bt, st = torch.from_numpy(b[0]).cuda(), torch.from_numpy(s[0]).cuda()
        nc = st.shape[0]
        mask = st > thr
        cls, box = mask.nonzero(as_tuple=True)
        cb, cs = bt[box], st[cls, box]
        t_nms = cuda_ms(lambda: torchvision.ops.batched_nms(cb, cs, cls, iou))

        def pipeline():
            c_, b_ = (st > thr).nonzero(as_tuple=True)
            return torchvision.ops.batched_nms(bt[b_], st[c_, b_], c_, iou), c_, b_
        t_all = cuda_ms(pipeline)
        trick = torchvision.ops.boxes._batched_nms_coordinate_trick

        def one_kernel():  # batched_nms's path for small inputs: one nms call
            c_, b_ = (st > thr).nonzero(as_tuple=True)
            return trick(bt[b_], st[c_, b_], c_, iou)
        t_one = cuda_ms(one_kernel)
        keep, kc, kb = pipeline()
        kc, kb = kc[keep].cpu().numpy(), kb[keep].cpu().numpy()
        tv = np.concatenate([np.stack([np.zeros(min(per, (kc == k).sum()), np.int64),
                                       np.full(min(per, (kc == k).sum()), k),
                                       kb[kc == k][:per]], -1) for k in range(nc)])
        got = np.load(f"{D}/{name}.gpu/o.npy")
        same_tv = got.shape == tv.shape and bool((got == tv).all())
        try:
            sess = ort.InferenceSession(f"{D}/{name}.onnx", providers=["CPUExecutionProvider"])
            feeds = {"b": b, "s": s}
            ref = sess.run(None, feeds)[0]
            import time
            ts = []
            for _ in range(5):
                t0 = time.perf_counter()
                sess.run(None, feeds)
                ts.append((time.perf_counter() - t0) * 1e3)
            ort_ms = sorted(ts)[2]
            same_ort = got.shape == ref.shape and bool((got == ref).all())
        except Exception as e:
            ort_ms, same_ort = float("nan"), f"onnxruntime: {str(e)[:80]}"
        print(f"| {name} {shape} | {len(cls)} | {len(got)} | {g:.3f} | {whole:.3f} | {t_nms:.3f} | "
              f"{t_all:.3f} | {t_one:.3f} | {g / t_all:.2f} | {g / t_one:.2f} | {c:.1f} | "
              f"{c / g:.0f}x | {ort_ms:.1f} | {same_tv} | {same_ort} |")
    except Exception as e:
        print(f"| {name} | error {e} |")

print("\nwhere the GPU time goes (vkrun --profile, ms per op kind, summed):")
for kind, name, shape, extra in cases:
    try:
        steps = json.load(open(f"{R}/{name}.replay.json"))["profile"]
        tot = {}
        for st in steps:
            tot[st["op"]] = tot.get(st["op"], 0) + st["ms"]
        n_merge = sum(st["op"] == "sort_merge" for st in steps)
        print(f"- {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in tot.items()) +
              f" ({n_merge} merge rounds)")
    except Exception as e:
        print(f"- {name}: profile {e}")
