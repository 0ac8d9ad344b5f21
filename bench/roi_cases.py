#!/usr/bin/env python3
"""Writes the RoiAlign benchmark's one-node graphs (NAME.vkir) and inputs
(NAME.x.npy, NAME.rois.npy, NAME.bi.npy; random, seed 0: an FPN-level
feature map, 1000 boxes inside it) into DIR; prints
"name oh ow ratio scale" per case.
usage: roi_cases.py DIR"""
import sys

import numpy as np

D = sys.argv[1]
N, C, H, W, R = 2, 256, 50, 68, 1000
SCALE = 0.125  # the map is 1/8 of the image
CASES = [("roi7", 7, 7, 2), ("roi14", 14, 14, 2), ("roi7_adaptive", 7, 7, 0)]
rng = np.random.default_rng(0)
x = rng.standard_normal((N, C, H, W)).astype(np.float32)
iw, ih = W / SCALE, H / SCALE
x1 = rng.uniform(0, 0.8 * iw, R)
y1 = rng.uniform(0, 0.8 * ih, R)
rois = np.stack([x1, y1, x1 + rng.uniform(8, 0.4 * iw, R), y1 + rng.uniform(8, 0.4 * ih, R)],
                axis=1).astype(np.float32)
bi = rng.integers(0, N, R).astype(np.int64)
for name, oh, ow, ratio in CASES:
    with open(f"{D}/{name}.vkir", "w") as f:
        f.write(f"vkir 1\ngraph @{name}(%x: f32[{N},{C},{H},{W}], %rois: f32[{R},4], "
                f"%bi: i64[{R}]) -> (%y: f32[{R},{C},{oh},{ow}]) {{\n"
                f"  %y = roi_align %x, %rois, %bi {{mode=avg, output_height={oh}, "
                f"output_width={ow}, sampling_ratio={ratio}, spatial_scale={SCALE}}} : "
                f"f32[{R},{C},{oh},{ow}]\n  return %y\n}}\n")
    np.save(f"{D}/{name}.x.npy", x)
    np.save(f"{D}/{name}.rois.npy", rois)
    np.save(f"{D}/{name}.bi.npy", bi)
    print(name, oh, ow, ratio, SCALE)
