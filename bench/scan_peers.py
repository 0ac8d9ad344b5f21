#!/usr/bin/env python3
"""Peers of the scan benchmark on the same device, same run: torch.cumsum
on CUDA (CUDA events around each call, median of 50 after 5; tensors
resident), onnxruntime's CumSum on the CPU (median of 5 after 1), and the
device copy bandwidth (torch y.copy_(x) of 64 MiB, read + write bytes over
the median time). Prints one JSON object.
usage: scan_peers.py DIR CASES_TXT"""
import json
import statistics
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_timing import cuda_ms  # noqa: E402

D, CASES = sys.argv[1], sys.argv[2]
out = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "cases": {}}


x = torch.empty(1 << 24, device="cuda")
y = torch.empty_like(x)
out["copy_gbs"] = 2 * x.numel() * 4 / (cuda_ms(lambda: y.copy_(x)) * 1e-3) / 1e9

for line in open(CASES):
    name, dt, shape, axis = line.split()
    axis = int(axis)
    xn = np.load(f"{D}/{name}.x.npy")
    r = {}
    try:
        xt = torch.from_numpy(xn).cuda()
        r["torch_ms"] = cuda_ms(lambda: torch.cumsum(xt, dim=axis))
        want = np.load(f"{D}/{name}.want.npy")
        got = torch.cumsum(xt, dim=axis).cpu().numpy()
        r["torch_max_abs_err"] = float(np.abs(got.astype(np.float64) - want).max())
    except Exception as e:  # noqa: BLE001
        r["torch_error"] = str(e)
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
        et = TensorProto.FLOAT if dt == "f32" else TensorProto.INT32
        g = helper.make_graph(
            [helper.make_node("CumSum", ["x", "axis"], ["y"])], name,
            [helper.make_tensor_value_info("x", et, list(xn.shape))],
            [helper.make_tensor_value_info("y", et, list(xn.shape))],
            [helper.make_tensor("axis", TensorProto.INT64, [], [axis])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
        m.ir_version = 8
        s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        s.run(None, {"x": xn})
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            s.run(None, {"x": xn})
            ts.append((time.perf_counter() - t0) * 1e3)
        r["ort_cpu_ms"] = statistics.median(ts)
    except Exception as e:  # noqa: BLE001
        r["ort_error"] = str(e)
    out["cases"][name] = r
print(json.dumps(out, indent=1))
