#!/usr/bin/env python3
"""Writes the TopK benchmark's one-node graphs (NAME.vkir) and inputs
(NAME.x.npy: random normal f32, seed 0) into DIR; prints
"name shape k" per case (topk along the last axis, largest, sorted).
usage: topk_cases.py DIR"""
import sys

import numpy as np

D = sys.argv[1]
CASES = [  # name, shape, k
    ("ssd", (1, 91, 8732), 200),      # per-class candidates of SSD300
    ("yolo", (1, 80, 10647), 100),    # per-class candidates of YOLOv3-416
    ("boxes", (1, 1, 10647 * 80), 1000),  # one row: the best 1000 of all scores
    ("logits", (64, 1, 1000), 5),     # top-5 of a batch of classifier outputs
]
rng = np.random.default_rng(0)
for name, shape, k in CASES:
    dims = ",".join(str(d) for d in shape)
    od = ",".join(str(d) for d in shape[:-1] + (k,))
    with open(f"{D}/{name}.vkir", "w") as f:
        f.write(f"vkir 1\ngraph @{name}(%x: f32[{dims}]) -> (%v: f32[{od}], %i: i64[{od}]) {{\n"
                f"  %v, %i = topk %x {{k={k}, axis=-1}} : f32[{od}], i64[{od}]\n"
                f"  return %v, %i\n}}\n")
    np.save(f"{D}/{name}.x.npy", rng.standard_normal(shape).astype(np.float32))
    print(name, "x".join(str(d) for d in shape), k)
