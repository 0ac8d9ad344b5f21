#!/usr/bin/env python3
"""Writes the scan benchmark's one-node graphs (NAME.vkir), their inputs
(NAME.x.npy, random, seed 0) and NumPy's float64 / int64 results
(NAME.want.npy) into DIR; prints "name dtype shape axis" per case.
usage: scan_cases.py DIR"""
import sys

import numpy as np

D = sys.argv[1]
CASES = [  # name, dtype, shape, axis
    ("row16m_f32", "f32", (1, 1 << 24), 1),
    ("row16m_i32", "i32", (1, 1 << 24), 1),
    ("rows4k_f32", "f32", (4096, 4096), 1),
    ("cols4k_f32", "f32", (4096, 4096), 0),
]
rng = np.random.default_rng(0)
for name, dt, shape, axis in CASES:
    dims = ",".join(str(d) for d in shape)
    with open(f"{D}/{name}.vkir", "w") as f:
        f.write(f"vkir 1\ngraph @{name}(%x: {dt}[{dims}]) -> (%y: {dt}[{dims}]) {{\n"
                f"  %y = cumsum %x {{axis={axis}}} : {dt}[{dims}]\n  return %y\n}}\n")
    if dt == "f32":
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        want = np.cumsum(x.astype(np.float64), axis=axis)
    else:
        x = rng.integers(-1000, 1000, size=shape, dtype=np.int32)
        want = np.cumsum(x.astype(np.int64), axis=axis).astype(np.int32)
    np.save(f"{D}/{name}.x.npy", x)
    np.save(f"{D}/{name}.want.npy", want)
    print(name, dt, "x".join(str(d) for d in shape), axis)
