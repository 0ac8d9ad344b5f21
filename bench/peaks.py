#!/usr/bin/env python3
"""Measures this GPU's ceilings with torch/CUDA in the same run as the vkml
benchmarks: device-to-device copy bandwidth (bytes read + written) and a
large fp32 matrix product with TF32 off (a practical fp32 FMA-rate bound) and
a large fp16 one (cuBLAS tensor cores, fp32 accumulation: the practical
ceiling for the cooperative-matrix GEMM).
Prints JSON."""
import json
import torch

def timed(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    ts.sort()
    return ts[len(ts) // 2]

n = 1 << 28  # 1 GiB of fp32
src, dst = torch.rand(n, device="cuda"), torch.empty(n, device="cuda")
t_copy = timed(lambda: dst.copy_(src))
torch.backends.cuda.matmul.allow_tf32 = False
m = 8192
a, b = torch.rand(m, m, device="cuda"), torch.rand(m, m, device="cuda")
t_mm = timed(lambda: a @ b, reps=10)
torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
ah, bh = a.half(), b.half()
t_h = timed(lambda: ah @ bh, reps=20)
print(json.dumps({"copy_GBps": 2 * 4 * n / t_copy / 1e9, "fp32_matmul_TFLOPs": 2 * m ** 3 / t_mm / 1e12,
                  "fp16_matmul_TFLOPs": 2 * m ** 3 / t_h / 1e12,
                  "torch": torch.__version__, "gpu": torch.cuda.get_device_name()}))
